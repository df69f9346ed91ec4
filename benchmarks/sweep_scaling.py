"""Sweep scaling: time the same 40 small runs with 1 and 2 local workers.

    python benchmarks/sweep_scaling.py [--runs 40] [--repeat 3]

Each run is one Reno / NewReno / SACK / Tahoe flow over a 100 Mb/s, 20 ms bottleneck with
0.05 % random loss for 10 simulated seconds (about 0.05 s of simulation each).  Every
measurement starts from an empty output directory, so all runs are executed, and includes
everything ``Sweep.run`` does (planning, the worker pool, writing runs/*.json,
runs.parquet and summary.parquet).  Prints the wall times and the ratio
(2 workers / 1 worker; the target is <= 0.6).  Results are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time

import pandas as pd

from renolab import Sweep


def base_scenario() -> dict:
    return {
        "simulation": {"seed": 1, "duration": "10s"},
        "link": [
            {"name": "access", "from": "s1", "to": "g1", "rate": "1Gbps", "delay": "1ms"},
            {
                "name": "bottleneck",
                "from": "g1",
                "to": "r1",
                "rate": "100Mbps",
                "delay": "20ms",
                "queue": {"kind": "droptail", "limit": 200},
                "loss": {"kind": "uniform", "p": 0.0005},
            },
        ],
        "flow": [{"name": "f1", "variant": "reno", "src": "s1", "dst": "r1", "mss": 1460}],
    }


def sweep(runs: int) -> Sweep:
    variants = ["reno", "newreno", "sack", "tahoe"]
    if runs % len(variants):
        raise SystemExit(f"--runs must be a multiple of {len(variants)}")
    return Sweep(base=base_scenario(), grid={"flow.f1.variant": variants}, replications=runs // len(variants))


def timed(s: Sweep, workers: int) -> tuple[float, pd.DataFrame]:
    with tempfile.TemporaryDirectory(prefix="renolab-sweep-bench-") as out:
        start = time.perf_counter()
        result = s.run(out, workers=workers, progress=False)
        elapsed = time.perf_counter() - start
    assert result.executed == len(result.runs)
    return elapsed, result.runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    s = sweep(args.runs)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    times: dict[int, list[float]] = {1: [], 2: []}
    reference = None
    timed(s, 1)  # warm up (page cache, first import of the worker code)
    for _ in range(args.repeat):
        for workers in (1, 2):
            elapsed, runs = timed(s, workers)
            times[workers].append(elapsed)
            if reference is None:
                reference = runs
            else:
                pd.testing.assert_frame_equal(runs, reference)  # same results whatever the workers
    one, two = statistics.median(times[1]), statistics.median(times[2])
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"1-minute load average before the measurement: {load:.2f}")
    print(f"{args.runs} runs, {args.repeat} repeats; events per run: {int(reference['events'].mean())}")
    for workers in (1, 2):
        each = ", ".join(f"{t:.2f} s" for t in times[workers])
        print(f"workers={workers}: {each} (median {statistics.median(times[workers]):.2f} s)")
    print(f"ratio 2 workers / 1 worker (medians): {two / one:.2f}")


if __name__ == "__main__":
    main()
