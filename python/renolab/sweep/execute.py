"""Running a planned sweep: skip the runs already stored, hand the others to a backend
(local processes or Dask), then collect ``runs.parquet`` and ``summary.parquet``."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from renolab._core import ScenarioError, SimulationError
from renolab._text import format_duration, plural
from renolab.cc.load import require_allowed
from renolab.outdir import checked_path, locked
from renolab.progress import Progress
from renolab.scenario import PathLike
from renolab.sweep.plan import PlannedRun, format_params
from renolab.sweep.store import (
    RUNS_DIR,
    RUNS_FILE,
    SUMMARY_FILE,
    SWEEP_FILE,
    load_record,
    remove_stale_temporaries,
    sweep_json,
    write_atomic,
)

if TYPE_CHECKING:
    import pandas as pd

    from renolab.sweep.plan import Sweep

__all__ = ["SweepInterrupted", "SweepResult", "run_sweep"]


class SweepInterrupted(KeyboardInterrupt):
    """Raised by :meth:`Sweep.run` on Ctrl-C after the workers were stopped; finished runs are kept."""

    def __init__(self, done: int, total: int, runs_dir: Path | None) -> None:
        self.done, self.total, self.runs_dir = done, total, runs_dir
        where = f"; they are kept in {runs_dir}: run the same sweep again to resume" if runs_dir else ""
        super().__init__(f"interrupted: {done} of {total} runs finished{where}")

    def __str__(self) -> str:
        return str(self.args[0])


class SweepResult:
    """What :meth:`Sweep.run` returns: ``runs`` and ``summary`` DataFrames (``runs, summary = result``)
    plus ``out`` (the output directory, or None), ``total``, ``executed`` (runs simulated
    now), ``skipped`` (already finished) and ``wall_time_s``."""

    def __init__(
        self,
        runs: pd.DataFrame,
        summary: pd.DataFrame,
        *,
        out: Path | None,
        total: int,
        executed: int,
        skipped: int,
        wall_time_s: float,
        backend: str,
    ) -> None:
        self.runs, self.summary, self.out = runs, summary, out
        self.total, self.executed, self.skipped = total, executed, skipped
        self.wall_time_s, self.backend = wall_time_s, backend

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter((self.runs, self.summary))

    def describe(self) -> str:
        """One line: runs, new/skipped, time, backend, files."""
        same = self.total - self.executed - self.skipped
        text = (
            f"sweep: {plural(self.total, 'run')} ({self.executed} new, {self.skipped} already done"
            f"{f', {same} identical to another point' if same else ''}) "
            f"in {format_duration(self.wall_time_s)} on {self.backend}"
        )
        if self.out is not None:
            text += (
                f"; wrote {self.out / RUNS_FILE} ({plural(len(self.runs), 'row')}) and "
                f"{self.out / SUMMARY_FILE} ({plural(len(self.summary), 'row')})"
            )
        return text

    def __repr__(self) -> str:
        return f"<renolab.SweepResult: {self.describe()}>"


def run_sweep(
    sweep: Sweep,
    out: PathLike | None,
    *,
    workers: int | None,
    client: Any,
    scheduler: str | None,
    dask: bool,
    progress: bool,
    stream: TextIO | None,
    allow_python: bool = False,
) -> SweepResult:
    """:meth:`Sweep.run` (see there)."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ScenarioError(f"workers: expected a whole number >= 1, not {workers!r:.60}")
    options: dict[str, Any] = dict(
        workers=workers,
        client=client,
        scheduler=scheduler,
        dask=dask,
        progress=progress,
        stream=stream,
        allow_python=allow_python,
    )
    if out is None:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="renolab-sweep-") as tmp:
            result = run_sweep(sweep, tmp, **options)
            result.out = None
            return result
    started = time.perf_counter()
    stream = stream if stream is not None else sys.stderr
    plan = sweep.plan()
    if not allow_python:
        for run in plan:  # every point's scenario: a value varied may name one too
            require_allowed(run.scenario, allow_python)
    out_dir = checked_path(out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    # One sweep at a time: a second would run the same runs again, beside the first.
    with locked(out_dir, "sweep"):
        return _run_locked(
            sweep, plan, out_dir, started, stream, workers, client, scheduler, dask, progress, allow_python
        )


def _run_locked(
    sweep: Sweep,
    plan: list[PlannedRun],
    out_dir: Path,
    started: float,
    stream: TextIO,
    workers: int | None,
    client: Any,
    scheduler: str | None,
    dask: bool,
    progress: bool,
    allow_python: bool,
) -> SweepResult:
    """:func:`run_sweep` in its locked directory."""
    from renolab.pool import cpu_count
    from renolab.sweep.summary import param_names, runs_frame, summarise, write_parquet

    runs_dir = out_dir / RUNS_DIR
    runs_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(out_dir / SWEEP_FILE, sweep_json(sweep, plan))

    records: dict[str, dict[str, Any]] = {}
    todo: dict[str, PlannedRun] = {}
    for run in plan:
        if run.key in records or run.key in todo:
            continue
        record = load_record(runs_dir, run.key)
        if record is None:
            todo[run.key] = run
        else:
            records[run.key] = record
    skipped = len(records)
    unique = skipped + len(todo)
    n_workers = workers or cpu_count()
    bar = Progress(unique, "sweep", done=skipped, stream=stream, enabled=progress)
    failures: list[tuple[PlannedRun, BaseException]] = []
    try:
        if client is not None or scheduler is not None or dask:
            from renolab.sweep.dask import run_dask

            backend = run_dask(
                list(todo.values()), runs_dir, client, scheduler, dask, n_workers, bar, failures, allow_python
            )
        else:
            from renolab.sweep.local import run_local

            backend = run_local(list(todo.values()), runs_dir, n_workers, bar, failures, allow_python)
    except KeyboardInterrupt:
        bar.close()
        done = sum(1 for key in todo if (runs_dir / f"{key}.json").exists()) + skipped
        raise SweepInterrupted(done, unique, runs_dir) from None
    bar.close()
    if failures:
        run, exc = failures[0]
        raise SimulationError(
            f"{plural(len(failures), 'run')} of {unique} failed (the others are kept in {runs_dir}); "
            f"first: point {run.point} ({format_params(run.params)}), replication {run.replication}, "
            f"seed {run.seed}: {exc}"
        )
    for key in todo:
        record = load_record(runs_dir, key)
        if record is None:
            raise SimulationError(f"run {key}: its result file {runs_dir / (key + '.json')} is missing or damaged")
        records[key] = record
    runs = runs_frame(plan, records)
    summary = summarise(runs, param_names(runs))
    write_parquet(runs, out_dir / RUNS_FILE)
    write_parquet(summary, out_dir / SUMMARY_FILE)
    remove_stale_temporaries(runs_dir)
    return SweepResult(
        runs,
        summary,
        out=out_dir,
        total=len(plan),
        executed=len(todo),
        skipped=skipped,
        wall_time_s=time.perf_counter() - started,
        backend=backend,
    )
