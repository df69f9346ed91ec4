"""Lee, Lee & Choi (2001): the influence of the large bandwidth-delay product on TCP Reno,
NewReno and SACK.

One bottleneck G1-G2 of capacity C (1-32 Mb/s), round-trip delay 100 ms, buffer B of
1/4 to 1 times W* (the pipe size in 640-byte packets), one 8 MiB transfer, no delayed ACKs,
every packet 640 bytes on the wire. NewReno uses Hoe's start-up ssthresh estimate.

The access links (100 Mb/s, 1 ms, 10000-packet buffers) are not in the paper; they are the
ones of ``tests/ns2/lee2001.tcl``, the ns-2 script renolab is validated against.
"""

from __future__ import annotations

import math
from typing import Any

from renolab.scenario import Scenario

#: Bottleneck capacities, Mb/s (the paper's Table 1).
CAPACITIES_MBPS = (1, 2, 4, 8, 16, 32)
#: Buffer sizes as fractions of W*.
BUFFER_FRACTIONS = (0.25, 0.5, 0.75, 1.0)
#: Transfer size: 8 MiB.
TRANSFER_BYTES = 8 * 1024 * 1024
#: Packet size on the wire (the paper counts whole packets of 640 bytes).
PACKET_BYTES = 640
#: Round-trip propagation delay, seconds.
RTT_S = 0.100
#: ns-2.35's ``boot_time_`` under its default seed: the phase of the agent's 10 ms RTT
#: clock. Setting it makes renolab's timer arithmetic line up with the reference runs.
NS2_BOOT_TIME = "5558807ns"


def pipe_packets(capacity_mbps: int) -> int:
    """W*, the window that fills the pipe, as the paper's Table 1 gives it (20 per Mb/s)."""
    return 20 * capacity_mbps


def buffer_packets(capacity_mbps: int, fraction: float) -> int:
    """B = fraction x W*, in packets."""
    return round(fraction * pipe_packets(capacity_mbps))


def scenario(
    capacity_mbps: int,
    buffer_pkts: int,
    variant: str,
    *,
    hoe: bool | None = None,
    profile: str = "ns2",
    seed: int = 1,
) -> Scenario:
    """One grid point. ``hoe`` (NewReno only) defaults to the paper's choice (on).

    Under the ``ns2`` profile the settings are those of the reference ns-2 runs: no SYN,
    initial window 1, a receiver window that never limits, ns-2's DropTail semantics.
    """
    options: dict[str, Any] = {
        "initial_window": 1,
        "window": 100_000,
        "handshake": False,
    }
    if profile == "ns2":
        options["clock_phase"] = NS2_BOOT_TIME
    if variant == "newreno":
        options["ssthresh_estimation"] = True if hoe is None else hoe
    access = {"rate": "100Mbps", "delay": "1ms", "queue": {"kind": "droptail", "limit": 10_000}}
    return Scenario(
        simulation={"seed": seed, "profile": profile},
        link=[
            {"name": "access", "from": "s1", "to": "g1", **access},
            {
                "name": "bottleneck",
                "from": "g1",
                "to": "g2",
                "rate": f"{capacity_mbps}Mbps",
                "delay": "48ms",
                "queue": {"kind": "droptail", "limit": buffer_pkts},
            },
            {"name": "egress", "from": "g2", "to": "r1", **access},
        ],
        flow=[
            {
                "name": "f1",
                "variant": variant,
                "src": "s1",
                "dst": "r1",
                "bytes": TRANSFER_BYTES,
                "mss": PACKET_BYTES,
                "header_bytes": 0,
                "receiver": {"delayed_ack": False},
                "options": options,
            }
        ],
    )


# =====================================================================================
# The reproduction: ``renolab reproduce lee2001`` (reproduce() below).
# =====================================================================================

#: The variants the paper compares, in its order, with the labels of its figures.
VARIANTS = ("reno", "newreno", "sack")
VARIANT_LABELS = {"reno": "Reno", "newreno": "NewReno (Hoe)", "sack": "SACK"}
#: Settings of the sender: "ns235" = ns-2.35's defaults, the setup validated against ns-2
#: (docs/validation.md); "era2001" = the three switches in which the paper's older ns differs
#: (tests/ns2/lee2001.tcl ``era2001``: bugFix_ false, singledup_ 0, newreno_changes1_ 0).
SETTINGS = ("ns235", "era2001")
SETTING_LABELS = {"ns235": "ns-2.35 defaults", "era2001": "2001-era ns"}
#: Quick mode: a smaller grid (the robust claims still hold on it).
QUICK_CAPACITIES = (1, 8, 32)
QUICK_FRACTIONS = BUFFER_FRACTIONS
#: T_N bin width (one round-trip time).
TN_BIN_S = 0.1


def era_scenario(capacity_mbps: int, buffer_pkts: int, variant: str, *, hoe: bool | None = None, seed: int = 1) -> Scenario:
    """:func:`scenario` with the sender switches of the paper's ns (ns-2.1b era).

    ``limited_transmit = false`` (ns-2 ``singledup_ 0``) for every variant; for NewReno
    also ``careful = false`` (``bugFix_ false``: no protection against repeated fast
    retransmits) and ``timer_reset = "slow_but_steady"`` (``newreno_changes1_ 0``).  ns-2's
    ``bugFix_ false`` also affects Reno, which renolab does not model: renolab's Reno keeps
    the protection (see the report's notes).
    """
    data = scenario(capacity_mbps, buffer_pkts, variant, hoe=hoe, seed=seed).to_dict()
    options = data["flow"][0]["options"]
    options["limited_transmit"] = False
    if variant == "newreno":
        options["careful"] = False
        options["timer_reset"] = "slow_but_steady"
    return Scenario.from_dict(data)


def _point_scenario(setting: str, capacity_mbps: int, fraction: float, variant: str) -> Scenario:
    b = buffer_packets(capacity_mbps, fraction)
    if setting == "era2001":
        return era_scenario(capacity_mbps, b, variant)
    return scenario(capacity_mbps, b, variant)


def _point_name(setting: str, variant: str, capacity_mbps: int, fraction: float) -> str:
    return f"{setting}-{variant}-c{capacity_mbps}-b{buffer_packets(capacity_mbps, fraction)}"


def _analyse_run(result: Any) -> dict[str, Any]:
    """Per-run analysis, done in the worker (module level so it pickles): T_N(t), the
    Table 2 slope, slow-start loss, the first drop burst and recovery, the Hoe estimate."""
    import numpy as np

    from renolab import metrics

    seq = result.trace("seq")
    cwnd = result.trace("cwnd")
    # The window the sender could fill, fast-recovery inflation included: what this study's
    # figures and claims were computed from before the cwnd trace split the two columns.
    cwnd = cwnd.assign(cwnd=cwnd["inflated_cwnd"])
    flow = result.flows.iloc[0]
    capacity = float(flow["bottleneck_bps"])
    t_c = float(flow["completion_time_s"])
    end = t_c + float(flow["first_send_s"]) if np.isfinite(t_c) else float(seq["time_s"].max())
    tn = metrics.normalised_throughput(seq, TN_BIN_S, capacity, PACKET_BYTES, end_s=end)
    episodes = metrics.recovery_episodes(seq, cwnd)
    out: dict[str, Any] = {"tn": tn[["time_s", "t_n"]].reset_index(drop=True)}
    out["slope"], out["slope_window"] = _tn_slope(tn, episodes)

    # Slow start: until cwnd first reaches ssthresh (Hoe's estimate, or a loss's halving).
    ss = cwnd["ssthresh"].to_numpy(dtype=float)
    cw = cwnd["cwnd"].to_numpy(dtype=float)
    times = cwnd["time_s"].to_numpy(dtype=float)
    reached = np.flatnonzero((cw >= ss) & (ss < 1e6))
    ss_exit = float(times[reached[0]]) if len(reached) else math.inf
    first = episodes.iloc[0] if len(episodes) else None
    out["slow_start_loss"] = bool(first is not None and float(first["first_drop_sent_s"]) < ss_exit)
    out["episodes"] = int(len(episodes))
    # Hoe's estimate: the first ssthresh below the initial (receiver-window) value set
    # before any loss was detected.
    first_retx = float(first["start_s"]) if first is not None else math.inf
    early = cwnd[(cwnd["ssthresh"] < ss[0]) & (cwnd["time_s"] < first_retx)]
    out["hoe_estimate"] = float(early["ssthresh"].iloc[0]) if len(early) else math.nan

    # The first burst of drops (drops less than one RTT apart) and its recovery.
    drops = seq[seq["event"].astype(str) == "dropped"]
    out["drops_total"] = int(len(drops))
    if len(drops):
        dt = drops["time_s"].to_numpy(dtype=float)
        gaps = np.flatnonzero(np.diff(dt) > RTT_S)
        last = int(gaps[0]) if len(gaps) else len(dt) - 1
        burst = drops.iloc[: last + 1]
        out["burst_drops"] = int(len(burst))
        out["burst_start_s"], out["burst_end_s"] = float(dt[0]), float(dt[last])
        top = int(burst["seq"].max())
        acks = seq[(seq["event"].astype(str) == "acked") & (seq["seq"] > top)]
        out["recovered_s"] = float(acks["time_s"].iloc[0]) if len(acks) else math.nan
    else:
        out["burst_drops"] = 0
        out["burst_start_s"] = out["burst_end_s"] = out["recovered_s"] = math.nan
    retx = seq[seq["event"].astype(str) == "retransmitted"]["time_s"].to_numpy(dtype=float)
    out["first_retx_s"] = retx[:3].tolist()
    fall = np.flatnonzero((cw[1:] <= 1.0) & (cw[:-1] > 1.0)) + 1
    out["timeout_s"] = times[fall].tolist()
    # The time-sequence graph of Fig. 6 (thinned: every first transmission, retransmission, drop).
    if out["burst_drops"] >= 50:
        keep = seq[seq["event"].astype(str).isin(["sent", "retransmitted", "dropped"])]
        out["seq"] = keep[["time_s", "event", "seq"]].assign(event=keep["event"].astype(str)).reset_index(drop=True)
    return out


def _tn_slope(tn: Any, episodes: Any) -> tuple[float, tuple[float, float] | None]:
    """Table 2's slope: least-squares dT_N/dt over the first climb in congestion avoidance —
    from the end of a loss recovery (plus one bin) until T_N reaches 0.95, the next recovery
    starts or the transfer ends; the first such climb of at least 3 bins."""
    import numpy as np

    t = tn["time_s"].to_numpy(dtype=float) + TN_BIN_S / 2
    y = tn["t_n"].to_numpy(dtype=float)
    if not len(episodes) or len(t) < 3:
        return math.nan, None
    starts = episodes["start_s"].to_numpy(dtype=float)
    ends = episodes["end_s"].to_numpy(dtype=float)
    for i, end in enumerate(ends):
        if not np.isfinite(end):
            continue
        a = end + TN_BIN_S
        nxt = starts[i + 1] if i + 1 < len(starts) else math.inf
        reach = t[(t > a) & (y >= 0.95)]
        b = min(nxt, float(reach[0]) if len(reach) else math.inf, float(t[-1]) - TN_BIN_S)
        mask = (t - TN_BIN_S / 2 >= a) & (t + TN_BIN_S / 2 <= b)
        if mask.sum() >= 3:
            slope = float(np.polyfit(t[mask], y[mask], 1)[0])
            return slope, (float(a), float(b))
    return math.nan, None


def _grid_points(quick: bool) -> list[tuple[str, str, int, float]]:
    capacities = QUICK_CAPACITIES if quick else CAPACITIES_MBPS
    fractions = QUICK_FRACTIONS if quick else BUFFER_FRACTIONS
    return [(s, v, c, a) for s in SETTINGS for v in VARIANTS for c in capacities for a in fractions]


def reproduce(out: Any, quick: bool = False, workers: int | None = None) -> Any:
    """Run lee2001's grid and write its figures, tables and report into *out*; returns report.md."""
    import time
    from pathlib import Path

    import pandas as pd

    from renolab.experiments.lee2001_report import write_report
    from renolab.experiments.report import Report, paper_values
    from renolab.experiments.runner import run_many

    start = time.perf_counter()
    out = Path(out)
    paper = paper_values("lee2001")
    points = _grid_points(quick)
    scenarios = [_point_scenario(s, c, a, v) for s, v, c, a in points]
    outputs = run_many(
        scenarios, workers=workers, desc="lee2001", traces=("seq", "cwnd"), reduce=_analyse_run, keep_traces=False
    )
    rows = []
    for (setting, variant, c, a), o in zip(points, outputs):
        f = o.flows.iloc[0]
        t_c = float(f["completion_time_s"])
        v = o.value
        rows.append(
            {
                "setting": setting,
                "variant": variant,
                "capacity_mbps": c,
                "w_star": pipe_packets(c),
                "alpha": a,
                "buffer": buffer_packets(c, a),
                "t_c_s": t_c,
                "mu": 8 * TRANSFER_BYTES / (c * 1e6 * t_c),
                "timeouts": int(f["timeouts"]),
                "retransmits": int(f["retransmits"]),
                "drops": int(f["drops"]),
                "slow_start_loss": v["slow_start_loss"],
                "slope": v["slope"],
                "hoe_estimate": v["hoe_estimate"],
            }
        )
    grid = pd.DataFrame(rows)
    details = {(s, v, c, a): o.value for (s, v, c, a), o in zip(points, outputs)}

    report = Report("lee2001", paper["paper"]["title"], paper["paper"]["citation"], out)
    report.meta["mode"] = "quick (reduced grid)" if quick else "full grid"
    report.meta["runs"] = len(points)
    write_report(report, grid, details, paper, quick)
    for setting, variant, c, a in points:
        report.scenario(_point_name(setting, variant, c, a), _point_scenario(setting, c, a, variant))
    report.meta["wall time"] = f"{time.perf_counter() - start:.1f} s"
    return report.write()
