"""DCTCP against its analysis (Alizadeh et al., SIGCOMM 2010, §3.3; SIGMETRICS 2011).

N long-lived DCTCP flows share a 10 Gb/s bottleneck, RTT 100 us, step marking at K
packets (queue = droptail, ecn_threshold = K, buffer 4 K). In steady state the analysis
predicts a queue sawtooth peaking at Q_max = K + N with amplitude
A = 0.5 sqrt(2 N (C RTT + K)) packets and period T_C = 0.5 sqrt(2 (C RTT + K) / N) RTTs,
and full utilisation once K >= C RTT / 7.

    python benchmarks/dctcp_analysis.py            # the table of docs/variants/dctcp.md
"""

from __future__ import annotations

import math
import sys

import numpy as np

from renolab import Scenario

RATE_BPS = 10e9
RTT_S = 100e-6
WIRE_BYTES = 1500
BDP = RATE_BPS * RTT_S / (8 * WIRE_BYTES)  # C x RTT in packets: 83.3
WARMUP_S = 0.05
END_S = 0.25


def scenario(n: int, k: int) -> Scenario:
    # RTT = 2 (2 x 10 us + 30 us) = 100 us of propagation.
    return Scenario.from_dict({
        "simulation": {"seed": 1, "duration": f"{END_S}s"},
        "topology": [
            {
                "kind": "dumbbell",
                "n": n,
                "access": {"rate": "40Gbps", "delay": "10us"},
                "bottleneck": {
                    "rate": "10Gbps",
                    "delay": "30us",
                    "queue": {"kind": "droptail", "limit": 4 * k, "ecn_threshold": k},
                },
            }
        ],
        "flow": [
            {
                "name": f"f{i + 1}",
                "variant": "dctcp",
                "src": f"s{i + 1}",
                "dst": f"d{i + 1}",
                "mss": 1460,
                "start": f"{i * 10}us",
                "receiver": {"delayed_ack": False},
                "options": {"window": 100_000, "min_rto": "10ms"},
            }
            for i in range(n)
        ],
    })


def sawtooth(queue, link: str) -> tuple[float, float, float]:
    """Mean peak, mean trough and amplitude of the bottleneck queue's sawtooth: the queue
    sampled every microsecond, smoothed over 10 us (a few packets' jitter), cut into cycles
    at its upward crossings of the median (with one packet of hysteresis)."""
    q = queue[(queue["link"] == link) & (queue["time_s"] >= WARMUP_S)]
    t = q["time_s"].to_numpy()
    x = q["packets"].to_numpy().astype(float)
    grid = np.arange(WARMUP_S, END_S, 1e-6)
    idx = np.searchsorted(t, grid, side="right") - 1
    y = np.convolve(x[np.clip(idx, 0, len(x) - 1)], np.ones(10) / 10, mode="valid")
    mid = float(np.median(y))
    ups, armed = [], False
    for i, v in enumerate(y):
        if v < mid - 1:
            armed = True
        elif armed and v > mid + 1:
            ups.append(i)
            armed = False
    peaks = [y[a:b].max() for a, b in zip(ups[:-1], ups[1:])]
    troughs = [y[a:b].min() for a, b in zip(ups[:-1], ups[1:])]
    peak, trough = float(np.mean(peaks)), float(np.mean(troughs))
    return peak, trough, peak - trough


def row(n: int, k: int) -> dict:
    result = scenario(n, k).run(trace=["queue"])
    links = result.links.set_index("link")
    neck = links.loc["bottleneck"]
    peak, trough, amplitude = sawtooth(result.trace("queue"), "bottleneck")
    util = float(neck["utilisation"])
    # Each flow cuts once a cycle (the analysis's synchronised sawtooth): the period is the
    # steady state's length over its cuts, in round trips of the measured mean queue.
    rtt = RTT_S + (peak + trough) / 2 * WIRE_BYTES * 8 / RATE_BPS
    cuts = result.flows["cwnd_reductions"].mean()
    period = END_S / cuts if cuts else math.nan
    a_theory = 0.5 * math.sqrt(2 * n * (BDP + k))
    t_theory = 0.5 * math.sqrt(2 * (BDP + k) / n)
    return {
        "N": n,
        "K": k,
        "utilisation": util,
        "Q_max": peak,
        "Q_max theory": k + n,
        "A": amplitude,
        "A theory": a_theory,
        "T_C (RTTs)": period / rtt,
        "T_C theory": t_theory,
        "drops": int(neck["queue_drops"]),
        "marks": int(neck["marks"]),
    }


def main() -> int:
    rows = [row(n, k) for k in (65, 20) for n in (2, 10)]
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
