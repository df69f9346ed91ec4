"""The figure and the ECN-against-drops table of docs/variants/dctcp.md, from renolab runs.

    python docs/variants/dctcp_figures.py            # writes docs/variants/img/dctcp-sawtooth.png
    python docs/variants/dctcp_figures.py --table    # prints the RED table only

The sawtooth uses the scenario of benchmarks/dctcp_analysis.py (one definition of it): N
DCTCP flows, 10 Gb/s, 100 us of propagation RTT, step marking at K. The table compares
Reno over RED that drops with ECN-Reno over the same RED that marks. About 20 s in all.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))

import dctcp_analysis as analysis  # noqa: E402

from renolab import Scenario  # noqa: E402
from renolab.plot.figure import new_axes, save_figure  # noqa: E402
from renolab.topology import dumbbell  # noqa: E402

IMG = HERE / "img"
#: The 2-ms window of steady state the sawtooth panels show.
WINDOW_S = (0.2, 0.202)


def sawtooth(out: Path) -> None:
    """Bottleneck queue of N = 2 and N = 10 flows at K = 65 and K = 20, beside the analysis:
    peak Q_max = K + N and trough Q_max - A."""
    fig, axes = new_axes(9, 6, 2, 2, sharex=True)
    for col, k in enumerate((65, 20)):
        for row, n in enumerate((2, 10)):
            ax = axes[row][col]
            result = analysis.scenario(n, k).run(trace=["queue"])
            q = result.trace("queue")
            q = q[(q["link"] == "bottleneck") & (q["time_s"] >= WINDOW_S[0]) & (q["time_s"] <= WINDOW_S[1])]
            ax.step((q["time_s"] - WINDOW_S[0]) * 1e6, q["packets"], where="post", lw=0.7, color="#2ca02c",
                    label="queue (packets)")
            q_max = k + n
            amplitude = 0.5 * math.sqrt(2 * n * (analysis.BDP + k))
            ax.axhline(q_max, color="#d62728", ls="--", lw=1, label="analysis: Q_max = K + N")
            ax.axhline(q_max - amplitude, color="#1f77b4", ls="--", lw=1, label="analysis: Q_max - A")
            ax.axhline(k, color="#7f7f7f", ls=":", lw=1, label="marking threshold K")
            ax.set_title(f"N = {n}, K = {k}: Q_max {q_max}, Q_max - A {q_max - amplitude:.0f}", fontsize=10)
            ax.set_ylim(0, max(q_max + 10, float(q["packets"].max()) + 5))
            if row == 1:
                ax.set_xlabel(f"time after {WINDOW_S[0]:g} s (us)")
            if col == 0:
                ax.set_ylabel("bottleneck queue (packets)")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="outside lower center", ncol=4, fontsize=8)
    fig.suptitle("DCTCP's queue sawtooth against Alizadeh et al. (2010) §3.3, 10 Gb/s, RTT 100 us", fontsize=11)
    save_figure(fig, out / "dctcp-sawtooth.png", dpi=110)


def red(variant: str, ecn: bool) -> Scenario:
    """Four `variant` flows over a 10 Mb/s, 40 ms RED bottleneck (min_th 5, max_th 15, 50
    packets, ns-2's defaults otherwise), 60 s; with `ecn` the queue marks and the senders
    react to ECN-Echo."""
    queue = {"kind": "red", "limit": 50, "min_th": 5, "max_th": 15, "ecn": ecn}
    links = dumbbell(4, access={"rate": "100Mbps", "delay": "1ms"},
                     bottleneck={"rate": "10Mbps", "delay": "18ms", "queue": queue})
    flows = [{"name": f"f{i + 1}", "variant": variant, "src": f"s{i + 1}", "dst": f"d{i + 1}",
              "start": f"{i * 0.1:g}s", "options": {"ecn": ecn}} for i in range(4)]
    return Scenario(simulation={"seed": 1, "duration": "60s"}, link=links, flow=flows)


def time_weighted_mean(q, link: str, t0: float, t1: float) -> float:
    rows = q[q["link"] == link]
    t = np.clip(np.append(rows["time_s"].to_numpy(), t1), t0, t1)
    return float((rows["packets"].to_numpy() * np.diff(t)).sum() / (t1 - t0))


#: Steady state starts here (slow start's overshoot is over by 3 s).
STEADY_S = 5.0


def red_table() -> str:
    lines = ["| senders | bottleneck | goodput, 4 flows (Mb/s) | drops (after 5 s) | ECN marks | "
             "retransmissions | timeouts | mean queue after 5 s (packets) |",
             "|---|---|---|---|---|---|---|---|"]
    for variant in ("reno", "sack"):
        for ecn in (False, True):
            result = red(variant, ecn).run(trace=["queue", "drops"])
            flows, neck = result.flows, result.links.set_index("link").loc["bottleneck"]
            drops = result.trace("drops")
            late = int((drops["time_s"] >= STEADY_S).sum())
            goodput = float(flows["goodput_bps"].sum()) / 1e6
            mean_q = time_weighted_mean(result.trace("queue"), "bottleneck", STEADY_S, 60.0)
            senders = f"{'ECN-' if ecn else ''}{variant.capitalize() if variant == 'reno' else variant.upper()}"
            lines.append(f"| {senders} | RED, {'marks' if ecn else 'drops'} | {goodput:.3f} | "
                         f"{int(neck['queue_drops'])} ({late}) | {int(neck['marks'])} | "
                         f"{int(flows['retransmits'].sum())} | {int(flows['timeouts'].sum())} | {mean_q:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", action="store_true", help="print the RED table only")
    args = parser.parse_args(argv)
    if not args.table:
        IMG.mkdir(exist_ok=True)
        sawtooth(IMG)
    print(red_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
