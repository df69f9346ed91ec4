#!/usr/bin/env python3
"""Run scenarios N times in ns-3 (and in renolab with --renolab) and print them side by side.

    python tests/ns3/compare.py SCENARIO.toml... --out DIR [--runs N] [--renolab]
                                [--profile linux] [--map cubic=TcpCubic ...] [--reuse]
                                [--ns3-from reference.csv]

Run n of a scenario is ns-3's RngRun n (RngSeed = the scenario's seed) and renolab's
--seed n. Each scenario's ns-3 runs happen in one process (run_ns3.py --repeat N, so
ns-3's slow import is paid once); renolab runs ``renolab run`` on a copy of the scenario
whose [simulation] profile is set to --profile, with the rtt and queue traces for mean
RTT and mean queue. A scenario renolab refuses (exit status 2: an unknown variant,
profile or key) is marked "n/a" with renolab's message; so is every figure one side does
not report. Writes DIR/<scenario>/{ns3,renolab}/run-<n>/, DIR/comparison.csv (mean, 95 %
CI half-width and n per figure) and DIR/comparison.md, which is also printed.

``--ns3-from CSV`` takes ns-3's figures from an earlier comparison.csv (such as
``reference.csv``) instead of running ns-3, which takes minutes per scenario: the way to
refresh renolab's side after a change to renolab.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ns3ref import table  # noqa: E402

#: Traces renolab writes for the figures ns-3's probes compute directly.
RENOLAB_TRACES = "rtt,queue"


def t_quantile():
    try:
        from renolab.stats import student_t_quantile  # noqa: PLC0415
    except ImportError as exc:
        raise SystemExit(f"compare.py: needs renolab installed for its statistics ({exc}); "
                         "pip install -e . at the repository root") from None
    return student_t_quantile


def run_ns3(scenario: Path, out: Path, runs: int, maps: list[str], reuse: bool) -> table.Side:
    side = table.Side()
    dirs = [out / f"run-{n}" for n in range(1, runs + 1)]
    if not (reuse and all((d / "summary.json").exists() for d in dirs)):
        cmd = [sys.executable, str(HERE / "run_ns3.py"), str(scenario), "--out", str(out),
               "--run", "1", "--repeat", str(runs), "--quiet"]
        for m in maps:
            cmd += ["--map", m]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            side.status = _first_error(done.stderr) or f"run_ns3.py exited with {done.returncode}"
            return side
    side.runs = [table.run_figures(d) for d in dirs]
    return side


def run_renolab(scenario: Path, out: Path, runs: int, profile: str, command: list[str], reuse: bool) -> table.Side:
    import tomli_w  # noqa: PLC0415  (a renolab dependency)

    side = table.Side()
    data = tomllib.loads(scenario.read_text())
    data.setdefault("simulation", {})["profile"] = profile
    out.mkdir(parents=True, exist_ok=True)
    copy = out / "scenario.toml"
    copy.write_text(tomli_w.dumps(data))
    for n in range(1, runs + 1):
        d = out / f"run-{n}"
        if not (reuse and (d / "summary.json").exists()):
            cmd = [*command, "run", str(copy), "--out", str(d), "--seed", str(n),
                   "--trace", RENOLAB_TRACES, "--format", "csv"]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                side.status = _first_error(done.stderr) or f"renolab exited with {done.returncode}"
                side.runs = []
                return side
        side.runs.append(table.run_figures(d))
    return side


def _first_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if "error" in ln.lower()]
    return (lines[0] if lines else stderr.strip().splitlines()[-1] if stderr.strip() else "").strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="+", metavar="SCENARIO.toml", type=Path)
    parser.add_argument("--out", required=True, type=Path, metavar="DIR")
    parser.add_argument("--runs", type=int, default=5, metavar="N", help="runs per scenario and simulator (default 5)")
    parser.add_argument("--renolab", action="store_true", help="also run renolab")
    parser.add_argument("--profile", default="linux", help='renolab profile to impose (default "linux")')
    parser.add_argument("--renolab-cmd", default=f"{shlex.quote(sys.executable)} -m renolab",
                        help="how to call renolab (default: this Python's -m renolab)")
    parser.add_argument("--map", action="append", default=[], metavar="VARIANT=TYPE",
                        help="passed to run_ns3.py: renolab variant -> ns-3 TCP type")
    parser.add_argument("--reuse", action="store_true", help="keep runs already in DIR instead of redoing them")
    parser.add_argument("--ns3-from", type=Path, metavar="CSV",
                        help="ns-3's figures from this comparison.csv instead of running ns-3")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs: must be at least 1")
    for s in args.scenarios:
        if not s.is_file():
            parser.error(f"{s}: no such scenario file")
    stems = [s.stem for s in args.scenarios]
    if len(set(stems)) != len(stems):
        parser.error("two scenario files share a name; their outputs would collide")
    quantile = t_quantile()
    rows: list[table.Row] = []
    failed = 0
    for scenario in args.scenarios:
        base = args.out / scenario.stem
        t0 = time.perf_counter()
        if args.ns3_from:
            ns3 = table.Side()
        else:
            ns3 = run_ns3(scenario, base / "ns3", args.runs, args.map, args.reuse)
        t1 = time.perf_counter()
        if args.renolab:
            ren = run_renolab(scenario, base / "renolab", args.runs, args.profile,
                              shlex.split(args.renolab_cmd), args.reuse)
        else:
            ren = table.Side(status="not run (no --renolab)")
        t2 = time.perf_counter()
        if ns3.status:
            failed += 1
            print(f"compare.py: {scenario.stem}: ns-3 failed: {ns3.status}", file=sys.stderr)
        print(f"{scenario.stem}: ns-3 {t1 - t0:.0f} s, renolab {t2 - t1:.0f} s"
              + (f" (renolab n/a: {ren.status})" if args.renolab and ren.status else ""), file=sys.stderr)
        these = table.rows(scenario.stem, ns3, ren, quantile)
        if args.ns3_from:
            these = table.with_ns3_from(these, scenario.stem, table.read_reference(args.ns3_from), ren.status)
        rows += these
    args.out.mkdir(parents=True, exist_ok=True)
    table.write_csv(args.out / "comparison.csv", rows)
    text = table.markdown(rows, args.runs)
    (args.out / "comparison.md").write_text(text)
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
