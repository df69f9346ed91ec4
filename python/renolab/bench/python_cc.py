"""A Python controller against the built-in Reno (``renolab bench --python-cc``): the
one-flow reference dumbbell with each, alternating, in fresh child processes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from renolab.bench.dumbbell import reference_scenario
from renolab.bench.measure import Run, run_with_package
from renolab.bench.text import duration_text, ranged, si, spread, table
from renolab.scenario import Scenario

#: The controller ``--python-cc`` measures by default: the Python Reno of the examples.
DEFAULT_PYTHON_CC = "examples/python_reno.py:Reno"


def python_cc_variant(controller: str) -> str:
    """The variant naming *controller*: ``"python:..."`` as given, or ``FILE.py:Class``
    (relative to the current directory, else to the source tree) made absolute."""
    if controller.startswith("python:"):
        return controller
    path, sep, name = controller.rpartition(":")
    if not sep or not path.endswith(".py"):
        raise ValueError(f"{controller!r}: give FILE.py:Class or python:<module>:<Class>")
    candidates = [Path(path), Path(__file__).resolve().parents[3] / path]
    for candidate in candidates:
        if candidate.is_file():
            return f"python:{candidate.resolve()}:{name}"
    raise FileNotFoundError(2, "controller file not found (run from the source tree or give its path)", path)


@dataclass
class PythonCcCase:
    """The reference dumbbell with the built-in Reno and with a Python controller."""

    controller: str
    duration_s: float
    builtin: list[Run] = field(default_factory=list)
    python: list[Run] = field(default_factory=list)

    def scenarios(self) -> tuple[Scenario, Scenario]:
        builtin = reference_scenario(1, duration=duration_text(self.duration_s))
        data = builtin.to_dict()
        data["flow"][0]["variant"] = python_cc_variant(self.controller)
        return builtin, Scenario.from_dict(data)


def run_python_cc(case: PythonCcCase, repeat: int, progress: Callable[[str], None] = lambda _m: None) -> PythonCcCase:
    """Measures *case* *repeat* times, the built-in and the Python controller alternating."""
    builtin, python = case.scenarios()
    # The controller exists and takes its arguments, before anything runs. It is the one
    # named on the command line (--python-cc): the user's own request, not a file's.
    python.validate(allow_python=True)
    for k in range(repeat):
        progress(f"built-in reno run {k + 1}/{repeat}")
        case.builtin.append(run_with_package(builtin))
        progress(f"Python controller run {k + 1}/{repeat}")
        case.python.append(run_with_package(python))
    return case


def format_python_cc(case: PythonCcCase) -> str:
    """The report: a row per controller, then the speed ratio and the agreement."""
    n = len(case.python)
    lines = [
        f"Python controller {case.controller} against the built-in reno: reference dumbbell, 1 flow, "
        f"1 Gb/s bottleneck, {case.duration_s:g} s simulated; {n} repeat{'s' * (n != 1)}, median [min-max]"
    ]
    headers = ["controller", "run wall s", "delivered pkts", "controller calls", "calls/s"]
    rows = []
    for name, runs in (("built-in reno", case.builtin), ("Python", case.python)):
        calls = runs[-1].controller_calls
        rows.append(
            [
                name,
                ranged([r.run_wall_s for r in runs], lambda v: f"{v:.3f}"),
                f"{runs[-1].delivered:,}",
                "-" if calls is None else f"{calls:,}",
                "-" if calls is None else ranged([(r.controller_calls or 0) / r.run_wall_s for r in runs], si),
            ]
        )
    lines += ["  " + line for line in table(headers, rows)]
    ratios = [b.run_wall_s / p.run_wall_s for b, p in zip(case.builtin, case.python)]
    lo, mid, hi = spread(ratios)
    lines.append(
        f"  speed of the Python controller / the built-in's: median {mid:.2f} (min {lo:.2f}, max {hi:.2f}) "
        f"over {len(ratios)} paired run{'s' * (len(ratios) != 1)}"
    )
    same = all(
        (b.delivered, b.outcome) == (p.delivered, p.outcome) for b, p in zip(case.builtin, case.python)
    )
    ours = case.python[-1]
    lines.append(
        f"  delivered packets, retransmits, timeouts and drops: {'identical' if same else 'DIFFERENT'} "
        f"({ours.delivered:,}; {ours.outcome[0] if ours.outcome else '?'} retransmits)"
    )
    return "\n".join(lines)
