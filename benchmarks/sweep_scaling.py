"""Sweep scaling: time the same 40 small runs with 1 and 2 local workers.

    python benchmarks/sweep_scaling.py [--runs 40] [--repeat 5] [--require-idle] [--duration 10s]

Each run is one Reno / NewReno / SACK / Tahoe flow over a 100 Mb/s, 20 ms bottleneck with
0.05 % random loss for 10 simulated seconds: about 62,000 events per run.  Every measurement
starts from an empty output directory, so all runs are executed, and includes everything
``Sweep.run`` does (planning, the worker pool, writing runs/*.json, runs.parquet and
summary.parquet).  The 1-worker and 2-worker sweeps are measured in pairs, alternately, and
every pair checks that the two runs.parquet tables are identical.

Prints the wall times and the ratio 2 workers / 1 worker of the medians (target <= 0.6).

``--require-idle``: on a shared machine, keep only the pairs during which two cores were
really available: before and after each pair, two processes burn the same CPU work that one
process does in sequence; the pair is discarded when the two processes did not finish in
less than 0.6 of the sequential time.  Results are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import statistics
import tempfile
import time

import pandas as pd

from renolab import Sweep


def base_scenario(duration: str = "10s") -> dict:
    return {
        "simulation": {"seed": 1, "duration": duration},
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


def sweep(runs: int, duration: str = "10s") -> Sweep:
    variants = ["reno", "newreno", "sack", "tahoe"]
    if runs % len(variants):
        raise SystemExit(f"--runs must be a multiple of {len(variants)}")
    return Sweep(base=base_scenario(duration), grid={"flow.f1.variant": variants}, replications=runs // len(variants))


def timed(s: Sweep, workers: int) -> tuple[float, pd.DataFrame]:
    with tempfile.TemporaryDirectory(prefix="renolab-sweep-bench-") as out:
        start = time.perf_counter()
        result = s.run(out, workers=workers, progress=False)
        elapsed = time.perf_counter() - start
    assert result.executed == len(result.runs)
    return elapsed, result.runs


def _burn(n: int) -> int:
    x = 0
    for i in range(n):
        x += i * i
    return x


def two_cores_free(work: int = 3_000_000) -> bool:
    """Whether two processes finish two units of CPU work in < 0.6 of the time one takes.

    Plain forked processes, no Pool: a Pool's threads would make Sweep.run choose
    forkserver instead of fork for its workers. The work (about 0.3 s) is long enough that
    forking and reaping the two processes does not decide the check.
    """
    start = time.perf_counter()
    _burn(work)
    _burn(work)
    sequential = time.perf_counter() - start
    ctx = multiprocessing.get_context("fork")
    start = time.perf_counter()
    burners = [ctx.Process(target=_burn, args=(work,)) for _ in range(2)]
    for p in burners:
        p.start()
    for p in burners:
        p.join()
    return time.perf_counter() - start < 0.6 * sequential


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5, help="pairs of measurements to keep")
    parser.add_argument("--require-idle", action="store_true", help="keep only pairs measured with two free cores")
    parser.add_argument("--max-attempts", type=int, default=200, help="with --require-idle: pairs to try at most")
    parser.add_argument("--duration", default="10s", help="simulated time of each run (default 10s)")
    args = parser.parse_args()
    s = sweep(args.runs, args.duration)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    times: dict[int, list[float]] = {1: [], 2: []}
    timed(s, 1)  # warm up (page cache, first import of the worker code)
    _, reference = timed(s, 2)
    attempts = discarded = 0
    while len(times[1]) < args.repeat and attempts < args.max_attempts:
        attempts += 1
        if args.require_idle and not two_cores_free():
            discarded += 1
            time.sleep(1.0)
            continue
        pair = {}
        for workers in (1, 2):
            pair[workers], runs = timed(s, workers)
            pd.testing.assert_frame_equal(runs, reference)  # same results whatever the workers
        if args.require_idle and not two_cores_free():
            discarded += 1
            continue
        for workers in (1, 2):
            times[workers].append(pair[workers])
        print(f"pair {len(times[1])}: {pair[1]:.2f} s, {pair[2]:.2f} s", flush=True)
    if not times[1]:
        raise SystemExit(f"no quiet moment in {attempts} attempts")
    one, two = statistics.median(times[1]), statistics.median(times[2])
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"1-minute load average before the measurement: {load:.2f}")
    print(f"{args.runs} runs per sweep; events per run: {int(reference['events'].mean())}")
    if args.require_idle:
        print(f"pairs kept: {len(times[1])}; discarded (fewer than two free cores): {discarded}")
    for workers in (1, 2):
        each = ", ".join(f"{t:.2f} s" for t in times[workers])
        print(f"workers={workers}: {each} (median {statistics.median(times[workers]):.2f} s)")
    print(f"ratio 2 workers / 1 worker (medians): {two / one:.2f}")


if __name__ == "__main__":
    main()
