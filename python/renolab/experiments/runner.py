"""Run many scenarios of a study in parallel, with a progress line.

``run_many(scenarios, workers=None, desc="lee2001", traces=("seq",))`` returns one
:class:`RunOutput` per scenario, in the order given, whatever order the workers finish in.
Each holds the per-flow and per-link tables, the summary, the requested traces as
DataFrames and, if a ``reduce`` function was given, what it returned for the run (computed
in the worker, so big traces never cross the process boundary).
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import pandas as pd

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


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes} min {secs:02d} s"


class Progress:
    """``"<desc>: 37/72 runs, 12.3 runs/s, ETA 3 s"`` on stderr.

    Redrawn in place on a terminal (at most 10 times a second), otherwise printed at every
    10 % and at least every 30 s.
    """

    def __init__(self, total: int, desc: str, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.done = total, 0
        self.desc = desc or "runs"
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and total > 0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self.last_draw = -1.0
        self.last_decile = -1
        if self.enabled:
            self._draw(force=True)

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start
        text = f"{self.desc}: {self.done}/{self.total} runs"
        if self.done and elapsed > 0:
            rate = self.done / elapsed
            text += f", {rate:.3g} runs/s"
            text += f", ETA {_duration((self.total - self.done) / rate)}" if self.done < self.total else f", {_duration(elapsed)}"
        return text

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.enabled:
            self._draw(force=self.done == self.total)

    def _draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if self.tty:
            if force or now - self.last_draw >= 0.1:
                end = "\n" if self.done == self.total and self.done else ""
                self.stream.write("\r" + self.line() + "\x1b[K" + end)
                self.stream.flush()
                self.last_draw = now
            return
        decile = int(10 * self.done / self.total)
        if force or decile != self.last_decile or now - self.last_draw >= 30.0:
            print(self.line(), file=self.stream, flush=True)
            self.last_decile, self.last_draw = decile, now


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
    items = [s.to_dict() if isinstance(s, Scenario) else dict(s) for s in scenarios]
    traces = tuple(traces)
    n = len(items)
    if workers is None:
        workers = _cpu_count()
    workers = max(1, min(int(workers), n or 1))
    bar = Progress(n, desc, enabled=progress)
    outputs: list[RunOutput | None] = [None] * n
    if workers == 1 or n <= 1:
        for i, data in enumerate(items):
            outputs[i] = _worker((data, traces, reduce, keep_traces))
            bar.advance()
        return outputs  # type: ignore[return-value]
    import multiprocessing

    method = os.environ.get("RENOLAB_START_METHOD") or ("fork" if sys.platform.startswith("linux") else None)
    ctx = multiprocessing.get_context(method)
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(_worker, (data, traces, reduce, keep_traces)): i for i, data in enumerate(items)}
        try:
            for future in cf.as_completed(futures):
                outputs[futures[future]] = future.result()
                bar.advance()
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    return outputs  # type: ignore[return-value]
