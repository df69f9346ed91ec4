"""The figures of docs/variants/l4s.md, from renolab runs.

    python docs/variants/l4s_figures.py        # writes docs/variants/img/l4s-*.png
    python docs/variants/l4s_figures.py --rows rows.json   # the rate balance from those rows

`l4s-coexistence.png` is the figure the L4S team shows for DualPI2 (De Schepper et al.,
"Dual Queue Coupled AQM: Deployable Very Low Queuing Delay for All", 2022; RFC 9332
Figure 1's two queues): a TCP Prague flow and a CUBIC flow through one DualPI2 bottleneck,
the scenario of examples/l4s_coexistence.toml (100 Mb/s, 20 ms base RTT, CUBIC from 0 s,
Prague from 10 s), their throughput (top) and the queueing delay of each queue (bottom:
every packet's sojourn, from the `hops` trace, as a 100 ms mean and the 100 ms maximum).
`l4s-rate-balance.png` draws benchmarks/l4s_validation.py's runs: the Prague/CUBIC rate ratio
and the two queues' delays against the base RTT. About two minutes in all.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import l4s_validation as validation  # noqa: E402

from renolab import Scenario  # noqa: E402
from renolab.metrics.delay import queue_delays  # noqa: E402
from renolab.plot.figure import new_axes, save_figure  # noqa: E402

IMG = HERE / "img"
EXAMPLE = ROOT / "examples" / "l4s_coexistence.toml"
BIN_S = 0.1
COLOURS = {"prague": "#1f77b4", "cubic": "#d62728"}
LABELS = {"prague": "TCP Prague (L queue)", "cubic": "CUBIC (classic queue)"}


def binned(t: np.ndarray, v: np.ndarray, end: float, how) -> tuple[np.ndarray, np.ndarray]:
    """`how` of the values `v` at times `t` per BIN_S bin, NaN where a bin is empty."""
    edges = np.arange(0.0, end + BIN_S, BIN_S)
    idx = np.digitize(t, edges) - 1
    out = np.full(len(edges) - 1, np.nan)
    for i in np.unique(idx[(idx >= 0) & (idx < len(out))]):
        out[i] = how(v[idx == i])
    return edges[:-1] + BIN_S / 2, out


def coexistence(out: Path) -> None:
    """Throughput and queueing delay over time of Prague and CUBIC through DualPI2."""
    import tempfile

    scenario = Scenario.from_toml(EXAMPLE)
    end = float(scenario.to_dict()["simulation"]["duration"].rstrip("s"))
    with tempfile.TemporaryDirectory() as tmp:
        result = scenario.run(trace=["seq", "hops"], trace_dir=tmp)
        hops = validation.bottleneck_hops(result)
        seq = result.trace("seq")
    mss = 1448
    fig, (top, bottom) = new_axes(9, 6.5, 2, 1, sharex=True)
    for flow in ("cubic", "prague"):
        rows = seq[(seq["flow"] == flow) & (seq["event"] == "received")]
        t = rows["time_s"].to_numpy()
        mid, count = binned(t, np.ones_like(t), end, np.sum)
        top.plot(mid, np.nan_to_num(count) * mss * 8 / BIN_S / 1e6, color=COLOURS[flow], lw=0.9,
                 label=LABELS[flow])
        delays = queue_delays(hops, links=["bottleneck"])
        mine = delays[delays["flow"] == flow]
        t, d = mine["dequeued_s"].to_numpy(), mine["delay_s"].to_numpy() * 1e3
        mid, mean = binned(t, d, end, np.mean)
        _, peak = binned(t, d, end, np.max)
        bottom.plot(mid, np.maximum(mean, 1e-3), color=COLOURS[flow], lw=1.0, label=f"{LABELS[flow]}: mean")
        bottom.plot(mid, np.maximum(peak, 1e-3), color=COLOURS[flow], lw=0.6, ls=":",
                    label=f"{LABELS[flow]}: maximum")
    bottom.axhline(15, color="#555555", ls="--", lw=0.8, label="DualPI2 target (15 ms)")
    bottom.axhline(1, color="#999999", ls="-.", lw=0.8, label="step threshold (1 ms)")
    top.set_ylabel("throughput (Mb/s)")
    top.set_ylim(0, 105)
    top.set_title("TCP Prague and CUBIC through DualPI2: 100 Mb/s, 20 ms base RTT", fontsize=11)
    bottom.set_yscale("log")
    bottom.set_ylim(0.01, 100)
    bottom.set_ylabel("queueing delay per 100 ms (ms, log)")
    bottom.set_xlabel("time (s)")
    for ax in (top, bottom):
        ax.set_xlim(0, end)
        ax.grid(alpha=0.3)
    fig.legend(*bottom.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    save_figure(fig, out / "l4s-coexistence.png", dpi=110)


def rate_balance(out: Path, rows_file: str | None) -> None:
    """Prague/CUBIC rate ratio, L p99 and C mean delays against the base RTT (the sweep):
    the rows of `benchmarks/l4s_validation.py --json FILE` if given, else measured again."""
    if rows_file:
        import json

        rows = json.loads(Path(rows_file).read_text())
    else:
        rows = [validation.steady_counters(rtt) for rtt in validation.RTTS_MS]
    rtts = [r["rtt_ms"] for r in rows]
    fig, (left, right) = new_axes(9, 3.8, 1, 2)
    left.plot(rtts, [r["prague_mbps"] / r["cubic_mbps"] for r in rows], "o-", color="#333333",
              label="Prague / CUBIC throughput")
    left.axhspan(0.5, 2.0, color="#2ca02c", alpha=0.12, label="target: 0.5 to 2")
    left.axhline(1.0, color="#2ca02c", lw=0.8)
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_ylim(0.25, 4)
    left.set_yticks([0.25, 0.5, 1, 2, 4], ["0.25", "0.5", "1", "2", "4"])
    left.set_xlabel("base RTT (ms)")
    left.set_ylabel("throughput ratio")
    right.plot(rtts, [r["c_delay_mean_ms"] for r in rows], "o-", color=COLOURS["cubic"],
               label="classic queue: mean")
    right.plot(rtts, [r["l_delay_p99_ms"] for r in rows], "s-", color=COLOURS["prague"],
               label="L queue: 99th percentile")
    right.axhline(15, color="#555555", ls="--", lw=0.8, label="target 15 ms")
    right.axhline(2, color="#999999", ls="-.", lw=0.8, label="L4S aim: p99 below 2 ms")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_ylim(0.05, 50)
    right.set_xlabel("base RTT (ms)")
    right.set_ylabel("queueing delay (ms)")
    for ax in (left, right):
        ax.set_xticks(rtts, [f"{r:g}" for r in rtts])
        ax.grid(alpha=0.3)
    fig.suptitle("1 Prague + 1 CUBIC through DualPI2 (100 Mb/s), steady state", fontsize=11)
    handles = [h for ax in (left, right) for h in ax.get_legend_handles_labels()[0]]
    labels = [lab for ax in (left, right) for lab in ax.get_legend_handles_labels()[1]]
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    save_figure(fig, out / "l4s-rate-balance.png", dpi=110)


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", help="benchmarks/l4s_validation.py's --json output")
    args = parser.parse_args()
    IMG.mkdir(exist_ok=True)
    coexistence(IMG)
    rate_balance(IMG, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
