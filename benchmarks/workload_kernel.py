"""The kernel against renolab on a workload (issue 29): Poisson arrivals of CUBIC or BBR
transfers with Pareto sizes at a load of a 20 Mb/s DropTail bottleneck, through real kernel
endpoints (``renolab emulate``, root needed: the same flows, each a real connection) and
through renolab's ``profile = "linux"`` senders. Prints the completion-time table of each
(``renolab.metrics.fct_summary``) side by side.

Usage (from the repository root, as root, on a quiet machine: emulation is real time)::

    nice -n -10 python benchmarks/workload_kernel.py --variant cubic --load 0.5 > /tmp/workload.md
"""

from __future__ import annotations

import argparse
import sys

from renolab import Scenario
from renolab.emulate import emulate, timing_line, unsupported_reason
from renolab.metrics import fct_summary

BUCKETS = [0, 50e3, 200e3, float("inf")]


def scenario(variant: str, load: float, seconds: float, seed: int) -> Scenario:
    """Four senders, four receivers through a 20 Mb/s, 10 ms bottleneck with a 100-packet
    DropTail queue (1 Gb/s, 1 ms access links); flows arrive for `seconds`."""
    return Scenario(
        simulation={"seed": seed},
        topology=[{"kind": "dumbbell", "n": 4, "access": {"rate": "1Gbps", "delay": "1ms"},
                   "bottleneck": {"rate": "20Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": 100}}}],
        workload=[{"name": "w", "load": load, "sizes": {"pareto": {"mean": "100KB", "shape": 1.5}},
                   "pairs": {"from": ["s1", "s2", "s3", "s4"], "to": ["d1", "d2", "d3", "d4"]},
                   "variant": variant, "profile": "linux", "stop": f"{seconds:g}s"}],
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="cubic")
    p.add_argument("--load", type=float, default=0.5)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    reason = unsupported_reason()
    if reason is not None:
        print(f"cannot emulate here: {reason}", file=sys.stderr)
        return 2
    s = scenario(args.variant, args.load, args.seconds, args.seed)
    kernel = emulate(s)
    print(timing_line(kernel), file=sys.stderr)
    simulated = s.run()
    k, r = fct_summary(kernel, buckets=BUCKETS), fct_summary(simulated, buckets=BUCKETS)
    print("| sizes | flows | finished (Linux, renolab) | mean FCT s (Linux, renolab) | "
          "median slowdown (Linux, renolab) | p99 slowdown (Linux, renolab) |")
    print("|---|---|---|---|---|---|")
    for (_, a), (_, b) in zip(k.iterrows(), r.iterrows()):
        print(f"| {a['bucket']} | {a['flows']} | {a['finished']}, {b['finished']} | "
              f"{a['mean_fct_s']:.3f}, {b['mean_fct_s']:.3f} | {a['median_slowdown']:.2f}, {b['median_slowdown']:.2f} | "
              f"{a['p99_slowdown']:.2f}, {b['p99_slowdown']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
