"""Run many scenarios of a study in parallel (:mod:`renolab.pool`), with a progress display.

``run_many(scenarios, workers=None, desc="lee2001", traces=("seq",))`` returns one
:class:`RunOutput` per scenario, in the order given, whatever order the workers finish in.
Each holds the per-flow and per-link tables, the summary, the requested traces as
DataFrames and, if a ``reduce`` function was given, what it returned for the run (computed
in the worker, so big traces never cross the process boundary).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from renolab._core import SimulationError
from renolab.pool import WorkersDied, run_each
from renolab.progress import Progress
from renolab.scenario import Scenario

__all__ = ["RunOutput", "run_many", "run_one"]


@dataclass
class RunOutput:
    """What :func:`run_many` returns for one scenario (picklable)."""

    flows: pd.DataFrame
    links: pd.DataFrame
    summary: dict[str, Any]
    traces: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: What ``reduce(result)`` returned in the worker (None without ``reduce``).
    value: Any = None

    def trace(self, name: str) -> pd.DataFrame:
        """A trace requested with ``traces=``; KeyError naming the recorded ones otherwise."""
        if name not in self.traces:
            raise KeyError(f"trace {name!r} was not requested (have: {', '.join(self.traces) or 'none'})")
        return self.traces[name]

    def flow(self, name: str) -> dict[str, Any]:
        """The row of flow *name* in :attr:`flows` as a dict."""
        rows = self.flows[self.flows["flow"].astype(str) == name]
        if rows.empty:
            raise KeyError(f"no flow {name!r}")
        return rows.iloc[0].to_dict()


def run_one(
    scenario: Scenario | dict[str, Any],
    traces: Sequence[str] = (),
    reduce: Callable[[Any], Any] | None = None,
    keep_traces: bool = True,
) -> RunOutput:
    """Run one scenario in this process and package it as a :class:`RunOutput`."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_dict(scenario)
    result = scenario.run(trace=list(traces))
    frames = {name: result.trace(name) for name in traces} if keep_traces else {}
    value = reduce(result) if reduce is not None else None
    summary = dict(result.summary)
    return RunOutput(result.flows, result.links, summary, frames, value)


def _worker(args: tuple[dict[str, Any], tuple[str, ...], Any, bool]) -> RunOutput:
    data, traces, reduce, keep = args
    return run_one(Scenario.from_dict(data), traces, reduce, keep)


def run_many(
    scenarios: Iterable[Scenario | dict[str, Any]],
    workers: int | None = None,
    desc: str = "",
    *,
    traces: Sequence[str] = (),
    reduce: Callable[[Any], Any] | None = None,
    keep_traces: bool = True,
    progress: bool = True,
) -> list[RunOutput]:
    """Run *scenarios* in a process pool and return their outputs in the same order.

    *workers*: processes (default: every usable core; 1 runs in this process).
    *traces*: names of traces to record and return as DataFrames (``RunOutput.traces``).
    *reduce*: a module-level (picklable) function ``f(result) -> value`` run in the worker on
    the :class:`renolab.Result`; its value lands in ``RunOutput.value``.  With
    ``keep_traces=False`` the traces are used only by *reduce* and not returned.
    A failing run raises its exception (the pool is shut down first).
    """
    jobs = [(s.to_dict() if isinstance(s, Scenario) else dict(s), tuple(traces), reduce, keep_traces) for s in scenarios]
    outputs: list[RunOutput | None] = [None] * len(jobs)
    with Progress(len(jobs), desc, enabled=progress) as bar:
        try:
            for index, output, error in run_each(_worker, jobs, workers=workers, progress=bar, in_process_errors=()):
                if error is not None:
                    raise error
                outputs[index] = output
        except WorkersDied as exc:
            raise SimulationError(str(exc)) from None
    return outputs  # type: ignore[return-value]
