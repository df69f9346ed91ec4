"""Killed jobs, full disks and short memory lose no finished result (issue 32).

Each test runs renolab as a separate process and does to it what a cluster does: SIGTERM
(timeout, kill, SLURM, systemd), SIGHUP, Ctrl-C twice, a disk that fills up (a small tmpfs,
as root) or a file-size limit. Afterwards the per-flow results are always there and agree
with summary.json, every file summary.json lists is there with the size it records, and a
trace that stopped early is marked (``complete`` false, ``truncated_at_s``, ``error``).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import tomli_w
from conftest import small_scenario_dict

from renolab import RenolabWarning, Result, Scenario, ScenarioError
from renolab.cli import main
from renolab.scenario import RunError

LINUX = sys.platform.startswith("linux")
ROOT = LINUX and os.geteuid() == 0


def long_scenario(duration: str = "600s", rate: str = "100Mbps") -> dict:
    """One unlimited Reno flow over a 100 Mb/s bottleneck: about a million events per
    simulated minute, so a run lasts seconds."""
    data = small_scenario_dict()
    data["simulation"]["duration"] = duration
    del data["flow"][0]["bytes"]
    data["link"][0]["rate"] = "1Gbps"
    data["link"][1].update(rate=rate, queue={"kind": "droptail", "limit": 100})
    data["link"][1]["loss"] = {"kind": "uniform", "p": 0.0002}
    return data


def room_for(scenario: dict, traces: str, out: Path, fmt: str = "parquet") -> None:
    """Skips the test, saying why, when ``renolab run`` would refuse *scenario* up front
    because its traces would not fit on *out*'s disk (``check_disk_space``, by design): the
    long runs below are interrupted after a few hundred megabytes, but the check counts
    what all of their simulated time would write."""
    import argparse

    from renolab.cli._common import UsageError
    from renolab.cli.run import check_disk_space

    args = argparse.Namespace(format=fmt, pcap=False, ns2_trace=False)
    try:
        check_disk_space(Scenario.from_dict(scenario), traces.split(","), args, out)
    except UsageError as exc:
        pytest.skip(f"not enough disk for this machine to run the test: {exc}")


def _start(args: list[str], *, preexec=None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "RUST_BACKTRACE"}
    return subprocess.Popen(
        [sys.executable, "-m", "renolab", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=preexec,
    )


def _wait(condition, process: subprocess.Popen, timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if process.poll() is not None:
            raise AssertionError(f"renolab ended before {what}: {process.communicate()}")
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def _finish(process: subprocess.Popen, timeout: float = 120.0) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    return process.returncode, err


def _scratch(out: Path, name: str) -> Path | None:
    for directory in out.glob(".renolab-traces-*"):
        path = directory / f".{name}.bin"
        if path.exists():
            return path
    return None


def assert_consistent(out: Path, *, stop_reason: str | None = None) -> dict:
    """The per-flow results are there and agree with summary.json; every file it lists is
    there with its size; nothing temporary is left."""
    summary = json.loads((out / "summary.json").read_text())
    flows = pd.read_csv(out / "flows.csv")
    assert len(flows) == len(summary["scenario"]["flow"])
    assert (out / "links.csv").is_file()
    if stop_reason is not None:
        assert summary["stop_reason"] == stop_reason
    for relative, info in summary["files"].items():
        if relative == "summary.json":
            continue
        assert (out / relative).is_file(), relative
        assert (out / relative).stat().st_size == info["bytes"], relative
    for name, state in summary.get("traces", {}).items():
        assert set(state) >= {"complete", "truncated_at_s", "error"}, name
        if state["complete"]:
            assert state["error"] is None and state["file"] in summary["files"], name
        else:
            assert state["error"], name
            assert state["file"] is None or state["file"] in summary["files"], name
    assert not [p for p in out.iterdir() if p.name.startswith(".renolab-")], list(out.iterdir())
    Result.load(out)  # one run's files
    return summary


# -- signals ------------------------------------------------------------------------------


@pytest.mark.skipif(not LINUX, reason="signals and /proc: Linux")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_a_run_keeps_what_it_collected(tmp_path, sig):
    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario()))
    out = tmp_path / "out"
    room_for(long_scenario(), "cwnd,seq", out)
    process = _start(["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "cwnd,seq"])
    _wait(lambda: (p := _scratch(out, "seq")) is not None and p.stat().st_size > 1 << 20, process, what="the run")
    process.send_signal(sig)
    code, err = _finish(process)
    assert code == 128 + sig, err
    assert err.startswith("renolab: error: interrupted at t = ") and len(err.splitlines()) == 1, err
    summary = assert_consistent(out, stop_reason="interrupted")
    assert summary["traces"]["seq"]["complete"] and summary["traces"]["seq"]["rows"] > 0
    assert 0 < summary["sim_time_s"] < 600


@pytest.mark.skipif(not LINUX, reason="signals: Linux")
def test_a_second_ctrl_c_while_traces_are_written_leaves_them_marked(tmp_path):
    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario()))
    out = tmp_path / "out"
    room_for(long_scenario(), "hops,cwnd,seq", out, "csv")
    args = ["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "hops,cwnd,seq", "--format", "csv"]
    process = _start(args)
    # First Ctrl-C with a few million hops recorded: writing them as CSV takes seconds, and
    # the traces of an interrupted run are written shortest first (cwnd, seq, hops) ...
    _wait(lambda: (p := _scratch(out, "hops")) is not None and p.stat().st_size > 100 << 20, process, what="the run")
    process.send_signal(signal.SIGINT)
    # ... the second one lands while seq is written.
    _wait(lambda: any(out.glob(".renolab-seq.csv.*")), process, what="the traces being written")
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    code, err = _finish(process)
    assert code == 130, err
    summary = assert_consistent(out, stop_reason="interrupted")
    seq, hops = summary["traces"]["seq"], summary["traces"]["hops"]
    assert not seq["complete"] and "interrupted" in seq["error"]
    assert not hops["complete"] and hops["file"] is None and "interrupted" in hops["error"]
    if seq["file"] is not None:  # whole chunks were kept: every row before truncated_at_s
        kept = pd.read_csv(out / "seq.csv")
        assert len(kept) == seq["rows"] and kept["time_s"].iloc[-1] == seq["truncated_at_s"]


@pytest.mark.skipif(not LINUX, reason="signals: Linux")
def test_the_traces_of_an_interrupted_run_get_a_few_seconds(tmp_path):
    from renolab.saving import INTERRUPTED_WRITE_S

    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario()))
    out = tmp_path / "out"
    room_for(long_scenario(), "hops,cwnd", out, "csv")
    process = _start(["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "hops,cwnd", "--format", "csv"])
    # A few million hops: as CSV, tens of seconds of writing (97 s for 300 MB of them on
    # the 2-core machine of docs/benchmarks.md, before the time limit).
    _wait(lambda: (p := _scratch(out, "hops")) is not None and p.stat().st_size > 100 << 20, process, what="the run")
    process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    code, err = _finish(process)
    took = time.monotonic() - signalled
    assert code == 143, err
    assert took < INTERRUPTED_WRITE_S + 15, f"{took:.1f} s from SIGTERM to exit"
    summary = assert_consistent(out, stop_reason="interrupted")
    cut = sorted(name for name, state in summary["traces"].items() if not state["complete"])
    for name in cut:
        assert summary["traces"][name]["error"].startswith("cut short: the run was interrupted"), name
    assert len(err.splitlines()) == 1 and (f"traces not written whole: {', '.join(cut)}" in err) == bool(cut), err


def test_traces_cut_at_the_time_limit_keep_whole_chunks_shortest_first(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from renolab import saving
    from renolab.outdir import run_directory

    result = Scenario.from_dict(long_scenario("20s", "10Mbps")).run(trace=["seq", "cwnd"])
    first, second = sorted(["seq", "cwnd"], key=lambda name: len(result._raw[name]))
    assert len(result._raw[first]) > 300
    # A clock that ticks once each time it is read: the writer reads it at the start
    # (deadline 2.5) and before each chunk of 100 rows, so the shorter trace keeps two
    # chunks and the longer one gets none.
    ticks = iter(range(1000))
    monkeypatch.setattr(saving, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
    monkeypatch.setattr(saving, "_TIMED_CHUNK_ROWS", 100)
    out = tmp_path / "out"
    with run_directory(out) as directory:
        result._save_into(directory, format="csv", time_limit_s=2.5)
    summary = assert_consistent(out, stop_reason="duration")
    kept, lost = summary["traces"][first], summary["traces"][second]
    assert (kept["complete"], kept["rows"], kept["file"]) == (False, 200, f"{first}.csv")
    rows = pd.read_csv(out / f"{first}.csv")
    assert len(rows) == 200 and rows["time_s"].iloc[-1] == kept["truncated_at_s"]
    assert (lost["complete"], lost["rows"], lost["file"], lost["truncated_at_s"]) == (False, 0, None, 0.0)
    for state in (kept, lost):
        assert state["error"] == "cut short: the run was interrupted, and its traces get 2.5 s to be written"


@pytest.mark.skipif(not LINUX, reason="signals: Linux")
def test_sigterm_stops_a_sweep_and_keeps_its_finished_runs(tmp_path):
    from test_sweep import slow_sweep_file

    sweep_file = slow_sweep_file(tmp_path)
    out = tmp_path / "out"
    process = _start(["sweep", str(sweep_file), "--out", str(out), "--workers", "2"])
    _wait(lambda: len(list((out / "runs").glob("*.json"))) >= 2 if (out / "runs").exists() else False, process, what="runs")
    process.send_signal(signal.SIGTERM)
    code, err = _finish(process)
    assert code == 143, err
    assert "run the same sweep again to resume" in err.splitlines()[-1] and "Traceback" not in err
    for record in (out / "runs").glob("*.json"):
        assert json.loads(record.read_text())["flows"], record
    assert not (out / "runs.parquet").exists()


# -- full disks and file-size limits -------------------------------------------------------


@contextlib.contextmanager
def small_disk(path: Path, size: str):
    """A tmpfs of *size* mounted at *path* (root only)."""
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _fsize(limit: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _run_until_done(args: list[str], **kwargs) -> tuple[int, str]:
    return _finish(_start(args, **kwargs))


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_file_size_limit_cuts_a_trace_and_keeps_the_rest(tmp_path, fmt):
    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario("20s", "10Mbps")))
    out = tmp_path / "out"
    code, err = _run_until_done(
        ["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "hops,cwnd", "--format", fmt],
        preexec=_fsize(2 << 20),
    )
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "trace hops" in err and "File too large" in err and "flows.csv, links.csv and summary.json are complete" in err
    summary = assert_consistent(out, stop_reason="duration")
    hops = summary["traces"]["hops"]
    assert not hops["complete"] and 0 < hops["truncated_at_s"] < 20
    assert summary["traces"]["cwnd"]["complete"]
    with pytest.warns(RenolabWarning, match="trace hops is incomplete"):
        kept = Result.load(out).trace("hops")
    assert kept["time_s"].max() <= hops["truncated_at_s"] + 1e-9


@pytest.mark.skipif(not ROOT, reason="mounting a small tmpfs needs root")
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_full_disk_during_a_run_keeps_the_per_flow_results(tmp_path, fmt, monkeypatch, capsys):
    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario("20s", "10Mbps")))
    # The disk fills up while the run goes on (another job writing, say), not before it:
    # the estimate of free space checked up front sees room.
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real(p)._replace(free=1 << 40))
    with small_disk(tmp_path / "disk", "3m") as disk:
        out = disk / "out"
        code = main(["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "hops,seq,cwnd", "--format", fmt, "--pcap"])
        err = capsys.readouterr().err
        assert code == 1 and len(err.splitlines()) == 1, err
        assert "No space left on device" in err, err
        summary = assert_consistent(out, stop_reason="duration")
        cut = [name for name, state in summary["traces"].items() if not state["complete"]]
        assert cut, summary["traces"]
        assert (pd.read_csv(out / "flows.csv")["bytes_delivered"] > 0).all()


@pytest.mark.skipif(not ROOT, reason="mounting a small tmpfs needs root")
def test_a_full_disk_during_a_sweep_keeps_whole_records_only(tmp_path):
    from test_sweep import slow_sweep_file

    sweep_file = slow_sweep_file(tmp_path)
    with small_disk(tmp_path / "disk", "24k") as disk:
        code, err = _run_until_done(["sweep", str(sweep_file), "--out", str(disk / "out"), "--workers", "2"])
        assert code in (1, 2) and len(err.strip().splitlines()[-1:]) == 1 and "Traceback" not in err, err
        for record in (disk / "out" / "runs").glob("*.json"):
            assert json.loads(record.read_text())["flows"], record


def test_stale_temporary_files_of_a_killed_run_are_cleaned_at_start(tmp_path):
    (tmp_path / "s.toml").write_text(tomli_w.dumps(small_scenario_dict()))
    out = tmp_path / "out"
    (out / ".renolab-traces-dead").mkdir(parents=True)
    (out / ".renolab-traces-dead" / ".hops.bin").write_bytes(b"x" * 1000)
    (out / ".renolab-flows.csv.abc.part").write_text("half")
    assert main(["run", str(tmp_path / "s.toml"), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["flows.csv", "links.csv", "summary.json"]


def test_traces_that_would_not_fit_on_the_disk_are_refused_before_the_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario("60s")))
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real(p)._replace(free=10 << 20))
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "hops"]) == 2
    err = capsys.readouterr().err
    assert "--trace: the run's files would take about" in err and "10.0 MiB free" in err
    assert not out.exists()


# -- memory ----------------------------------------------------------------------------------


def _big_queue() -> dict:
    """docs/errors.md's 'a queue that could exhaust memory' under 8 GiB: 100 MB of packets."""
    data = small_scenario_dict()
    data["link"][1]["queue"]["limit"] = 700_000
    data["flow"].append(
        {"name": "cbr", "kind": "cbr", "rate": "100Mbps", "packet_bytes": 40, "src": "s1", "dst": "r1"}
    )
    data["simulation"]["duration"] = "100s"
    return data


def test_max_memory_defaults_to_what_the_machine_has_available(monkeypatch, capsys, tmp_path):
    import renolab.scenario

    (tmp_path / "s.toml").write_text(tomli_w.dumps(_big_queue()))
    monkeypatch.setattr(renolab.scenario, "_memory_available", lambda: 64 << 20)
    assert main(["run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "more than the 64.0 MiB this machine has available" in err
    # Set explicitly, max_memory is the user's to choose.
    data = _big_queue()
    data["simulation"]["max_memory"] = "8GiB"
    data["simulation"]["duration"] = "1s"
    Scenario.from_dict(data).run()


def test_running_short_of_memory_is_a_clean_error_with_the_results_so_far():
    data = long_scenario("300s")
    data["simulation"]["max_memory"] = "48MiB"
    with pytest.raises(RunError) as info:
        # hops kept in memory grow about 50 MB per simulated second here
        Scenario.from_dict(data).run(trace="hops", trace_memory_limit=1 << 40)
    exc = info.value
    assert exc.kind == "memory" and "simulation.max_memory = 48.0 MiB" in str(exc)
    assert exc.result.summary["stop_reason"] == "memory"
    assert 0 < exc.result.summary["sim_time_s"] < 300
    assert exc.result.flows["bytes_delivered"][0] > 0 and len(exc.result.trace("hops")) > 0


@pytest.mark.skipif(not LINUX, reason="/proc and RLIMIT_AS: Linux")
def test_an_address_space_limit_never_aborts_the_interpreter(tmp_path):
    script = tmp_path / "short.py"
    script.write_text(
        "import json, resource, sys\n"
        "from renolab import Scenario\n"
        "from renolab.scenario import RunError\n"
        "size = int(open('/proc/self/status').read().split('VmSize:')[1].split()[0]) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (size + (400 << 20), resource.RLIM_INFINITY))\n"
        f"data = json.loads({json.dumps(json.dumps(long_scenario('100s')))})\n"
        "try:\n"
        "    r = Scenario.from_dict(data).run(trace=['hops', 'seq'], trace_memory_limit=1 << 40)\n"
        "    print('finished', r.summary.get('traces'))\n"
        "except RunError as e:\n"
        "    print('stopped', e.kind, e.result.summary['sim_time_s'])\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("stopped "), proc.stdout


# -- one writer per directory -------------------------------------------------------------------


@pytest.mark.skipif(not LINUX, reason="flock: POSIX")
def test_a_second_run_or_sweep_into_a_busy_directory_is_refused(tmp_path):
    from test_sweep import slow_sweep_file

    (tmp_path / "s.toml").write_text(tomli_w.dumps(long_scenario()))
    out = tmp_path / "out"
    first = _start(["run", str(tmp_path / "s.toml"), "--out", str(out), "--trace", "cwnd"])
    try:
        _wait(lambda: _scratch(out, "cwnd") is not None, first, what="the first run")
        code, err = _run_until_done(["run", str(tmp_path / "s.toml"), "--out", str(out)])
        assert code == 2 and "another renolab run is writing into this directory" in err, err
    finally:
        first.send_signal(signal.SIGTERM)
        _finish(first)
    sweep_file = slow_sweep_file(tmp_path)
    sweeping = _start(["sweep", str(sweep_file), "--out", str(tmp_path / "sw"), "--workers", "1"])
    try:
        _wait(lambda: (tmp_path / "sw" / "sweep.json").exists(), sweeping, what="the first sweep")
        code, err = _run_until_done(["sweep", str(sweep_file), "--out", str(tmp_path / "sw")])
        assert code == 2 and "another renolab sweep is writing into this directory" in err, err
        assert len(err.strip().splitlines()) == 1
    finally:
        sweeping.send_signal(signal.SIGTERM)
        _finish(sweeping)


def test_the_sweep_api_refuses_a_locked_directory(tmp_path):
    from renolab.outdir import DirectoryInUse, locked
    from renolab.sweep import Sweep

    (tmp_path / "sw").mkdir()
    with locked(tmp_path / "sw", "sweep"), pytest.raises(DirectoryInUse):
        Sweep(small_scenario_dict()).run(tmp_path / "sw", progress=False)


def test_refused_scenarios_raise_before_the_lock_is_taken(tmp_path):
    bad = small_scenario_dict()
    bad["link"][1]["rate"] = "fast"
    with pytest.raises(ScenarioError):
        Scenario.from_dict(bad).run()


@pytest.mark.skipif(not ROOT, reason="mounting a small tmpfs needs root")
def test_a_study_report_that_fills_the_disk_leaves_its_previous_files_whole(tmp_path):
    from renolab.experiments.report import Report

    with small_disk(tmp_path / "disk", "64k") as disk:
        first = Report("demo", "A demo", "Someone, 2001", disk)
        first.table(pd.DataFrame({"w": [20, 40]}), "Table 2", "slopes")
        first.claim("mu falls", "it does", True)
        first.write()
        before = {p.name: p.read_bytes() for p in disk.iterdir()}

        second = Report("demo", "A demo", "Someone, 2001", disk)
        second.table(pd.DataFrame({"w": [1, 2, 3]}), "Table 2", "slopes, again")
        second.note("x" * (200 << 10))  # more than the disk holds
        with pytest.raises(OSError, match="No space left"):
            second.write()
        # A report written in place would be cut short here; the earlier one is whole.
        assert (disk / "report.md").read_bytes() == before["report.md"]
        assert (disk / "report.html").read_bytes() == before["report.html"]
        assert sorted(p.name for p in disk.iterdir()) == sorted(before), "no temporary file is left"
        assert (disk / "table-2.csv").read_text() == "w\n1\n2\n3\n"
