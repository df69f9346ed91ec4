"""The local backend of a sweep: the runs on this machine's cores (:mod:`renolab.pool`)."""

from __future__ import annotations

from pathlib import Path

from renolab._core import SimulationError
from renolab._text import plural
from renolab.pool import WorkersDied, run_each
from renolab.progress import Progress
from renolab.sweep import store
from renolab.sweep.plan import PlannedRun

__all__ = ["run_local"]


def run_local(
    todo: list[PlannedRun],
    runs_dir: Path,
    workers: int,
    bar: Progress,
    failures: list[tuple[PlannedRun, BaseException]],
    allow_python: bool = False,
) -> str:
    """Run *todo* on *workers* local processes (1: in this process), storing each record in
    *runs_dir*; failed runs are added to *failures*.  Returns the backend's description.
    *allow_python*: the runs may import the Python controllers they name."""
    workers = max(1, min(workers, len(todo))) if todo else max(1, workers)
    label = plural(workers, "local worker") if workers > 1 else "1 local worker (in process)"
    jobs = [(r.scenario, str(runs_dir), r.key, r.seed, r.replication, r.params, allow_python) for r in todo]
    outcomes = run_each(
        store.run_job,
        jobs,
        workers=workers,
        progress=bar,
        in_process_errors=(SimulationError,),
        # A run whose worker died after storing it is done: keep it.
        finished_elsewhere=lambda i: store.load_record(runs_dir, todo[i].key) is not None,
    )
    try:
        for index, _value, error in outcomes:
            if error is not None:
                failures.append((todo[index], error))
    except WorkersDied as exc:
        hint = ""
        if not exc.any_finished:
            hint = (
                "; if the sweep is started from a script, call it under "
                '`if __name__ == "__main__":` (worker processes import the main module)'
            )
        raise SimulationError(
            f"worker processes died {exc.restarts} times; {exc.left} runs not done "
            f"(finished runs are kept in {runs_dir}; run the sweep again to resume){hint}"
        ) from None
    return label
