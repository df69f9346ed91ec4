"""`renolab bench`: the reference scenario, the report's rows, the ns-2 side, the grid sweep.

Tiny configurations only (1 simulated second); no timing assertions.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from renolab import bench
from renolab.cli import main
from renolab.scenario import Scenario

REPO = Path(__file__).resolve().parents[2]
NS2_SCRIPT = REPO / "benchmarks" / "dumbbell.tcl"
needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (no `ns` on PATH)")


def _rows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _sim_row(text: str, name: str) -> str:
    """The table row of simulator *name* (its name, then the run wall time)."""
    matches = [line for line in _rows(text) if re.match(rf"{re.escape(name)}\s+\d", line)]
    assert matches, f"no row for {name!r} in:\n{text}"
    return matches[0]


def _row(text: str, start: str) -> str:
    matches = [line for line in _rows(text) if line.startswith(start)]
    assert matches, f"no row starting with {start!r} in:\n{text}"
    return matches[0]


def _cells(row: str) -> list[str]:
    """The cells of a table row (columns are two or more spaces apart)."""
    return re.split(r"\s{2,}", row)


def test_the_bdp_buffer_is_1667_packets_at_1_gbps():
    assert bench.bdp_packets(1_000_000_000) == 1667
    assert bench.bdp_packets(10_000_000_000) == 16667


def test_the_one_flow_scenario_has_the_settings_of_reference_dumbbell_toml():
    ours = bench.reference_scenario(1).validate()
    reference = Scenario.from_toml(REPO / "benchmarks" / "reference_dumbbell.toml").validate()
    ours_flow, ref_flow = ours["flow"][0], reference["flow"][0]
    for key in ("variant", "mss", "header_bytes", "start", "bytes"):
        assert ours_flow.get(key) == ref_flow.get(key), key
    assert ours_flow["receiver"]["delayed_ack"] is False
    for key in ("window", "initial_window", "initial_rto", "min_rto", "clock_granularity"):
        assert ours_flow["options"][key] == ref_flow["options"][key], key
    links = {link["name"]: link for link in ours["link"]}
    ref_links = {link["name"]: link for link in reference["link"]}
    assert set(links) == set(ref_links) == {"access", "bottleneck", "egress"}
    for name in links:
        for key in ("from", "to", "rate", "delay"):
            assert links[name][key] == ref_links[name][key], (name, key)
    assert links["bottleneck"]["queue"]["kind"] == "droptail"
    assert links["bottleneck"]["queue"]["limit"] == 1667
    assert ours["simulation"]["duration"] == reference["simulation"]["duration"]
    # Like for like with ns-2: its one-way agents' semantics.
    assert ours["simulation"]["profile"] == "ns2"


def test_flows_start_ten_milliseconds_apart_on_their_own_access_links():
    scenario = bench.reference_scenario(3, duration="1s").to_dict()
    assert [f["src"] for f in scenario["flow"]] == ["s1", "s2", "s3"]
    assert [f["start"] for f in scenario["flow"]] == ["0ms", "10ms", "20ms"]
    assert [link["name"] for link in scenario["link"]] == [
        "access1", "access2", "access3", "bottleneck", "egress1", "egress2", "egress3"
    ]
    bench.reference_scenario(3, duration="1s").validate()


@pytest.mark.parametrize(
    ("text", "seconds"), [("30s", 30.0), ("500ms", 0.5), ("1.5min", 90.0), ("2", 2.0), ("250us", 250e-6)]
)
def test_durations_parse(text, seconds):
    assert bench.parse_duration(text) == pytest.approx(seconds)


def test_renolab_alone_prints_its_row_and_the_python_overhead(capsys):
    code = main(["bench", "--flows", "1", "--duration", "1s", "--repeat", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "reference dumbbell: 1 Reno flow, 1 Gb/s bottleneck (1667-packet DropTail)" in out
    header = _row(out, "simulator")
    for column in ("run wall s", "process wall s", "peak RSS MB", "events/s", "delivered pkts", "delivered pkts/s"):
        assert column in header
    row = _sim_row(out, "renolab")
    assert "n/a" not in row, "renolab reports its events/s and RSS"
    delivered = re.search(r" (\d{1,3}(?:,\d{3})+) ", row)
    assert delivered and int(delivered.group(1).replace(",", "")) > 10_000, row
    assert _row(out, "Python overhead: Scenario.run()")
    assert _row(out, "ns-2: not run")


@needs_ns2
def test_against_ns2_prints_both_rows_the_ratio_and_agreeing_packet_counts(capsys):
    code = main(["bench", "--against", "ns2", "--flows", "1", "--flows", "2", "--duration", "1s", "--repeat", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("reference dumbbell:") == 2
    assert "2 Reno flows" in out
    ns2 = _sim_row(out, "ns-2").split()
    assert "n/a" in ns2, "ns-2 has no event counter"
    assert _row(out, "ratio renolab/ns-2 (delivered pkts/s): min ")
    agree = [line for line in _rows(out) if line.startswith("delivered packets")]
    assert len(agree) == 2
    assert all(line.startswith("delivered packets agree: renolab ") for line in agree), agree


@needs_ns2
def test_the_ns2_script_delivers_what_renolab_delivers():
    ns2 = bench.run_ns2(2, 1_000_000_000, 1.0, 1667, NS2_SCRIPT)
    ours = bench.run_renolab(bench.reference_scenario(2, duration="1s"))
    assert ns2.events is None and ours.events and ours.events > 0
    assert ns2.delivered > 10_000
    assert abs(ours.delivered - ns2.delivered) <= 0.02 * ns2.delivered
    assert ours.peak_rss_bytes is None or ours.peak_rss_bytes > 0


def test_a_measured_run_counts_every_packet_put_on_every_link():
    scenario = bench.reference_scenario(2, duration="0.2s")
    run = bench.run_renolab(scenario)
    links = scenario.run().links
    assert run.transmissions == int(links["packets_sent"].sum())
    # Each delivered data packet crossed the access link, the bottleneck and the egress link,
    # and ACKs came back over three more.
    assert run.transmissions > 3 * run.delivered
    assert run.transmissions_per_s == run.transmissions / run.run_wall_s


def test_the_ns2_script_has_tracing_off():
    text = NS2_SCRIPT.read_text()
    for tracing in ("trace-all", "namtrace-all", "trace-queue", "monitor-queue"):
        assert tracing not in text


def test_without_ns2_the_report_says_why(monkeypatch, capsys):
    monkeypatch.setattr(bench, "ns2_executable", lambda: None)
    code = main(["bench", "--against", "ns2", "--flows", "1", "--duration", "0.5s", "--repeat", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert _row(out, "ns-2: skipped: ns-2 is not installed")
    assert not any(line.startswith("ratio") for line in _rows(out))


@pytest.mark.parametrize(
    "argv",
    [
        ["--repeat", "0"],
        ["--flows", "zero"],
        ["--duration", "1 parsec"],
        ["--against", "ns3"],
        ["--against", "ns2", "--ns2-script", "/nonexistent/dumbbell.tcl"],
    ],
)
def test_bad_options_give_one_error_line_and_exit_2(argv, capsys):
    code = main(["bench", *argv])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("renolab: error: "), err


def test_the_lee2001_grid_has_72_points_and_sweeps_on_worker_processes():
    points = bench.lee2001_grid_points()
    assert len(points) == 72 == len(set(points))
    assert {variant for _, _, variant in points} == {"reno", "newreno", "sack"}
    subset = [p for p in points if p[0] == 1 and p[1] == 5]
    assert len(subset) == 3
    run = bench.run_lee2001_grid(jobs=2, points=subset)
    assert run.workers == 2 and len(run.points) == 3
    assert all(completion is not None and completion > 0 for _, _, _, completion, _, _ in run.points)
    report = bench.format_grid([run])
    assert "lee2001 grid: 3 runs" in report and "3/3 transfers finished" in report
    assert "wall time: min " in report


def test_bench_is_a_subcommand_of_the_installed_command():
    renolab = shutil.which("renolab")
    if renolab is None:
        pytest.skip("the renolab command is not on PATH")
    out = subprocess.run([renolab, "bench", "--help"], capture_output=True, text=True, check=True).stdout
    for option in ("--against", "--flows", "--repeat", "--duration", "--large", "--lee2001-grid"):
        assert option in out


def test_python_cc_compares_the_python_reno_with_the_builtin_and_they_agree(capsys):
    code = main(["bench", "--python-cc", "--duration", "0.5s", "--repeat", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Python controller examples/python_reno.py:Reno against the built-in reno" in out
    assert "reference dumbbell: 1 Reno flow" not in out, "no other case by default"
    builtin, python = _sim_row(out, "built-in reno"), _sim_row(out, "Python")
    assert builtin.split()[-2:] == ["-", "-"], builtin
    assert re.search(r"\d{1,3}(,\d{3})+\s+\d+(\.\d+)? [kM]$", python), python
    assert _row(out, "speed of the Python controller / the built-in's: median")
    assert "retransmits, timeouts and drops: identical" in out


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("reno", "--python-cc: 'reno': give FILE.py:Class or python:<module>:<Class>"),
        ("nowhere.py:Reno", "nowhere.py: controller file not found (run from the source tree or give its path)"),
        ("python:no_such_module:Reno", "flow[0].variant: cannot import no_such_module"),
    ],
)
def test_python_cc_with_a_bad_controller_is_one_error_line(value, message, capsys):
    code = main(["bench", "--python-cc", value, "--duration", "0.1s", "--repeat", "1"])
    lines = capsys.readouterr().err.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"renolab: error: {message}"), lines


def test_scaling_rows_cover_the_three_axes_and_share_equal_cases():
    rows = bench.scaling_rows(10.0)
    assert [(r.axis, r.case.flows, r.case.bottleneck_bps, r.case.duration_s) for r in rows] == [
        ("flows", 1, 10**10, 10.0),
        ("flows", 10, 10**10, 10.0),
        ("flows", 100, 10**10, 10.0),
        ("flows", 1000, 10**10, 10.0),
        ("bottleneck", 1, 10**8, 10.0),
        ("bottleneck", 1, 10**9, 10.0),
        ("bottleneck", 1, 10**10, 10.0),
        ("bottleneck", 1, 10**11, 10.0),
        ("duration", 1, 10**9, 10.0),
        ("duration", 1, 10**9, 30.0),
        ("duration", 1, 10**9, 100.0),
    ]
    assert rows[0].case is rows[6].case and rows[5].case is rows[8].case
    assert len({id(r.case) for r in rows}) == 9
    # Issue 18's 1000-flow scenario: a one-BDP buffer, flows 1 ms apart, default limits.
    thousand = rows[3].case
    assert thousand.buffer_packets == 16667
    assert [f["start"] for f in thousand.scenario().to_dict()["flow"][:3]] == ["0ms", "1ms", "2ms"]
    thousand.scenario().validate()


def test_scaling_prints_a_row_per_case_with_events_per_packet_and_memory(capsys):
    code = main(["bench", "--scaling", "--duration", "0.05s", "--repeat", "1"])
    out = capsys.readouterr().out
    assert code == 0
    header = _row(out, "case")
    for column in ("run wall s", "process s", "peak RSS MB", "events/pkt", "events/s", "ns-2 run s", "transmissions/s"):
        assert column in header
    labels = ["flows=1 ", "flows=10 ", "flows=100 ", "flows=1000 ", "bottleneck=100 Mb/s", "bottleneck=100 Gb/s",
              "duration=0.05s", "duration=0.15s", "duration=0.5s"]
    for label in labels:
        cells = _cells(_row(out, label))
        assert cells[-5:-1] == ["-", "-", "-", "-"], cells  # no ns-2 columns
        # Packet transmissions per second: a k, M or G prefix, or none below 1000 (a 0.05 s
        # case on a loaded machine).
        assert re.fullmatch(r"[\d.]+( [kMG])?", cells[-1]), cells
    assert "reference dumbbell:" not in out, "no other case by default"
    assert _row(out, "ns-2: not run (pass --against ns2)")


def test_scaling_measures_its_cases_in_turn_round_after_round(monkeypatch):
    # A slow spell of a shared machine must fall on every case alike: each round measures
    # every distinct case once, in the table's order, before the next round starts.
    seen: list[tuple[int, float, float]] = []

    def renolab(scenario):
        data = scenario.to_dict()
        seen.append((len(data["flow"]), data["link"][-1]["rate"], data["simulation"]["duration"]))
        return bench.Run(run_wall_s=1.0, process_wall_s=1.1, peak_rss_bytes=1 << 20, delivered=1000, events=7000)

    monkeypatch.setattr(bench.measure, "run_renolab", renolab)
    rows = bench.scaling_rows(1.0)
    progress: list[str] = []
    bench.run_scaling(rows, 3, against_ns2=False, ns2_script=None, progress=progress.append)
    distinct = len({id(r.case) for r in rows})
    assert len(seen) == 3 * distinct
    first_round = seen[:distinct]
    assert len(set(first_round)) == distinct, "each case once a round"
    assert seen == first_round * 3
    assert all(len(r.case.renolab) == 3 for r in rows)
    assert progress[0].endswith("renolab run 1/3") and progress[-1].endswith("renolab run 3/3")


def test_scaling_leaves_out_ns2_where_it_is_predicted_to_take_too_long(monkeypatch, capsys):
    # Fake runs: ns-2 takes 100 times renolab's time, renolab 1 s per flow.
    def renolab(scenario):
        n = len(scenario.to_dict()["flow"])
        return bench.Run(run_wall_s=float(n), process_wall_s=n + 0.1, peak_rss_bytes=1 << 20, delivered=1000, events=7000)

    def ns2(flows, *_args):
        return bench.Run(run_wall_s=100.0 * flows, process_wall_s=100.0 * flows, peak_rss_bytes=None, delivered=1000)

    monkeypatch.setattr(bench.measure, "run_renolab", renolab)
    monkeypatch.setattr(bench.measure, "run_ns2", ns2)
    rows = bench.scaling_rows(1.0)
    bench.run_scaling(rows, 2, against_ns2=True, ns2_script=NS2_SCRIPT)
    ran = {r.case.flows: len(r.case.ns2) for r in rows if r.axis == "flows"}
    # 10 flows: predicted 10 s x 100 = 1000 s > 600 s.
    assert ran == {1: 2, 10: 0, 100: 0, 1000: 0}
    text = bench.format_scaling(rows)
    assert "ns-2 at flows=10: not run: predicted 1000 s > 600 s (renolab's 10.00 s x the ns-2/renolab time ratio at flows=1)" in text
    assert _cells(_row(text, "flows=1 "))[-3] == "100.00", "the ratio"
    assert _cells(_row(text, "flows=1 "))[-1] == "n/a", "no transmissions counted"
