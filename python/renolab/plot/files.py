"""Which figures a run allows, and writing them into a directory (``renolab plot DIR``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renolab.plot._common import KINDS, NEEDS
from renolab.plot.controller import cc, traced_flows
from renolab.plot.delay import queue_delay, queue_delay_cdf, rtt, rtt_cdf
from renolab.plot.fct import fct, has_fct
from renolab.plot.figure import save_figure
from renolab.plot.summary_page import summary
from renolab.plot.time_series import cwnd, queue, seq, throughput

if TYPE_CHECKING:
    from renolab.results import Result

#: Image formats :func:`save_figures` writes.
IMAGE_FORMATS = ("png", "svg", "pdf")


def available_kinds(run: Result) -> list[str]:
    """The figures the recorded traces allow (the summary always; the controllers' figure
    only when a controller traced something; the flow completion times for a run with a
    workload)."""
    def allowed(kind: str) -> bool:
        if kind == "summary":
            return True
        if kind == "fct":
            return has_fct(run)
        return run.has_trace(NEEDS[kind]) and (kind != "cc" or bool(traced_flows(run)))

    return [k for k in KINDS if allowed(k)]


def save_figures(
    run: Result,
    out_dir: Any,
    *,
    kinds: Sequence[str] | None = None,
    formats: Sequence[str] = ("png",),
    dpi: int = 120,
    flow: str | None = None,
    links: Sequence[str] | None = None,
) -> list[Path]:
    """Write ``<kind>.<format>`` for every figure in *kinds* (default
    :func:`available_kinds`) and format into *out_dir*; returns the paths.  *flow* picks the
    flow of the time-sequence graph (and the only flow of the cwnd, throughput, RTT and
    controller figures), *links* the link directions of the queue and queueing-delay figures
    (default: the bottlenecks)."""
    chosen = available_kinds(run) if kinds is None else list(kinds)
    for kind in chosen:
        if kind not in KINDS:
            raise ValueError(f"unknown figure {kind!r}; allowed: {', '.join(KINDS)}")
        if kind in NEEDS and not run.has_trace(NEEDS[kind]):
            raise ValueError(f"figure {kind!r} needs the {NEEDS[kind]!r} trace (renolab run ... --trace {NEEDS[kind]})")
    for fmt in formats:
        if fmt not in IMAGE_FORMATS:
            raise ValueError(f"unknown image format {fmt!r}; allowed: {', '.join(IMAGE_FORMATS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if flow is not None and flow not in [str(f) for f in run.flows["flow"]]:
        raise ValueError(f"no flow named {flow!r}; flows: {', '.join(str(f) for f in run.flows['flow'])}")
    if links is not None:
        known = [str(x) for x in run.links["link"]]
        unknown = [x for x in links if x not in known]
        if unknown:
            raise ValueError(f"no link direction named {unknown[0]!r}; links: {', '.join(known)}")
    draw = {
        "cwnd": lambda r: cwnd(r, flows=flow),
        "seq": lambda r: seq(r, flow=flow),
        "throughput": lambda r: throughput(r, flows=flow),
        "queue": lambda r: queue(r, links=links),
        "rtt": lambda r: rtt(r, flows=flow),
        "rtt_cdf": lambda r: rtt_cdf(r, flows=flow),
        "queue_delay": lambda r: queue_delay(r, links=links),
        "queue_delay_cdf": lambda r: queue_delay_cdf(r, links=links),
        "cc": lambda r: cc(r, flows=flow),
        "summary": summary,
        "fct": fct,
    }
    written = []
    for kind in chosen:
        fig = draw[kind](run)
        for fmt in formats:
            written.append(save_figure(fig, out / f"{kind}.{fmt}", dpi=dpi, fmt=fmt))
    return written
