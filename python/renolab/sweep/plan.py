"""A sweep and its plan: the parameter points, the replications' seeds and the runs' keys."""

from __future__ import annotations

import builtins
import hashlib
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from renolab import _core
from renolab._core import ScenarioError
from renolab._text import plural
from renolab._files import check_depth, parse_toml, read_text
from renolab.scenario import PathLike, Scenario, absolute_trace_paths
from renolab.sweep.fields import flatten, set_field

if TYPE_CHECKING:
    from renolab.sweep.execute import SweepResult

__all__ = ["PlannedRun", "Sweep", "format_params", "replication_seed", "run_key"]

_SWEEP_KEYS = ("base", "replications", "grid", "zip", "point", "description")

#: Most runs a sweep may have (points x replications), checked before the points are
#: expanded: more is a mistake (planning alone would take minutes and gigabytes), or several
#: sweeps.
MAX_RUNS = 100_000


def replication_seed(base_seed: int, replication: int) -> int:
    """The seed of *replication* for a point whose scenario seed is *base_seed*.

    Replication 0 keeps *base_seed* (so a one-replication sweep reproduces
    ``renolab run``); replication r >= 1 uses the first 63 bits of
    ``sha256("renolab-sweep-seed:<base_seed>:<r>")``.  The seed depends on nothing else,
    so every parameter point sees the same seeds (paired comparisons).
    """
    if replication == 0:
        return int(base_seed)
    digest = hashlib.sha256(f"renolab-sweep-seed:{int(base_seed)}:{int(replication)}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def run_key(normalised: Mapping[str, Any], seed: int, replication: int, version: str = _core.__version__) -> str:
    """sha256 (hex) of the canonical JSON of the normalised scenario, seed, replication and version."""
    canonical = json.dumps(
        {"scenario": normalised, "seed": seed, "replication": replication, "renolab_version": version},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        allow_nan=False,
    )
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class PlannedRun:
    """One run of a sweep: a parameter point and a replication."""

    point: int
    replication: int
    seed: int
    key: str
    params: dict[str, Any] = field(compare=False)
    scenario: dict[str, Any] = field(compare=False, repr=False)


class Sweep:
    """A base scenario, the parameters to vary and a number of replications.

    - *base*: a :class:`Scenario`, a scenario dict or the path of a scenario TOML file.
    - *grid*: ``{path: [values]}``; every combination (the last path varies fastest).
    - *zip*: ``{path: [values]}``, lists of equal length varied together.
    - *points*: ``[{path: value, ...}, ...]``, explicit points.
    - *replications*: runs per point, with seeds :func:`replication_seed` (paired).

    When several of *points*, *zip* and *grid* are given the sweep runs their product
    (points outermost, grid innermost); a path may appear in only one of them.  With none,
    the sweep is the base scenario alone.  Paths are checked when the sweep is built and
    each point's scenario when it is planned (:meth:`plan`), before anything runs.
    """

    def __init__(
        self,
        base: Scenario | Mapping[str, Any] | PathLike,
        grid: Mapping[str, Sequence[Any]] | None = None,
        zip: Mapping[str, Sequence[Any]] | None = None,  # noqa: A002 - the contract's name
        points: Sequence[Mapping[str, Any]] | None = None,
        replications: int = 1,
        description: str | None = None,
    ) -> None:
        if isinstance(base, Scenario):
            self.base = Scenario.from_dict(base.to_dict())
        elif isinstance(base, Mapping):
            self.base = Scenario.from_dict(base)
        elif isinstance(base, (str, os.PathLike)):
            self.base = Scenario.from_toml(base)
        else:
            raise ScenarioError(f"sweep.base: expected a Scenario, a dict or a path, not {type(base).__name__}")
        if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
            raise ScenarioError(f"sweep.replications: {replications!r:.60} is not a whole number >= 1")
        if replications > MAX_RUNS:
            raise ScenarioError(
                f"sweep.replications: {replications} is more than the {MAX_RUNS} runs a sweep may have; "
                "split it into several sweeps"
            )
        if description is not None and not isinstance(description, str):
            raise ScenarioError(f"sweep.description: expected a string, got {type(description).__name__}")
        self.replications = replications
        self.description = description
        for where, table in (("sweep.grid", grid), ("sweep.zip", zip), ("sweep.point", points)):
            check_depth(table, where)
        self.grid = self._lists(grid, "sweep.grid")
        self.zip = self._lists(zip, "sweep.zip")
        lengths = {len(values) for values in self.zip.values()}
        if len(lengths) > 1:
            sizes = ", ".join(f"{p} has {len(v)}" for p, v in self.zip.items())
            raise ScenarioError(f"sweep.zip: the lists must have the same length; {sizes}")
        if points is not None and (isinstance(points, (str, Mapping)) or not isinstance(points, Sequence)):
            raise ScenarioError("sweep.point: expected an array of tables {path = value}")
        self.points = [
            flatten(p, f"sweep.point[{i}]", leaves_are_lists=False) for i, p in enumerate(points or [])
        ]
        self._check_size()
        self._check_paths()

    def _check_size(self) -> None:
        """Refuses more than :data:`MAX_RUNS` runs, counted without expanding the points."""
        points = max(len(self.points), 1) * len(next(iter(self.zip.values()), [None]))
        for values in self.grid.values():
            points *= len(values)
        runs = points * self.replications
        if runs > MAX_RUNS:
            raise ScenarioError(
                f"sweep: {plural(points, 'point')} x {plural(self.replications, 'replication')} is {runs} runs, "
                f"more than the {MAX_RUNS} a sweep may have; split it into several sweeps"
            )

    @staticmethod
    def _lists(table: Mapping[str, Sequence[Any]] | None, where: str) -> dict[str, list[Any]]:
        flat = flatten(table or {}, where, leaves_are_lists=True)
        out = {}
        for path, values in flat.items():
            if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence):
                raise ScenarioError(_core.shorten_message(f"{where}: {path}: expected an array of values, not {values!r}"))
            if len(values) == 0:
                raise ScenarioError(f"{where}: {path}: the array of values is empty")
            out[path] = list(values)
        return out

    def _check_paths(self) -> None:
        seen: dict[str, str] = {}
        checks: list[tuple[str, str, Any]] = []
        for where, table in (("sweep.grid", self.grid), ("sweep.zip", self.zip)):
            for path, values in table.items():
                checks.append((where, path, values[0]))
        for i, point in enumerate(self.points):
            for path, value in point.items():
                checks.append((f"sweep.point[{i}]", path, value))
        for where, path, value in checks:
            group = "sweep.point" if where.startswith("sweep.point") else where
            if seen.get(path, group) != group:
                raise ScenarioError(
                    f"{where}: {path} is also varied in {seen[path]}; a path may be in only one of them"
                )
            seen[path] = group
            set_field(self.base.to_dict(), path, value, where=where)

    # -- loading ------------------------------------------------------------

    @classmethod
    def from_toml(cls, path: PathLike) -> Sweep:
        """Read a sweep file (see docs/sweeps.md); ``sweep.base`` is relative to the file."""
        source = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
        data = parse_toml(read_text(source, "sweep"), str(source))
        return cls.from_dict(data, base_dir=Path(source).parent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, base_dir: PathLike | None = None) -> Sweep:
        """Build a sweep from the structure of a sweep file: ``{"sweep": {...}, "base": {...}}``.
        With *base_dir* (the sweep file's directory), ``sweep.base`` and the controller files
        the sweep names (``"python:ctl.py:Class"``) are relative to it, and the latter must
        be in it or below it."""
        if not isinstance(data, Mapping):
            raise ScenarioError(f"sweep file: expected a table (a dict), got {type(data).__name__}")
        check_depth(data, "sweep file")
        if base_dir is not None:
            data = _confined(data, base_dir)
        unknown = [k for k in data if k not in ("sweep", "base")]
        if unknown:
            raise ScenarioError(f"{unknown[0]}: unknown table; a sweep file has [sweep] and optionally [base]")
        table = data.get("sweep")
        if not isinstance(table, Mapping):
            raise ScenarioError("sweep: a [sweep] table is required")
        for key in table:
            if key not in _SWEEP_KEYS:
                raise ScenarioError(f"sweep.{key}: unknown key; allowed: {', '.join(_SWEEP_KEYS)}")
        base: Any
        if "base" in table and "base" in data:
            raise ScenarioError("sweep.base: give either sweep.base (a file) or a [base] table, not both")
        if "base" in data:
            base = data["base"]
            if not isinstance(base, Mapping):
                raise ScenarioError("base: expected a table holding the base scenario")
        elif "base" in table:
            if not isinstance(table["base"], str):
                raise ScenarioError("sweep.base: expected the path of a scenario file")
            base = Path(base_dir or ".") / table["base"]
        else:
            raise ScenarioError("sweep.base: required: the path of a scenario file, or a [base] table")
        points = table.get("point")
        if isinstance(points, Mapping):
            points = [points]
        description = table.get("description")
        if description is not None and not isinstance(description, str):
            raise ScenarioError("sweep.description: expected a string")
        return cls(
            base,
            grid=table.get("grid"),
            zip=table.get("zip"),
            points=points,
            replications=table.get("replications", 1),
            description=description,
        )

    # -- planning -------------------------------------------------------------

    def expand(self) -> list[dict[str, Any]]:
        """The parameter points, in run order: ``[{path: value, ...}, ...]``."""
        factors: list[list[dict[str, Any]]] = []
        if self.points:
            factors.append([dict(p) for p in self.points])
        if self.zip:
            n = len(next(iter(self.zip.values())))
            factors.append([{path: values[i] for path, values in self.zip.items()} for i in range(n)])
        if self.grid:
            paths = list(self.grid)
            factors.append([dict(builtins.zip(paths, combo)) for combo in itertools.product(*self.grid.values())])
        points = []
        for combo in itertools.product(*factors):
            merged: dict[str, Any] = {}
            for part in combo:
                merged.update(part)
            points.append(merged)
        return points

    def point_scenario(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The base scenario dict with *params* applied (``topology[...]`` paths first)."""
        data = self.base.to_dict()
        ordered = sorted(params.items(), key=lambda item: not item[0].startswith("topology"))
        for path, value in ordered:
            set_field(data, path, value, where="sweep")
        return data

    def plan(self) -> list[PlannedRun]:
        """Every run of the sweep, ordered by point and replication, each scenario validated."""
        runs = []
        for index, params in enumerate(self.expand()):
            data = self.point_scenario(params)
            try:
                normalised = Scenario.from_dict(data).validate()
            except ScenarioError as exc:
                raise ScenarioError(f"sweep point {index} ({format_params(params)}): {exc}") from None
            base_seed = int(normalised["simulation"]["seed"])
            for r in range(self.replications):
                seed = replication_seed(base_seed, r)
                normalised["simulation"]["seed"] = seed
                # Runs share the point's nested tables (nothing mutates them).
                scenario = {**data, "simulation": {**(data.get("simulation") or {}), "seed": seed}}
                runs.append(PlannedRun(index, r, seed, run_key(normalised, seed, r), dict(params), scenario))
        return runs

    def __len__(self) -> int:
        return len(self.expand()) * self.replications

    def __repr__(self) -> str:
        n = len(self.expand())
        return f"<renolab.Sweep: {plural(n, 'point')} x {plural(self.replications, 'replication')}>"

    def to_dict(self) -> dict[str, Any]:
        """The sweep as plain data (what ``sweep.json`` records)."""
        return {
            "description": self.description,
            "base": self.base.to_dict(),
            "grid": self.grid,
            "zip": self.zip,
            "points": self.points,
            "replications": self.replications,
        }

    # -- running --------------------------------------------------------------

    def run(
        self,
        out: PathLike | None = None,
        *,
        workers: int | None = None,
        client: Any = None,
        scheduler: str | None = None,
        dask: bool = False,
        progress: bool = True,
        stream: TextIO | None = None,
        allow_python: bool = False,
    ) -> SweepResult:
        """Run every unfinished run, then collect ``runs.parquet`` and ``summary.parquet``.

        - *out*: output directory (created if missing).  Runs already stored there are
          not run again.  Without *out* a temporary directory is used and removed.
        - *workers*: local processes (default: every core); 1 runs in this process.
        - *client*: a ``dask.distributed.Client`` to submit runs to; *scheduler*: the
          address of a Dask scheduler (``tcp://host:8786``) or the path of its
          ``--scheduler-file``; *dask* = True: start a ``LocalCluster`` with *workers*
          single-threaded worker processes.  Dask workers write the run files into
          *out* when they share its file system, and this process writes the ones
          they could not.
        - *progress*: show the progress (done / total, rate, ETA) on *stream* (default
          ``sys.stderr``): a bar on a terminal or in a notebook, a line at every 10 %
          otherwise (:class:`renolab.progress.Progress`).

        - *allow_python*: let a Python controller the sweep names by a string
          (``"python:module:Class"``) be imported and run (docs/extending.md); refused
          before anything runs otherwise.

        Returns a :class:`SweepResult` (``runs, summary = sweep.run(...)``).  Ctrl-C
        stops the workers and raises :class:`SweepInterrupted`; runs that finished are
        kept.  A run that fails raises :class:`renolab.SimulationError` after the
        other runs finished. One sweep at a time in a directory: a second one finds it
        locked (:class:`renolab.outdir.DirectoryInUse`).
        """
        from renolab.sweep.execute import run_sweep

        return run_sweep(
            self,
            out,
            workers=workers,
            client=client,
            scheduler=scheduler,
            dask=dask,
            progress=progress,
            stream=stream,
            allow_python=allow_python,
        )


def _confined(data: Mapping[str, Any], base_dir: PathLike) -> dict[str, Any]:
    """*data* (a sweep file) with every Python controller file it names, in ``[base]`` and
    in the values it varies, made absolute relative to *base_dir* and checked to be inside
    it (:func:`renolab.cc.load.confined`), and the trace files of ``[base]``'s links made
    absolute relative to it."""
    import copy

    from renolab.cc.load import PREFIX, absolute_paths, confined

    out = copy.deepcopy(dict(data))
    if isinstance(out.get("base"), dict):
        absolute_paths(out["base"], base_dir)
        # Trace files are relative to the sweep file too (they are data: not confined).
        absolute_trace_paths(out["base"], base_dir)
    stack: list[tuple[Any, str]] = [(out.get("sweep"), "sweep")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if isinstance(value, str) and value.startswith(PREFIX):
                    item[key] = confined(value, base_dir, f"{where}.{key}")
                else:
                    stack.append((value, f"{where}.{key}"))
        elif isinstance(item, list):
            for i, value in enumerate(item):
                if isinstance(value, str) and value.startswith(PREFIX):
                    item[i] = confined(value, base_dir, f"{where}[{i}]")
                else:
                    stack.append((value, f"{where}[{i}]"))
    return out


def format_params(params: Mapping[str, Any]) -> str:
    """A point's parameters for messages: ``flow.f1.variant="reno", ...``."""
    if not params:
        return "base scenario"
    return ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in params.items())
