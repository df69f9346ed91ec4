"""Parameter sweeps: many runs of one base scenario, in parallel, resumable.

A :class:`Sweep` is a base scenario, the parameters to vary and a number of
replications::

    from renolab import Sweep

    sweep = Sweep(
        base="examples/sweep/dumbbell.toml",
        grid={"link.bottleneck.rate": ["1Mbps", "2Mbps"], "flow.f1.variant": ["reno", "sack"]},
        replications=5,
    )
    runs, summary = sweep.run("out/sweep", workers=2)

Parameters are scenario fields addressed by path (:func:`set_field`):
``link.<name>.<key>``, ``flow.<name>.<key>`` (nested keys with dots, e.g.
``flow.f1.options.min_rto``), ``simulation.<key>``, ``link[i].<key>``.

Replication ``r`` of every parameter point runs with the seed
:func:`replication_seed` ``(base seed, r)``, so comparisons between points are
paired.  Each run is stored as ``OUT/runs/<key>.json`` where the key hashes the
normalised scenario, the seed, the replication and the renolab version; a run
whose file exists is not run again, so an interrupted sweep resumes where it
stopped.  When every run is done the results are collected into
``OUT/runs.parquet`` (one row per run and flow) and ``OUT/summary.parquet``
(mean, standard deviation and 95 % confidence interval per point, flow and
metric).  See docs/sweeps.md.

The package, by job: :mod:`~renolab.sweep.plan` (the sweep, its points, seeds and keys),
:mod:`~renolab.sweep.fields` (setting scenario fields by path),
:mod:`~renolab.sweep.store` (one run into its record file), :mod:`~renolab.sweep.execute`
(running a plan), :mod:`~renolab.sweep.local` and :mod:`~renolab.sweep.dask` (the
backends), :mod:`~renolab.sweep.summary` (the tables).
"""

from __future__ import annotations

from typing import Any

from renolab.stats import student_t_quantile
from renolab.sweep.execute import SweepInterrupted, SweepResult
from renolab.sweep.fields import set_field
from renolab.sweep.plan import PlannedRun, Sweep, replication_seed, run_key

__all__ = [
    "PlannedRun",
    "Sweep",
    "SweepInterrupted",
    "SweepResult",
    "replication_seed",
    "run_key",
    "set_field",
    "student_t_quantile",
    "summarise",
]


def __getattr__(name: str) -> Any:
    # summarise needs pandas: imported when first asked for, so `import renolab` stays light.
    if name == "summarise":
        from renolab.sweep.summary import summarise

        return summarise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
