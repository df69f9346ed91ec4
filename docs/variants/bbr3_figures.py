"""The numbers and the figure of docs/variants/bbr3.md, from renolab runs through the Python API.

    python docs/variants/bbr3_figures.py [OUT_DIR] [--seeds N]     # default: docs/variants/img

Prints the tables of the page (Markdown) and writes bbr3-vs-bbr.png: BBRv1 and BBRv3 against
CUBIC on a shallow and a deep buffer (share and retransmission rate, the figure the BBRv2/v3
presentations draw), and four flows of one kind on a 0.5-BDP buffer. About 20 s with the
default three seeds.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab import Scenario
from renolab.plot.figure import new_axes, save_figure
from renolab.topology import dumbbell

RATE_BPS = 50e6
RTT_S = 0.040  # 18 ms bottleneck + 1 ms access, each way
PACKET = 1500  # bytes on the wire
BDP = RATE_BPS * RTT_S / 8 / PACKET  # 166.7 packets
ACCESS = {"rate": "1Gbps", "delay": "1ms"}
DURATION = "60s"


def scenario(variants: list[str], buffer_bdp: float, seed: int) -> Scenario:
    """`variants` on a 50 Mb/s, 40 ms Linux dumbbell with a DropTail buffer of `buffer_bdp`
    BDPs; the flows start within the first 100 ms in a seed-drawn order."""
    limit = max(1, round(buffer_bdp * BDP))
    links = dumbbell(len(variants), access=ACCESS,
                     bottleneck={"rate": "50Mbps", "delay": "18ms", "queue": {"kind": "droptail", "limit": limit}})
    flows = [{"name": f"{v}{i + 1}", "variant": v, "src": f"s{i + 1}", "dst": f"d{i + 1}",
              "start": {"uniform": ["0s", "100ms"]}} for i, v in enumerate(variants)]
    return Scenario(simulation={"seed": seed, "duration": DURATION, "profile": "linux"}, link=links, flow=flows)


def run(variants: list[str], buffer_bdp: float, seed: int) -> dict[str, Any]:
    """Per variant: retransmission rate (retransmitted / sent segments) and share of the
    goodput over the whole run; and the link's utilisation (goodput / link rate)."""
    result = scenario(variants, buffer_bdp, seed).run()
    flows = result.flows
    out: dict[str, Any] = {}
    total = float(flows["throughput_bps"].sum())
    for v in dict.fromkeys(variants):
        rows = flows[flows["variant"] == v]
        out[v] = {
            "retx": float(rows["retransmits"].sum()) / float(rows["segments_sent"].sum()),
            "share": float(rows["throughput_bps"].sum()) / total,
            "bps": float(rows["throughput_bps"].sum()),
        }
    out["utilisation"] = total / RATE_BPS
    return out


def mean_sd(values: list[float]) -> str:
    """Mean ± sample sd, as percentages."""
    a = np.asarray(values) * 100
    return f"{a.mean():.2f} % ± {a.std(ddof=1) if len(a) > 1 else 0:.2f}"


def main(out_dir: Path, seeds: int) -> None:
    rows = []
    # Four flows of one kind on a 0.5-BDP buffer: BBRv1's best-known flaw.
    for v in ("bbr", "bbr3", "cubic"):
        runs = [run([v] * 4, 0.5, s) for s in range(1, seeds + 1)]
        rows.append(("4 x " + v, 0.5, [r[v]["retx"] for r in runs], [r["utilisation"] for r in runs], None))
    # One BBR (v1 or v3) against one CUBIC at 0.5, 1, 4 and 8 BDP.
    pairs: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for v in ("bbr", "bbr3"):
        for b in (0.5, 1.0, 4.0, 8.0):
            pairs[v, b] = [run([v, "cubic"], b, s) for s in range(1, seeds + 1)]
    print("| flows | buffer (BDP) | retransmitted / sent | utilisation |")
    print("|---|---|---|---|")
    for name, b, retx, util, _ in rows:
        print(f"| {name} | {b} | {mean_sd(retx)} | {mean_sd(util)} |")
    print()
    print("| BBR | buffer (BDP) | BBR's share | BBR's retx | CUBIC's retx |")
    print("|---|---|---|---|---|")
    for (v, b), runs in pairs.items():
        print(f"| {v} | {b} | {mean_sd([r[v]['share'] for r in runs])} | "
              f"{mean_sd([r[v]['retx'] for r in runs])} | {mean_sd([r['cubic']['retx'] for r in runs])} |")
    # The figure: share and retransmission rate against the buffer.
    fig, (share_ax, retx_ax) = new_axes(7, 5.5, rows=2, sharex=True)
    buffers = [0.5, 1.0, 4.0, 8.0]
    for v, colour in (("bbr", "tab:red"), ("bbr3", "tab:blue")):
        share = np.array([[r[v]["share"] for r in pairs[v, b]] for b in buffers])
        retx = np.array([[r[v]["retx"] for r in pairs[v, b]] for b in buffers]) * 100
        share_ax.errorbar(buffers, share.mean(axis=1), yerr=share.std(axis=1), marker="o", color=colour,
                          label=f"{v} against CUBIC", capsize=3)
        retx_ax.errorbar(buffers, retx.mean(axis=1), yerr=retx.std(axis=1), marker="o", color=colour,
                         label=f"{v}'s retransmissions", capsize=3)
    share_ax.axhline(0.5, color="0.5", lw=0.8, ls=":")
    share_ax.set_ylabel("BBR's share of the throughput")
    share_ax.set_ylim(0, 1)
    share_ax.legend(loc="lower left", fontsize=8)
    retx_ax.set_ylabel("retransmitted / sent (%)")
    retx_ax.set_xlabel("DropTail buffer (BDP of 50 Mb/s x 40 ms = 167 packets)")
    retx_ax.set_xscale("log", base=2)
    retx_ax.set_xticks(buffers, [str(b) for b in buffers])
    retx_ax.set_ylim(bottom=0)
    retx_ax.legend(loc="upper right", fontsize=8)
    share_ax.set_title(f"One BBR flow against one CUBIC flow, 60 s, {seeds} seeds (mean, sd)")
    out_dir.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out_dir / "bbr3-vs-bbr.png")


if __name__ == "__main__":
    args = sys.argv[1:]
    seeds = 3
    if "--seeds" in args:
        i = args.index("--seeds")
        seeds = int(args[i + 1])
        del args[i:i + 2]
    main(Path(args[0]) if args else Path(__file__).parent / "img", seeds)
