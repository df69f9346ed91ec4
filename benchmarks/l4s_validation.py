"""DualPI2 and TCP Prague against their design targets (RFC 9332, RFC 9331).

One TCP Prague flow and one CUBIC flow (both `profile = "linux"`; CUBIC without ECN, so the
classic queue drops) share a 100 Mb/s bottleneck with a `dualpi2` queue at its defaults,
both with the same base RTT (10, 20, 50 or 100 ms). Measured over the steady state (from
`WARMUP_S` to the end):

- the coupling: the classic queue's measured drop-or-mark probability against
  (the L queue's measured coupled marking probability / k)², k = 2 (RFC 9332 §2.4);
- the classic queue's mean delay against `target` (15 ms), and the L queue's 99th
  percentile against 2 ms (De Schepper et al. 2022: "99th percentile below 2 ms");
- the rate balance: Prague's throughput over CUBIC's, between 0.5 and 2 (RFC 9332's
  "roughly the same rate").

The counters (links.csv's `l_*`, `c_*`, flows.csv's bytes) over the steady state are the
difference of two runs of the same scenario, one ending at `WARMUP_S` (runs are
deterministic: the first `WARMUP_S` of both are identical). Queueing delays come from the
`hops` trace (`renolab.metrics.delay.queue_delays`): Prague's packets wait in the L queue,
CUBIC's in the classic queue.

    python benchmarks/l4s_validation.py              # the table of docs/variants/l4s.md
    python benchmarks/l4s_validation.py --rtt 20     # one base RTT
    python benchmarks/l4s_validation.py --json rows.json   # and the rows, for the figure
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from renolab import Scenario
from renolab.metrics.delay import queue_delays

RATE = "100Mbps"
#: The steady state starts here: CUBIC's slow start and the PI controller's settling are over.
WARMUP_S = 20.0
#: Base RTTs, ms.
RTTS_MS = (10, 20, 50, 100)
#: DualPI2's defaults (sch_dualpi2.c).
K = 2
TARGET_S = 0.015


def duration_s(rtt_ms: float) -> float:
    """Longer runs at long RTTs: CUBIC's epochs there last seconds."""
    return 80.0 if rtt_ms < 50 else 140.0


def scenario(rtt_ms: float, duration: float, *, queue: dict | None = None, variants=("prague", "cubic")) -> Scenario:
    """The dumbbell: access links of 1 Gb/s and 0.5 ms, the bottleneck taking the rest of the
    base RTT's one-way delay; one flow per variant, starting 100 ms apart."""
    one_way_ms = rtt_ms / 2
    bottleneck_ms = one_way_ms - 1.0
    links = [
        {"name": "bottleneck", "from": "r1", "to": "r2", "rate": RATE, "delay": f"{bottleneck_ms:g}ms",
         "queue": queue or {"kind": "dualpi2"}},
    ]
    flows = []
    for i, variant in enumerate(variants):
        links += [
            {"name": f"a{i + 1}", "from": f"s{i + 1}", "to": "r1", "rate": "1Gbps", "delay": "0.5ms"},
            {"name": f"b{i + 1}", "from": "r2", "to": f"d{i + 1}", "rate": "1Gbps", "delay": "0.5ms"},
        ]
        flows.append({"name": variant, "variant": variant, "src": f"s{i + 1}", "dst": f"d{i + 1}",
                      "profile": "linux", "start": f"{0.1 * i:g}s"})
    return Scenario.from_dict({
        "simulation": {"seed": 1, "duration": f"{duration:g}s"},
        "link": links,
        "flow": flows,
    })


def bottleneck_hops(result, link: str = "bottleneck"):
    """The data packets' enqueue and dequeue rows of the `hops` trace on *link*, read chunk by
    chunk (the whole trace of a long run does not fit in memory comfortably)."""
    import pandas as pd

    parts = []
    for chunk in result.iter_trace("hops"):
        keep = (chunk["link"].astype(str) == link) & chunk["event"].astype(str).isin(["enqueue", "dequeue", "drop"])
        keep &= chunk["kind"].astype(str) == "data"
        parts.append(chunk[keep])
    return pd.concat(parts, ignore_index=True)


def steady_counters(rtt_ms: float) -> dict[str, float]:
    """links.csv and flows.csv counters over [WARMUP_S, end]: the end run minus the warm-up run."""
    import tempfile

    end = duration_s(rtt_ms)
    with tempfile.TemporaryDirectory() as tmp:
        full = scenario(rtt_ms, end).run(trace=["hops"], trace_dir=tmp)
        hops = bottleneck_hops(full)
    warm = scenario(rtt_ms, WARMUP_S).run()
    counters = ["l_packets", "l_marks", "l_step_marks", "l_drops", "c_packets", "c_marks", "c_drops"]
    link = lambda r: r.links.set_index("link").loc["bottleneck", counters].astype(float)  # noqa: E731
    delta = link(full) - link(warm)
    flows = full.flows.set_index("flow")["bytes_delivered"] - warm.flows.set_index("flow")["bytes_delivered"]
    span = end - WARMUP_S
    p_c = (delta["c_marks"] + delta["c_drops"]) / delta["c_packets"]
    p_l = (delta["l_marks"] - delta["l_step_marks"]) / delta["l_packets"]
    delays = queue_delays(hops, links=["bottleneck"])
    delays = delays[(delays["dequeued_s"] >= WARMUP_S) & (delays["kind"] == "data")]
    l_delay = delays.loc[delays["flow"] == "prague", "delay_s"].to_numpy()
    c_delay = delays.loc[delays["flow"] == "cubic", "delay_s"].to_numpy()
    return {
        "rtt_ms": rtt_ms,
        "p_c": p_c,
        "p_l": p_l,
        "coupling": p_c / (p_l / K) ** 2 if p_l > 0 else float("nan"),
        "step_share": delta["l_step_marks"] / max(delta["l_marks"], 1),
        "c_delay_mean_ms": 1e3 * float(np.mean(c_delay)),
        "l_delay_p99_ms": 1e3 * float(np.percentile(l_delay, 99)),
        "l_delay_p50_ms": 1e3 * float(np.percentile(l_delay, 50)),
        "prague_mbps": flows["prague"] * 8 / span / 1e6,
        "cubic_mbps": flows["cubic"] * 8 / span / 1e6,
        "c_drops": float(delta["c_drops"]),
        "l_drops": float(delta["l_drops"]),
    }


def verdicts(row: dict[str, float]) -> dict[str, bool]:
    """The targets of docs/validation.md for one base RTT."""
    return {
        "coupling": abs(row["coupling"] - 1) <= 0.10,
        "c_delay": abs(row["c_delay_mean_ms"] / (TARGET_S * 1e3) - 1) <= 0.10,
        "l_p99": row["l_delay_p99_ms"] <= 2.0,
        "balance": 0.5 <= row["prague_mbps"] / row["cubic_mbps"] <= 2.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtt", type=float, action="append", help="base RTT in ms (default: 10 20 50 100)")
    parser.add_argument("--json", help="also write the rows to this file (docs/variants/l4s_figures.py --rows)")
    args = parser.parse_args(argv)
    rows = []
    rtts = args.rtt or RTTS_MS
    print("| base RTT | p_C | (p_L/k)^2 | ratio | C delay mean | L delay p50 / p99 | Prague | CUBIC | Prague/CUBIC |")
    print("|---|---|---|---|---|---|---|---|---|")
    for rtt in rtts:
        r = steady_counters(rtt)
        rows.append(r)
        v = verdicts(r)
        mark = lambda ok: "" if ok else " (miss)"  # noqa: E731
        print(
            f"| {rtt:g} ms | {r['p_c']:.5f} | {(r['p_l'] / K) ** 2:.5f} | {r['coupling']:.2f}{mark(v['coupling'])} "
            f"| {r['c_delay_mean_ms']:.1f} ms{mark(v['c_delay'])} | {r['l_delay_p50_ms']:.2f} / {r['l_delay_p99_ms']:.2f} ms{mark(v['l_p99'])} "
            f"| {r['prague_mbps']:.1f} | {r['cubic_mbps']:.1f} | {r['prague_mbps'] / r['cubic_mbps']:.2f}{mark(v['balance'])} |",
            flush=True,
        )
    if args.json:
        import json

        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
