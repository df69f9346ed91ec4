"""renolab, ns-3.44 and the real Linux kernel on the same dumbbells: which simulator is closer.

For each scenario of ``tests/ns3/scenarios`` given (the wired dumbbells: Reno, CUBIC, BBR at
0.5-4 BDP, two CUBIC flows), runs the scenario ``--runs`` times through real kernel TCP
(``renolab emulate``, root), ``--runs`` times in renolab under ``profile = "linux"``, and
reads ns-3.44's means from ``tests/ns3/reference.csv`` (made by ``tests/ns3/compare.py``; ns-3
itself takes minutes per scenario and is not rerun here). All three sides are measured the
same way (``tests/ns3/ns3ref/table.py``: goodput, retransmissions, timeouts, mean RTT, mean
and maximum bottleneck queue). Prints a markdown table with, per figure, the kernel's mean,
renolab's and ns-3's, their differences from the kernel, and which is closer.

Usage (repository root, as root)::

    python benchmarks/three_way.py tests/ns3/scenarios/{reno,cubic,bbr}_*.toml --runs 3
"""

from __future__ import annotations

import argparse
import csv
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "ns3"))

from compare import run_renolab  # noqa: E402
from ns3ref import table  # noqa: E402

#: Figures compared, with how they read in the table.
METRICS = {
    "throughput_mbps": "goodput (Mb/s)",
    "retransmits": "retransmissions",
    "timeouts": "timeouts",
    "mean_rtt_ms": "mean RTT (ms)",
    "mean_queue": "mean queue (packets)",
    "max_queue": "max queue (packets)",
}


def run_kernel(scenario: Path, out: Path, runs: int) -> list[dict]:
    figures = []
    for n in range(1, runs + 1):
        d = out / f"run-{n}"
        cmd = [sys.executable, "-m", "renolab", "emulate", str(scenario), "--out", str(d), "--seed", str(n),
               "--trace", "rtt,queue", "--format", "csv"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{scenario.stem}: emulation failed: {done.stderr.strip()[-300:]}")
        figures.append(table.run_figures(d))
    return figures


def ns3_reference() -> dict[tuple[str, str, str], float]:
    ref = {}
    with open(ROOT / "tests" / "ns3" / "reference.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["ns3_mean"]:
                ref[(row["scenario"], row["item"], row["metric"])] = float(row["ns3_mean"])
    return ref


def mean(runs: list[dict], key: tuple[str, str]) -> float | None:
    values = [r.get(key) for r in runs]
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def rel(x: float | None, ref: float | None) -> str:
    if x is None or ref is None:
        return "-"
    if ref == 0:
        return f"{x - ref:+.1f}"
    return f"{(x - ref) / ref * 100:+.1f} %"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenarios", nargs="+", type=Path)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path("/tmp/three_way"))
    args = p.parse_args(argv)
    ns3 = ns3_reference()
    print(f"Kernel and renolab: {args.runs} runs each ({time.strftime('%Y-%m-%d')}); ns-3: tests/ns3/reference.csv.\n")
    print("| scenario | flow | figure | Linux | renolab | ns-3 | closer |")
    print("|---|---|---|---|---|---|---|")
    closer = {"renolab": 0, "ns-3": 0, "tie": 0}
    for scenario in args.scenarios:
        base = args.out / scenario.stem
        kernel = run_kernel(scenario, base / "kernel", args.runs)
        ren = run_renolab(scenario, base / "renolab", args.runs, "linux",
                          shlex.split(f"{sys.executable} -m renolab"), False)
        if ren.status:
            raise SystemExit(f"{scenario.stem}: renolab failed: {ren.status}")
        items = sorted({item for r in kernel for (item, metric) in r if metric in METRICS})
        for item in items:
            for metric, label in METRICS.items():
                k = mean(kernel, (item, metric))
                r = mean(ren.runs, (item, metric))
                n = ns3.get((scenario.stem, item, metric))
                if k is None:
                    continue
                winner = "-"
                if r is not None and n is not None:
                    dr, dn = abs(r - k), abs(n - k)
                    winner = "renolab" if dr < dn else "ns-3" if dn < dr else "tie"
                    closer[winner] += 1
                fmt = (lambda v: "-" if v is None else f"{v:.2f}")
                print(f"| {scenario.stem} | {item} | {label} | {fmt(k)} | {fmt(r)} ({rel(r, k)}) | "
                      f"{fmt(n)} ({rel(n, k)}) | {winner} |")
        sys.stdout.flush()
    print(f"\nCloser to the kernel: renolab {closer['renolab']}, ns-3 {closer['ns-3']}, tie {closer['tie']}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
