"""The emulator's numbers in docs/emulation.md and docs/validation.md ("Against Linux").

    sudo python benchmarks/emulation.py [--lateness] [--families] [--runs 3] [--seconds 5]

``--lateness``: one CUBIC flow filling a 2-BDP buffer at 10, 20, 50 and 155 Mb/s (RTT 10 ms)
for ``--seconds`` each, ``--runs`` times; prints the departure lateness (median, p99, max),
the link's utilisation and the emulator's CPU time per second.

``--families``: the "Against Linux" families, each run through the kernel and in renolab
(``renolab validate --against linux`` with ``--runs`` runs): one bulk transfer over a
20 Mb/s, 20 ms path with a buffer of 0.5, 1 and 2 BDP, and a 50 Mb/s, 40 ms path with 0.1 %
random loss; for the kernel's reno, cubic, bbr (and dctcp where offered), and for sack and
newreno with the kernel's initial window and minimum RTO set on both sides. Where renolab has no simulated counterpart of a
kernel variant (CUBIC, BBR before the simulator has them), the kernel's figures are printed
alone.
"""

from __future__ import annotations

import argparse
import resource
import statistics

from renolab import Scenario, ScenarioError
from renolab.emulate import emulate, kernel_congestion_controls
from renolab.kernel_validation import validate


#: Settings that make the simulator's sender start like the kernel's (both sides take them:
#: the emulator sets them as route attributes), for the variants both have today.
LINUX_LIKE = {"initial_window": 10, "min_rto": "200ms"}


def path(rate_mbps: float, rtt_ms: float, buffer_bdp: float, variant: str, *, duration: str | None = None,
         nbytes: int | None = None, loss: float | None = None, seed: int = 1,
         options: dict | None = None) -> Scenario:
    bdp_packets = rate_mbps * 1e6 * rtt_ms / 1e3 / 8 / 1500
    link = {"name": "neck", "from": "s", "to": "d", "rate": f"{rate_mbps:g}Mbps", "delay": f"{rtt_ms / 2:g}ms",
            "queue": {"kind": "droptail", "limit": max(2, round(buffer_bdp * bdp_packets))}}
    if loss:
        link["loss"] = {"kind": "uniform", "p": loss, "applies_to": "data"}
    flow = {"name": "f", "src": "s", "dst": "d", "variant": variant}
    if options:
        flow["options"] = dict(options)
    simulation: dict = {"seed": seed}
    if nbytes:
        flow["bytes"] = nbytes
    else:
        simulation["duration"] = duration or "5s"
    return Scenario(simulation=simulation, link=[link], flow=[flow])


def lateness(runs: int, seconds: float) -> None:
    print("| rate | runs | median (us) | p99 (us) | max (us) | utilisation | emulator CPU (s per s) |")
    print("|---|---|---|---|---|---|---|")
    for rate in (10, 20, 50, 155):
        med, p99, mx, util, cpu = [], [], [], [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_SELF)
            r = emulate(path(rate, 10, 2, "cubic", duration=f"{seconds:g}s"))
            after = resource.getrusage(resource.RUSAGE_SELF)
            late = r.summary["emulation"]["lateness"]
            med.append(late["median_us"])
            p99.append(late["p99_us"])
            mx.append(late["max_us"])
            util.append(float(r.links.set_index("link").loc["neck", "utilisation"]))
            used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            cpu.append(used / seconds)
        print(f"| {rate} Mb/s | {runs} | {statistics.median(med):.0f} | {statistics.median(p99):.0f} "
              f"(worst {max(p99):.0f}) | {max(mx):.0f} | {statistics.median(util):.3f} | {statistics.median(cpu):.2f} |",
              flush=True)


def families(runs: int, variants_filter: list[str] | None = None) -> None:
    kernel = kernel_congestion_controls()
    variants = [(v, None) for v in ("reno", "cubic", "bbr", "dctcp") if v in kernel]
    variants += [("sack", LINUX_LIKE), ("newreno", LINUX_LIKE)]
    cases = [(f"20 Mb/s, 20 ms, {b:g} BDP, 4 MB", dict(rate_mbps=20, rtt_ms=20, buffer_bdp=b, nbytes=4_000_000))
             for b in (0.5, 1, 2)]
    cases.append(("50 Mb/s, 40 ms, 2 BDP, 0.1 % loss, 8 MB",
                  dict(rate_mbps=50, rtt_ms=40, buffer_bdp=2, nbytes=8_000_000, loss=0.001)))
    only = set(variants_filter) if variants_filter else None
    for variant, options in variants:
        if only and variant not in only:
            continue
        for label, kw in cases:
            scenario = path(variant=variant, options=options, **kw)
            title = f"{variant} (initial_window 10, min_rto 200ms)" if options else variant
            print(f"\n### {title}: {label}\n", flush=True)
            try:
                report = validate(scenario, runs=runs, name=f"{variant}, {label}")
                print("```\n" + report.format() + "\n```", flush=True)
            except ScenarioError as exc:
                rows = []
                for seed in range(1, runs + 1):
                    f = emulate(scenario.with_seed(seed)).flows.iloc[0]
                    rows.append((f["completion_time_s"], f["retransmits"], f["drops"], f["timeouts"]))
                mean = [statistics.mean(c) for c in zip(*rows)]
                print(f"renolab cannot simulate it ({str(exc).split(': ', 1)[-1][:120]}); kernel alone, mean of {runs}: "
                      f"completion {mean[0]:.4f} s, retransmissions {mean[1]:.1f}, drops {mean[2]:.1f}, "
                      f"timeouts {mean[3]:.1f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lateness", action="store_true")
    p.add_argument("--families", action="store_true")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--variants", help="comma-separated subset of the families' variants")
    args = p.parse_args()
    if args.lateness or not args.families:
        lateness(args.runs, args.seconds)
    if args.families or not args.lateness:
        families(args.runs, args.variants.split(",") if args.variants else None)


if __name__ == "__main__":
    main()
