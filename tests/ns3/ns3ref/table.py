"""The side-by-side table of compare.py: figures read from run directories of either
simulator, their means and 95 % confidence intervals, and the table's text.

Both simulators' run directories are read the same way: ``flows.csv`` and ``links.csv``
(renolab's files, or run_ns3.py's, which share their columns), plus what only one side
writes: ns-3's ``mean_rtt_s`` and ``mean_queue`` columns and ``wifi.csv``; renolab's
``rtt`` and ``queue`` traces (``--trace rtt,queue --format csv``). A figure a side does
not have is missing (None) and shows as "n/a".
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

#: metric -> (unit, decimals shown), in table order.
METRICS = {
    "throughput_mbps": ("Mb/s", 3),
    "retransmits": ("segments", 1),
    "timeouts": ("", 1),
    "mean_rtt_ms": ("ms", 2),
    "utilisation": ("", 3),
    "mean_queue": ("packets", 1),
    "max_queue": ("packets", 1),
    "queue_drops": ("packets", 1),
    "marks": ("packets", 1),
    "mac_retries": ("frames", 1),
    "mac_queue_drops": ("packets", 1),
}

#: Names renolab may give the ECN-mark count of a link direction (not settled yet).
MARK_COLUMNS = ("marks", "ecn_marks", "marked")


def _read(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _number(row: dict[str, str], key: str, scale: float = 1.0) -> Optional[float]:
    v = row.get(key)
    if v is None or v == "":
        return None
    try:
        x = float(v) * scale
    except ValueError:
        return None
    return None if math.isnan(x) else x


def bottleneck_row(links: Sequence[dict[str, str]]) -> Optional[dict[str, str]]:
    """The link direction called ``bottleneck`` (a dumbbell's), else the slowest forward
    direction, the first of equals (renolab's ``bottleneck`` column does the same)."""
    for row in links:
        if row.get("link") == "bottleneck":
            return row
    forward = [r for r in links if not r.get("link", "").endswith("/rev") and _number(r, "rate_bps")]
    return min(forward, key=lambda r: _number(r, "rate_bps")) if forward else None


def time_average(points: Iterable[tuple[float, float]], end_s: float) -> Optional[float]:
    """Time-average over [0, end_s] of a step function given as (time, value) changes,
    0 before the first change."""
    area, last_t, last_v = 0.0, 0.0, 0.0
    any_point = False
    for t, v in points:
        t = min(t, end_s)
        area += last_v * (t - last_t)
        last_t, last_v = t, v
        any_point = True
    if end_s <= 0:
        return None
    area += last_v * (end_s - last_t)
    return area / end_s if any_point else 0.0


def run_figures(run_dir: Path) -> dict[tuple[str, str], Optional[float]]:
    """{(item, metric): value} of one run directory. Items are flow names and
    ``link:<direction>`` / ``station:<node>``."""
    out: dict[tuple[str, str], Optional[float]] = {}
    flows = _read(run_dir / "flows.csv")
    rtt_trace = _read(run_dir / "rtt.csv")
    for row in flows:
        name = row["flow"]
        out[(name, "throughput_mbps")] = _number(row, "throughput_bps", 1e-6)
        out[(name, "retransmits")] = _number(row, "retransmits")
        out[(name, "timeouts")] = _number(row, "timeouts")
        rtt = _number(row, "mean_rtt_s", 1e3)
        if rtt is None and rtt_trace:
            samples = [float(r["rtt_s"]) for r in rtt_trace if r.get("flow") == name and r.get("rtt_s")]
            rtt = 1e3 * sum(samples) / len(samples) if samples else None
        out[(name, "mean_rtt_ms")] = rtt
    links = _read(run_dir / "links.csv")
    b = bottleneck_row(links)
    if b is not None:
        item = f"link:{b['link']}"
        out[(item, "utilisation")] = _number(b, "utilisation")
        out[(item, "max_queue")] = _number(b, "max_queue")
        out[(item, "queue_drops")] = _number(b, "queue_drops")
        out[(item, "marks")] = next((_number(b, k) for k in MARK_COLUMNS if k in b), None)
        mean_q = _number(b, "mean_queue")
        if mean_q is None:
            mean_q = _trace_mean_queue(run_dir, b["link"])
        out[(item, "mean_queue")] = mean_q
    for row in _read(run_dir / "wifi.csv"):
        item = f"station:{row['node']}"
        out[(item, "mac_retries")] = _number(row, "mac_retries")
        out[(item, "mac_queue_drops")] = _number(row, "queue_drops")
    return out


def _trace_mean_queue(run_dir: Path, link: str) -> Optional[float]:
    trace = run_dir / "queue.csv"
    summary = run_dir / "summary.json"
    if not trace.exists() or not summary.exists():
        return None
    import json  # noqa: PLC0415

    end = json.loads(summary.read_text()).get("sim_time_s")
    if not end:
        return None
    points = ((float(r["time_s"]), float(r["packets"])) for r in _read(trace) if r.get("link") == link)
    return time_average(points, float(end))


@dataclass
class Side:
    """One simulator's runs of one scenario."""

    runs: list[dict[tuple[str, str], Optional[float]]] = field(default_factory=list)
    #: Why this side has no figures ("" when it ran).
    status: str = ""


@dataclass
class Row:
    scenario: str
    item: str
    metric: str
    ns3: tuple[float, float, int]
    renolab: tuple[float, float, int]
    renolab_status: str


def mean_ci(values: Sequence[Optional[float]], quantile: Callable[[float, float], float]) -> tuple[float, float, int]:
    """Mean, half-width of the 95 % Student-t interval (NaN below two values) and n;
    missing values are left out."""
    xs = [v for v in values if v is not None and not math.isnan(v)]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    m = sum(xs) / n
    if n < 2:
        return m, math.nan, n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, quantile(0.975, n - 1) * sd / math.sqrt(n), n


def rows(scenario: str, ns3: Side, renolab: Side, quantile: Callable[[float, float], float]) -> list[Row]:
    """Table rows of one scenario: every (item, metric) either side has, in METRICS order."""
    keys: list[tuple[str, str]] = []
    for run in ns3.runs + renolab.runs:
        for k in run:
            if k not in keys:
                keys.append(k)
    order = {m: i for i, m in enumerate(METRICS)}
    items = list(dict.fromkeys(k[0] for k in keys))
    keys.sort(key=lambda k: (items.index(k[0]), order.get(k[1], len(order))))
    out = []
    for key in keys:
        out.append(Row(
            scenario=scenario, item=key[0], metric=key[1],
            ns3=mean_ci([r.get(key) for r in ns3.runs], quantile),
            renolab=mean_ci([r.get(key) for r in renolab.runs], quantile),
            renolab_status=renolab.status,
        ))
    return out


def read_reference(path: Path) -> dict[tuple[str, str, str], tuple[float, float, int]]:
    """ns-3's (mean, CI half-width, n) per (scenario, item, metric) of a comparison.csv."""
    def num(x: str) -> float:
        return float(x) if x else math.nan

    return {(r["scenario"], r["item"], r["metric"]): (num(r["ns3_mean"]), num(r["ns3_ci95"]), int(r["ns3_n"] or 0))
            for r in _read(path)}


def with_ns3_from(table: Sequence[Row], scenario: str, reference: dict[tuple[str, str, str], tuple[float, float, int]],
                  renolab_status: str) -> list[Row]:
    """`table` (renolab's side only) with ns-3's figures of `scenario` from `reference`,
    in the reference's order, and renolab's figures the reference lacks after them."""
    mine = {(r.item, r.metric): r for r in table}
    none = (math.nan, math.nan, 0)
    out = []
    for (scen, item, metric), stat in reference.items():
        if scen == scenario:
            r = mine.pop((item, metric), None)
            out.append(Row(scenario, item, metric, stat, r.renolab if r else none, renolab_status))
    out += [Row(scenario, r.item, r.metric, none, r.renolab, renolab_status) for r in mine.values()]
    return out


def fmt(stat: tuple[float, float, int], digits: int = 3) -> str:
    """``12.3 ± 0.4`` (n runs shown by the header), ``12.3`` for one run, ``n/a``."""
    mean, half, n = stat
    if n == 0:
        return "n/a"
    if math.isnan(half):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def diff(row: Row) -> str:
    """renolab relative to ns-3, in per cent of ns-3's mean."""
    (a, _, na), (b, _, nb) = row.ns3, row.renolab
    if na == 0 or nb == 0:
        return ""
    if a == 0:
        return "" if b == 0 else "∞"
    return f"{100 * (b - a) / abs(a):+.1f} %"


def markdown(table: Sequence[Row], runs: int) -> str:
    """The table as GitHub markdown."""
    lines = [
        f"| scenario | flow / link | metric | ns-3 (mean ± 95 % CI, {runs} runs) | renolab | renolab − ns-3 |",
        "|---|---|---|---|---|---|",
    ]
    for r in table:
        unit, digits = METRICS.get(r.metric, ("", 3))
        metric = f"{r.metric} ({unit})" if unit else r.metric
        theirs = fmt(r.renolab, digits) if not r.renolab_status else "n/a"
        lines.append(f"| {r.scenario} | {r.item} | {metric} | {fmt(r.ns3, digits)} | {theirs} | {diff(r)} |")
    by_status: dict[str, list[str]] = {}
    for r in table:
        if r.renolab_status and r.scenario not in by_status.setdefault(r.renolab_status, []):
            by_status[r.renolab_status].append(r.scenario)
    for status, scenarios in by_status.items():
        lines.append(f"\nrenolab n/a for {', '.join(scenarios)}: {status}")
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ("scenario", "item", "metric", "ns3_mean", "ns3_ci95", "ns3_n", "renolab_mean",
               "renolab_ci95", "renolab_n", "renolab_status")


def write_csv(path: Path, table: Sequence[Row]) -> None:
    def cell(x: float) -> str:
        return "" if math.isnan(x) else repr(x)

    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for r in table:
            w.writerow([r.scenario, r.item, r.metric, cell(r.ns3[0]), cell(r.ns3[1]), r.ns3[2],
                        cell(r.renolab[0]), cell(r.renolab[1]), r.renolab[2], r.renolab_status])
