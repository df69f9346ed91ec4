"""renolab's ``profile = "linux"`` against the real Linux kernel, over the same emulated paths.

Runs a family of dumbbell scenarios (DropTail bottleneck of 10-50 Mb/s, 20-80 ms RTT,
0.5-2 BDP of buffer) both through real kernel TCP endpoints (``renolab.emulate``, root
needed) and through renolab's simulated Linux sender, and prints a markdown table of the
figures the modern-TCP issues set targets on:

- 1 MB and 10 MB transfers: completion time (target: within 10 % of the kernel's mean)
  and, for 10 MB, retransmissions (within 25 %);
- long flows (``--long`` seconds): goodput (within 5 %), mean one-way delay of data
  packets, the queueing delay a flow causes (BBR: within 15 %), and the mean bottleneck
  queue in packets over the last two thirds of the run (at most the last 20 s), the packet
  being serialised counted (issue 27: within 15 % or 2 packets);
- two flows sharing the path: the first flow's share of the goodput (within 10 points);
  ``--pairs bbr:cubic`` adds a table of two different variants sharing it.

Usage (from the repository root, as root)::

    python benchmarks/linux_validation.py --variants reno cubic bbr --pairs bbr:cubic --runs 3 > /tmp/table.md

The kernel is not deterministic: figures are means over ``--runs`` runs on consecutive seeds
(the seeds drive nothing else here, the paths being lossless apart from their queues).

``--kernel-from TABLE.md`` reruns renolab's side only and takes the Linux column from a table
this script printed before (no root needed): a change to renolab's model is then checked
against kernel runs already made, the kernel not depending on renolab's code.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from renolab import Scenario
from renolab.emulate import emulate, unsupported_reason

#: (rate Mb/s, RTT ms, buffer in BDP): a Latin square over the issue's ranges.
PATHS = [
    (10, 20, 0.5),
    (10, 40, 1.0),
    (10, 80, 2.0),
    (20, 20, 1.0),
    (20, 40, 2.0),
    (20, 80, 0.5),
    (50, 20, 2.0),
    (50, 40, 0.5),
    (50, 80, 1.0),
]
#: Wire size of a full segment under the linux profile (1448 + 52 bytes).
WIRE_BYTES = 1500


def dumbbell(rate: int, rtt: int, bdp: float, flows: list[dict[str, Any]], duration: float | None) -> Scenario:
    """A two-sender dumbbell: 1 Gb/s, 1 ms access links, the bottleneck takes the rest of
    the RTT; its DropTail buffer is `bdp` times the bandwidth-delay product in packets."""
    limit = max(2, round(bdp * rate * 1e6 * rtt / 1e3 / (8 * WIRE_BYTES)))
    one_way = rtt / 2 - 2  # two access hops of 1 ms each way
    links = [
        {"from": "s1", "to": "g", "rate": "1Gbps", "delay": "1ms"},
        {"from": "s2", "to": "g", "rate": "1Gbps", "delay": "1ms"},
        {"name": "bottleneck", "from": "g", "to": "h", "rate": f"{rate}Mbps", "delay": f"{one_way:g}ms",
         "queue": {"kind": "droptail", "limit": limit}},
        {"from": "h", "to": "r1", "rate": "1Gbps", "delay": "1ms"},
        {"from": "h", "to": "r2", "rate": "1Gbps", "delay": "1ms"},
    ]
    sim: dict[str, Any] = {"profile": "linux", "seed": 1}
    if duration is not None:
        sim["duration"] = f"{duration:g}s"
    return Scenario(simulation=sim, link=links, flow=flows)


def mean_queue(hops: Any, rate_bps: float, t0: float, t1: float, link: str = "bottleneck") -> float:
    """Time-weighted mean number of packets at `link` over [t0, t1], the one being
    serialised included, from a ``hops`` trace: a packet counts from its enqueue until its
    serialisation ends (dequeue + size / rate) or it is dropped."""
    h = hops[hops["link"].astype(str) == link]
    event = h["event"].astype(str)
    t = h["time_s"].to_numpy(dtype=float)
    enq, drop, deq = (event == "enqueue").to_numpy(), (event == "drop").to_numpy(), (event == "dequeue").to_numpy()
    done = t[deq] + h["size"].to_numpy(dtype=float)[deq] * 8 / rate_bps
    times = np.concatenate([t[enq], t[drop], done])
    steps = np.concatenate([np.ones(enq.sum()), -np.ones(drop.sum()), -np.ones(len(done))])
    order = np.argsort(times, kind="stable")
    times, count = times[order], np.cumsum(steps[order])
    keep = times < t1
    times, count = times[keep], count[keep]
    dt = np.diff(np.concatenate([np.clip(times, t0, t1), [t1]]))
    return float((count * dt).sum() / (t1 - t0))


#: The Linux column of a stored table (``--kernel-from``): (section, path label, metric) -> value.
STORED: dict[tuple[str, str, str], float] | None = None


def read_table(path: str) -> dict[tuple[str, str, str], float]:
    """The Linux column of a table this script printed: keyed by its ``###`` section (the
    variant, or "A against B"), the row's path label ("10 Mb/s, 20 ms | 0.5 BDP") and metric."""
    out: dict[tuple[str, str, str], float] = {}
    section = ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("### "):
                section = line[4:].strip()
            elif line.startswith("| ") and not line.startswith("| path"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) >= 6:
                    try:
                        out[(section, f"{cells[0]} | {cells[1]}", cells[2])] = float(cells[3].split()[0])
                    except ValueError:
                        pass
    return out


def flows_of(result: Any) -> dict[str, dict[str, Any]]:
    return {r["flow"]: r for r in result.flows.to_dict("records")}


@dataclass
class Pair:
    """A metric's kernel and renolab samples."""

    kernel: list[float]
    renolab: list[float]

    def row(self, unit: str = "", digits: int = 3) -> str:
        k, r = statistics.fmean(self.kernel), statistics.fmean(self.renolab)
        rel = (r - k) / k * 100 if k else float("nan")
        return f"{k:.{digits}f}{unit} | {r:.{digits}f}{unit} | {rel:+.1f} %"


def queue_of(result: Any, rate_mbps: int, last_s: float = 20.0) -> float:
    """The mean bottleneck queue (packets) over the last two thirds of a run, at most
    `last_s` seconds, from its ``hops`` trace."""
    end = float(result.summary["sim_time_s"])
    t0 = end - min(last_s, end * 2 / 3)
    return mean_queue(result.trace("hops"), rate_mbps * 1e6, t0, end)


def both(scenario: Scenario, runs: int, queue_mbps: int | None = None, **metrics) -> dict[str, Pair]:
    """Each metric of `scenario` through the kernel and renolab, `runs` seeds each; with
    `queue_mbps` (the bottleneck's rate), also the mean bottleneck queue (``queue``)."""
    pairs = {name: Pair([], []) for name in [*metrics, *(["queue"] if queue_mbps else [])]}
    trace = "hops" if queue_mbps else ()
    for i in range(runs):
        s = scenario.with_seed(1 + i)
        sim_run = s.run(trace=trace)
        sim = flows_of(sim_run)
        for name, metric in metrics.items():
            pairs[name].renolab.append(metric(sim))
        if queue_mbps:
            pairs["queue"].renolab.append(queue_of(sim_run, queue_mbps))
        if STORED is not None:
            continue  # the Linux column comes from the stored table (`row`)
        kernel_run = emulate(s, trace=trace)
        kernel = flows_of(kernel_run)
        for name, metric in metrics.items():
            pairs[name].kernel.append(metric(kernel))
        if queue_mbps:
            pairs["queue"].kernel.append(queue_of(kernel_run, queue_mbps))
    return pairs


def row(section: str, label: str, what: str, pair: Pair, digits: int = 3) -> str:
    """A table row; with ``--kernel-from`` the Linux figure is the stored table's."""
    if STORED is not None:
        pair.kernel = [STORED[(section, label, what)]]
    return f"| {label} | {what} | {pair.row(digits=digits)} |"


def share(f: dict[str, dict[str, Any]]) -> float:
    """The first flow's share of the two flows' goodput, in percent."""
    a, b = f["f1"]["goodput_bps"], f["f2"]["goodput_bps"]
    return 100 * a / (a + b)


def share_row(label: str, rate: int, rtt: int, bdp: float, first: str, second: str, args: argparse.Namespace,
              what: str = "two flows: first flow's share (%)") -> str:
    """A table row: the share of flow 1 (`first`, from 0 s) against flow 2 (`second`, from 1 s)."""
    two = [
        {"name": "f1", "src": "s1", "dst": "r1", "variant": first},
        {"name": "f2", "src": "s2", "dst": "r2", "variant": second, "start": "1s"},
    ]
    sh = both(dumbbell(rate, rtt, bdp, two, args.long), args.runs, share=share)["share"]
    section = first if first == second and what.startswith("two flows") else f"{first} against {second}"
    if STORED is not None:
        sh.kernel = [STORED[(section, label, what)]]
    k, r = statistics.fmean(sh.kernel), statistics.fmean(sh.renolab)
    return f"| {label} | {what} | {k:.1f} | {r:.1f} | {r - k:+.1f} points |"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", nargs="+", default=["reno", "cubic"])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--long", type=float, default=15.0, help="seconds of the long-flow runs")
    p.add_argument("--paths", type=int, default=len(PATHS), help="how many of the paths to run")
    p.add_argument("--pairs", nargs="*", default=[], metavar="A:B",
                   help="two-flow shares of variant A (first) against variant B")
    p.add_argument("--kernel-from", metavar="TABLE.md",
                   help="run renolab only; take the Linux column from a table this script printed")
    args = p.parse_args(argv)
    global STORED
    STORED = read_table(args.kernel_from) if args.kernel_from else None
    reason = None if STORED is not None else unsupported_reason()
    if reason:
        print(f"cannot emulate here: {reason}", file=sys.stderr)
        return 2
    started = time.time()
    source = f"; Linux column from {args.kernel_from}" if STORED is not None else ""
    print(f"Runs per cell: {args.runs}; long flows {args.long:g} s; {time.strftime('%Y-%m-%d')}{source}.\n")
    for variant in args.variants:
        print(f"### {variant}\n")
        print("| path | buffer | metric | Linux | renolab | diff |")
        print("|---|---|---|---|---|---|")
        for rate, rtt, bdp in PATHS[: args.paths]:
            label = f"{rate} Mb/s, {rtt} ms | {bdp:g} BDP"
            small = [{"name": "f1", "src": "s1", "dst": "r1", "variant": variant, "bytes": 1_000_000}]
            m = both(dumbbell(rate, rtt, bdp, small, None), args.runs, time=lambda f: f["f1"]["completion_time_s"])
            print(row(variant, label, "1 MB completion (s)", m["time"]))
            one = [{"name": "f1", "src": "s1", "dst": "r1", "variant": variant, "bytes": 10_000_000}]
            sc = dumbbell(rate, rtt, bdp, one, None)
            m = both(
                sc,
                args.runs,
                time=lambda f: f["f1"]["completion_time_s"],
                retx=lambda f: f["f1"]["retransmits"],
            )
            print(row(variant, label, "10 MB completion (s)", m["time"]))
            print(row(variant, label, "10 MB retransmissions", m["retx"], digits=1))
            longf = [{"name": "f1", "src": "s1", "dst": "r1", "variant": variant}]
            sc = dumbbell(rate, rtt, bdp, longf, args.long)
            m = both(
                sc,
                args.runs,
                queue_mbps=rate,
                goodput=lambda f: f["f1"]["goodput_bps"] / 1e6,
                delay=lambda f: f["f1"]["mean_latency_s"] * 1e3,
            )
            print(row(variant, label, "long-flow goodput (Mb/s)", m["goodput"]))
            print(row(variant, label, "mean one-way delay (ms)", m["delay"], digits=2))
            print(row(variant, label, "mean bottleneck queue (packets)", m["queue"], digits=2))
            print(share_row(label, rate, rtt, bdp, variant, variant, args))
            sys.stdout.flush()
        print()
    for pair in args.pairs:
        first, second = pair.split(":")
        print(f"### {first} against {second}\n")
        print("| path | buffer | metric | Linux | renolab | diff |")
        print("|---|---|---|---|---|---|")
        for rate, rtt, bdp in PATHS[: args.paths]:
            label = f"{rate} Mb/s, {rtt} ms | {bdp:g} BDP"
            print(share_row(label, rate, rtt, bdp, first, second, args, what=f"{first}'s share (%)"))
            sys.stdout.flush()
        print()
    print(f"Total wall time {time.time() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
