"""The ns-2 validation suite: scenario files, the stored ns-2 reference, the results table.

Every ``*.toml`` here is a scenario with a ``[validation]`` table::

    [validation]
    expect = "agree"           # or "disagree": a known difference, explained in `reason`
    reason = "..."             # why it disagrees (also in docs/validation.md)
    runs = 30                  # random scenarios: seeds to compare (means with 95 % CIs)
    completion_time_s = 0.01   # tolerances (renolab.ns2.Tolerance); defaults: SUITE_TOLERANCE

``ns2_reference.json`` holds what ns-2.35 printed for each scenario (and seed), so that the
comparison with renolab runs without ns-2; with ns-2 installed the tests also check that the
file is still what ns-2 says. Commands (from the repository root)::

    python tests/validation/suite.py regenerate   # rerun ns-2, rewrite ns2_reference.json
    python tests/validation/suite.py report       # the markdown table for docs/validation.md
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from renolab import Scenario, ns2

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "ns2_reference.json"
#: The suite's own standard, stricter than ``renolab validate``'s default (which allows the
#: few retransmissions lee2001's grid differs by): identical retransmission and timeout
#: counts, 1 % on the rest.
SUITE_TOLERANCE = ns2.Tolerance(retransmits=0, timeouts=0)


@dataclass
class Case:
    """One scenario of the suite."""

    name: str
    path: Path
    scenario: Scenario
    meta: dict[str, Any]

    @property
    def expect_agreement(self) -> bool:
        return self.meta.get("expect", "agree") == "agree"

    @property
    def reason(self) -> str:
        return " ".join(str(self.meta.get("reason", "")).split())

    @property
    def tolerance(self) -> ns2.Tolerance:
        return ns2.Tolerance.from_mapping(self.meta, base=SUITE_TOLERANCE)

    @property
    def random(self) -> bool:
        return ns2.is_random(self.scenario)

    @property
    def seeds(self) -> list[int]:
        base = self.scenario.validate()["simulation"]["seed"]
        runs = int(self.meta.get("runs", 30 if self.random else 1))
        return [base + i for i in range(runs)]

    def tcl(self) -> str:
        return ns2.to_tcl(self.scenario, source=self.path.name)


def cases() -> list[Case]:
    out = []
    for path in sorted(HERE.glob("*.toml")):
        scenario, meta = ns2.load(path)
        out.append(Case(path.stem, path, scenario, meta))
    return out


def fingerprint(tcl: str) -> str:
    """A hash of an exported script without its comments (which name the renolab version)."""
    body = "\n".join(line for line in tcl.splitlines() if not line.lstrip().startswith("#"))
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def load_reference() -> dict[str, Any]:
    if not REFERENCE.exists():
        return {}
    return json.loads(REFERENCE.read_text())


def reference_runs(entry: dict[str, Any]) -> list[ns2.Ns2Run]:
    return [ns2.Ns2Run(run["flows"], seed=run["seed"]) for run in entry["runs"]]


def run_ns2(case: Case, jobs: int = 2) -> dict[str, Any]:
    """ns-2's output for *case*, on every seed, as stored in the reference file."""
    tcl = case.tcl()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        runs = list(pool.map(lambda s: ns2.run_ns2(tcl, seed=s), case.seeds))
    return {
        "fingerprint": fingerprint(tcl),
        "runs": [{"seed": s, "flows": r.flows} for s, r in zip(case.seeds, runs)],
    }


def compare(case: Case, entry: dict[str, Any]) -> ns2.Report:
    return ns2.validate(
        case.scenario, tolerance=case.tolerance, name=case.name, ns2_runs=reference_runs(entry)
    )


def regenerate(jobs: int = 2, only: list[str] | None = None) -> None:
    """Rerun ns-2 for every case (or the cases named in *only*, keeping the others' stored
    references byte for byte) and rewrite the reference file."""
    reference = load_reference() if only else {}
    for case in cases():
        if only and case.name not in only:
            continue
        reference[case.name] = run_ns2(case, jobs)
        print(f"{case.name}: {len(case.seeds)} run(s)", file=sys.stderr)
    REFERENCE.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")


def _cell(report: ns2.Report, flow: str, metric: str) -> str:
    row = next(r for r in report.rows if r.flow == flow and r.metric == metric)
    fmt = "{:.3f}" if metric == "completion_time_s" else ("{:.2f}" if report.random else "{:.0f}")

    def one(v: float | None) -> str:
        return "-" if v is None else fmt.format(v)

    return f"{one(row.ns2_mean)} / {one(row.renolab_mean)}"


def report_markdown() -> str:
    """The table for docs/validation.md: every flow of every scenario, worst first."""
    reference = load_reference()
    lines = []
    entries = []
    n_det = n_det_ok = n_rand = n_rand_ok = 0
    for case in cases():
        report = compare(case, reference[case.name])
        if report.random:
            n_rand += 1
            n_rand_ok += report.ok
        else:
            n_det += 1
            n_det_ok += report.ok
        flows = sorted({r.flow for r in report.rows}, key=[r.flow for r in report.rows].index)
        for flow in flows:
            rel = next(r.rel for r in report.rows if r.flow == flow and r.metric == "completion_time_s")
            entries.append((report.ok, -abs(rel or 0.0), case, report, flow, rel))
    entries.sort(key=lambda e: (e[0], e[1]))
    lines.append(
        "| scenario | flow | t_c ns-2 / renolab (s) | diff | retx | timeouts | drops | delivered bytes | agrees |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for ok, _, case, report, flow, rel in entries:
        kind = f" ({len(report.seeds)} seeds)" if report.random else ""
        verdict = "yes" if ok else "**no**" + ("" if case.expect_agreement else " (explained)")
        lines.append(
            f"| {case.name}{kind} | {flow} | {_cell(report, flow, 'completion_time_s')} | "
            + ("-" if rel is None else f"{rel:+.2%}")
            + f" | {_cell(report, flow, 'retransmits')} | {_cell(report, flow, 'timeouts')} | "
            f"{_cell(report, flow, 'drops')} | {_cell(report, flow, 'bytes_delivered')} | {verdict} |"
        )
    summary = (
        f"\nDeterministic scenarios within tolerance: {n_det_ok} of {n_det}; "
        f"random scenarios whose means agree: {n_rand_ok} of {n_rand}."
    )
    return "\n".join(lines) + "\n" + summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["regenerate", "report"])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", nargs="+", metavar="CASE", help="regenerate only these cases")
    args = p.parse_args(argv)
    if args.command == "regenerate":
        regenerate(args.jobs, args.only)
    else:
        print(report_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
