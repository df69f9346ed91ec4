"""The sweep's tables: ``runs.parquet`` (one row per run and flow) and ``summary.parquet``
(per point, flow and metric: n, mean, std and the 95 % confidence interval).

A parameter given as a rate or a duration (``"10Mbps"``, ``"20ms"``) gets a numeric column
beside it (``link.bottleneck.rate_bps``, ``link.bottleneck.delay_s``) that tables can be
sorted and plotted by.  Each row also carries its flow's bottleneck link direction's figures
of the run (``link_utilisation``, ``link_drops``, ``link_max_queue``) and Jain's index over
the flows sharing that bottleneck (``jain``).  Run facts that are not outcomes (``events``,
``first_send_s``, ...: :data:`NOT_METRICS`) are kept in runs.parquet but not averaged.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from renolab.stats import jain_index, student_t_quantile
from renolab.sweep.store import RUN_METRICS

if TYPE_CHECKING:
    from renolab.sweep.plan import PlannedRun

__all__ = ["NOT_METRICS", "SHOWN_METRICS", "format_summary", "param_names", "runs_frame", "summarise", "write_parquet"]

#: Numeric columns of runs.parquet that summary.parquet does not average: facts of how a
#: run went (events, simulated time, when a flow started and ended), not its outcomes.
NOT_METRICS = frozenset({"events", "sim_time_s", "first_send_s", "finish_s", "bottleneck_bps", "wall_time_s"})
#: Columns runs.parquet gives each row from its flow's bottleneck, and from its run's flows.
LINK_METRICS = ("link_utilisation", "link_drops", "link_max_queue", "jain")
#: The metrics :func:`format_summary` shows by default (those the summary has).
SHOWN_METRICS = (
    "goodput_bps", "completion_time_s", "retransmits", "timeouts", "mean_rtt_s", "mean_queue_delay_s", "jain",
)
#: Metrics shown in milliseconds: delays.
_MS_WORDS = ("rtt", "delay", "latency", "jitter")


def runs_frame(plan: Sequence[PlannedRun], records: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per run and flow, ordered by point, replication and flow (scenario order)."""
    param_names: list[str] = []
    for run in plan:
        for name in run.params:
            if name not in param_names:
                param_names.append(name)
    rows = []
    flow_columns: list[str] = []
    for run in sorted(plan, key=lambda r: (r.point, r.replication)):
        record = records[run.key]
        for flow in record["flows"]:
            for name in flow:
                if name not in flow_columns:
                    flow_columns.append(name)
            row = {"point": run.point, "replication": run.replication, "seed": run.seed}
            row.update({f"param:{name}": run.params.get(name) for name in param_names})
            row.update({f"flow:{k}": v for k, v in flow.items()})
            row.update({f"run:{k}": record["run"].get(k) for k in RUN_METRICS})
            row["key"] = run.key
            rows.append(row)
    metrics = [c for c in flow_columns if c != "flow"]
    run_metrics = [m for m in RUN_METRICS if m not in flow_columns]
    data: dict[str, Any] = {"point": np.array([r["point"] for r in rows], dtype=np.int64)}
    for name in param_names:
        values = [r[f"param:{name}"] for r in rows]
        data[name] = _param_column(values)
        numeric = _numeric_param(name, values)
        if numeric is not None:
            data[numeric[0]] = numeric[1]
    data["replication"] = np.array([r["replication"] for r in rows], dtype=np.int64)
    data["seed"] = np.array([r["seed"] for r in rows], dtype=np.int64)
    data["flow"] = [r.get("flow:flow") for r in rows]
    for name in metrics:
        data[name] = _metric_column([r.get(f"flow:{name}") for r in rows])
    for name in run_metrics:
        data[name] = _metric_column([r.get(f"run:{name}") for r in rows])
    data["key"] = [r["key"] for r in rows]
    link_rows = [_link_metrics(records[run.key]) for run in sorted(plan, key=lambda r: (r.point, r.replication))]
    for name in LINK_METRICS:
        data[name] = np.array([row[name] for rows_of_run in link_rows for row in rows_of_run], dtype=np.float64)
    return pd.DataFrame(data)


def _numeric_param(name: str, values: list[Any]) -> tuple[str, np.ndarray] | None:
    """``(<name>_bps, rates)`` for a parameter whose values are rates, ``(<name>_s,
    seconds)`` for durations, else None."""
    from renolab.units import parse_duration_s, parse_rate_bps

    present = [v for v in values if v is not None]
    if not present or not all(isinstance(v, str) for v in present):
        return None
    for suffix, parse in (("_bps", parse_rate_bps), ("_s", parse_duration_s)):
        parsed = [math.nan if v is None else _parsed(parse, v) for v in values]
        if all(not math.isnan(p) for p, v in zip(parsed, values) if v is not None):
            return f"{name}{suffix}", np.array(parsed, dtype=np.float64)
    return None


def _parsed(parse: Any, value: str) -> float:
    try:
        return float(parse(value))
    except (TypeError, ValueError):
        return math.nan


def _link_metrics(record: Mapping[str, Any]) -> list[dict[str, float]]:
    """Per flow of a run's record: its bottleneck's utilisation, queue drops and most packets
    queued, and Jain's index over the goodputs of the flows with the same bottleneck."""
    links = {str(link.get("link")): link for link in record.get("links") or []}
    flows = record["flows"]
    goodput: dict[str, list[float]] = {}
    for flow in flows:
        value = flow.get("goodput_bps")
        if flow.get("bottleneck") is not None and isinstance(value, (int, float)):
            goodput.setdefault(str(flow["bottleneck"]), []).append(float(value))
    out = []
    for flow in flows:
        link = links.get(str(flow.get("bottleneck")), {})
        shares = goodput.get(str(flow.get("bottleneck")), [])
        out.append({
            "link_utilisation": _number(link.get("utilisation")),
            "link_drops": _number(link.get("queue_drops")),
            "link_max_queue": _number(link.get("max_queue")),
            "jain": jain_index(shares),
        })
    return out


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def _param_column(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    if all(isinstance(v, bool) for v in present):
        return pd.array(values, dtype="boolean") if None in values else np.array(values, dtype=bool)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        if all(isinstance(v, int) for v in present) and None not in values:
            return np.array(values, dtype=np.int64)
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    if all(isinstance(v, str) for v in present):
        return pd.Series(values)
    return pd.Series(
        [None if v is None else v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str) for v in values]
    )


def _metric_column(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
    if present and numeric:
        if None not in values and all(isinstance(v, int) for v in present):
            return np.array(values, dtype=np.int64)
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    if present and all(isinstance(v, bool) for v in present) and None not in values:
        return np.array(values, dtype=bool)
    return pd.Series(values)


def summarise(runs: pd.DataFrame, params: Sequence[str] | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Per point, flow and numeric metric of *runs*: n, mean, std and the CI.

    ``n`` counts the non-missing values (e.g. runs whose flow finished, for
    ``completion_time_s``); ``std`` is the sample standard deviation (ddof = 1);
    ``ci95`` the half-width t_{0.975, n-1} std / sqrt(n) of the 95 % confidence
    interval for the mean (Student's t, :func:`renolab.stats.student_t_quantile`), ``ci95_low``
    and ``ci95_high`` its ends.  With n < 2, std and the interval are NaN (as in
    :func:`renolab.stats.mean_ci`).  *params* are the
    parameter columns (default: those between ``point`` and ``replication``, as in
    runs.parquet).
    """
    fixed = {"point", "replication", "seed", "flow", "key"}
    params = list(param_names(runs) if params is None else params)
    metrics = [
        c
        for c in runs.columns
        if c not in fixed
        and c not in params
        and c not in NOT_METRICS
        and pd.api.types.is_numeric_dtype(runs[c])
        and not pd.api.types.is_bool_dtype(runs[c])
    ]
    level = 1.0 - (1.0 - confidence) / 2.0
    columns = ["point", *params, "flow", "metric", "n", "mean", "std", "ci95", "ci95_low", "ci95_high"]
    codes, _ = pd.factorize(pd.MultiIndex.from_arrays([runs["point"], runs["flow"]]), sort=False)
    n_groups, n_metrics = (int(codes.max()) + 1 if len(codes) else 0), len(metrics)
    values = runs[metrics].to_numpy(dtype=np.float64, na_value=np.nan) if n_metrics else np.empty((len(runs), 0))
    first_rows = np.zeros(n_groups, dtype=np.intp)
    n = np.zeros((n_groups, n_metrics), dtype=np.int64)
    mean = np.full((n_groups, n_metrics), np.nan)
    std = np.full((n_groups, n_metrics), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for g in range(n_groups):
            rows = np.flatnonzero(codes == g)
            first_rows[g] = rows[0]
            block = values[rows]
            present = ~np.isnan(block)
            count = present.sum(axis=0)
            m = np.where(present, block, 0.0).sum(axis=0) / count
            squares = (np.where(present, block - m, 0.0) ** 2).sum(axis=0)
            n[g], mean[g] = count, m
            std[g] = np.where(count > 1, np.sqrt(squares / (count - 1)), np.nan)
    quantile = np.array([student_t_quantile(level, k - 1) if k > 1 else np.nan for k in n.ravel()])
    with np.errstate(invalid="ignore", divide="ignore"):
        half = quantile.reshape(n.shape) * std / np.sqrt(n)
    data: dict[str, Any] = {"point": np.repeat(runs["point"].to_numpy()[first_rows], n_metrics)}
    for p in params:
        data[p] = runs[p].iloc[np.repeat(first_rows, n_metrics)].reset_index(drop=True)
    data["flow"] = runs["flow"].iloc[np.repeat(first_rows, n_metrics)].reset_index(drop=True)
    data["metric"] = pd.Series(np.tile(np.array(metrics, dtype=object), n_groups), dtype=runs["flow"].dtype)
    data["n"] = n.ravel()
    data["mean"] = mean.ravel()
    data["std"] = std.ravel()
    data["ci95"] = half.ravel()
    data["ci95_low"] = (mean - half).ravel()
    data["ci95_high"] = (mean + half).ravel()
    return pd.DataFrame(data, columns=columns)


def format_summary(summary: pd.DataFrame, metrics: Sequence[str] | None = None, flow: str | None = None) -> str:
    """A summary.parquet table as text: one line per point and flow, its parameters, then
    each metric's mean and the half-width of its 95 % interval (``9.43 ± 0.12``; the mean
    alone with one run), rates in Mb/s and delays in ms. *metrics*: default
    :data:`SHOWN_METRICS` (those present); *flow*: only that flow's lines."""
    from renolab._text import aligned

    available = list(dict.fromkeys(summary["metric"].astype(str)))
    wanted = list(metrics) if metrics else [m for m in SHOWN_METRICS if m in available]
    unknown = [m for m in wanted if m not in available]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; the summary has: {', '.join(available)}")
    table = summary if flow is None else summary[summary["flow"].astype(str) == flow]
    if table.empty:
        flows = ", ".join(dict.fromkeys(summary["flow"].astype(str)))
        raise ValueError(f"no rows for flow {flow!r}; flows: {flows}")
    params = _shown_params(summary)
    headers = [*params, "flow", "runs", *(_metric_header(m) for m in wanted)]
    rows = []
    for (_, name), group in table.groupby(["point", "flow"], sort=False):
        by_metric = group.set_index(group["metric"].astype(str))
        first = group.iloc[0]
        cells = [_param_text(first[p]) for p in params] + [str(name), str(int(by_metric["n"].max()))]
        for metric in wanted:
            row = by_metric.loc[metric] if metric in by_metric.index else None
            cells.append("-" if row is None else _mean_ci_text(metric, row["mean"], row["ci95"]))
        rows.append(cells)
    points, runs = summary["point"].nunique(), int(summary["n"].max())
    head = (
        f"{points} point{'s' * (points != 1)}, up to {runs} run{'s' * (runs != 1)} each: "
        "mean ± half-width of the 95 % confidence interval (Student's t)"
    )
    return "\n".join([head, *aligned(headers, rows, left=range(len(params) + 1))])


def _shown_params(summary: pd.DataFrame) -> list[str]:
    """The parameter columns, without the numeric twin of a rate or duration given as text."""
    columns = list(summary.columns)
    params = columns[columns.index("point") + 1 : columns.index("flow")]
    return [p for p in params if not any(p == f"{q}{suffix}" for q in params for suffix in ("_bps", "_s"))]


def _param_text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _scale(metric: str) -> tuple[float, str]:
    if metric.endswith("_bps"):
        return 1e6, "Mb/s"
    if metric.endswith("_s"):
        return (1e-3, "ms") if any(word in metric for word in _MS_WORDS) else (1.0, "s")
    return 1.0, ""


def _metric_header(metric: str) -> str:
    scale, unit = _scale(metric)
    name = metric.removesuffix("_bps").removesuffix("_s")
    return f"{name} {unit}" if unit else name


def _mean_ci_text(metric: str, mean: float, half: float) -> str:
    if mean is None or math.isnan(mean):
        return "-"
    scale, _ = _scale(metric)
    text = f"{mean / scale:.4g}"
    return text if half is None or math.isnan(half) else f"{text} ± {half / scale:.2g}"


def param_names(runs: pd.DataFrame) -> list[str]:
    """Parameter columns: those between ``point`` and ``replication``."""
    columns = list(runs.columns)
    try:
        return columns[columns.index("point") + 1 : columns.index("replication")]
    except ValueError:
        return []


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """*frame* to *path*, fsync'ed, through a new temporary file renamed over it
    (:func:`renolab._files.new_path`: nothing planted at *path* is written through)."""
    from renolab._files import new_path

    with new_path(path) as tmp:
        frame.to_parquet(tmp, index=False)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
