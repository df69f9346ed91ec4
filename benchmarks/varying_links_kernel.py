"""The kernel against renolab over links that change (issue 29): one CUBIC or BBR flow for
30 s over the cellular trace (``examples/cellular_trace.toml``) and over the LEO schedule
with its outages (``examples/leo_starlink.toml``), through real kernel TCP endpoints
(``renolab.emulate``, root needed) and through renolab's ``profile = "linux"`` sender.

Figures, each side's mean over ``--runs`` runs on consecutive seeds:

- goodput (target: within 5 % of the kernel's mean);
- mean queueing delay at the bottleneck: for every data packet that crossed it, the time
  from its arrival at the bottleneck's queue to the start of its transmission (on the
  trace, to the delivery opportunity that takes its first byte), from the ``hops`` trace of
  both sides (target: within 15 %).

Usage (from the repository root, as root, on a quiet machine: emulation is real time)::

    nice -n -10 python benchmarks/varying_links_kernel.py --runs 3 > /tmp/varying.md

Prints a markdown table (and each run's figures on stderr).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from renolab import Scenario
from renolab.emulate import emulate, unsupported_reason
from renolab.kernel_validation import simulator_scenario
from renolab.metrics import queue_delays
from renolab.results import Result

ROOT = Path(__file__).resolve().parents[1]
#: (label, example file, bottleneck link direction).
PATHS = [
    ("cellular trace", ROOT / "examples" / "cellular_trace.toml", "cell"),
    ("LEO schedule", ROOT / "examples" / "leo_starlink.toml", "starlink"),
]


def scenario(path: Path, variant: str, seconds: float) -> Scenario:
    """The example at `path` with its one flow's variant `variant`, for `seconds`."""
    data = Scenario.from_toml(path).to_dict()
    data["simulation"]["duration"] = f"{seconds:g}s"
    data["flow"][0]["variant"] = variant
    return Scenario.from_dict(data)


def queueing_delay_s(result: Result, link: str) -> float:
    """Mean time data packets waited at `link` between entering its queue and starting to
    leave it (``renolab.metrics.queue_delays``)."""
    waits = queue_delays(result.trace("hops"), links=[link])
    return float(waits[waits["kind"] == "data"]["delay_s"].mean())


def figures(result: Result, link: str) -> tuple[float, float]:
    """(goodput Mb/s, mean queueing delay ms) of the run's one flow."""
    return float(result.flows["goodput_bps"][0]) / 1e6, queueing_delay_s(result, link) * 1e3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--variants", nargs="+", default=["cubic", "bbr"])
    p.add_argument("--paths", nargs="+", default=["cellular", "LEO"], help="paths by the start of their label")
    p.add_argument("--first-seed", type=int, default=1)
    args = p.parse_args(argv)
    reason = unsupported_reason()
    if reason is not None:
        print(f"cannot emulate here: {reason}", file=sys.stderr)
        return 2
    print("| path | variant | figure | Linux | renolab | diff | target |")
    print("|---|---|---|---|---|---|---|")
    for label, path, link in PATHS:
        if not any(label.startswith(p) for p in args.paths):
            continue
        for variant in args.variants:
            kernel: list[tuple[float, float]] = []
            sim: list[tuple[float, float]] = []
            for i in range(args.runs):
                seed = args.first_seed + i
                s = scenario(path, variant, args.seconds).with_seed(seed)
                with tempfile.TemporaryDirectory() as k_dir, tempfile.TemporaryDirectory() as s_dir:
                    emulated = emulate(s, trace="hops", trace_dir=k_dir)
                    k = figures(emulated, link)
                    late = emulated.summary["emulation"]["lateness"]
                    simulated, _ = simulator_scenario(s)
                    r = figures(simulated.run(trace="hops", trace_dir=s_dir), link)
                kernel.append(k)
                sim.append(r)
                print(f"{label}, {variant}, seed {seed}: kernel {k[0]:.3f} Mb/s {k[1]:.2f} ms "
                      f"(deliveries late by p99 {late['p99_us']:.0f} us, max {late['max_us']:.0f} us), "
                      f"renolab {r[0]:.3f} Mb/s {r[1]:.2f} ms", file=sys.stderr)
            for j, (name, target) in enumerate((("goodput (Mb/s)", 5.0), ("mean queueing delay (ms)", 15.0))):
                km = statistics.fmean(x[j] for x in kernel)
                rm = statistics.fmean(x[j] for x in sim)
                spread = max(x[j] for x in kernel) - min(x[j] for x in kernel)
                diff = (rm - km) / km * 100
                mark = "" if abs(diff) <= target else " (miss)"
                print(f"| {label} | {variant} | {name} | {km:.3f} (range {spread:.3f}) | {rm:.3f} | "
                      f"{diff:+.1f} %{mark} | ±{target:g} % |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
