"""The runs of a sweep on disk: running one run into its record, ``OUT/runs/<key>.json``.

A record is written atomically (temporary file, then rename) and read back only if it
parses and carries its key, so a run interrupted at any moment is either stored whole or
not stored at all, and runs again.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renolab import _core
from renolab._files import TEMP_PREFIX, write_atomic

if TYPE_CHECKING:
    from renolab.sweep.plan import PlannedRun, Sweep

RUNS_DIR = "runs"
RUNS_FILE = "runs.parquet"
SUMMARY_FILE = "summary.parquet"
SWEEP_FILE = "sweep.json"

#: Columns of runs.parquet that come from the run as a whole (``Result.summary``).
RUN_METRICS = ("events", "sim_time_s", "stop_reason")


def execute(
    scenario: dict[str, Any],
    runs_dir: str,
    key: str,
    seed: int,
    replication: int,
    params: dict[str, Any],
    allow_python: bool = False,
) -> tuple[str, str | None, dict[str, Any]]:
    """Run one scenario and store its record as ``runs_dir/<key>.json``.

    Returns ``(key, path or None if it could not be written here, record)``.
    """
    from renolab.scenario import Scenario  # spawn-safe: import inside the worker

    result = Scenario.from_dict(scenario).run(allow_python=allow_python)
    flows = [{k: _json_value(v) for k, v in row.items()} for row in result._records("flows")]
    links = [{k: _json_value(v) for k, v in row.items()} for row in result._records("links")]
    record = {
        "key": key,
        "renolab_version": result.summary.get("renolab_version"),
        "seed": seed,
        "replication": replication,
        "params": params,
        "run": {k: _json_value(result.summary.get(k)) for k in (*RUN_METRICS, "wall_time_s")},
        "flows": flows,
        "links": links,
    }
    try:
        path: str | None = str(write_record(Path(runs_dir), key, record))
    except OSError:
        path = None  # e.g. a Dask worker without the shared directory: the client writes it
    return key, path, record


def run_job(job: Sequence[Any]) -> None:
    """:func:`execute` of one job, the tuple of its arguments; what a local worker runs (the
    record stays on disk: nothing but a possible exception goes back to the parent)."""
    execute(*job)


def _json_value(value: Any) -> Any:
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_record(runs_dir: Path, key: str, record: Mapping[str, Any]) -> Path:
    runs_dir.mkdir(parents=True, exist_ok=True)
    path = runs_dir / f"{key}.json"
    # No fsync: after a power failure a renamed file may be empty or damaged, and
    # load_record then treats it as not done (it must parse and carry its key).
    write_atomic(path, json.dumps(record, default=str, allow_nan=False) + "\n", durable=False)
    return path


def load_record(runs_dir: Path, key: str) -> dict[str, Any] | None:
    """The stored record of *key*, or None if it is missing, unreadable or not this key's."""
    try:
        record = json.loads((runs_dir / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("key") != key or not isinstance(record.get("flows"), list):
        return None
    return record


def remove_stale_temporaries(runs_dir: Path, age_s: float = 3600.0) -> None:
    """Remove the temporary files of records (:func:`renolab._files.write_atomic`) older
    than *age_s*: left by workers that were killed."""
    now = time.time()
    for tmp in [*runs_dir.glob(f"{TEMP_PREFIX}*.part"), *runs_dir.glob(".*.tmp")]:
        try:
            if now - tmp.stat().st_mtime > age_s:
                tmp.unlink()
        except OSError:
            pass


def sweep_json(sweep: Sweep, plan: Sequence[PlannedRun]) -> str:
    data = {
        "renolab_version": _core.__version__,
        "sweep": sweep.to_dict(),
        "runs": [
            {"point": r.point, "replication": r.replication, "seed": r.seed, "key": r.key, "params": r.params}
            for r in plan
        ],
    }
    return json.dumps(data, indent=1, sort_keys=True, default=str) + "\n"
