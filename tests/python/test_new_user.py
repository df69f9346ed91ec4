"""What a new user trips on (issue 22): results that silently differ from what the scenario
says, runs that wait silently, and tables that mislead."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from renolab import RenolabWarning, Result, RunInterrupted, Scenario
from renolab.cli import main
from renolab.progress import RunProgress


def dumbbell(queue: dict | None = None, *, flows: int = 4, duration: str = "10s", profile: str = "rfc",
             variant: str = "newreno", start: str = "0s") -> Scenario:
    """n senders and receivers across a 10 Mb/s, 20 ms bottleneck; 1500-byte packets."""
    links = []
    for i in range(1, flows + 1):
        links.append({"from": f"s{i}", "to": "g1", "rate": "100Mbps", "delay": "1ms"})
        links.append({"from": "g2", "to": f"r{i}", "rate": "100Mbps", "delay": "1ms"})
    links.insert(1, {"name": "bottleneck", "from": "g1", "to": "g2", "rate": "10Mbps", "delay": "20ms",
                     "queue": queue or {"kind": "droptail", "limit": 50}})
    return Scenario(
        simulation={"seed": 1, "duration": duration, "profile": profile},
        link=links,
        flow=[{"name": f"f{i}", "variant": variant, "src": f"s{i}", "dst": f"r{i}", "start": start}
              for i in range(1, flows + 1)],
    )


# ----- traps -----------------------------------------------------------------------------------


def test_red_limits_and_thresholds_are_packets_under_the_rfc_profile():
    red = {"kind": "red", "limit": 100, "min_th": 10, "max_th": 30}
    result = dumbbell(red).run()
    neck = result.links.set_index("link").loc["bottleneck"]
    # 100 packets of 1500 bytes fit (in 500-byte units only 33 would: ns-2's trap).
    assert neck["max_queue"] == 100
    assert neck["early_drops"] > 0
    normalised = dumbbell(red).validate()["link"][1]["queue"]
    assert (normalised["queue_in_bytes"], normalised["byte_mode"]) == (False, False)
    # The ns2 profile keeps ns-2's 500-byte units: the same table holds 100 * 500 bytes.
    ns2 = dumbbell(red, profile="ns2").validate()["link"][1]["queue"]
    assert (ns2["queue_in_bytes"], ns2["byte_mode"]) == (True, True)


def test_cwnd_is_the_controllers_window_and_the_inflation_has_its_own_column():
    result = dumbbell(flows=1, duration="5s", variant="newreno").run(trace="cwnd")
    cwnd = result.trace("cwnd")
    inflated = cwnd["inflated_cwnd"] > cwnd["cwnd"]
    assert inflated.any(), "the run needs a fast recovery"
    # During recovery the controller's window stays at ssthresh; only the inflated one grows.
    assert (cwnd.loc[inflated, "cwnd"] <= cwnd.loc[inflated, "ssthresh"] + 1).all()
    assert (cwnd["inflated_cwnd"] >= cwnd["cwnd"]).all()


def test_an_unset_ssthresh_is_infinite_in_python_and_missing_in_files(tmp_path):
    result = dumbbell(flows=1, duration="1s").run(trace="cwnd")
    assert np.isinf(result.trace("cwnd")["ssthresh"].iloc[0])
    for fmt in ("csv", "parquet"):
        result.save(tmp_path / fmt, format=fmt)
    header, first = (tmp_path / "csv" / "cwnd.csv").read_text().splitlines()[:2]
    assert header.split(",")[3] == "ssthresh"
    assert first.split(",")[3] == ""  # empty, not 4294967295
    assert "4294967295" not in (tmp_path / "csv" / "cwnd.csv").read_text()
    raw = pd.read_parquet(tmp_path / "parquet" / "cwnd.parquet")
    assert raw["ssthresh"].isna().iloc[0] and not np.isinf(raw["ssthresh"]).any()
    for fmt in ("csv", "parquet"):
        back = Result.load(tmp_path / fmt).trace("cwnd")
        assert np.isinf(back["ssthresh"].iloc[0])
        assert back["ssthresh"].iloc[-1] == result.trace("cwnd")["ssthresh"].iloc[-1]


def test_delivered_throughput_never_exceeds_the_bottleneck():
    result = dumbbell(flows=1, duration="20s", variant="newreno",
                      queue={"kind": "droptail", "limit": 200}).run(trace="seq")
    series = result.throughput(bin_s=0.5)
    payload_bps = 10e6 * 1460 / 1500
    one_segment_bps = 1460 * 8 / 0.5
    assert series["delivered_bps"].max() <= payload_bps + one_segment_bps
    # The ACK-based goodput does exceed it when a long recovery ends: what the plot avoids.
    assert series["goodput_bps"].max() > payload_bps
    assert series["delivered_bps"].sum() == pytest.approx(series["goodput_bps"].sum(), rel=0.02)


def test_flows_report_one_way_delay_quantiles_and_jitter():
    result = dumbbell(flows=2, duration="5s").run()
    flows = result.flows
    assert list(flows.columns[flows.columns.get_loc("mean_latency_s") + 1:][:3]) == [
        "latency_p50_s", "latency_p99_s", "jitter_s"]
    for row in flows.itertuples():
        # At least the propagation delay (22 ms) plus serialisation; p99 above the median.
        assert 0.022 < row.latency_p50_s <= row.latency_p99_s
        assert row.latency_p99_s < 0.022 + 60 * 1500 * 8 / 10e6  # a 50-packet queue, with slack
        assert row.jitter_s > 0


# ----- silent waits ----------------------------------------------------------------------------


def test_a_run_without_flows_or_with_late_flows_warns_why_nothing_happened():
    with pytest.warns(RenolabWarning, match="no flows"):
        Scenario(simulation={"duration": "1s"}, link=[{"from": "a", "to": "b", "rate": "1Mbps"}]).run()
    with pytest.warns(RenolabWarning, match=r"every flow starts at or after the end of the run \(2 s; the first, f1, at 5 s\)"):
        dumbbell(flows=2, duration="2s", start="5s").run()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dumbbell(flows=1, duration="1s").run()


def test_the_cli_says_why_nothing_happened(write_scenario, tmp_path, capsys):
    path = write_scenario(dumbbell(flows=1, duration="2s", start="3s").to_dict())
    assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("renolab: warning: every flow starts at or after the end of the run")
    assert len(err.splitlines()) == 1


def _interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_stops_a_run_at_once_with_what_it_collected(tmp_path):
    long = dumbbell(flows=4, duration="100000s")
    start = time.perf_counter()
    timer = _interrupt_after(0.5)
    with pytest.raises(RunInterrupted) as caught:
        long.run(trace="cwnd", trace_dir=tmp_path)
    stopped = time.perf_counter() - start
    timer.join()
    assert stopped < 0.5 + 0.2
    result = caught.value.result
    assert isinstance(caught.value, KeyboardInterrupt)
    assert result.summary["stop_reason"] == "interrupted"
    assert 0 < result.summary["sim_time_s"] < 100000
    assert result.flows["bytes_delivered"].min() > 0
    assert len(result.trace("cwnd")) > 0


def test_a_progress_callback_is_called_during_a_long_run():
    calls = []
    dumbbell(flows=4, duration="1000s").run(progress=lambda t, events: calls.append((t, events)))
    assert len(calls) >= 1
    assert all(0 < t <= 1000 and events > 0 for t, events in calls)
    assert [t for t, _ in calls] == sorted(t for t, _ in calls)


class _Terminal:
    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_the_run_progress_line_shows_time_rate_and_eta_on_a_terminal_only():
    line = RunProgress(300.0, stream=_Terminal()).line(30.0, 5_000_000, 2.0)
    assert line == "run: simulated 30 of 300 s (10%), 2.5 M events/s, ETA 18.0 s"
    assert RunProgress(None, stream=_Terminal()).line(3.0, 500, 1.0) == "run: simulated 3 s, 500 events/s"
    terminal = _Terminal()
    progress = RunProgress(300.0, stream=terminal)
    progress.start -= 1.0  # past the initial delay
    progress.update(30.0, 1000)
    assert terminal.text.startswith("\rrun: simulated 30 of 300 s")
    progress.close()
    assert terminal.text.endswith("\r")
    quiet = _Terminal()
    RunProgress(300.0, stream=quiet, enabled=False).update(30.0, 1000)
    assert quiet.text == ""
    file_like = _Terminal()
    file_like.isatty = lambda: False  # type: ignore[method-assign]
    assert not RunProgress(300.0, stream=file_like).enabled


def test_ctrl_c_on_renolab_run_writes_what_was_collected(write_scenario, tmp_path):
    path = write_scenario(dumbbell(flows=4, duration="100000s").to_dict())
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "renolab", "run", str(path), "--out", str(out), "--trace", "cwnd"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(2.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted at t = " in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "interrupted"
    assert (out / "cwnd.parquet").is_file() and (out / "flows.csv").is_file()
    assert time.perf_counter() - sent < 30


# ----- tables and figures ----------------------------------------------------------------------


def test_plot_helpers_show_their_real_parameters():
    import inspect

    result = dumbbell(flows=1, duration="1s").run(trace="cwnd")
    for name in ("cwnd", "seq", "throughput", "queue", "summary"):
        signature = inspect.signature(getattr(result.plot, name))
        assert not any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()), name
    assert "inflated" in inspect.signature(result.plot.cwnd).parameters


def test_plot_a_run_for_one_flow_and_one_link(tmp_path, capsys):
    red = {"kind": "red", "limit": 100, "min_th": 10, "max_th": 30}
    result = dumbbell(red, flows=2, duration="3s").run(trace=["cwnd", "seq", "queue"])
    result.save(tmp_path)
    queue = result.trace("queue")
    neck = queue[queue["link"].astype(str) == "bottleneck"]
    assert neck["avg_packets"].notna().all() and neck["avg_packets"].max() > 0
    assert queue[queue["link"].astype(str) == "s1-g1"]["avg_packets"].isna().all()
    # The queue figure shows the bottleneck and its RED average by default, not every link.
    fig = result.plot.queue()
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["bottleneck", "bottleneck RED average"]
    assert main(["plot", str(tmp_path), "--kind", "seq,queue", "--flow", "f2", "--link", "s2-g1"]) == 0
    assert (tmp_path / "plots" / "seq.png").is_file()
    assert main(["plot", str(tmp_path), "--flow", "nope"]) == 2
    assert "no flow named 'nope'; flows: f1, f2" in capsys.readouterr().err


def test_plot_a_sweep_draws_a_metric_against_a_parameter(tmp_path, capsys):
    from renolab import Sweep

    sweep = Sweep(base=dumbbell(flows=2, duration="2s").to_dict(),
                  grid={"link.bottleneck.rate": ["5Mbps", "10Mbps"], "flow.f1.variant": ["reno", "sack"]},
                  replications=2)
    sweep.run(tmp_path, workers=1, progress=False)
    assert main(["plot", str(tmp_path)]) == 0
    assert "goodput_bps-vs-link.bottleneck.rate_bps.png" in capsys.readouterr().out
    assert main(["plot", str(tmp_path), "--x", "flow.f1.variant", "--y", "jain", "--hue", "link.bottleneck.rate"]) == 0
    assert (tmp_path / "plots" / "jain-vs-flow.f1.variant.png").is_file()
    assert main(["plot", str(tmp_path), "--y", "nope"]) == 2
    assert "--y: 'nope' is not a metric of this sweep; allowed: " in capsys.readouterr().err


# ----- documentation -----------------------------------------------------------------------------


def test_the_sample_errors_of_the_scenario_docs_are_the_real_ones():
    from pathlib import Path

    from renolab import ScenarioError

    docs = (Path(__file__).resolve().parents[2] / "docs" / "scenario.md").read_text(encoding="utf-8")
    base = {"link": [{"from": "a", "to": "b", "rate": "1Mbps"}, {"from": "b", "to": "c", "rate": "1Mbps"},
                     {"from": "c", "to": "d", "rate": "10 Mbits"}],
            "flow": [{"name": "f", "variant": "renoo", "src": "a", "dst": "d", "bytes": 1000}]}
    with pytest.raises(ScenarioError) as rate:
        Scenario.from_dict(base).validate()
    base["link"][2]["rate"] = "1Mbps"
    with pytest.raises(ScenarioError) as variant:
        Scenario.from_dict(base).validate()
    for error in (rate.value, variant.value):
        assert f"renolab: error: {error}\n" in docs


def test_the_readme_names_the_files_the_commands_write():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "lee2001: wrote out/lee2001/report.md and report.html" in readme


def test_validate_shows_the_runs_of_both_simulators(capsys):
    import sys as _sys
    from pathlib import Path

    from renolab import ns2

    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))
    import suite

    case = next(c for c in suite.cases() if c.name == "random_red_two_reno")
    entry = suite.load_reference()[case.name]
    runs = suite.reference_runs(entry)[:3]
    ns2.validate(case.scenario, runs=3, tolerance=case.tolerance, ns2_runs=runs, progress=True)
    err = capsys.readouterr().err  # plain lines, or a tqdm bar once ipykernel is imported
    assert "validate: renolab" in err and "3/3" in err
    ns2.validate(case.scenario, runs=3, tolerance=case.tolerance, ns2_runs=runs)
    assert capsys.readouterr().err == ""
