"""A claim's verdict: holds, does not hold, inconclusive or not testable -- how it is
decided from 95 % intervals (:func:`against`, :func:`all_of`), how it is written in a
report's claims table, and how that table is read back (:func:`read_claims`).

A ``--quick`` reproduction runs a reduced grid or fewer seeds, so a verdict read from its
means alone would be firmer than its data: :class:`renolab.experiments.report.Report` in
quick mode writes :data:`INCONCLUSIVE_QUICK` ("inconclusive (quick run)") for every claim
except those whose verdict came from a 95 % interval that excludes the threshold
(``interval=True``) or from deterministic values that a quick run computes exactly as a full
one does (``exact=True``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "INCONCLUSIVE",
    "INCONCLUSIVE_QUICK",
    "VERDICTS",
    "VERDICT_MARKS",
    "CLAIMS_HEADER",
    "Claim",
    "ClaimRow",
    "Verdict",
    "against",
    "all_of",
    "read_claims",
]

#: A claim's verdict when the data cannot decide: the 95 % interval of what decides it
#: contains the threshold (more runs would narrow it).
INCONCLUSIVE = "inconclusive"
#: A claim's verdict in a ``--quick`` run when nothing but the means decides it: a reduced
#: grid or a few seeds cannot settle it (the full run can).
INCONCLUSIVE_QUICK = "inconclusive (quick run)"
#: Marks used for a claim's verdict in report.md / report.html.
VERDICTS = {
    True: "holds",
    False: "does not hold",
    INCONCLUSIVE: "inconclusive (too few runs)",
    INCONCLUSIVE_QUICK: "inconclusive (quick run)",
    None: "not testable",
}
#: The verdict cell of report.md's claims table, by :attr:`Claim.holds`.
VERDICT_MARKS = {
    holds: f"{mark} {VERDICTS[holds]}"
    for holds, mark in ((True, "✅"), (False, "❌"), (INCONCLUSIVE, "❔"), (INCONCLUSIVE_QUICK, "❔"), (None, "—"))
}

#: A verdict: True, False, :data:`INCONCLUSIVE`, :data:`INCONCLUSIVE_QUICK` or None (not testable).
Verdict = Any


def against(low: float, high: float, threshold: float, *, above: bool = True) -> Verdict:
    """The verdict on "the quantity is above *threshold*" (below it, with ``above=False``)
    from the quantity's 95 % interval [*low*, *high*]: True when the whole interval is on the
    claimed side, False when it is wholly on the other, :data:`INCONCLUSIVE` when it contains
    the threshold.  A NaN bound (a single run, no interval) counts as the other bound."""
    low = high if math.isnan(low) else low
    high = low if math.isnan(high) else high
    if math.isnan(low):
        return None
    if above:
        return True if low > threshold else False if high < threshold else INCONCLUSIVE
    return True if high < threshold else False if low > threshold else INCONCLUSIVE


def all_of(verdicts: Any) -> Verdict:
    """The verdict on "every one of these holds": False if one does not, else
    :data:`INCONCLUSIVE` if one is, else True."""
    verdicts = list(verdicts)
    if any(v is False for v in verdicts):
        return False
    if any(v == INCONCLUSIVE for v in verdicts):
        return INCONCLUSIVE
    return True


#: The header row of report.md's claims table, which read_claims looks for.
CLAIMS_HEADER = "| # | The paper says | renolab measured | Verdict |"


@dataclass
class Claim:
    """One of the paper's conclusions and what this run measured about it."""

    paper: str
    measured: str
    #: True, False, :data:`INCONCLUSIVE`, :data:`INCONCLUSIVE_QUICK` or None (not testable).
    holds: Verdict

    @property
    def verdict(self) -> str:
        return VERDICTS[self.holds]


class ClaimRow(NamedTuple):
    """One row of the claims table of a written ``report.md``, as :func:`read_claims` returns it."""

    paper: str
    measured: str
    #: The verdict cell as written, e.g. ``"✅ holds"`` (see :data:`VERDICT_MARKS`).
    verdict: str

    @property
    def holds(self) -> bool | None:
        """The verdict as :attr:`Claim.holds`; ValueError for a cell :class:`Report` does not write."""
        for holds, mark in VERDICT_MARKS.items():
            if self.verdict == mark:
                return holds
        raise ValueError(f"unknown verdict {self.verdict!r}")


def read_claims(report_md: str) -> list[ClaimRow]:
    """The rows of the "## Claims" table of *report_md* (the text of a ``report.md`` that
    :meth:`Report.write` wrote), in order; ``\\|`` in a cell is read back as ``|``.

    Raises ValueError when the text has no claims table or a row has the wrong number of cells.
    """
    lines = report_md.splitlines()
    try:
        start = lines.index(CLAIMS_HEADER, lines.index("## Claims")) + 2  # after the |---| line
    except ValueError:
        raise ValueError("no claims table in report.md") from None
    rows = []
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        # Cells are written as " | "-separated; an escaped pipe ("\|") never has a space before it.
        cells = line[2:].removesuffix(" |").split(" | ")
        if len(cells) != 4:
            raise ValueError(f"claims row with {len(cells)} cells, expected 4: {line!r}")
        _, paper, measured, verdict = (cell.replace("\\|", "|") for cell in cells)
        rows.append(ClaimRow(paper, measured, verdict))
    return rows
