"""The Dask backend of a sweep: runs submitted to a ``dask.distributed`` cluster.

Workers write the run files into the output directory when they share its file system;
this process writes the ones they could not (from the record each run returns).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from renolab.progress import Progress
from renolab.sweep.plan import PlannedRun
from renolab.sweep.store import execute, load_record, write_record

__all__ = ["run_dask"]


def run_dask(
    todo: list[PlannedRun],
    runs_dir: Path,
    client: Any,
    scheduler: str | None,
    start_local_cluster: bool,
    workers: int,
    bar: Progress,
    failures: list[tuple[PlannedRun, BaseException]],
    allow_python: bool = False,
) -> str:
    try:
        import distributed
    except ImportError:
        raise ImportError(
            'running a sweep on Dask needs dask.distributed: pip install "renolab[dask]"'
        ) from None
    own_client = own_cluster = None
    if client is None:
        if scheduler is not None and os.path.isfile(scheduler):  # dask scheduler --scheduler-file
            own_client = client = distributed.Client(scheduler_file=scheduler)
        elif scheduler is not None:
            own_client = client = distributed.Client(scheduler)
        else:
            own_cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            own_client = client = distributed.Client(own_cluster)
    label = f"Dask scheduler {getattr(client.scheduler, 'address', '?')}"
    futures: dict[Any, PlannedRun] = {}
    try:
        for run in todo:
            future = client.submit(
                execute,
                run.scenario,
                str(runs_dir),
                run.key,
                run.seed,
                run.replication,
                run.params,
                allow_python,
                key=f"renolab-run-{run.key}",
                pure=False,
            )
            futures[future] = run
        for future in distributed.as_completed(list(futures)):
            run = futures[future]
            if future.status == "error":
                failures.append((run, future.exception()))
            else:
                key, _path, record = future.result()
                if load_record(runs_dir, key) is None:  # no shared file system with the worker
                    write_record(runs_dir, key, record)
            future.release()
            bar.advance()
    except BaseException:
        try:
            client.cancel(list(futures))
        except Exception:
            pass
        raise
    finally:
        futures.clear()
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
    return label
