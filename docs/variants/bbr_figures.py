"""The figures of docs/variants/bbr.md, drawn from renolab runs through the Python API.

    python docs/variants/bbr_figures.py [OUT_DIR]      # default: docs/variants/img

Writes bbr-single-flow.png, bbr-two-flows.png and bbr-vs-loss-based.png (about a minute on
two cores). LOSS_BASED names the loss-based opponent of the last figure.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab import Scenario, Sweep
from renolab.plot import MODE_COLOURS
from renolab.plot.figure import new_axes, save_figure
from renolab.topology import dumbbell

#: The loss-based opponent of BBR in the buffer sweep: CUBIC, Linux's default.
LOSS_BASED = "cubic"

ACCESS = {"rate": "1Gbps", "delay": "1ms"}
PACKET = 1500  # bytes on the wire


def bdp_packets(rate_bps: float, rtt_s: float) -> float:
    return rate_bps * rtt_s / 8 / PACKET


def scenario(flows: list[dict[str, Any]], rate: str, delay: str, buffer: int, duration: str, seed: int = 1) -> Scenario:
    """A Linux dumbbell: one sender per flow, a DropTail bottleneck of `buffer` packets."""
    links = dumbbell(len(flows), access=ACCESS,
                     bottleneck={"rate": rate, "delay": delay, "queue": {"kind": "droptail", "limit": buffer}})
    for i, f in enumerate(flows):
        f.setdefault("src", f"s{i + 1}")
        f.setdefault("dst", f"d{i + 1}")
    return Scenario(simulation={"seed": seed, "duration": duration, "profile": "linux"}, link=links, flow=flows)


def shade_modes(ax: Any, cc: pd.DataFrame, end: float) -> None:
    """Colour the background of `ax` by BBR's mode (all but ProbeBW, the background)."""
    mode = cc["mode"].astype(str).to_numpy()
    t = np.append(cc["time_s"].to_numpy(), end)
    start = 0
    for k in range(1, len(mode) + 1):
        if k == len(mode) or mode[k] != mode[start]:
            if mode[start] != "probe_bw":
                ax.axvspan(t[start], t[k], color=MODE_COLOURS[mode[start]], alpha=0.25, lw=0)
            start = k


def single_flow(out: Path) -> None:
    """One BBR flow on 10 Mb/s, 40 ms, a 2-BDP buffer: cwnd, pacing rate, RTT by mode."""
    run = scenario([{"name": "bbr", "variant": "bbr"}], "10Mbps", "18ms", 67, "25s").run(trace=["cc", "cwnd", "rtt"])
    cc, cwnd, rtt = run.trace("cc"), run.trace("cwnd"), run.trace("rtt")
    end = 25.0
    fig, axes = new_axes(8, 7, 3, 1, sharex=True)
    bdp = bdp_packets(10e6, 0.040)
    axes[0].step(cwnd["time_s"], cwnd["cwnd"], where="post", lw=1, label="cwnd")
    axes[0].axhline(bdp, color="0.4", ls=":", lw=1, label="BDP")
    axes[0].axhline(2 * bdp, color="0.4", ls="--", lw=1, label="2 BDP")
    axes[0].set_ylabel("segments")
    axes[1].step(cc["time_s"], cc["pacing_rate_bps"] / 1e6, where="post", lw=1, label="pacing rate")
    axes[1].step(cc["time_s"], cc["btl_bw_bps"] / 1e6, where="post", lw=1, ls="--", label="btl_bw")
    axes[1].set_ylabel("Mb/s")
    axes[1].set_ylim(0, 16)
    axes[2].plot(rtt["time_s"], rtt["rtt_s"] * 1e3, ".", ms=1.5, label="RTT sample")
    axes[2].step(cc["time_s"], cc["min_rtt_s"] * 1e3, where="post", lw=1, color="k", label="min_rtt")
    axes[2].set_ylabel("ms")
    axes[2].set_xlabel("time (s)")
    for ax in axes:
        shade_modes(ax, cc, end)
        ax.set_xlim(0, end)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    axes[0].set_title("One BBR flow, 10 Mb/s, 40 ms, 2-BDP buffer (red Startup, orange Drain, purple ProbeRTT)",
                      fontsize="medium")
    save_figure(fig, out / "bbr-single-flow.png", dpi=80)


def two_flows(out: Path) -> None:
    """Two BBR flows on 20 Mb/s, 40 ms, 2 BDP; the second starts at 10 s."""
    flows = [{"name": "bbr1", "variant": "bbr"}, {"name": "bbr2", "variant": "bbr", "start": "10s"}]
    run = scenario(flows, "20Mbps", "18ms", 133, "50s").run(trace=["seq", "cc"])
    series = run.throughput(0.5)
    cc = run.trace("cc")
    fig, (top, bottom) = new_axes(8, 5.5, 2, 1, sharex=True)
    for i, name in enumerate(["bbr1", "bbr2"]):
        part = series[series["flow"].astype(str) == name]
        top.step(part["time_s"], part["goodput_bps"] / 1e6, where="post", color=f"C{i}", lw=1, label=name)
        est = cc[cc["flow"].astype(str) == name]
        bottom.step(est["time_s"], est["btl_bw_bps"] / 1e6, where="post", color=f"C{i}", lw=1, label=f"{name} btl_bw")
    top.axhline(10 * 1448 / 1500, color="0.4", ls=":", lw=1, label="fair share")
    top.set_ylabel("goodput (Mb/s, 0.5 s bins)")
    top.set_title("Two BBR flows, 20 Mb/s, 40 ms, 2-BDP buffer", fontsize="medium")
    bottom.set_ylabel("btl_bw (Mb/s)")
    bottom.set_xlabel("time (s)")
    for ax in (top, bottom):
        ax.set_xlim(0, 50)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    save_figure(fig, out / "bbr-two-flows.png", dpi=80)


#: Buffers of the sweep, in BDPs of 20 Mb/s x 40 ms (66.7 packets).
BUFFERS_BDP = (0.5, 1, 2, 4, 8, 16)


def vs_loss_based(out: Path, replications: int = 3) -> pd.DataFrame:
    """BBR's share against 1 and against 4 loss-based flows, buffer 0.5 to 16 BDP."""
    bdp = bdp_packets(20e6, 0.040)
    rows = []
    for opponents in (1, 4):
        flows = [{"name": "bbr", "variant": "bbr"}] + [
            {"name": f"lb{k}", "variant": LOSS_BASED, "start": {"uniform": ["0s", "1s"]}} for k in range(opponents)
        ]
        base = scenario(flows, "20Mbps", "18ms", 67, "60s")
        sweep = Sweep(base=base, grid={"link.bottleneck.queue.limit": [round(b * bdp) for b in BUFFERS_BDP]},
                      replications=replications)
        with tempfile.TemporaryDirectory() as scratch:
            runs, _ = sweep.run(scratch, workers=2, progress=False)
        for (limit, rep), run in runs.groupby(["link.bottleneck.queue.limit", "replication"]):
            total = run["goodput_bps"].sum()
            bbr = run.loc[run["flow"].astype(str) == "bbr", "goodput_bps"].sum()
            rows.append({"opponents": opponents, "buffer_bdp": limit / bdp, "share": bbr / total})
    table = pd.DataFrame(rows).groupby(["opponents", "buffer_bdp"])["share"].agg(["mean", "min", "max"]).reset_index()
    fig, ax = new_axes(7, 4.5)
    for i, (n, part) in enumerate(table.groupby("opponents")):
        ax.errorbar(part["buffer_bdp"], part["mean"], yerr=[part["mean"] - part["min"], part["max"] - part["mean"]],
                    marker="o", capsize=3, color=f"C{i}", label=f"1 BBR vs {n} {LOSS_BASED}")
        ax.axhline(1 / (n + 1), color=f"C{i}", ls=":", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(BUFFERS_BDP), [str(b) for b in BUFFERS_BDP])
    ax.set_xlabel("bottleneck buffer (BDP)")
    ax.set_ylabel("BBR's share of the goodput")
    ax.set_ylim(0, 1)
    ax.set_title(f"BBR against {LOSS_BASED}: 20 Mb/s, 40 ms, 60 s (dotted: fair share)", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    save_figure(fig, out / "bbr-vs-loss-based.png", dpi=80)
    return table


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "img"
    out.mkdir(parents=True, exist_ok=True)
    single_flow(out)
    two_flows(out)
    print(vs_loss_based(out).to_string(index=False))


if __name__ == "__main__":
    main()
