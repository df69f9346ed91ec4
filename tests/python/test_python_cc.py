"""Congestion controllers written in Python (renolab.cc, docs/extending.md): the Python Reno
and NewReno of examples/python_reno.py run exactly as the built-ins, a controller's errors
stop the run with one line and the user's traceback, the ways a scenario names a
controller, the cc trace, sweeps and determinism."""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from renolab import Scenario, ScenarioError, SimulationError, Sweep
from renolab.cc import CongestionControl, ca_increment
from renolab.cc.load import resolve
from renolab.cli.main import main
from renolab.experiments import lee2001

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PYTHON_RENO = EXAMPLES / "python_reno.py"
RENO = f"python:{PYTHON_RENO}:Reno"
NEWRENO = f"python:{PYTHON_RENO}:NewReno"
#: What "identical" compares, per flow.
OUTCOME = [
    "completion_time_s",
    "retransmits",
    "timeouts",
    "fast_retransmits",
    "drops",
    "segments_sent",
    "segments_delivered",
    "bytes_delivered",
]

#: The columns of the core's own controllers in the ``cc`` trace (BBR's state), which come
#: before a Python controller's (docs/outputs.md).
CORE_CC_COLUMNS = ["mode", "btl_bw_bps", "min_rtt_s", "pacing_gain", "cwnd_gain", "pacing_rate_bps", "delivery_rate_bps",
                   "w_max", "k_s", "epoch_start_s", "alpha", "frac_cwnd", "classic_ecn"]


def _run(data: dict[str, Any], **kwargs: Any):
    return Scenario.from_dict(data).run(**kwargs, allow_python=True)


def assert_identical(builtin: dict[str, Any], python: dict[str, Any]) -> None:
    """The two scenarios give the same flows, events and cwnd trace, bit for bit."""
    a, b = _run(builtin, trace=["cwnd"]), _run(python, trace=["cwnd"])
    pd.testing.assert_frame_equal(a.flows[OUTCOME], b.flows[OUTCOME])
    assert a.summary["events"] == b.summary["events"]
    pd.testing.assert_frame_equal(a.trace("cwnd"), b.trace("cwnd"))
    assert b.summary["python_controller_calls"] > 0


def lee2001_point(buffer: int, variant: str, profile: str, hoe: bool | None = None) -> dict[str, Any]:
    return lee2001.scenario(8, buffer, variant, profile=profile, hoe=hoe).to_dict()


def as_python_newreno(data: dict[str, Any], hoe: bool) -> dict[str, Any]:
    """A built-in NewReno flow made the Python NewReno with the same recovery."""
    flow = data["flow"][0]
    flow["variant"] = NEWRENO
    flow["recovery"] = "newreno"
    options = flow["options"]
    options.pop("ssthresh_estimation", None)
    options["ssthresh_estimation"] = hoe  # NewReno's argument now
    if hoe:
        options["hoe_sending"] = True
    return data


def dumbbell(variant: Any, profile: str, **flow_extra: Any) -> dict[str, Any]:
    """Two flows over a 10 Mb/s, 20 ms bottleneck with a 25-packet buffer; the second
    starts 0.3 s later: losses, fast retransmits and (under ns2) timeouts."""
    flow_extra = {"options": {"window": 1000}, **flow_extra}
    access = {"rate": "100Mbps", "delay": "1ms"}
    return {
        "simulation": {"seed": 3, "profile": profile},
        "link": [
            {"from": "s1", "to": "g1", **access},
            {"from": "s2", "to": "g1", **access},
            {
                "name": "bottleneck",
                "from": "g1",
                "to": "g2",
                "rate": "10Mbps",
                "delay": "20ms",
                "queue": {"kind": "droptail", "limit": 25},
            },
            {"from": "g2", "to": "r1", **access},
            {"from": "g2", "to": "r2", **access},
        ],
        "flow": [
            {"name": "a", "variant": variant, "src": "s1", "dst": "r1", "bytes": 2_000_000, **flow_extra},
            {
                "name": "b",
                "variant": variant,
                "src": "s2",
                "dst": "r2",
                "bytes": 1_500_000,
                "start": "0.3s",
                **flow_extra,
            },
        ],
    }


# -- the Python Reno and NewReno are the built-ins ----------------------------------------


@pytest.mark.parametrize("profile", ["ns2", "linux"])
@pytest.mark.parametrize("buffer", [40, 80, 120, 160])
def test_python_reno_runs_as_the_builtin_reno_on_lee2001_w160(profile, buffer):
    python = lee2001_point(buffer, "reno", profile)
    python["flow"][0]["variant"] = RENO
    assert_identical(lee2001_point(buffer, "reno", profile), python)


@pytest.mark.parametrize("profile", ["ns2", "linux"])
@pytest.mark.parametrize("buffer", [40, 80, 120, 160])
def test_python_newreno_with_hoe_runs_as_the_builtin_newreno_on_lee2001_w160(profile, buffer):
    # lee2001's NewReno uses Hoe's estimate (ns-2 newreno_changes_).
    builtin = lee2001_point(buffer, "newreno", profile)
    assert builtin["flow"][0]["options"]["ssthresh_estimation"] is True
    assert_identical(builtin, as_python_newreno(lee2001_point(buffer, "newreno", profile), hoe=True))


@pytest.mark.parametrize("profile", ["ns2", "linux"])
def test_python_newreno_without_hoe_runs_as_the_builtin_newreno(profile):
    builtin = lee2001_point(40, "newreno", profile, hoe=False)
    assert_identical(builtin, as_python_newreno(lee2001_point(40, "newreno", profile, hoe=False), hoe=False))


@pytest.mark.parametrize("profile", ["ns2", "linux"])
def test_python_reno_and_newreno_run_as_the_builtins_on_a_two_flow_dumbbell(profile):
    builtin = dumbbell("reno", profile)
    outcome = _run(builtin).flows
    assert outcome["retransmits"].min() > 0 and outcome["fast_retransmits"].min() > 0, "the path loses"
    assert profile != "ns2" or outcome["timeouts"].min() > 0
    assert_identical(builtin, dumbbell(RENO, profile))
    assert_identical(dumbbell("newreno", profile), dumbbell(NEWRENO, profile, recovery="newreno"))


def test_hoe_sending_is_what_makes_the_python_newreno_send_as_ns2_with_hoe():
    builtin = _run(lee2001_point(40, "newreno", "ns2")).flows[OUTCOME]
    python = as_python_newreno(lee2001_point(40, "newreno", "ns2"), hoe=True)
    del python["flow"][0]["options"]["hoe_sending"]
    assert not builtin.equals(_run(python).flows[OUTCOME])


def test_float_arithmetic_drifts_from_the_builtin_window_and_ca_increment_does_not():
    class FloatReno(resolve(RENO)):
        def on_ack(self, conn, ack):
            conn.cwnd += 1 if conn.cwnd < conn.ssthresh else 1 / conn.cwnd

    # Slow start reaches ssthresh at 16 segments exactly, where 1/16 in floats is one unit
    # more than the fixed point's step.
    data = lee2001_point(160, "reno", "ns2")
    data["flow"][0]["options"]["initial_ssthresh"] = 16
    builtin = _run(data, trace=["cwnd"]).trace("cwnd")
    data["flow"][0]["variant"] = FloatReno
    floats = _run(data, trace=["cwnd"]).trace("cwnd")
    data["flow"][0]["variant"] = RENO
    pd.testing.assert_frame_equal(_run(data, trace=["cwnd"]).trace("cwnd"), builtin)
    shared = min(len(builtin), len(floats))
    difference = np.abs(builtin["cwnd"].to_numpy()[:shared] - floats["cwnd"].to_numpy()[:shared])
    assert difference.max() > 0, "1/cwnd in floats is not the engine's fixed point"
    assert difference[difference > 0].min() < 1e-6, "only in the last bits at first"


def test_ca_increment_is_the_builtin_step_bit_for_bit():
    unit = 2.0**-32
    for raw in [1 << 32, 2 << 32, (10 << 32) + 12345, 16 << 32, (100 << 32) + (1 << 31), (2**20 << 32) + 7]:
        cwnd = raw * unit
        assert ca_increment(cwnd) == (0xFFFF_FFFF_FFFF_FFFF // raw) * unit, cwnd
    assert ca_increment(16.0) == 1 / 16 - unit, "one unit less on a power of two"
    for bad in (0.5, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="a window is a finite number of segments, at least 1"):
            ca_increment(bad)
    with pytest.raises(TypeError):
        ca_increment("10")


# -- the contract's controller, named every way ---------------------------------------------


class Aimd(CongestionControl):
    """The issue's AIMD, with a gain."""

    trace = ("increments",)

    def __init__(self, gain=1.0):
        self.gain = gain
        self.increments = 0

    def on_start(self, conn):
        conn.cwnd = 10

    def on_ack(self, conn, ack):
        self.increments += 1
        if conn.cwnd < conn.ssthresh:
            conn.cwnd += ack.acked
        else:
            conn.cwnd += self.gain * ack.acked / conn.cwnd

    def on_congestion(self, conn, event):
        conn.ssthresh = max(conn.cwnd / 2, 2)
        conn.cwnd = 1 if event.kind == "timeout" else conn.ssthresh


AIMD_SOURCE = textwrap.dedent(
    """
    from renolab.cc import CongestionControl

    class Aimd(CongestionControl):
        def __init__(self, gain=1.0):
            self.gain = gain
        def on_start(self, conn):
            conn.cwnd = 10
        def on_ack(self, conn, ack):
            if conn.cwnd < conn.ssthresh:
                conn.cwnd += ack.acked
            else:
                conn.cwnd += self.gain * ack.acked / conn.cwnd
        def on_congestion(self, conn, event):
            conn.ssthresh = max(conn.cwnd / 2, 2)
            conn.cwnd = 1 if event.kind == "timeout" else conn.ssthresh
    """
)


def test_a_class_an_instance_a_file_and_a_module_run_the_same_controller(small_scenario, tmp_path, monkeypatch):
    (tmp_path / "controllers").mkdir()
    (tmp_path / "controllers" / "aimd_file.py").write_text(AIMD_SOURCE, encoding="utf-8")
    (tmp_path / "aimd_module.py").write_text(AIMD_SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    results = []
    for variant, options in [
        (Aimd, {}),
        (Aimd(gain=1.0), {}),
        ("python:aimd_module:Aimd", {}),
        ("python:aimd_module:Aimd", {"gain": 1.0}),
    ]:
        small_scenario["flow"][0]["variant"] = variant
        small_scenario["flow"][0]["options"] = {"initial_window": 1, **options}
        results.append(Scenario.from_dict(small_scenario).run(allow_python=True).flows[OUTCOME])
    # A file relative to the scenario file, run from elsewhere.
    small_scenario["flow"][0]["variant"] = "python:controllers/aimd_file.py:Aimd"
    scenario_file = tmp_path / "scenario.toml"
    scenario_file.write_text(Scenario.from_dict(small_scenario).to_toml(), encoding="utf-8")
    monkeypatch.chdir(Path(__file__).parent)
    results.append(Scenario.from_toml(scenario_file).run(allow_python=True).flows[OUTCOME])
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0], other)
    assert results[0]["retransmits"][0] > 0
    # The built-in Reno, for comparison, is another controller.
    small_scenario["flow"][0]["variant"] = "reno"
    small_scenario["flow"][0]["options"] = {"initial_window": 1}
    assert not Scenario.from_dict(small_scenario).run(allow_python=True).flows[OUTCOME].equals(results[0])


def test_arguments_change_the_run_and_an_instance_writes_them_as_options(small_scenario):
    small_scenario["flow"][0]["variant"] = Aimd(gain=4)
    scenario = Scenario.from_dict(small_scenario)
    normalised = scenario.validate(allow_python=True)
    assert normalised["flow"][0]["variant"] == f"python:{__name__}:Aimd"
    assert normalised["flow"][0]["options"]["gain"] == 4
    assert normalised["flow"][0]["options"]["initial_window"] == 1
    text = scenario.to_toml()
    assert f'variant = "python:{__name__}:Aimd"' in text and "gain = 4" in text
    assert Scenario.from_toml_str(text).to_json() == scenario.to_json()
    four = scenario.run(allow_python=True)
    small_scenario["flow"][0]["variant"] = Aimd
    one = Scenario.from_dict(small_scenario).run(allow_python=True)
    assert four.flows["variant"][0] == f"python:{__name__}:Aimd"
    assert not four.flows[OUTCOME].equals(one.flows[OUTCOME])


def test_bad_arguments_and_classes_are_scenario_errors_naming_the_field(small_scenario):
    flow = small_scenario["flow"][0]
    cases = [
        (Aimd, {"gian": 2}, "flow[0].options.gian: is neither an option of the sender nor an argument of Aimd(gain=1.0)"),
        (Aimd(gain=2), {"gain": 3}, "flow[0].options.gain: 3 contradicts the variant's argument Aimd(gain=2); give it once"),
        (dict, {}, "flow[0].variant: dict is not a variant; a Python controller subclasses renolab.cc.CongestionControl"),
        (f"python:{__name__}:NoSuchClass", {}, f"flow[0].variant: {__name__} has no class NoSuchClass"),
        ("python:os:getcwd", {}, "flow[0].variant: os.getcwd is not a class"),
        ("python:nowhere/nothing.py:Aimd", {}, "flow[0].variant: no file nowhere/nothing.py"),
    ]
    for variant, options, message in cases:
        flow["variant"] = variant
        flow["options"] = {"initial_window": 1, **options}
        with pytest.raises(ScenarioError) as excinfo:
            Scenario.from_dict(small_scenario).run(allow_python=True)
        assert str(excinfo.value) == message

    class Needs(CongestionControl):
        def __init__(self, beta):
            self.beta = beta

    flow["variant"], flow["options"] = Needs, {}
    with pytest.raises(ScenarioError, match=r"^flow\[0\]\.options: Needs\(beta\) needs the argument 'beta'$"):
        Scenario.from_dict(small_scenario).validate(allow_python=True)

    class Traces(CongestionControl):
        trace = "cwnd"

    flow["variant"] = Traces
    with pytest.raises(ScenarioError, match=r"Traces\.trace must be a tuple of attribute names, not 'cwnd'"):
        Scenario.from_dict(small_scenario).validate(allow_python=True)


# -- errors in the controller's code ----------------------------------------------------------


class Boom(CongestionControl):
    def __init__(self, after=20):
        self.after = after
        self.acks = 0

    def on_ack(self, conn, ack):
        self.acks += 1
        if self.acks == self.after:
            self.explode(conn)
        conn.cwnd += 1

    def explode(self, conn):
        return conn.cwnd / 0


def _failure(small_scenario: dict[str, Any], variant: Any, **options: Any) -> SimulationError:
    small_scenario["flow"][0]["variant"] = variant
    small_scenario["flow"][0]["options"] = {"initial_window": 1, **options}
    with pytest.raises(SimulationError) as excinfo:
        Scenario.from_dict(small_scenario).run(allow_python=True)
    return excinfo.value


def test_an_exception_stops_the_run_with_class_method_time_and_the_users_traceback(small_scenario):
    error = _failure(small_scenario, Boom)
    message = str(error)
    assert "\n" not in message
    match = re.fullmatch(
        r"Boom\.on_ack at t = (\d+\.\d{9}) s: ZeroDivisionError: float division by zero", message
    )
    assert match, message
    assert 0 < float(match.group(1)) < 1
    assert error.kind == "controller" and error.seed == 1
    assert isinstance(error.__cause__, ZeroDivisionError)
    trace = error.user_traceback
    assert trace.startswith("Traceback (most recent call last):")
    assert trace.count('File "') == 2 and trace.count(__file__) == 2, trace
    assert "in on_ack" in trace and "in explode" in trace and "renolab" not in trace.replace(__file__, "")
    assert trace.rstrip().endswith("ZeroDivisionError: float division by zero")


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("nan", "conn.cwnd = nan; a window is a finite number of segments, at least 1"),
        ("-3", "conn.cwnd = -3.0; a window is a finite number of segments, at least 1"),
        ("0.5", "conn.cwnd = 0.5; a window is a finite number of segments, at least 1"),
        ("inf", "conn.cwnd = inf; a window is a finite number of segments, at least 1"),
        ("'ten'", "conn.cwnd is not a number: TypeError: must be real number, not str"),
    ],
)
def test_a_window_that_is_not_one_segment_or_more_stops_the_run(small_scenario, setting, message):
    value = eval(setting, {"nan": math.nan, "inf": math.inf})

    class Bad(CongestionControl):
        def on_ack(self, conn, ack):
            conn.cwnd = value

    error = _failure(small_scenario, Bad)
    assert re.fullmatch(rf"Bad\.on_ack at t = \d+\.\d{{9}} s: {re.escape(message)}", str(error))
    assert error.kind == "controller"


def test_errors_at_construction_start_threshold_pacing_and_traced_values(small_scenario):
    class InitFails(CongestionControl):
        def __init__(self):
            raise RuntimeError("no config")

    class StartFails(CongestionControl):
        def on_start(self, conn):
            conn.ssthresh = -1

    class Paces(CongestionControl):
        def on_start(self, conn):
            conn.pacing_rate_bps = 1e6

    class TracesText(CongestionControl):
        trace = ("mode",)
        mode = "startup"

    cases = [
        (InitFails, "InitFails.__init__ at t = 0.000000000 s: RuntimeError: no config"),
        (StartFails, "StartFails.on_start at t = 0.000000000 s: conn.ssthresh = -1.0; a threshold is a number of segments, at least 0"),
        (Paces, "Paces.on_start at t = 0.000000000 s: conn.pacing_rate_bps is set but the flow does not pace; set options.pacing = true"),
    ]
    for cls, message in cases:
        assert str(_failure(small_scenario, cls)) == message
    small_scenario["flow"][0]["variant"] = TracesText
    with pytest.raises(SimulationError) as excinfo:
        Scenario.from_dict(small_scenario).run(trace="cc", allow_python=True)
    assert str(excinfo.value) == (
        "TracesText.on_start at t = 0.000000000 s: traced attribute mode is 'startup'; a traced value is a number or None"
    )


def test_ctrl_c_in_the_controller_is_a_keyboard_interrupt(small_scenario):
    class Interrupted(CongestionControl):
        def on_ack(self, conn, ack):
            raise KeyboardInterrupt

    small_scenario["flow"][0]["variant"] = Interrupted
    with pytest.raises(KeyboardInterrupt):
        Scenario.from_dict(small_scenario).run(allow_python=True)


def test_the_command_line_prints_one_line_then_the_users_traceback_and_exits_1(small_scenario, tmp_path, capsys):
    (tmp_path / "ctl").mkdir()
    (tmp_path / "ctl" / "boom.py").write_text(
        "from renolab.cc import CongestionControl\n\n"
        "class Boom(CongestionControl):\n"
        "    def on_ack(self, conn, ack):\n"
        "        conn.cwnd += 1\n\n"
        "    def on_congestion(self, conn, event):\n"
        "        raise ValueError(f'no {event.kind} here')\n",
        encoding="utf-8",
    )
    small_scenario["flow"][0]["variant"] = "python:ctl/boom.py:Boom"
    scenario_file = tmp_path / "s.toml"
    scenario_file.write_text(Scenario.from_dict(small_scenario).to_toml(), encoding="utf-8")
    assert main(["run", str(scenario_file), "--out", str(tmp_path / "out"), "--allow-python"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert re.fullmatch(
        r"renolab: error: simulation failed: Boom\.on_congestion at t = \d+\.\d{9} s: ValueError: no fast_retransmit here",
        err[0],
    ), err[0]
    assert err[1] == "Traceback (most recent call last):"
    assert str(tmp_path / "ctl" / "boom.py") in err[2] and "in on_congestion" in err[2]
    assert err[-1] == "ValueError: no fast_retransmit here"
    assert not any("renolab/" in line for line in err[1:])


# -- what the controller sees and records ----------------------------------------------------


def test_conn_ack_and_event_carry_what_the_sender_knows(small_scenario):
    seen: dict[str, list[Any]] = {"start": [], "ack": [], "event": []}

    class Probe(CongestionControl):
        def on_start(self, conn):
            seen["start"].append((conn.cwnd, conn.ssthresh, conn.mss, conn.now_s, conn.flow, conn.profile))

        def on_ack(self, conn, ack):
            seen["ack"].append(
                (conn.now_ns, ack.acked, ack.sacked, ack.ack, ack.in_flight, ack.rtt_s, ack.min_rtt_s, ack.srtt_s, ack.ce)
            )
            conn.cwnd += 1

        def on_congestion(self, conn, event):
            seen["event"].append((event.kind, event.window, conn.cwnd))
            conn.cwnd = conn.ssthresh = max(event.window / 2, 2)

    small_scenario["flow"][0]["variant"] = Probe
    small_scenario["flow"][0]["start"] = "0.5s"
    Scenario.from_dict(small_scenario).run(allow_python=True)
    assert seen["start"] == [(1.0, 4294967295.0, 1000, 0.5, "f1", "rfc")]
    times = [a[0] for a in seen["ack"]]
    assert times == sorted(times) and times[0] > 500_000_000
    assert all(a[1] >= 1 and a[2] == 0 and a[8] is False for a in seen["ack"])
    assert [a[3] for a in seen["ack"]] == sorted(a[3] for a in seen["ack"])
    rtts = [a[5] for a in seen["ack"] if a[5] is not None]
    assert rtts and all(0.02 < r < 1 for r in rtts), "RTT samples under the rfc profile too"
    assert seen["ack"][-1][6] == min(rtts) and seen["ack"][-1][7] is not None
    assert seen["event"] and seen["event"][0][0] in ("fast_retransmit", "timeout")


def test_the_cc_trace_records_the_traced_attributes_when_they_change(small_scenario, tmp_path):
    small_scenario["flow"][0]["variant"] = Aimd
    result = Scenario.from_dict(small_scenario).run(trace=["cc", "cwnd"], allow_python=True)
    cc = result.trace("cc")
    assert list(cc.columns) == ["time_s", "flow", *CORE_CC_COLUMNS, "increments"]
    assert list(cc["increments"]) == list(range(len(cc)))
    assert set(cc["flow"]) == {"f1"} and cc["time_s"].is_monotonic_increasing
    # Saved and read back, and streamed to a directory.
    result.save(tmp_path / "run")
    from renolab import Result

    pd.testing.assert_frame_equal(Result.load(tmp_path / "run").trace("cc"), cc)
    streamed = Scenario.from_dict(small_scenario).run(trace="cc", trace_dir=tmp_path / "traces", allow_python=True).trace("cc")
    pd.testing.assert_frame_equal(streamed, cc)
    # Built-in variants record nothing.
    small_scenario["flow"][0]["variant"] = "reno"
    assert len(Scenario.from_dict(small_scenario).run(trace="cc", allow_python=True).trace("cc")) == 0


def test_a_controller_may_pace(small_scenario):
    class Paced(CongestionControl):
        def on_start(self, conn):
            conn.cwnd = 100
            conn.pacing_rate_bps = 200_000

    small_scenario["flow"][0]["variant"] = Paced
    small_scenario["flow"][0]["options"] = {"pacing": True}
    flow = Scenario.from_dict(small_scenario).run(allow_python=True).flows.iloc[0]
    # The first ten segments leave at once (as Linux), the other 90 x 1040 bytes at 200 kb/s:
    # 3.74 s, the 1 Mb/s bottleneck never queueing.
    assert 3.74 < flow["completion_time_s"] < 3.8
    assert flow["drops"] == 0


def test_runs_are_deterministic_and_the_instance_given_is_never_run(small_scenario):
    instance = Aimd(gain=2)
    small_scenario["flow"][0]["variant"] = instance
    scenario = Scenario.from_dict(small_scenario)
    first, second = scenario.run(trace="cwnd", allow_python=True), scenario.run(trace="cwnd", allow_python=True)
    pd.testing.assert_frame_equal(first.flows[OUTCOME], second.flows[OUTCOME])
    pd.testing.assert_frame_equal(first.trace("cwnd"), second.trace("cwnd"))
    assert instance.increments == 0


# -- sweeps ---------------------------------------------------------------------------------


def test_a_sweep_over_a_controllers_argument_on_local_workers(small_scenario, tmp_path):
    (tmp_path / "aimd.py").write_text(AIMD_SOURCE, encoding="utf-8")
    small_scenario["flow"][0]["variant"] = "python:aimd.py:Aimd"
    (tmp_path / "base.toml").write_text(Scenario.from_dict(small_scenario).to_toml(), encoding="utf-8")
    (tmp_path / "sweep.toml").write_text(
        '[sweep]\nbase = "base.toml"\nreplications = 2\n[sweep.grid]\n"flow.f1.options.gain" = [1, 3]\n',
        encoding="utf-8",
    )
    by_file = Sweep.from_toml(tmp_path / "sweep.toml").run(tmp_path / "file", workers=2, progress=False, allow_python=True)
    small_scenario["flow"][0]["variant"] = Aimd  # the class itself, pickled to the workers
    by_class = Sweep(small_scenario, grid={"flow.f1.options.gain": [1, 3]}, replications=2).run(
        tmp_path / "class", workers=2, progress=False
    )
    runs = by_file.runs
    assert len(runs) == 4 and set(runs["flow.f1.options.gain"]) == {1, 3}
    gains = runs.groupby("flow.f1.options.gain")["completion_time_s"].first()
    assert gains[1] != gains[3]
    pd.testing.assert_series_equal(
        runs.set_index("flow.f1.options.gain")["completion_time_s"].sort_index(),
        by_class.runs.set_index("flow.f1.options.gain")["completion_time_s"].sort_index(),
    )


def test_a_sweep_on_dask_imports_a_file_or_takes_a_pickled_class(small_scenario, tmp_path):
    distributed = pytest.importorskip("distributed")
    (tmp_path / "aimd.py").write_text(AIMD_SOURCE, encoding="utf-8")
    small_scenario["flow"][0]["variant"] = f"python:{tmp_path / 'aimd.py'}:Aimd"
    by_file = Sweep(small_scenario, grid={"flow.f1.options.gain": [1, 3]})

    class LocalAimd(Aimd):  # defined here: cloudpickle sends it by value
        pass

    small_scenario["flow"][0]["variant"] = LocalAimd
    by_value = Sweep(small_scenario, grid={"flow.f1.options.gain": [1, 3]})
    with distributed.LocalCluster(
        n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        file_runs = by_file.run(tmp_path / "file", client=client, progress=False, allow_python=True).runs
        value_runs = by_value.run(tmp_path / "value", client=client, progress=False, allow_python=True).runs
    local = by_file.run(tmp_path / "local", workers=1, progress=False, allow_python=True).runs
    for runs in (file_runs, value_runs):
        assert list(runs["completion_time_s"]) == list(local["completion_time_s"])


def test_the_python_aimd_gives_the_figures_its_rust_port_gives():
    # crates/renolab-core/tests/custom_cc.rs runs the port of docs/extending.md on the same
    # scenario and expects the same figures: the port runs as its prototype.
    # The file names examples/python_cc.py by a path outside its directory, which renolab
    # refuses to load from a scenario file (docs/extending.md): read as text, the flows get
    # the same class by its absolute path.
    text = (Path(__file__).resolve().parents[1] / "scenarios" / "aimd_port.toml").read_text()
    data = Scenario.from_toml_str(text).to_dict()
    for flow in data["flow"]:
        flow["variant"] = f"python:{EXAMPLES / 'python_cc.py'}:Aimd"
    result = Scenario.from_dict(data).run(allow_python=True)
    flows = result.flows
    assert [round(t * 1e9) for t in flows["finish_s"]] == [9_293_691_200, 8_067_116_800]
    assert list(flows["retransmits"]) == [238, 187] and list(flows["timeouts"]) == [5, 4]
    assert result.summary["events"] == 22_916


def test_positional_arguments_are_named_by_the_signature(small_scenario):
    from renolab.cc.load import arguments_of

    class Star(CongestionControl):
        def __init__(self, *weights):
            self.weights = weights

    assert arguments_of(Aimd(3)) == {"gain": 3}
    assert arguments_of(Aimd()) == {}
    with pytest.raises(TypeError, match="^Boom takes no arguments$"):
        arguments_of(type("Boom", (CongestionControl,), {})(5))
    small_scenario["flow"][0]["variant"] = Star(1, 2)
    with pytest.raises(ScenarioError, match=r"^flow\[0\]\.variant: Star: pass \*weights by keyword to use it in a scenario$"):
        Scenario.from_dict(small_scenario).to_json()


def test_python_and_builtin_flows_mix_and_the_cc_trace_has_every_controllers_columns():
    builtin = dumbbell("reno", "rfc")
    mixed = dumbbell("reno", "rfc")
    mixed["flow"][1]["variant"] = RENO
    assert_identical(builtin, mixed)
    assert list(_run(mixed).flows["variant"]) == ["reno", RENO]

    class Other(CongestionControl):
        trace = ("rounds", "increments")

        def __init__(self):
            self.rounds, self.increments = 0, None

        def on_ack(self, conn, ack):
            self.rounds += 1
            conn.cwnd += 1 / conn.cwnd

    two = dumbbell(Aimd, "rfc")
    two["flow"][1]["variant"] = Other
    cc = _run(two, trace="cc").trace("cc")
    assert list(cc.columns) == ["time_s", "flow", *CORE_CC_COLUMNS, "increments", "rounds"]
    a, b = cc[cc["flow"] == "a"], cc[cc["flow"] == "b"]
    assert a["rounds"].isna().all() and not a["increments"].isna().any()
    assert b["increments"].isna().all() and list(b["rounds"]) == list(range(len(b)))
    assert cc["time_s"].is_monotonic_increasing


def test_the_tutorial_example_runs_and_writes_its_figure(tmp_path, capsys):
    import runpy

    example = runpy.run_path(str(EXAMPLES / "python_cc.py"))
    example["main"](str(tmp_path / "figure.png"))
    assert (tmp_path / "figure.png").stat().st_size > 10_000
    out = capsys.readouterr().out
    assert "python:" in out and f"wrote {tmp_path / 'figure.png'}" in out


def test_python_rows_merge_into_a_cc_trace_the_core_records_for_its_own_controllers():
    # When the core records cc rows of its own controllers (BBR's), the binding merges the
    # Python controllers' rows into that trace: one table, in time order.
    from renolab import _core

    core_fields = [("time_ns", "<u8"), ("flow", "<u4"), ("mode", "u1"), ("pacing_rate_bps", "<f8")]
    python_fields = [("time_ns", "<u8"), ("flow", "<u4"), ("queued", "<f8"), ("pacing_rate_bps", "<f8")]
    core = np.array([(10, 0, 2, 1e6), (30, 0, 3, 2e6)], dtype=np.dtype(core_fields)).tobytes()
    python = np.array([(10, 1, 1.5, 5e5), (20, 1, 2.5, np.nan)], dtype=np.dtype(python_fields)).tobytes()
    fields, records = _core._merge_trace_records(core_fields, core, python_fields, python)
    assert [tuple(f) for f in fields] == [*core_fields, ("queued", "<f8")]
    merged = np.frombuffer(bytes(records), dtype=np.dtype([tuple(f) for f in fields]))
    assert list(merged["time_ns"]) == [10, 10, 20, 30] and list(merged["flow"]) == [0, 1, 1, 0]
    assert list(merged["mode"]) == [2, 255, 255, 3], "no mode for a Python controller"
    assert list(merged["pacing_rate_bps"][[0, 1, 3]]) == [1e6, 5e5, 2e6] and np.isnan(merged["pacing_rate_bps"][2])
    assert np.isnan(merged["queued"][[0, 3]]).all() and list(merged["queued"][[1, 2]]) == [1.5, 2.5]
