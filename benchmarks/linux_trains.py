"""How the kernel's sender puts segments on the wire against renolab's linux profile (issue 27).

Captures long bulk flows over the dumbbells of ``linux_validation.py`` through real kernel
endpoints (``renolab emulate``, root needed) and through renolab (``renolab run``), with the
``hops``, ``queue``, ``cwnd`` and ``cc`` traces, then reports per run:

- **trains**: data segments leaving the sender's host back to back (less than ``--gap-us``
  apart at the first link's entry; the kernel's segments of one GSO super-packet reach the
  emulator within a few microseconds, renolab's at the same instant): the mean train size a
  packet travels in, the share of packets in trains of 1, 2, 3, 4 and more, the median gap
  between trains;
- the **mean bottleneck queue**, packets, over the last 20 s, counting the packet being
  serialised (from the ``hops`` trace: a packet counts from its enqueue to the end of its
  serialisation, or its drop);
- how the receiver acknowledged (``silence_pct``, ``stretch_pct``): the share of the time
  spent in ACK silences across four or more arriving segments, and of the segments stretch
  ACKs covered (a host's noise: the kernel's BBR reads it as ACK aggregation);
- mean cwnd, pacing rate and (BBR) bandwidth estimate over the same 20 s (the kernel's from
  ``TCP_INFO`` and ``TCP_CC_INFO`` every 2 ms), retransmissions, and the emulator's
  lateness (runs with a p99 above ``--max-p99-us`` are flagged: a late driver batches
  departures into false trains).

Usage (from the repository root, as root)::

    python benchmarks/linux_trains.py capture --out /tmp/trains --variants bbr cubic reno [--gso off] [--sides renolab]
    python benchmarks/linux_trains.py report /tmp/trains > /tmp/trains.md
    python benchmarks/linux_trains.py figure /tmp/trains --before /tmp/trains-gso-off --out docs/variants/img/linux-trains.png

``capture`` skips runs whose directory is complete, so it can be resumed; ``--paths``
selects cells by index into ``linux_validation.PATHS``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from linux_validation import PATHS, dumbbell, mean_queue  # noqa: E402

TRACES = "cwnd,cc,queue,hops"
#: linux_validation's Latin square and one more cell per rate (issue 27's grid of 12: 20 ms at
#: 1 BDP, and two more shallow buffers).
CELLS = [*PATHS, (10, 20, 1.0), (20, 40, 0.5), (50, 20, 0.5)]


def run_dir(out: Path, side: str, rate: int, rtt: int, bdp: float, variant: str, gso: str, seed: int) -> Path:
    return out / f"{side}-{rate}mbps-{rtt}ms-{bdp:g}bdp-{variant}-gso_{gso}-s{seed}"


def capture(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cells = [CELLS[i] for i in args.paths] if args.paths else CELLS
    for rate, rtt, bdp in cells:
        for variant in args.variants:
            for seed in range(1, args.runs + 1):
                flow = {"name": "f1", "src": "s1", "dst": "r1", "variant": variant}
                if args.gso == "off":
                    # Both sides: renolab's sender sends one segment at a time, and
                    # `renolab emulate` turns the hosts' offloads off.
                    flow["options"] = {"gso": False}
                sc = dumbbell(rate, rtt, bdp, [flow], args.seconds).with_seed(seed)
                for side in args.sides:
                    d = run_dir(out, side, rate, rtt, bdp, variant, args.gso, seed)
                    if (d / "summary.json").exists():
                        continue
                    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
                        f.write(sc.to_toml())
                    command = "emulate" if side == "kernel" else "run"
                    cmd = ["renolab", command, f.name, "--out", str(d), "--trace", TRACES]
                    if args.pcap:
                        cmd.append("--pcap")
                    if side == "renolab":
                        cmd = ["nice", *cmd]
                    print(" ".join(cmd[-8:]), file=sys.stderr, flush=True)
                    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                    os.unlink(f.name)


def read(d: Path, name: str) -> pd.DataFrame:
    p = d / f"{name}.parquet"
    return pd.read_parquet(p) if p.exists() else pd.read_csv(d / f"{name}.csv")


def time_mean(frame: pd.DataFrame, column: str, t0: float, t1: float) -> float:
    """Time-weighted mean of a step series (one row per change) over [t0, t1]."""
    t = frame["time_s"].to_numpy(dtype=float)
    v = frame[column].to_numpy(dtype=float)
    keep = t < t1
    t, v = t[keep], v[keep]
    if not len(t):
        return float("nan")
    dt = np.diff(np.concatenate([np.clip(t, t0, t1), [t1]]))
    ok = ~np.isnan(v)
    return float((v[ok] * dt[ok]).sum() / dt[ok].sum()) if dt[ok].sum() > 0 else float("nan")


def trains(hops: pd.DataFrame, t0: float, gap_s: float) -> dict:
    """Sizes of back-to-back trains of data segments entering the first link after t0."""
    first = hops["link"].astype(str).iloc[0]
    dep = hops[(hops["link"].astype(str) == first) & (hops["event"].astype(str) == "enqueue")
               & (hops["kind"].astype(str) == "data") & (hops["time_s"] >= t0)]["time_s"].to_numpy()
    if len(dep) < 2:
        return {}
    gaps = np.diff(dep)
    starts = np.concatenate([[True], gaps >= gap_s])
    sizes = np.diff(np.concatenate([np.flatnonzero(starts), [len(dep)]]))
    share = lambda lo, hi: float(sizes[(sizes >= lo) & (sizes <= hi)].sum() / len(dep))  # noqa: E731
    return {
        "train": float((sizes * sizes).sum() / sizes.sum()),  # the size of a packet's train
        "in1": share(1, 1), "in2": share(2, 2), "in3": share(3, 3), "in4": share(4, 4), "in5+": share(5, 1 << 30),
        "gap_ms": float(np.median(gaps[gaps >= gap_s]) * 1e3) if (gaps >= gap_s).any() else float("nan"),
    }


def ack_silence(hops: pd.DataFrame, t0: float, t1: float, segments: int = 4) -> dict:
    """How the receiver's host acknowledged: the share of [t0, t1] (percent) spent in silences
    during which `segments` or more data segments reached the receiver (the last link's
    ``receive``) and it sent no ACK (its reverse link's ``enqueue``), and the share of the
    acknowledged segments that such stretch ACKs covered. A Linux receiver acknowledges every
    second full segment at once (``__tcp_ack_snd_check()``); a longer silence is its host not
    running the TCP receive path: the receiving application owned the socket (the segments wait
    in the backlog, ``tcp_add_backlog()`` coalesces them, one ACK answers them all at
    ``release_sock()``) or the CPU was busy elsewhere. BBR counts the stretch ACKs as ACK
    aggregation (``bbr_update_ack_aggregation()``) and raises its window for them."""
    link, ev, kind = hops["link"].astype(str), hops["event"].astype(str), hops["kind"].astype(str)
    last = hops.loc[kind == "data", "link"].astype(str).iloc[-1]
    data = hops[(link == last) & (ev == "receive") & (kind == "data")]["time_s"].to_numpy()
    acks = hops[(link == last + "/rev") & (ev == "enqueue") & (kind == "ack")]
    acks = acks[(acks["time_s"] >= t0) & (acks["time_s"] < t1)]
    t, seq = acks["time_s"].to_numpy(), acks["seq"].to_numpy(dtype=np.int64)
    if len(t) < 2:
        return {"silence_pct": float("nan"), "stretch_pct": float("nan")}
    arrived = np.searchsorted(data, t[1:]) - np.searchsorted(data, t[:-1])
    stalls = arrived >= segments
    covered = np.clip(np.diff(seq), 0, None)  # segments each ACK newly acknowledged
    return {
        "silence_pct": float(np.diff(t)[stalls].sum() / (t1 - t0) * 100),
        "stretch_pct": float(covered[covered >= segments].sum() / max(1, covered.sum()) * 100),
    }


def analyse(d: Path, gap_s: float, last_s: float = 20.0) -> dict:
    summary = json.loads((d / "summary.json").read_text())
    end = float(summary["sim_time_s"])
    t0 = end - last_s
    flows = pd.read_csv(d / "flows.csv")
    links = pd.read_csv(d / "links.csv")
    hops = read(d, "hops")
    rate = float(links.loc[links["link"] == "bottleneck", "rate_bps"].iloc[0])
    row = {"queue": mean_queue(hops, rate, t0, end), **trains(hops, t0, gap_s), **ack_silence(hops, t0, end)}
    row["cwnd"] = time_mean(read(d, "cwnd"), "cwnd", t0, end)
    cc = read(d, "cc")
    for col, scale in (("pacing_rate_bps", 1e-6), ("btl_bw_bps", 1e-6)):
        row[col.replace("_bps", "")] = time_mean(cc, col, t0, end) * scale if col in cc else float("nan")
    row["retx"] = float(flows["retransmits"].iloc[0])
    row["goodput"] = float(flows["goodput_bps"].iloc[0]) / 1e6 if "goodput_bps" in flows else float("nan")
    late = (summary.get("emulation") or {}).get("lateness") or {}
    row["p99_us"] = late.get("p99_us", float("nan"))
    row["max_ms"] = late.get("max_us", float("nan")) / 1e3
    return row


COLUMNS = ["queue", "train", "in1", "in2", "in3", "in4", "in5+", "gap_ms", "cwnd", "pacing_rate", "btl_bw",
           "retx", "silence_pct", "stretch_pct", "p99_us", "max_ms"]


def report(args: argparse.Namespace) -> None:
    rows = []
    for d in sorted(Path(args.out).iterdir()):
        if not (d / "summary.json").exists():
            continue
        side, rate, rtt, bdp, variant, gso, seed = d.name.split("-")
        r = analyse(d, args.gap_us * 1e-6)
        rows.append({"cell": f"{rate} {rtt} {bdp}", "variant": variant, "gso": gso[4:], "side": side, **r})
    frame = pd.DataFrame(rows)
    flagged = frame["p99_us"] > args.max_p99_us
    if flagged.any():
        print(f"Runs with a lateness p99 above {args.max_p99_us:g} us (left out): {int(flagged.sum())}\n")
    frame = frame[~flagged]
    means = frame.groupby(["variant", "gso", "cell", "side"], sort=True)[COLUMNS].mean().reset_index()
    print("| variant | gso | cell | side | " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * (len(COLUMNS) + 4))
    for _, r in means.iterrows():
        cells = " | ".join(f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c]) for c in COLUMNS)
        print(f"| {r['variant']} | {r['gso']} | {r['cell']} | {r['side']} | {cells} |")


#: The figure's paths (rate Mb/s, RTT ms, buffer BDP, variant): BBR paced in buffers of four, and
#: CUBIC's ACK clock waiting for whole buffers.
FIGURE_RUNS = [(50, 20, 0.5, "bbr"), (50, 80, 1.0, "cubic")]


def departures(d: Path, t0: float, span_s: float) -> np.ndarray:
    """Times (ms from the first) at which data segments entered the sender's link in the
    `span_s` seconds from the first departure after `t0`."""
    hops = read(d, "hops")
    first = hops["link"].astype(str).iloc[0]
    t = hops[(hops["link"].astype(str) == first) & (hops["event"].astype(str) == "enqueue")
             & (hops["kind"].astype(str) == "data") & (hops["time_s"] >= t0)]["time_s"].to_numpy()
    t = t[t < t[0] + span_s]
    return (t - t[0]) * 1e3


def figure(args: argparse.Namespace) -> None:
    """Departures of the kernel and of renolab (GSO on; and off, --before) on FIGURE_RUNS."""
    from renolab.plot.figure import new_axes, save_figure

    fig, axes = new_axes(8.0, 4.6, rows=len(FIGURE_RUNS), cols=1)
    for ax, (rate, rtt, bdp, variant) in zip(axes, FIGURE_RUNS):
        sides = [("kernel (Linux 6.18)", Path(args.out), "kernel", "on", "o", "black"),
                 ("renolab, gso = true", Path(args.out), "renolab", "on", "s", "tab:blue")]
        if args.before:
            sides.append(("renolab, gso = false", Path(args.before), "renolab", "off", "^", "tab:orange"))
        for label, base, side, gso, marker, colour in sides:
            d = run_dir(base, side, rate, rtt, bdp, variant, gso, 1)
            t = departures(d, args.at, args.span_ms / 1e3)
            ax.plot(t, np.arange(len(t)) + 1, marker, ms=3.5, color=colour, label=label,
                    drawstyle="steps-post", linestyle="-", lw=0.6)
        ax.set_title(f"{variant}, {rate} Mb/s, {rtt} ms, {bdp:g} BDP: data segments leaving the sender", fontsize=9)
        ax.set_ylabel("segments")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel(f"ms after the first departure past {args.at:g} s")
    axes[0].legend(fontsize=8, loc="upper left")
    save_figure(fig, args.figure_out, dpi=80)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--out", required=True)
    c.add_argument("--variants", nargs="+", default=["reno", "cubic", "bbr"])
    c.add_argument("--paths", nargs="*", type=int, help="indices into CELLS (linux_validation.PATHS and three more)")
    c.add_argument("--runs", type=int, default=1)
    c.add_argument("--seconds", type=float, default=30.0)
    c.add_argument("--gso", choices=["on", "off"], default="on", help="options.gso of the flows (both sides)")
    c.add_argument("--sides", nargs="+", default=["kernel", "renolab"], choices=["kernel", "renolab"])
    c.add_argument("--pcap", action="store_true")
    r = sub.add_parser("report")
    r.add_argument("out")
    r.add_argument("--gap-us", type=float, default=30.0, help="largest gap inside a train")
    r.add_argument("--max-p99-us", type=float, default=500.0, help="leave out runs later than this (p99)")
    f = sub.add_parser("figure", help="departures, kernel against renolab (docs/variants/linux.md)")
    f.add_argument("out", help="a capture directory with the kernel's and renolab's runs (gso on)")
    f.add_argument("--before", help="a capture directory with renolab's runs with --gso off")
    f.add_argument("--at", type=float, default=20.0, help="seconds into the run")
    f.add_argument("--span-ms", type=float, default=6.0)
    f.add_argument("--out", dest="figure_out", required=True, help="the PNG to write")
    args = p.parse_args(argv)
    {"capture": capture, "report": report, "figure": figure}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
