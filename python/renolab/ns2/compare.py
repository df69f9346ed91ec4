"""Comparing renolab with ns-2 flow by flow: tolerances, the report, :func:`validate`."""

from __future__ import annotations

import concurrent.futures
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from renolab.ns2.export import ScenarioLike, as_scenario, is_random, to_tcl
from renolab.ns2.run import COLUMNS, Ns2Run, find_ns, run_ns2
from renolab.scenario import Scenario
from renolab._text import aligned
from renolab.stats import mean_ci

__all__ = ["METRICS", "Report", "Row", "Tolerance", "compare", "renolab_rows", "validate"]

#: The figures :func:`validate` compares, with their labels.
METRICS = {
    "completion_time_s": "completion s",
    "bytes_delivered": "delivered bytes",
    "retransmits": "retransmissions",
    "timeouts": "timeouts",
    "drops": "drops",
}


@dataclass(frozen=True)
class Tolerance:
    """How far renolab may be from ns-2 and still agree.

    Relative tolerances (fractions) for the completion time, delivered bytes and drops;
    absolute ones (counts) for retransmissions and timeouts. For random scenarios the means
    agree when their 95 % confidence intervals overlap or differ by no more than these.

    The defaults are those docs/validation.md validates lee2001's grid with (1 %, five
    retransmissions, identical timeouts): every point of that grid is within them, so
    ``renolab validate`` of one of its scenario files agrees. The validation suite
    (``tests/validation``) holds itself to identical retransmission counts.
    """

    completion_time_s: float = 0.01
    bytes_delivered: float = 0.01
    drops: float = 0.01
    retransmits: float = 5
    timeouts: float = 0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: Tolerance | None = None) -> Tolerance:
        """A tolerance from a ``[validation]`` table's keys (unknown keys are ignored)."""
        names = {f.name for f in fields(cls)}
        aliases = {"completion_time": "completion_time_s", "time": "completion_time_s", "bytes": "bytes_delivered"}
        changes = {}
        for key, value in values.items():
            key = aliases.get(key, key)
            if key in names:
                changes[key] = float(value)
        return replace(base or cls(), **changes)

    def relative(self, metric: str) -> bool:
        return metric in ("completion_time_s", "bytes_delivered", "drops")

    def allowed(self, metric: str, a: float, b: float) -> float:
        """Largest |a - b| within tolerance."""
        tol = getattr(self, metric)
        return tol * max(abs(a), abs(b)) if self.relative(metric) else tol


@dataclass
class Row:
    """One flow's figure in both simulators."""

    flow: str
    metric: str
    ns2: list[float | None]
    renolab: list[float | None]
    ok: bool
    diff: float | None
    ns2_mean: float | None
    ns2_hw: float
    renolab_mean: float | None
    renolab_hw: float
    note: str = ""

    @property
    def rel(self) -> float | None:
        if self.ns2_mean is None or self.renolab_mean is None or self.ns2_mean == 0:
            return None
        return (self.renolab_mean - self.ns2_mean) / abs(self.ns2_mean)


@dataclass
class Report:
    """The outcome of :func:`validate`."""

    name: str
    random: bool
    seeds: list[int]
    tolerance: Tolerance
    rows: list[Row] = field(default_factory=list)
    #: What renolab is compared with (the table's title and its reference column).
    reference: str = "ns-2.35"
    ns2_runs: list[Ns2Run] = field(default_factory=list)
    renolab_runs: list[list[dict[str, Any]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    def failures(self) -> list[Row]:
        return [r for r in self.rows if not r.ok]

    def worst_completion_rel(self) -> float:
        rels = [abs(r.rel) for r in self.rows if r.metric == "completion_time_s" and r.rel is not None]
        return max(rels, default=0.0)

    def format(self) -> str:
        """A side-by-side table, one block of rows per flow."""
        how = (
            f"random: {len(self.seeds)} seeds, means with 95 % confidence intervals"
            if self.random
            else ("deterministic" + (f", {len(self.seeds)} runs" if len(self.seeds) > 1 else ""))
        )
        column = "ns-2" if self.reference == "ns-2.35" else self.reference
        head = ["flow", "metric", column, "renolab", "diff", "tolerance", ""]
        body = []
        for r in self.rows:
            tol = getattr(self.tolerance, r.metric)
            tol_text = f"{tol * 100:g} %" if self.tolerance.relative(r.metric) else f"±{tol:g}"
            if self.random:
                tol_text = "CIs, " + tol_text
            body.append(
                [
                    r.flow,
                    METRICS[r.metric],
                    _fmt_stat(r.metric, r.ns2_mean, r.ns2_hw, self.random),
                    _fmt_stat(r.metric, r.renolab_mean, r.renolab_hw, self.random),
                    _fmt_diff(r),
                    tol_text,
                    ("ok" if r.ok else "OUTSIDE") + (f" ({r.note})" if r.note else ""),
                ]
            )
        shown, prev = [], None
        for cells in body:  # each flow's name on its first row only
            shown.append(["" if cells[0] == prev else cells[0], *cells[1:]])
            prev = cells[0]
        out = [f"{self.name}: renolab vs {self.reference} ({how})", *aligned(head, shown, left=(0, 1, 6))]
        bad = len(self.failures())
        out.append(f"{'all figures within tolerance' if not bad else f'{bad} figure(s) outside tolerance'}")
        return "\n".join(out)


def _fmt_value(metric: str, v: float | None) -> str:
    if v is None:
        return "-"
    if metric == "completion_time_s":
        return f"{v:.4f}"
    return f"{v:.1f}" if not float(v).is_integer() else f"{int(v)}"


def _fmt_stat(metric: str, mean: float | None, hw: float, random: bool) -> str:
    if not random or mean is None:
        return _fmt_value(metric, mean)
    if metric == "completion_time_s":
        return f"{mean:.4f} ± {hw:.4f}"
    return f"{mean:.2f} ± {hw:.2f}"


def _fmt_diff(r: Row) -> str:
    if r.diff is None:
        return "-"
    if r.metric in ("retransmits", "timeouts") and float(r.diff).is_integer():
        return f"{int(r.diff):+d}"
    rel = r.rel
    return f"{rel:+.2%}" if rel is not None else f"{r.diff:+.3g}"


def compare(
    name: str,
    ns2_runs: Sequence[Ns2Run],
    renolab_runs: Sequence[Sequence[Mapping[str, Any]]],
    *,
    random: bool,
    tolerance: Tolerance,
    seeds: Sequence[int],
    reference: str = "ns-2.35",
) -> Report:
    """Compare per-flow figures of paired runs of renolab and a *reference* (ns-2, or the
    Linux kernel: :mod:`renolab.kernel_validation`)."""
    report = Report(name=name, random=random, seeds=list(seeds), tolerance=tolerance, reference=reference)
    report.ns2_runs = list(ns2_runs)
    report.renolab_runs = [list(r) for r in renolab_runs]
    flows = [f["flow"] for f in ns2_runs[0].flows]
    for flow in flows:
        theirs_rows = [run.flow(flow) for run in ns2_runs]
        ours_rows = [next(r for r in run if r["flow"] == flow) for run in renolab_runs]
        for metric in METRICS:
            theirs = [_value(r[metric]) for r in theirs_rows]
            ours = [_value(r[metric]) for r in ours_rows]
            report.rows.append(_compare_metric(flow, metric, theirs, ours, random, tolerance))
    return report


def _value(v: Any) -> float | None:
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) else v


def _compare_metric(
    flow: str, metric: str, theirs: list[float | None], ours: list[float | None], random: bool, tol: Tolerance
) -> Row:
    a = [v for v in theirs if v is not None]
    b = [v for v in ours if v is not None]
    note = ""
    if len(a) != len(b):
        note = f"finished in {len(a)} ns-2 runs, {len(b)} renolab runs"
    if not a or not b:
        ok = not a and not b
        return Row(flow, metric, theirs, ours, ok, None, None, 0.0, None, 0.0, note or ("" if ok else "missing"))
    if not random:
        ma, mb = a[0], b[0]
        ha = hb = 0.0
        ok = abs(mb - ma) <= tol.allowed(metric, ma, mb) + 1e-9
    else:
        ma, ha = _mean_and_half_width(a)
        mb, hb = _mean_and_half_width(b)
        ok = abs(mb - ma) <= ha + hb + tol.allowed(metric, ma, mb) + 1e-9
    if note:
        ok = False
    return Row(flow, metric, theirs, ours, ok, mb - ma, ma, ha, mb, hb, note)


def _mean_and_half_width(values: list[float]) -> tuple[float, float]:
    """The mean of one simulator's runs and its 95 % half-width (:func:`renolab.stats.mean_ci`).
    A single run has no interval (NaN there): it is compared by the tolerance alone, so its
    half-width counts as 0."""
    mean, half, n = mean_ci(values)
    return mean, half if n >= 2 else 0.0


def _with_phases(scenario: Scenario, run: Ns2Run, seed: int) -> Scenario:
    """*scenario* reseeded, each TCP flow's RTT clock phase set to the one ns-2 ran with."""
    data = scenario.with_seed(seed).to_dict()
    for f in data.get("flow", []):
        row = run.flow(f["name"])
        if row.get("clock_phase_s") is not None:
            options = f.setdefault("options", {})
            options["clock_phase"] = f"{round(row['clock_phase_s'] * 1e9)}ns"
    return Scenario.from_dict(data)


def renolab_rows(scenario: Scenario) -> list[dict[str, Any]]:
    """renolab's per-flow figures, as plain dicts with the keys of :data:`COLUMNS`."""
    flows = scenario.run().flows
    rows = []
    for rec in flows.to_dict("records"):
        row = {k: rec.get(k) for k in COLUMNS if k in rec}
        for k in ("completion_time_s", "first_send_s", "finish_s"):
            row[k] = _value(row.get(k))
        rows.append(row)
    return rows


def validate(
    scenario: ScenarioLike,
    *,
    runs: int | None = None,
    tolerance: Tolerance | None = None,
    seed: int | None = None,
    jobs: int = 1,
    ns: str = "ns",
    name: str = "scenario",
    ns2_runs: Sequence[Ns2Run] | None = None,
    progress: bool = False,
) -> Report:
    """Run *scenario* in ns-2 and in renolab and compare them flow by flow.

    Deterministic scenarios run once (or *runs* times on consecutive seeds); random ones (see
    :func:`is_random`) on *runs* seeds (default 30) from *seed* (default the scenario's), and
    their means are compared. Each renolab run uses the RTT clock phases its ns-2 run drew.
    *ns2_runs* (e.g. stored references) replaces running ns-2. *progress* shows the runs
    of each simulator as they finish (:class:`renolab.progress.Progress`, on stderr).
    """
    from renolab.progress import Progress

    sc = as_scenario(scenario)
    norm = sc.validate()
    random = is_random(sc)
    n = runs if runs is not None else (30 if random else 1)
    if n < 1:
        raise ValueError("runs must be at least 1")
    base = norm["simulation"]["seed"] if seed is None else seed
    seeds = [base + i for i in range(n)]
    if ns2_runs is None:
        tcl = to_tcl(sc)
        find_ns(ns)
        with Progress(n, "validate: ns-2", enabled=progress) as shown, \
                concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            futures = [pool.submit(run_ns2, tcl, seed=s, ns=ns) for s in seeds]
            for _ in concurrent.futures.as_completed(futures):
                shown.advance()
            theirs = [f.result() for f in futures]
    else:
        theirs = list(ns2_runs)
        seeds = [r.seed if r.seed is not None else s for r, s in zip(theirs, seeds)]
    ours = []
    with Progress(n, "validate: renolab", enabled=progress) as shown:
        for run, s in zip(theirs, seeds):
            ours.append(renolab_rows(_with_phases(sc, run, s)))
            shown.advance()
    return compare(name, theirs, ours, random=random, tolerance=tolerance or Tolerance(), seeds=seeds)
