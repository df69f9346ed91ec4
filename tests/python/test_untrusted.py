"""A scenario file is data from a stranger (issue 32): reading, checking, exporting or
running it never runs code it names without --allow-python (allow_python=True); every way
of reading it is bounded and fails with one line (CLI) or a ScenarioError (API); hostile
Python API calls raise ScenarioError and nothing else.

The classes of bad input and their exact messages are in docs/errors.md
(tests/python/test_errors.py); this file covers what a table row cannot: code that would
run, a process that would hang, the API.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w
from conftest import small_scenario_dict

from renolab import Scenario, ScenarioError
from renolab.cc import CongestionControl
from renolab.cli import main
from renolab.sweep import Sweep

HELPER = """\
import pathlib
pathlib.Path({marker!r}).write_text("this code ran")
from renolab.cc import CongestionControl
class Anything(CongestionControl):
    pass
"""


@pytest.fixture
def hostile(tmp_path):
    """A scenario naming helper.py beside it, whose import writes a marker file."""
    marker = tmp_path / "MARKER"
    (tmp_path / "helper.py").write_text(HELPER.format(marker=str(marker)))
    data = small_scenario_dict()
    data["flow"][0]["variant"] = "python:helper.py:Anything"
    data["simulation"]["profile"] = "ns2"
    path = tmp_path / "scenario.toml"
    path.write_text(tomli_w.dumps(data))
    (tmp_path / "sweep.toml").write_text(tomli_w.dumps({"sweep": {"base": "scenario.toml"}}))
    return path, marker


def test_no_command_runs_a_scenarios_code_without_the_flag(hostile, tmp_path, capsys):
    path, marker = hostile
    assert main(["check", str(path)]) == 0
    assert "not imported" in capsys.readouterr().out
    assert main(["export", "ns2", str(path), "-o", str(tmp_path / "x.tcl")]) == 2
    assert main(["validate", str(path)]) == 2
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "--allow-python" in err and "docs/extending.md" in err
    assert not (tmp_path / "out").exists(), "a refused run leaves no output directory"
    assert main(["sweep", str(tmp_path / "sweep.toml"), "--out", str(tmp_path / "sw"), "--no-progress"]) == 2
    assert "--allow-python" in capsys.readouterr().err
    with pytest.raises(ScenarioError, match="allow_python=True"):
        Scenario.from_toml(path).run()
    Scenario.from_toml(path).validate()  # validating imports nothing either
    assert not marker.exists(), "a scenario file ran code without --allow-python"


def test_with_the_flag_the_code_runs(hostile, tmp_path):
    path, marker = hostile
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--allow-python"]) == 0
    assert marker.exists()


def test_a_controller_built_in_python_needs_no_flag(small_scenario):
    class Aimd(CongestionControl):
        def on_ack(self, conn, ack):
            conn.cwnd += ack.acked / conn.cwnd

    small_scenario["flow"][0]["variant"] = Aimd
    assert Scenario.from_dict(small_scenario).run().flows["bytes_delivered"][0] == 100_000


def test_the_current_directory_is_not_searched_for_a_module(tmp_path, monkeypatch, capsys):
    marker = tmp_path / "MARKER"
    (tmp_path / "helpermod.py").write_text(HELPER.format(marker=str(marker)))
    data = small_scenario_dict()
    data["flow"][0]["variant"] = "python:helpermod:Anything"
    (tmp_path / "scenario.toml").write_text(tomli_w.dumps(data))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    code = main(["run", "scenario.toml", "--out", "out", "--allow-python"])
    assert code == 2 and "No module named 'helpermod'" in capsys.readouterr().err
    assert not marker.exists()


@pytest.mark.parametrize("where", ["parent", "absolute", "symlink"])
def test_a_controller_file_outside_the_scenarios_directory_is_refused(tmp_path, where, capsys):
    marker = tmp_path / "MARKER"
    (tmp_path / "evil.py").write_text(HELPER.format(marker=str(marker)))
    inner = tmp_path / "inner"
    inner.mkdir()
    name = {"parent": "../evil.py", "absolute": str(tmp_path / "evil.py"), "symlink": "link.py"}[where]
    if where == "symlink":
        (inner / "link.py").symlink_to(tmp_path / "evil.py")
    data = small_scenario_dict()
    data["flow"][0]["variant"] = f"python:{name}:Anything"
    path = inner / "scenario.toml"
    path.write_text(tomli_w.dumps(data))
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--allow-python"]) == 2
    assert "must be in the scenario's directory" in capsys.readouterr().err
    assert not marker.exists()


def test_a_sweep_file_confines_the_controllers_it_varies_too(tmp_path):
    (tmp_path / "base.toml").write_text(tomli_w.dumps(small_scenario_dict()))
    sweep = {"sweep": {"base": "base.toml", "grid": {"flow.f1.variant": ["reno", "python:../x.py:C"]}}}
    (tmp_path / "sweep.toml").write_text(tomli_w.dumps(sweep))
    with pytest.raises(ScenarioError, match=r"sweep\.grid\.flow\.f1\.variant\[1\]: .*must be in"):
        Sweep.from_toml(tmp_path / "sweep.toml")


# -- reading, bounded -------------------------------------------------------------------


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RUST_BACKTRACE"}
    return subprocess.run(
        [sys.executable, "-m", "renolab", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.mark.parametrize("command", ["check", "run", "sweep"])
def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path, command):
    fifo = tmp_path / "scenario.toml"
    os.mkfifo(fifo)
    args = [command, str(fifo)] + (["--out", str(tmp_path / "out")] if command != "check" else [])
    proc = _cli(*args, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"renolab: error: {fifo}: is a FIFO; a {'sweep' if command == 'sweep' else 'scenario'} is read from a regular file"


def test_deep_toml_and_huge_numbers_give_one_line_without_a_traceback(tmp_path):
    cases = {
        "arrays": "a = " + "[" * 100_000 + "]" * 100_000,
        "tables": "a = " + "{b = " * 5_000 + "1" + "}" * 5_000,
        "dotted": "a." * 200_000 + "a = 1",
        "digits": "[simulation]\nseed = " + "9" * 5_000,
    }
    for name, text in cases.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        proc = _cli("check", str(path))
        assert proc.returncode == 2, (name, proc.stderr)
        assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr, (name, proc.stderr)
        assert len(proc.stderr) < 300


# -- the Python API: ScenarioError and nothing else ------------------------------------------


def _deep(n: int) -> dict:
    d: dict = {}
    for _ in range(n):
        d = {"x": d}
    return d


def _cycle() -> dict:
    d: dict = {"simulation": {}}
    d["simulation"]["self"] = d
    return d


def _with(**changes):
    data = small_scenario_dict()
    for path, value in changes.items():
        section, _, key = path.partition("__")
        if not key:
            data[section] = value
            continue
        target = data[section] if not isinstance(data[section], list) else data[section][0]
        if key:
            target[key] = value
        else:
            data[section] = value
    return data


def _scenario():
    return Scenario.from_dict(small_scenario_dict())


HOSTILE_API_CALLS = {
    "from_dict(5)": lambda: Scenario.from_dict(5),
    "from_dict(None)": lambda: Scenario.from_dict(None),
    "from_dict(100000 levels)": lambda: Scenario.from_dict(_deep(100_000)),
    "from_dict(a cycle)": lambda: Scenario.from_dict(_cycle()),
    "from_dict({1: 2})": lambda: Scenario.from_dict({1: 2}).validate(),
    "from_dict(a 5000-digit seed)": lambda: Scenario.from_dict(_with(simulation__seed=10**5000)).validate(),
    "from_dict(seed 2**70)": lambda: Scenario.from_dict(_with(simulation__seed=2**70)).validate(),
    "from_dict(a float nan rate)": lambda: Scenario.from_dict(_with(link__rate=float("nan"))).validate(),
    "from_dict(bytes value)": lambda: Scenario.from_dict(_with(flow__name=b"f1")).validate(),
    "from_dict(a set)": lambda: Scenario.from_dict(_with(flow__options={1, 2})).validate(),
    "from_dict(an object)": lambda: Scenario.from_dict(_with(flow__variant=object())).validate(),
    "from_dict(variant 5)": lambda: Scenario.from_dict(_with(flow__variant=5)).validate(),
    "from_dict(a lone surrogate)": lambda: Scenario.from_dict(_with(flow__name="\ud800")).validate(),
    "from_dict(a NUL in a name)": lambda: Scenario.from_dict(_with(flow__name="f\x001")).validate(),
    "from_dict(a megabyte name)": lambda: Scenario.from_dict(_with(flow__name="x" * 2**20)).validate(),
    "from_dict(link = 5)": lambda: Scenario.from_dict(_with(link=5)).validate(),
    "from_dict(flow = [5])": lambda: Scenario.from_dict(_with(flow=[5])).validate(),
    "from_dict(description = 5)": lambda: Scenario.from_dict(_with(description=5)).validate(),
    "Scenario(link=5)": lambda: Scenario(link=5),
    "Scenario(simulation=5)": lambda: Scenario(simulation=5),
    "Scenario(flow='abc')": lambda: Scenario(flow="abc").validate(),
    "Scenario(topology=[5])": lambda: Scenario(topology=[5], link=[]).validate(),
    "from_toml_str(5)": lambda: Scenario.from_toml_str(5),
    "from_toml_str(deep)": lambda: Scenario.from_toml_str("a = " + "[" * 10_000 + "]" * 10_000),
    "from_toml_str(digits)": lambda: Scenario.from_toml_str("a = " + "9" * 5_000),
    "from_toml_str(dotted)": lambda: Scenario.from_toml_str("a." * 50_000 + "a = 1"),
    "from_toml(5)": lambda: Scenario.from_toml(5),
    "from_toml(None)": lambda: Scenario.from_toml(None),
    "from_toml(/dev/zero)": lambda: Scenario.from_toml("/dev/zero"),
    "from_toml(/)": lambda: Scenario.from_toml("/"),
    "from_toml(missing)": lambda: Scenario.from_toml("/nonexistent/x.toml"),
    "from_toml(NUL)": lambda: Scenario.from_toml("a\x00b.toml"),
    "with_seed('x')": lambda: _scenario().with_seed("x"),
    "with_seed(None)": lambda: _scenario().with_seed(None),
    "with_seed(-1)": lambda: _scenario().with_seed(-1).validate(),
    "with_seed(2**70)": lambda: _scenario().with_seed(2**70).validate(),
    "run(trace=5)": lambda: _scenario().run(trace=5),
    "run(trace=[5])": lambda: _scenario().run(trace=[5]),
    "run(trace='bogus')": lambda: _scenario().run(trace="bogus"),
    "run(trace_memory_limit=-1)": lambda: _scenario().run(trace="cwnd", trace_memory_limit=-1),
    "run(trace_memory_limit=2**70)": lambda: _scenario().run(trace="cwnd", trace_memory_limit=2**70),
    "run(trace_memory_limit='x')": lambda: _scenario().run(trace="cwnd", trace_memory_limit="x"),
    "run(progress=5)": lambda: _scenario().run(progress=5),
    "run(trace_dir=5)": lambda: _scenario().run(trace="cwnd", trace_dir=5),
    "run(trace_dir='')": lambda: _scenario().run(trace="cwnd", trace_dir=""),
    "run(pcap_dir=[])": lambda: _scenario().run(pcap_dir=[]),
    "run(python string)": lambda: Scenario.from_dict(_with(flow__variant="python:os:path")).run(),
    "Sweep(base=5)": lambda: Sweep(5),
    "Sweep(grid=5)": lambda: Sweep(small_scenario_dict(), grid=5),
    "Sweep(grid={path: 5})": lambda: Sweep(small_scenario_dict(), grid={"flow.f1.variant": 5}),
    "Sweep(grid={5: [1]})": lambda: Sweep(small_scenario_dict(), grid={5: [1]}),
    "Sweep(grid deep)": lambda: Sweep(small_scenario_dict(), grid=_deep(100_000)),
    "Sweep(a 2000-part path)": lambda: Sweep(small_scenario_dict(), grid={"a." * 2000 + "a": [1]}),
    "Sweep(replications=10**9)": lambda: Sweep(small_scenario_dict(), replications=10**9),
    "Sweep(replications='x')": lambda: Sweep(small_scenario_dict(), replications="x"),
    "Sweep(replications=True)": lambda: Sweep(small_scenario_dict(), replications=True),
    "Sweep(a million points)": lambda: Sweep(small_scenario_dict(), grid={"simulation.seed": list(range(1000)), "flow.f1.mss": list(range(1, 1001))}),
    "Sweep(points=5)": lambda: Sweep(small_scenario_dict(), points=5),
    "Sweep(points=[5])": lambda: Sweep(small_scenario_dict(), points=[5]),
    "Sweep(description=5)": lambda: Sweep(small_scenario_dict(), description=5),
    "Sweep.from_dict(5)": lambda: Sweep.from_dict(5),
    "Sweep.from_dict({'sweep': 5})": lambda: Sweep.from_dict({"sweep": 5}),
    "Sweep.from_toml(/dev/zero)": lambda: Sweep.from_toml("/dev/zero"),
    "Sweep.run(workers=0)": lambda: Sweep(small_scenario_dict()).run(workers=0, progress=False),
    "Sweep.run(workers='x')": lambda: Sweep(small_scenario_dict()).run(workers="x", progress=False),
    "Sweep.run(python string)": lambda: Sweep(_with(flow__variant="python:os:path")).run(progress=False),
}


@pytest.mark.parametrize("call", list(HOSTILE_API_CALLS), ids=list(HOSTILE_API_CALLS))
def test_hostile_api_calls_raise_scenario_error_and_nothing_else(call):
    try:
        HOSTILE_API_CALLS[call]()
    except ScenarioError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 2500, message[:300]
    else:
        pytest.fail(f"{call} was accepted")


def test_emulate_api_refuses_bad_arguments_with_scenario_error():
    from renolab.emulate import emulate

    for kwargs in ({"trace": 5}, {"trace_dir": 5}, {"trace_memory_limit": -1}, {"spin_us": "x"}, {"cpu": -1}):
        with pytest.raises(ScenarioError):
            emulate(small_scenario_dict(), **kwargs)
