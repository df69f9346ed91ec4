"""The ns-3 reference harness (tests/ns3): reading scenarios, the comparison table, and one
short ns-3 run.

Only the last test needs ns-3 (`pip install ns3`, which CI does not do: 70 MB and a slow
first import); it is skipped, with the reason, when the ``ns3`` package is absent. The
others check the harness's own logic and run everywhere.
"""

from __future__ import annotations

import csv
import importlib.metadata
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import renolab
from renolab.sweep import student_t_quantile
from renolab.units import rate_bps

HARNESS = Path(__file__).resolve().parents[1] / "ns3"
sys.path.insert(0, str(HARNESS))
from ns3ref import spec, table  # noqa: E402
from ns3ref.sim import socket_types, wire_factor  # noqa: E402


def _ns3_installed() -> bool:
    try:
        importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        return False
    return importlib.util.find_spec("ns") is not None


NS3_MISSING = "ns-3 is not installed (pip install ns3; see tests/ns3/README.md)"

DUMBBELL = """
[simulation]
profile = "linux"
duration = "5s"

[[topology]]
kind = "dumbbell"
n = 2
access = { rate = "100Mbps", delay = "1ms", queue = { kind = "droptail", limit = 1000 } }
bottleneck = { rate = "20Mbps", delay = "18ms", queue = { kind = "droptail", limit = 67 } }

[[flow]]
name = "a"
variant = "reno"
src = "s1"
dst = "d1"

[[flow]]
name = "b"
variant = "cubic"
src = "s2"
dst = "d2"
bytes = "3MB"
start = { uniform = ["0s", "1s"] }
"""


def _parse(text: str) -> spec.Scenario:
    import tomllib

    return spec.parse(tomllib.loads(text))


# ----- reading scenarios --------------------------------------------------------------------------


def test_units_read_as_renolab_reads_them():
    assert spec.rate_bps("1.5 Mbps", "r") == 1_500_000
    assert spec.rate_bps("10Gbps", "r") == 10_000_000_000
    assert spec.duration_ns("48ms", "d") == 48_000_000
    assert spec.duration_ns("100us", "d") == 100_000
    assert spec.size_bytes("8MiB", "s") == 8 * 1024 * 1024
    assert spec.size_bytes(1000, "s") == 1000
    with pytest.raises(spec.SpecError, match=r'^link\[0\]\.rate: "10 Mbits" is not a rate; use e\.g\. "10Mbps" \(bits/s: '):
        spec.rate_bps("10 Mbits", "link[0].rate")
    with pytest.raises(spec.SpecError, match="must be positive"):
        spec.rate_bps("0Mbps", "r")


@pytest.mark.parametrize("text", ["10Mbps", "10 Mbit", "1.5Mb/s", "64kbps", "64Kbps", "9600bps", "9600bit/s",
                                  "2Gbit", "1Gb/s", "50MBps", "50MB/s", "1500Bps", "2KBps", "3kB/s", "1GBps",
                                  "10mbps", "10mb/s", "1GBPS", "10mbit", "10 Mbits", "10", "0Mbps", "-1Mbps"])
def test_the_harness_reads_every_rate_spelling_as_renolab_does(text):
    try:
        ours = rate_bps(text)
    except ValueError:
        ours = None
    try:
        theirs = spec.rate_bps(text, "r")
    except spec.SpecError:
        theirs = None
    assert theirs == ours, text


def test_a_dumbbell_expands_to_renolabs_links():
    ours = _parse(DUMBBELL)
    theirs = renolab.Scenario.from_toml_str(
        DUMBBELL.replace('profile = "linux"', 'profile = "rfc"').replace('"cubic"', '"reno"')
    ).validate()
    assert [(l.name, l.a, l.b) for l in ours.links] == [(l["name"], l["from"], l["to"]) for l in theirs["link"]]
    bottleneck = ours.links[2]
    assert (bottleneck.forward.rate_bps, bottleneck.forward.delay_ns) == (20_000_000, 18_000_000)
    assert bottleneck.reverse == bottleneck.forward
    assert ours.nodes == ["s1", "r1", "s2", "r2", "d1", "d2"]
    assert [f.start for f in ours.flows] == [0, (0, 1_000_000_000)]
    assert ours.flows[1].bytes == 3_000_000 and ours.flows[0].bytes is None
    assert ours.mss == 1448 and ours.ignored == []


@pytest.mark.parametrize("profile, queue, waiting", [
    ("linux", '{ kind = "droptail", limit = 67 }', 67),
    ("rfc", '{ kind = "droptail", limit = 67 }', 67),
    ("ns2", '{ kind = "droptail", limit = 67 }', 66),  # ns-2's limit counts the packet on the wire
    ("linux", '{ kind = "droptail", limit = 67, counts_transmitting = true }', 66),
])
def test_the_packets_that_may_wait_follow_renolabs_counting(profile, queue, waiting):
    text = (f'[simulation]\nprofile = "{profile}"\nduration = "1s"\n'
            f'[[link]]\nfrom = "a"\nto = "b"\nrate = "10Mbps"\nqueue = {queue}\n'
            '[[flow]]\nname = "f"\nsrc = "a"\ndst = "b"\n')
    assert _parse(text).links[0].forward.queue.waiting == waiting
    if profile != "linux":  # renolab's own reading, where it has the profile
        q = renolab.Scenario.from_toml_str(text).validate()["link"][0]["queue"]
        assert q["limit"] - q["counts_transmitting"] == waiting


def test_what_ns3_cannot_reproduce_is_refused_naming_the_field():
    base = '[simulation]\nduration = "1s"\n[[flow]]\nname = "f"\nsrc = "a"\ndst = "b"\n[[link]]\nfrom = "a"\nto = "b"\nrate = "1Mbps"\n'
    cases = {
        'queue = { kind = "codel" }': r'^link\[0\]\.queue\.kind: unknown value "codel"; allowed: droptail, red$',
        'queue = { kind = "red", min_th = 5, max_th = 15 }': r"^link\[0\]\.queue\.queue_in_bytes: the ns-3 harness runs RED in packets",
        'queue = { kind = "red", queue_in_bytes = false, byte_mode = false }': r"^link\[0\]\.queue\.min_th: is required",
        'queue = { kind = "droptail", limit = 1 }': r"^link\[0\]\.queue\.limit: the ns-3 harness needs room for at least 2",
        'loss = { kind = "gilbert_elliott", p_gb = 0.1, p_bg = 0.5 }': r"^link\[0\]\.loss\.kind: unknown value",
        'latency = { kind = "fixed", delay = "1ms" }': r"^link\[0\]\.latency: extra latency is not reproduced",
        'reverse = { delay = "5ms" }': r"^link\[0\]\.reverse\.delay: an ns-3 point-to-point channel has one delay",
        'colour = "red"': r"^link\[0\]\.colour: unknown key; allowed: ",
    }
    for extra, message in cases.items():
        with pytest.raises(spec.SpecError, match=message):
            _parse(base + extra + "\n")
    with pytest.raises(spec.SpecError, match=r"^flow\[0\]\.kind: the ns-3 harness runs TCP flows only"):
        _parse(base.replace('name = "f"', 'name = "f"\nkind = "cbr"'))
    with pytest.raises(spec.SpecError, match=r"^simulation\.duration: is required when a flow has no bytes"):
        _parse(base.replace('duration = "1s"\n', ""))
    with pytest.raises(spec.SpecError, match=r"^flow\[0\]\.dst: unknown node 'c'; nodes: a, b"):
        _parse(base.replace('dst = "b"', 'dst = "c"'))


def test_renolab_keys_ns3_does_not_reproduce_are_reported_not_refused():
    text = DUMBBELL.replace('profile = "linux"', 'profile = "ns2"').replace(
        'bytes = "3MB"', 'bytes = "3MB"\nheader_bytes = 40\noptions = { initial_window = 2 }')
    notes = _parse(text).ignored
    assert any(n.startswith('simulation.profile = "ns2"') for n in notes)
    assert any(n.startswith("flow[1].options:") for n in notes)
    assert any(n.startswith("flow[1].header_bytes = 40: ns-3 sends 52-byte") for n in notes)


def test_red_with_ecn_is_read_in_packets_waiting():
    text = DUMBBELL.replace(
        'bottleneck = { rate = "20Mbps", delay = "18ms", queue = { kind = "droptail", limit = 67 } }',
        'bottleneck = { rate = "10Gbps", delay = "20us", queue = { kind = "red", limit = 1000, min_th = 65, '
        'max_th = 65, w_q = 1, gentle = false, ecn = true, queue_in_bytes = false, byte_mode = false } }')
    q = _parse(text).links[2].forward.queue
    assert (q.kind, q.waiting, q.min_th, q.max_th, q.w_q, q.gentle, q.ecn) == ("red", 1000, 65, 65, 1.0, False, True)


def test_the_wifi_file():
    text = ('[simulation]\nduration = "2s"\n[wifi]\ndata_rate = "11Mbps"\n'
            'error = { kind = "ber", ber = 1e-5 }\n'
            '[[flow]]\nname = "up"\nvariant = "cubic"\nsrc = "sta"\ndst = "ap"\nstart = "0.5s"\n')
    sc = _parse(text)
    assert sc.links == [] and sc.nodes == ["sta", "ap"]
    w = sc.wifi
    assert (w.data_rate_bps, w.basic_rate_bps, w.rts_cts, w.queue_limit, w.retry_limit) == (11_000_000, 1_000_000, False, 100, 7)
    assert (w.error, w.error_applies_to) == (spec.Loss("ber", 1e-5), "all")
    per_frame = _parse(text.replace('kind = "ber", ber = 1e-5', 'kind = "uniform", p = 0.1')).wifi
    assert (per_frame.error, per_frame.error_applies_to) == (spec.Loss("uniform", 0.1), "data")
    with pytest.raises(spec.SpecError, match=r'^wifi\.preamble: unknown value "short"; allowed: long$'):
        _parse(text.replace('[wifi]\n', '[wifi]\npreamble = "short"\n'))
    with pytest.raises(spec.SpecError, match=r"^wifi\.data_rate: not an 802\.11b rate"):
        _parse(text.replace('"11Mbps"', '"54Mbps"'))
    with pytest.raises(spec.SpecError, match=r"^flow\[0\]\.dst: unknown node 'd1'; nodes: ap, sta"):
        _parse(text.replace('dst = "ap"', 'dst = "d1"'))


def test_variants_map_to_ns3_types_per_node():
    sc = _parse(DUMBBELL)
    assert socket_types(sc, spec.DEFAULT_VARIANT_MAP) == {
        "s1": "ns3::TcpLinuxReno", "d1": "ns3::TcpLinuxReno", "s2": "ns3::TcpCubic", "d2": "ns3::TcpCubic"}
    mapped = spec.parse_variant_map(["cubic=TcpNewReno", "vegas=ns3::TcpVegas"])
    assert mapped["cubic"] == "ns3::TcpNewReno" and mapped["vegas"] == "ns3::TcpVegas" and mapped["bbr"] == "ns3::TcpBbr"
    with pytest.raises(spec.SpecError, match=r"^--map: 'cubic' is not VARIANT=NS3TYPE"):
        spec.parse_variant_map(["cubic"])
    shared = _parse(DUMBBELL.replace('src = "s2"', 'src = "s1"'))
    with pytest.raises(spec.SpecError, match=r"^flow\[1\]\.variant: node 's1' already runs ns3::TcpLinuxReno"):
        socket_types(shared, spec.DEFAULT_VARIANT_MAP)
    with pytest.raises(spec.SpecError, match=r"^flow\[0\]\.variant: no ns-3 type for 'vegas'"):
        socket_types(_parse(DUMBBELL.replace('"reno"', '"vegas"')), spec.DEFAULT_VARIANT_MAP)


def test_the_device_rate_absorbs_the_ppp_header_for_a_full_segment():
    # 1448 + 52 = 1500 bytes at R take as long as 1502 bytes at R * wire_factor.
    assert 1502 / wire_factor(1448) == pytest.approx(1500, abs=1e-9)


# ----- the comparison table -----------------------------------------------------------------------


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        w.writeheader()
        w.writerows(rows)


def _link(name: str, rate: float, **extra) -> dict:
    return {"link": name, "rate_bps": rate, "utilisation": 0.5, "max_queue": 3, "queue_drops": 1, **extra}


def test_a_run_directory_of_either_simulator_gives_the_same_figures(tmp_path):
    ns3 = tmp_path / "ns3"
    _write(ns3 / "flows.csv", [{"flow": "f", "throughput_bps": 2e6, "retransmits": 4, "timeouts": 0, "mean_rtt_s": 0.05}])
    _write(ns3 / "links.csv", [_link("access", 1e8, mean_queue=0.0), _link("bottleneck", 2e7, mean_queue=2.5, marks=7)])
    figures = table.run_figures(ns3)
    assert figures[("f", "throughput_mbps")] == 2.0 and figures[("f", "mean_rtt_ms")] == pytest.approx(50)
    assert figures[("link:bottleneck", "mean_queue")] == 2.5 and figures[("link:bottleneck", "marks")] == 7

    ren = tmp_path / "renolab"  # renolab: RTT and queue from its traces, no marks column
    _write(ren / "flows.csv", [{"flow": "f", "throughput_bps": 1e6, "retransmits": 2, "timeouts": 1}])
    _write(ren / "links.csv", [_link("a-b", 1e8), _link("b-c", 2e7), _link("b-c/rev", 1e3)])
    _write(ren / "rtt.csv", [{"time_s": 1, "flow": "f", "rtt_s": 0.04}, {"time_s": 2, "flow": "f", "rtt_s": 0.06}])
    _write(ren / "queue.csv", [{"time_s": 0, "link": "b-c", "packets": 2}, {"time_s": 1, "link": "b-c", "packets": 4},
                               {"time_s": 0, "link": "a-b", "packets": 9}])
    (ren / "summary.json").write_text(json.dumps({"sim_time_s": 2.0}))
    figures = table.run_figures(ren)
    assert figures[("f", "mean_rtt_ms")] == pytest.approx(50)
    assert figures[("link:b-c", "mean_queue")] == pytest.approx(3.0)  # slowest forward direction
    assert figures[("link:b-c", "marks")] is None


def test_time_average_of_a_step_function():
    assert table.time_average([(0, 2), (1, 4)], 2.0) == pytest.approx(3.0)
    assert table.time_average([(1, 4), (3, 0)], 4.0) == pytest.approx(2.0)
    assert table.time_average([], 4.0) == 0.0


def test_means_and_intervals_and_what_is_missing():
    mean, half, n = table.mean_ci([1.0, 2.0, 3.0, None], student_t_quantile)
    assert (mean, n) == (2.0, 3) and half == pytest.approx(4.302653 * 1 / math.sqrt(3), rel=1e-6)
    assert table.mean_ci([5.0], student_t_quantile)[2] == 1 and math.isnan(table.mean_ci([5.0], student_t_quantile)[1])
    assert table.mean_ci([], student_t_quantile)[2] == 0
    ns3 = table.Side(runs=[{("f", "throughput_mbps"): 10.0}, {("f", "throughput_mbps"): 12.0}])
    refused = table.Side(status='renolab: error: flow[0].variant: unknown variant "bbr"')
    rows = table.rows("bbr_bdp1", ns3, refused, student_t_quantile)
    text = table.markdown(rows, 2)
    assert "| bbr_bdp1 | f | throughput_mbps (Mb/s) | 11.000 ± 12.706 | n/a |  |" in text
    assert 'renolab n/a for bbr_bdp1: renolab: error: flow[0].variant: unknown variant "bbr"' in text
    ran = table.Side(runs=[{("f", "throughput_mbps"): 9.0}, {("f", "throughput_mbps"): 9.0}])
    assert table.diff(table.rows("x", ns3, ran, student_t_quantile)[0]) == "-18.2 %"


def test_compare_marks_a_scenario_renolab_refuses_as_na(tmp_path):
    sys.path.insert(0, str(HARNESS))
    import compare

    scenario = tmp_path / "s.toml"
    scenario.write_text(DUMBBELL.replace('"cubic"', '"nosuchvariant"'))
    side = compare.run_renolab(scenario, tmp_path / "out", 2, "rfc", [sys.executable, "-m", "renolab"], reuse=False)
    assert side.runs == [] and 'unknown variant "nosuchvariant"' in side.status


# ----- one ns-3 run ------------------------------------------------------------------------------


@pytest.mark.skipif(not _ns3_installed(), reason=NS3_MISSING)
@pytest.mark.timeout(150)
def test_a_short_reno_run_in_ns3_fills_the_bottleneck(tmp_path):
    scenario = tmp_path / "reno.toml"
    scenario.write_text("""
[simulation]
profile = "linux"
duration = "4s"

[[topology]]
kind = "dumbbell"
n = 1
access = { rate = "100Mbps", delay = "1ms", queue = { kind = "droptail", limit = 1000 } }
bottleneck = { rate = "10Mbps", delay = "8ms", queue = { kind = "droptail", limit = 17 } }

[[flow]]
name = "reno"
variant = "reno"
src = "s1"
dst = "d1"
""")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(HARNESS / "run_ns3.py"), str(scenario), "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=140)
    assert done.returncode == 0, done.stderr[-2000:]
    with (out / "flows.csv").open() as f:
        flows = list(csv.DictReader(f))
    with (out / "links.csv").open() as f:
        links = {r["link"]: r for r in csv.DictReader(f)}
    summary = json.loads((out / "summary.json").read_text())
    from ns3ref.sim import FLOW_COLUMNS
    from ns3ref.wired import LINK_COLUMNS

    assert list(flows[0]) == list(FLOW_COLUMNS) and list(links["bottleneck"]) == list(LINK_COLUMNS)
    (f,) = flows
    assert (f["flow"], f["variant"], f["ns3_type"]) == ("reno", "reno", "ns3::TcpLinuxReno")
    assert float(f["throughput_bps"]) > 0.8 * 10e6
    assert 0.020 < float(f["mean_rtt_s"]) < 0.020 + 18 * 1500 * 8 / 10e6 + 0.005  # base RTT + a full buffer
    assert int(f["bytes_delivered"]) > 0.8 * 10e6 / 8 * (4 - float(f["first_send_s"]))
    b = links["bottleneck"]
    assert 0 < float(b["mean_queue"]) <= int(b["max_queue"]) <= 17
    assert int(b["queue_drops"]) == int(f["data_drops"])  # the only place packets are lost
    assert float(b["utilisation"]) > 0.9
    assert (summary["simulator"], summary["run"], summary["stop_reason"]) == ("ns-3", 1, "duration")
    assert summary["sim_time_s"] == pytest.approx(4.0)
    # Events and CPU time of the event loop, for the ns-3 row of docs/benchmarks.md: at least
    # one event per segment delivered, and CPU time no more than the loop's wall time.
    assert summary["ns3_events"] > int(f["segments_delivered"])
    assert 0 < summary["ns3_run_cpu_s"] <= summary["ns3_run_wall_s"] + 0.05
