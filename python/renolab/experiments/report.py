"""The report of one study's reproduction: figures, tables, claims, notes and scenarios.

A study module builds a :class:`Report`, adds to it in reading order and calls
:meth:`Report.write`::

    report = Report("lee2001", "The influence of the large BDP ...", citation, out)
    report.note("Setup: ...")
    report.figure(fig, "Fig. 2", "Average link utilisation vs BDP")      # fig-2.png / .svg
    report.table(df, "Table 2", "Slope of T_N")                            # table-2.csv / .md
    report.claim("mu falls as BDP grows", "true for 12/12 curves", True)
    report.scenario("reno-c32-b160", scenario)                             # scenarios/*.toml
    report.write()                                                         # report.md + report.html

A ``--quick`` reproduction makes its report with ``Report(..., quick=True)``: a claim is then
"inconclusive (quick run)" unless its verdict came from a 95 % interval
(``report.claim(..., interval=True)``) or from values a quick run computes exactly as a full
one does (``exact=True``), see :mod:`renolab.experiments.verdicts`.  :func:`read_claims`
reads the claims table back from a written ``report.md``.

Every claim the report makes must be computed from the run's data; the paper's own numbers
come from :func:`paper_values` (``data/<study>.toml``), never typed into the study code.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import math
import re
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from renolab._files import write_atomic
from renolab.experiments.verdicts import (
    CLAIMS_HEADER,
    INCONCLUSIVE,
    INCONCLUSIVE_QUICK,
    VERDICT_MARKS,
    VERDICTS,
    Claim,
    ClaimRow,
    Verdict,
    against,
    all_of,
    read_claims,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "INCONCLUSIVE",
    "INCONCLUSIVE_QUICK",
    "VERDICTS",
    "VERDICT_MARKS",
    "Verdict",
    "Claim",
    "ClaimRow",
    "all_of",
    "against",
    "Report",
    "claim_text",
    "format_value",
    "markdown_table",
    "paper_values",
    "read_claims",
    "slug",
]

DATA_DIR = Path(__file__).resolve().parent / "data"


def paper_values(study: str) -> dict[str, Any]:
    """The paper's own numbers for *study*, read from ``experiments/data/<study>.toml``.

    Convention of those files: a ``[paper]`` table (``title``, ``authors``, ``citation``,
    ``venue``); then one table per quantity, each leaf holding ``value`` (a number, list or
    string), optionally ``unit``, and ``source`` — where in the paper it is given ("Table 2",
    "Fig. 6", "text §4.2 p.5").  Returns the parsed TOML as a dict.
    """
    path = DATA_DIR / f"{study}.toml"
    if not path.is_file():
        raise FileNotFoundError(2, f"no paper data for study {study!r}", str(path))
    with open(path, "rb") as f:
        return tomllib.load(f)


def slug(number: str) -> str:
    """``"Fig. 2"`` -> ``"fig-2"``, ``"Table 2"`` -> ``"table-2"``, ``"Fig. 6 (a)"`` -> ``"fig-6-a"``."""
    text = re.sub(r"[^a-z0-9]+", "-", number.lower()).strip("-")
    return text or "item"


def format_value(value: Any, digits: int = 6) -> str:
    """A table cell as text: floats to *digits* significant digits (no exponent for ordinary
    magnitudes), whole floats as integers, NaN/None as an empty cell."""
    try:
        import numpy as np

        if isinstance(value, np.generic):
            value = value.item()
    except ImportError:  # pragma: no cover
        pass
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        if abs(value) >= 10**digits:
            return str(int(round(value)))
        if abs(value) < 1e-4:
            return f"{value:.{digits}g}"
        return f"{value:.{digits}g}" if "e" not in f"{value:.{digits}g}" else f"{value:f}".rstrip("0").rstrip(".")
    return str(value)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(df: Any, digits: int = 6) -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown table (no extra dependency)."""
    columns = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(_md_cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    for row in df.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_md_cell(format_value(v, digits)) for v in row) + " |")
    return "\n".join(lines)


def _html_table(df: Any, digits: int = 6) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False, name=None):
        cells = "".join(
            f'<td class="{"paper" if str(col).startswith("paper") else ""}">{html.escape(format_value(v, digits))}</td>'
            for col, v in zip(df.columns, row)
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _inline_md_to_html(text: str) -> str:
    """Escape *text* and render the few inline Markdown forms notes use: `code`, **bold**, *em*."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])", r"<em>\1</em>", out)
    return out


def _note_to_html(text: str) -> str:
    """A note paragraph (possibly with '- ' bullet lines) as HTML."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if lines and all(line.lstrip().startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline_md_to_html(line.lstrip()[2:])}</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append(f"<p>{_inline_md_to_html(' '.join(lines))}</p>")
    return "".join(blocks)


@dataclass
class _Item:
    kind: str  # "figure" | "table" | "note" | "heading"
    number: str = ""
    caption: str = ""
    text: str = ""
    files: list[str] = field(default_factory=list)
    frame: Any = None


class Report:
    """Collects a study's outputs in *out* and writes ``report.md`` and ``report.html``.

    Items (notes, figures, tables, headings) appear in the report in the order they are
    added; claims are gathered into one table at the top.  Extra run facts for the header
    (e.g. ``quick``, number of runs, wall time) go in :attr:`meta`.
    """

    def __init__(self, study: str, title: str, citation: str, out: Path, *, quick: bool = False) -> None:
        self.study = study
        #: A ``--quick`` run: claims not decided by an interval or exactly are inconclusive.
        self.quick = quick
        self.title = title
        self.citation = citation
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.items: list[_Item] = []
        self.claims: list[Claim] = []
        self.scenarios: list[str] = []
        #: Facts shown under the title (insertion order), e.g. ``{"mode": "quick"}``.
        self.meta: dict[str, Any] = {}

    # ----- adding content -------------------------------------------------------------------

    def heading(self, text: str) -> None:
        """Start a new section (a level-2 heading) in the body of the report."""
        self.items.append(_Item("heading", text=text))

    def figure(self, fig: Any, number: str, caption: str) -> None:
        """Title *fig* "<number> — <caption>", save it as ``<slug>.png`` and ``.svg`` (and close it
        if pyplot made it).  Build figures with :func:`renolab.plot.figure.new_axes` (no pyplot
        state) or pyplot, either works."""
        from renolab.plot.figure import save_figure

        name = slug(number)
        # Wrap long titles to the figure's width (about 12 characters per inch at this size).
        width = max(40, int(fig.get_size_inches()[0] * 12))
        fig.suptitle(textwrap.fill(f"{number} — {caption}", width), fontsize="medium")
        png = save_figure(fig, self.out / f"{name}.png", dpi=100)
        svg = save_figure(fig, self.out / f"{name}.svg", dpi=100)
        if "matplotlib.pyplot" in sys.modules:  # a pyplot figure: release it
            sys.modules["matplotlib.pyplot"].close(fig)
        self.items.append(_Item("figure", number=number, caption=caption, files=[png.name, svg.name]))

    def table(self, df: Any, number: str, caption: str) -> None:
        """Save *df* as ``<slug>.csv`` and ``<slug>.md`` (columns ``paper_*`` hold the paper's values)."""
        name = slug(number)
        csv, md = self.out / f"{name}.csv", self.out / f"{name}.md"
        write_atomic(csv, df.to_csv(index=False, lineterminator="\n"), durable=False)
        write_atomic(md, f"**{number}** — {caption}\n\n{markdown_table(df)}\n", durable=False)
        self.items.append(_Item("table", number=number, caption=caption, files=[csv.name, md.name], frame=df.copy()))

    def claim(self, paper: str, measured: str, holds: Verdict, *, interval: bool = False, exact: bool = False) -> None:
        """Record one of the paper's claims; ``holds=None``: not testable here (say why in
        *measured*); :data:`INCONCLUSIVE` (see :func:`against`, :func:`all_of`): the 95 %
        interval of what decides it contains the threshold.

        *interval*: the verdict was read from 95 % intervals against the claim's threshold;
        *exact*: from deterministic values that a quick run computes as a full run does (the
        same scenario, one run).  In a quick report any other verdict is
        :data:`INCONCLUSIVE_QUICK`: its means come from a reduced grid or a few seeds."""
        if holds is not None and holds != INCONCLUSIVE:
            holds = bool(holds)
            if self.quick and not (interval or exact):
                holds = INCONCLUSIVE_QUICK
        self.claims.append(Claim(paper, measured, holds))

    def scenario(self, name: str, scenario: Any) -> None:
        """Write *scenario* (a :class:`renolab.Scenario` or a dict) to ``scenarios/<name>.toml``."""
        from renolab.scenario import Scenario

        if not isinstance(scenario, Scenario):
            scenario = Scenario.from_dict(scenario)
        directory = self.out / "scenarios"
        directory.mkdir(exist_ok=True)
        fname = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "scenario"
        path = directory / f"{fname}.toml"
        write_atomic(path, f"# {self.study}: {name}\n# rerun: renolab run {path.name} --out DIR\n" + scenario.to_toml(), durable=False)
        if fname not in self.scenarios:
            self.scenarios.append(fname)

    def note(self, text: str) -> None:
        """A free-form paragraph (Markdown: `code`, **bold**, '- ' bullets) in reading order."""
        self.items.append(_Item("note", text=text.strip()))

    # ----- writing --------------------------------------------------------------------------

    def summary_counts(self) -> dict[str, int]:
        """Number of claims that hold, do not hold and are not testable."""
        counts = {verdict: 0 for verdict in VERDICTS.values()}
        for c in self.claims:
            counts[c.verdict] += 1
        return counts

    def _counts_text(self) -> str:
        """``"14 of 21 claims hold, 6 do not, 1 cannot be tested here."`` (and how many are
        inconclusive, when some are)."""
        counts = self.summary_counts()
        middle = ""
        for verdict in (INCONCLUSIVE, INCONCLUSIVE_QUICK):
            n = counts[VERDICTS[verdict]]
            middle += f"{n} {'is' if n == 1 else 'are'} {VERDICTS[verdict]}, " if n else ""
        return (
            f"{counts['holds']} of {len(self.claims)} claims hold, {counts['does not hold']} do not, "
            f"{middle}{counts['not testable']} cannot be tested here."
        )

    def _meta_lines(self) -> list[tuple[str, str]]:
        from renolab import __version__

        rows = [(str(k), format_value(v)) for k, v in self.meta.items()]
        rows.append(("renolab", __version__))
        rows.append(("generated", _dt.datetime.now().replace(microsecond=0).isoformat(sep=" ")))
        return rows

    def write(self) -> Path:
        """Write ``report.md`` and a self-contained ``report.html``; return the report.md path.

        Every file of a report is written beside its name and renamed over it when complete,
        so a study killed part way (or a full disk) leaves the previous file or none, never
        half of one; the report itself, written last, is made durable."""
        md_path = self.out / "report.md"
        write_atomic(self.out / "report.html", self._html())
        write_atomic(md_path, self._markdown())
        return md_path

    def _markdown(self) -> str:
        out = [f"# {self.study}: {self.title}", "", f"Reproduction of: {self.citation}", ""]
        out += [f"- {k}: {v}" for k, v in self._meta_lines()]
        out.append("")
        out += [
            "## Claims",
            "",
            f"{self._counts_text()} Every entry in the 'renolab measured' column is computed from this run.",
            "",
            CLAIMS_HEADER,
            "|---|---|---|---|",
        ]
        for i, c in enumerate(self.claims, 1):
            out.append(f"| {i} | {_md_cell(c.paper)} | {_md_cell(c.measured)} | {VERDICT_MARKS[c.holds]} |")
        out.append("")
        for item in self.items:
            if item.kind == "heading":
                out += [f"## {item.text}", ""]
            elif item.kind == "note":
                out += [item.text, ""]
            elif item.kind == "figure":
                png, svg = item.files
                out += [f"**{item.number}** — {item.caption}", "", f"![{item.number}]({png})", "", f"([SVG]({svg}))", ""]
            elif item.kind == "table":
                csv = item.files[0]
                out += [f"**{item.number}** — {item.caption} ([CSV]({csv}))", "", markdown_table(item.frame), ""]
        if self.scenarios:
            out += ["## Scenarios", "", "Rerun any point with `renolab run scenarios/<name>.toml --out DIR`:", ""]
            out += [f"- [`{name}.toml`](scenarios/{name}.toml)" for name in self.scenarios]
            out.append("")
        return "\n".join(out)

    def _html(self) -> str:
        esc = html.escape
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{esc(self.study)}: {esc(self.title)}</title>",
            "<style>"
            "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}"
            "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}"
            "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;vertical-align:top}"
            "th{background:#f0f0f0}td.paper{background:#fbf6e6}"
            "table.claims td{text-align:left}"
            ".holds{color:#15722a;font-weight:bold}.fails{color:#b3261e;font-weight:bold}.na{color:#777}"
            ".inconclusive{color:#8a6d00;font-weight:bold}"
            "figure{margin:1em 0 2em}figure img{max-width:100%}figcaption{font-size:0.9em;color:#444}"
            "code{background:#f4f4f4;padding:0 3px}"
            "</style></head><body>",
            f"<h1>{esc(self.study)}: {esc(self.title)}</h1>",
            f"<p>Reproduction of: {esc(self.citation)}</p>",
            "<ul>" + "".join(f"<li>{esc(k)}: {esc(v)}</li>" for k, v in self._meta_lines()) + "</ul>",
        ]
        parts.append("<h2>Claims</h2>")
        parts.append(f"<p>{esc(self._counts_text())} Every 'renolab measured' entry is computed from this run.</p>")
        rows = []
        for i, c in enumerate(self.claims, 1):
            cls = {True: "holds", False: "fails", INCONCLUSIVE: "inconclusive", INCONCLUSIVE_QUICK: "inconclusive", None: "na"}[c.holds]
            rows.append(
                f"<tr><td>{i}</td><td>{esc(c.paper)}</td><td>{esc(c.measured)}</td>"
                f'<td class="{cls}">{esc(c.verdict)}</td></tr>'
            )
        parts.append(
            '<table class="claims"><thead><tr><th>#</th><th>The paper says</th><th>renolab measured</th>'
            f"<th>Verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
        for item in self.items:
            if item.kind == "heading":
                parts.append(f"<h2>{esc(item.text)}</h2>")
            elif item.kind == "note":
                parts.append(_note_to_html(item.text))
            elif item.kind == "figure":
                data = base64.b64encode((self.out / item.files[0]).read_bytes()).decode("ascii")
                parts.append(
                    f'<figure><img alt="{esc(item.number)}" src="data:image/png;base64,{data}">'
                    f"<figcaption><strong>{esc(item.number)}</strong> — {esc(item.caption)}</figcaption></figure>"
                )
            elif item.kind == "table":
                parts.append(f"<p><strong>{esc(item.number)}</strong> — {esc(item.caption)}</p>")
                parts.append(_html_table(item.frame))
        if self.scenarios:
            parts.append("<h2>Scenarios</h2><p>Rerun any point with <code>renolab run scenarios/&lt;name&gt;.toml --out DIR</code>:</p><ul>")
            parts += [f"<li><code>scenarios/{esc(n)}.toml</code></li>" for n in self.scenarios]
            parts.append("</ul>")
        parts.append("</body></html>")
        return "\n".join(parts) + "\n"


def claim_text(values: Mapping[str, Any], key: str) -> str:
    """``"<value> <unit> (<source>)"`` for one entry of :func:`paper_values`, for report prose."""
    entry = values[key]
    unit = f" {entry['unit']}" if entry.get("unit") else ""
    return f"{format_value(entry['value'])}{unit} ({entry.get('source', 'paper')})"
