"""How cost grows (``renolab bench --scaling``): flows, bottleneck rate and simulated time in
turn, each case measured as the dumbbell's are, ns-2 left out where it would take too long."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from renolab.bench.dumbbell import REFERENCE_RATE_BPS, Case, bdp_packets, run_case
from renolab.bench.measure import START_SPACING_MS
from renolab.bench.text import peak_rss, rate_text, si, table

#: Flows on one bottleneck (of SCALING_FLOWS_RATE_BPS, flows SCALING_SPACING_MS apart).
SCALING_FLOWS = (1, 10, 100, 1000)
SCALING_FLOWS_RATE_BPS = 10_000_000_000
#: 1000 flows 10 ms apart would not all have started in 10 s: issue 18's scenario starts
#: them 1 ms apart.
SCALING_SPACING_MS = 1.0
#: Bottleneck rates with one flow.
SCALING_RATES_BPS = (100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000)
#: The shortest run, and the longer ones as multiples of it (one flow, 1 Gb/s).
SCALING_DURATION = "10s"
SCALING_DURATION_FACTORS = (1, 3, 10)
#: ns-2 is not run on a case it is predicted to take longer than this on (seconds).
NS2_TIME_LIMIT_S = 600.0


@dataclass
class ScalingRow:
    """One row of the scaling table: the axis it belongs to and its case (rows with the same
    settings share one case, measured once)."""

    axis: str
    case: Case


def scaling_rows(base_s: float) -> list[ScalingRow]:
    """The rows of ``--scaling`` with a shortest run of *base_s* seconds: flows, bottleneck
    rate and duration in turn. Rows with the same settings share one :class:`Case`."""
    cases: dict[tuple[int, int, float, float], Case] = {}

    def case(flows: int, rate: int, seconds: float, spacing: float) -> Case:
        # One flow starts at 0 whatever the spacing: the same run.
        key = (flows, rate, seconds, spacing if flows > 1 else START_SPACING_MS)
        if key not in cases:
            cases[key] = Case("scaling", flows, rate, seconds, bdp_packets(rate), start_spacing_ms=key[3])
        return cases[key]

    rows = [ScalingRow("flows", case(n, SCALING_FLOWS_RATE_BPS, base_s, SCALING_SPACING_MS)) for n in SCALING_FLOWS]
    rows += [ScalingRow("bottleneck", case(1, rate, base_s, START_SPACING_MS)) for rate in SCALING_RATES_BPS]
    rows += [
        ScalingRow("duration", case(1, REFERENCE_RATE_BPS, base_s * k, START_SPACING_MS)) for k in SCALING_DURATION_FACTORS
    ]
    return rows


def _label(row: ScalingRow) -> str:
    case = row.case
    if row.axis == "flows":
        return f"flows={case.flows}"
    if row.axis == "bottleneck":
        return f"bottleneck={rate_text(case.bottleneck_bps)}"
    return f"duration={case.duration_s:g}s"


def predict_ns2_s(row: ScalingRow, done: Sequence[ScalingRow]) -> Optional[tuple[float, ScalingRow]]:
    """ns-2's predicted run time on *row*'s case, from its first renolab run and the
    ns-2/renolab ratio of the last case measured with both on the same axis (else on any),
    and that case's row; None when no case has been measured with both."""
    measured = [r for r in done if r.case.ns2 and r.case is not row.case]
    same_axis = [r for r in measured if r.axis == row.axis]
    basis = (same_axis or measured or [None])[-1]
    if basis is None or not row.case.renolab:
        return None
    ratio = statistics.median(r.run_wall_s for r in basis.case.ns2) / statistics.median(
        r.run_wall_s for r in basis.case.renolab
    )
    return row.case.renolab[0].run_wall_s * ratio, basis


def run_scaling(
    rows: Sequence[ScalingRow],
    repeat: int,
    *,
    against_ns2: bool,
    ns2_script: Optional[Path],
    progress: Callable[[str], None] = lambda _m: None,
) -> Sequence[ScalingRow]:
    """Measures each distinct case of *rows* *repeat* times (renolab and ns-2 alternating),
    leaving ns-2 out of a case predicted to take it longer than :data:`NS2_TIME_LIMIT_S`.

    The cases take turns: round after round, each case once. A shared VM slows for minutes at
    a time; run three times in a row, one case could take all of a slow spell and another
    none, and the ratios between rows (events per second at 1000 flows against one flow's)
    would measure the neighbours."""
    for round_ in range(repeat):
        done: list[ScalingRow] = []
        measured: set[int] = set()
        for row in rows:
            if id(row.case) not in measured:
                measured.add(id(row.case))

                def skip(case: Case, row: ScalingRow = row, done: list[ScalingRow] = done) -> Optional[str]:
                    predicted = predict_ns2_s(row, done)
                    if predicted is None or predicted[0] <= NS2_TIME_LIMIT_S:
                        return None
                    seconds, basis = predicted
                    return (
                        f"not run: predicted {seconds:.0f} s > {NS2_TIME_LIMIT_S:.0f} s (renolab's "
                        f"{case.renolab[0].run_wall_s:.2f} s x the ns-2/renolab time ratio at {_label(basis)})"
                    )

                row.case.title = f"scaling {_label(row)}"
                run_case(
                    row.case,
                    1,
                    against_ns2=against_ns2,
                    ns2_script=ns2_script,
                    measure_python=False,
                    progress=progress,
                    skip_ns2=skip,
                    rounds=(round_, repeat),
                )
            done.append(row)
    return rows


def format_scaling(rows: Sequence[ScalingRow]) -> str:
    """The scaling table: a row per case (renolab, then ns-2 where it ran), then why ns-2
    was left out where it was."""
    n = len(rows[0].case.renolab)
    lines = [
        "scaling: the reference dumbbell (access links 10x the bottleneck, 1 ms; bottleneck 8 ms "
        "with a one-BDP DropTail queue; unlimited Reno flows) as the work grows: flows "
        f"{SCALING_SPACING_MS:g} ms apart on {rate_text(SCALING_FLOWS_RATE_BPS)}; one flow on each "
        f"bottleneck; one flow on {rate_text(REFERENCE_RATE_BPS)} for longer; "
        f"{n} repeat{'s' * (n != 1)}, median (peak RSS: largest)"
    ]
    headers = [
        "case",
        "flows",
        "bottleneck",
        "sim s",
        "run wall s",
        "process s",
        "peak RSS MB",
        "events",
        "events/pkt",
        "events/s",
        "delivered",
        "ns-2 run s",
        "ns-2 RSS MB",
        "ns-2/renolab",
        "delivered vs ns-2",
        "transmissions/s",
    ]
    body = []
    notes: dict[int, str] = {}
    for row in rows:
        case, runs = row.case, row.case.renolab
        run_s = statistics.median(r.run_wall_s for r in runs)
        events = runs[-1].events or 0
        delivered = runs[-1].delivered
        cells = [
            _label(row),
            str(case.flows),
            rate_text(case.bottleneck_bps),
            f"{case.duration_s:g}",
            f"{run_s:.3f}",
            f"{statistics.median(r.process_wall_s for r in runs):.3f}",
            peak_rss(runs),
            si(events),
            f"{events / delivered:.2f}" if delivered else "n/a",
            si(events / run_s),
            f"{delivered:,}",
        ]
        if case.ns2:
            ns2_s = statistics.median(r.run_wall_s for r in case.ns2)
            theirs = case.ns2[-1].delivered
            cells += [
                f"{ns2_s:.3f}",
                peak_rss(case.ns2),
                f"{ns2_s / run_s:.2f}",
                f"{(delivered - theirs) / theirs:+.2%}" if theirs else "n/a",
            ]
        else:
            cells += ["-", "-", "-", "-"]
            if case.ns2_note:
                notes.setdefault(id(case), f"{_label(row)}: {case.ns2_note}")
        # Packets put on links per wall second (every hop counted), the parallel-simulation
        # literature's figure; the last column, as it came last.
        transmissions = runs[-1].transmissions
        cells.append(si(transmissions / run_s) if transmissions is not None else "n/a")
        body.append(cells)
    lines += ["  " + line for line in table(headers, body)]
    if any(sum(o.case is r.case for o in rows) > 1 for r in rows):
        lines.append("  (rows with the same settings are one measured case)")
    reasons = {note.split(": ", 1)[1] for note in notes.values()}
    if len(notes) > 1 and len(reasons) == 1:
        lines.append(f"  ns-2: {reasons.pop()}")
    else:
        lines += [f"  ns-2 at {note}" for note in notes.values()]
    return "\n".join(lines)
