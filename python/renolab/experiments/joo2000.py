"""Joo & Bahk (2000): start-up transition dynamics of TCP NewReno with and without partial
window deflation (PWD).

n long-lived FTP flows share a RED bottleneck (1.6 Mb/s, limit 60, min_th 5, max_th 15,
max_p 0.1, 1000-byte packets); after 50 s a new NewReno flow starts at a random time and
we classify how it detects its first loss (timeout, or fast retransmit with 1, 2, 3, >3
drops from the window; Figs. 2-3), then measure its recovery: new packets sent during fast
recovery and the burst after it, with and without PWD (Table 1, Figs. 4-6).

The paper gives no link delays (its Fig. 1 is not in the text): this module uses 10 Mb/s,
2 ms access links and a 46 ms bottleneck, a 100 ms round trip (:data:`BOTTLENECK_DELAY`).
"""

from __future__ import annotations

import math
from typing import Any

from renolab.scenario import Scenario

#: Number of existing connections (Fig. 2).
EXISTING_FLOWS = (3, 4, 5, 6, 7, 8, 9)
#: Bottleneck rates of Fig. 3 (n = 5), Mb/s.
BANDWIDTHS_MBPS = (0.8, 1.6, 2.4, 3.2)
FIG3_FLOWS = 5
BASE_MBPS = 1.6
PACKET_BYTES = 1000
ACCESS = {"rate": "10Mbps", "delay": "2ms"}
BOTTLENECK_DELAY = "46ms"
#: ns-2.1b5's RED in packet mode (``bytes_ false``, ``queue_in_bytes_ false``, ``gentle_
#: false``, ``wait_ true``, ``q_weight_ 0.002``) with the paper's thresholds.
RED = {
    "kind": "red",
    "limit": 60,
    "min_th": 5,
    "max_th": 15,
    "max_p": 0.1,
    "w_q": 0.002,
    "gentle": False,
    "wait": True,
    "byte_mode": False,
    "queue_in_bytes": False,
}
NEW_FLOW = "new"
#: Simulated time: 50 s of warm-up, the new flow's start within [50, 51] s, and enough for
#: its first recovery to end.
DURATION_S = 62


def sender_options(pwd: bool) -> dict[str, Any]:
    """NewReno as joo2000 ran it in ns-2.1b5: Slow-but-Steady timer, one retransmission per
    partial ACK, Less Careful, no Limited Transmit, no SYN, initial window 1, an unlimited
    receiver window; PWD on or off."""
    return {
        "initial_window": 1,
        "window": 100_000,
        "handshake": False,
        "limited_transmit": False,
        "timer_reset": "slow_but_steady",
        "careful": "less",
        "partial_window_deflation": pwd,
    }


def scenario(
    n: int,
    *,
    bandwidth_mbps: float = BASE_MBPS,
    delayed_ack: bool = False,
    pwd: bool = True,
    seed: int = 1,
    red: dict[str, Any] | None = None,
    bottleneck_delay: str | None = None,
) -> Scenario:
    """n existing NewReno flows (PWD on, random starts in [0, 1] s) and the new flow (PWD per
    *pwd*) starting at a random time in [50, 51] s; *delayed_ack* for every receiver."""
    from renolab.topology import dumbbell

    bottleneck = {
        "rate": f"{bandwidth_mbps:g}Mbps",
        "delay": bottleneck_delay or BOTTLENECK_DELAY,
        "queue": dict(red or RED),
        "reverse": {"queue": {"kind": "droptail", "limit": 1000}},
    }
    links = dumbbell(n + 1, access=dict(ACCESS, queue={"kind": "droptail", "limit": 1000}), bottleneck=bottleneck)
    receiver = {"delayed_ack": delayed_ack}
    flows = []
    for i in range(n + 1):
        new = i == n
        flows.append(
            {
                "name": NEW_FLOW if new else f"ftp{i + 1}",
                "variant": "newreno",
                "src": f"s{i + 1}",
                "dst": f"d{i + 1}",
                "start": {"uniform": ["50s", "51s"]} if new else {"uniform": ["0s", "1s"]},
                "mss": PACKET_BYTES,
                "header_bytes": 0,
                "receiver": receiver,
                "options": sender_options(pwd if new else True),
            }
        )
    return Scenario(
        simulation={"seed": seed, "profile": "ns2", "duration": f"{DURATION_S}s"},
        link=links,
        flow=flows,
    )


def _first_episode(result: Any) -> dict[str, Any]:
    """In the worker: the new flow's first loss episode (how it was detected, drops from the
    window, W, new packets, burst) and its recovery episodes' counts; module level so it pickles."""
    import numpy as np

    from renolab import metrics

    seq = result.trace("seq")
    cwnd = result.trace("cwnd")
    # The window the sender could fill, fast-recovery inflation included: what this study's
    # figures and claims were computed from before the cwnd trace split the two columns.
    cwnd = cwnd.assign(cwnd=cwnd["inflated_cwnd"])
    seq = seq[(seq["flow"].astype(str) == NEW_FLOW).to_numpy()]
    cwnd = cwnd[(cwnd["flow"].astype(str) == NEW_FLOW).to_numpy()]
    episodes = metrics.recovery_episodes(seq, cwnd)
    flows = result.flows.set_index(result.flows["flow"].astype(str))
    out: dict[str, Any] = {"start_s": float(flows.loc[NEW_FLOW, "first_send_s"]), "pattern": "none"}
    if not len(episodes):
        return out
    e = episodes.iloc[0]
    detection = str(e["detection"])
    # Drops of packets sent during the recovery (counted here: metrics.recovery_episodes
    # books a drop during one episode as a window drop of the next).
    t = seq["time_s"].to_numpy(dtype=float)
    events = seq["event"].astype(str).to_numpy()
    t_det = float(e["start_s"])
    t_end = float(e["end_s"]) if math.isfinite(float(e["end_s"])) else math.inf
    in_recovery = (t > t_det) & (t <= t_end)
    drops_in_recovery = int(np.count_nonzero(in_recovery & (events == "dropped")))
    drops = int(e["drops"])
    out.update(
        pattern="rto" if detection == "rto" else (">3" if drops > 3 else str(drops)),
        detection=detection,
        drops=drops,
        w=float(e["w"]),
        cwnd_at_first_drop=float(e["cwnd_at_first_drop"]),
        detect_s=float(e["start_s"]),
        end_s=float(e["end_s"]),
        new_segments=int(e["new_segments"]),
        new_per_rtt=[int(x) for x in e["new_per_rtt"]],
        burst=_int_or_none(e["burst"]),
        retransmits=int(e["retransmits"]),
        timeouts=int(e["timeouts"]),
        drops_in_recovery=drops_in_recovery,
    )
    return out


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value is None or value != value else int(value)
    except TypeError:  # pandas.NA
        return None


# =====================================================================================
# The reproduction: ``renolab reproduce joo2000``.
# =====================================================================================

PATTERNS = ("rto", "1", "2", "3", ">3")
PATTERN_LABELS = {"rto": "RTO", "1": "1 drop", "2": "2 drops", "3": "3 drops", ">3": "over 3 drops"}
PATTERN_KEYS = {"rto": "rto", "1": "d1", "2": "d2", "3": "d3", ">3": "dmore"}
_COLOURS = {"rto": "tab:gray", "1": "tab:blue", "2": "tab:orange", "3": "tab:green", ">3": "tab:red"}
#: Seeds per point: with PWD (Figs. 2-6) and without (Figs. 4-6, paired with the first seeds).
FULL_SEEDS, FULL_SEEDS_NOPWD = 200, 100
QUICK_SEEDS = 10
QUICK_FLOWS = (3, 6)
QUICK_BANDWIDTHS = (0.8, 1.6, 3.2)
#: Full mode also reruns Fig. 2's end points (n = 3, 9, no delayed ACK) with a longer
#: bottleneck delay: the paper does not give its delays, and they matter.
SENSITIVITY_DELAY = "96ms"
SENSITIVITY_FLOWS = (3, 9)


def _plan(quick: bool) -> list[tuple[int, float, bool, bool, int]]:
    """(n, bandwidth, delayed_ack, pwd, seed) of every run."""
    flows = QUICK_FLOWS if quick else EXISTING_FLOWS
    bands = QUICK_BANDWIDTHS if quick else BANDWIDTHS_MBPS
    points = [(n, BASE_MBPS) for n in flows] + [(FIG3_FLOWS, b) for b in bands if (FIG3_FLOWS, b) not in [(n, BASE_MBPS) for n in flows]]
    seeds_pwd = QUICK_SEEDS if quick else FULL_SEEDS
    seeds_nopwd = QUICK_SEEDS if quick else FULL_SEEDS_NOPWD
    plan = []
    for delack in (False, True):
        for n, b in points:
            plan += [(n, b, delack, True, s) for s in range(1, seeds_pwd + 1)]
            plan += [(n, b, delack, False, s) for s in range(1, seeds_nopwd + 1)]
    return plan


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion k / n."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _base_rtt_ms(bottleneck_delay: str) -> float:
    """Round-trip propagation delay (ms) of the dumbbell with this bottleneck delay."""
    from renolab.units import parse_duration_s

    return 2000 * (parse_duration_s(bottleneck_delay) + 2 * parse_duration_s(ACCESS["delay"]))


def _spearman(x: Any, y: Any) -> float:
    """Spearman's rank correlation (average ranks for ties), without scipy."""
    import pandas as pd

    rx, ry = pd.Series(x).rank(), pd.Series(y).rank()
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(rx.corr(ry))


def pwd_total(w: float, d: int) -> float:
    """Table 1, NewReno with PWD: W(W-1)/2 - max(0, (W-d)(W-d-1)/2) new packets in recovery."""
    return w * (w - 1) / 2 - max(0.0, (w - d) * (w - d - 1) / 2)


def reproduce(out: Any, quick: bool = False, workers: int | None = None) -> Any:
    """Run joo2000's experiments and write the figures, tables and report into *out*."""
    import time
    from pathlib import Path

    import pandas as pd

    from renolab.experiments.joo2000_report import write_report
    from renolab.experiments.report import Report, paper_values
    from renolab.experiments.runner import run_many

    start = time.perf_counter()
    out = Path(out)
    paper = paper_values("joo2000")
    plan = _plan(quick)
    scenarios = [scenario(n, bandwidth_mbps=b, delayed_ack=dl, pwd=p, seed=s) for n, b, dl, p, s in plan]
    outputs = run_many(scenarios, workers=workers, desc="joo2000", traces=("seq", "cwnd"), reduce=_first_episode, keep_traces=False)
    rows = []
    for (n, b, dl, p, s), o in zip(plan, outputs):
        v = dict(o.value)
        v.pop("new_per_rtt", None)
        rows.append({"n": n, "bandwidth_mbps": b, "delayed_ack": dl, "pwd": p, "seed": s, **v,
                     "new_per_rtt": o.value.get("new_per_rtt")})
    runs = pd.DataFrame(rows)
    sensitivity = None
    if not quick:
        splan = [(n, s) for n in SENSITIVITY_FLOWS for s in range(1, FULL_SEEDS + 1)]
        souts = run_many(
            [scenario(n, seed=s, bottleneck_delay=SENSITIVITY_DELAY) for n, s in splan],
            workers=workers, desc="joo2000 (round-trip sensitivity)", traces=("seq", "cwnd"), reduce=_first_episode, keep_traces=False,
        )
        sensitivity = pd.DataFrame([{"n": n, "seed": s, "pattern": o.value["pattern"], "cwnd_at_first_drop": o.value.get("cwnd_at_first_drop", math.nan)}
                                    for (n, s), o in zip(splan, souts)])

    report = Report("joo2000", paper["paper"]["title"], paper["paper"]["citation"], out)
    report.meta["mode"] = "quick (n in {3, 6}, 10 seeds)" if quick else f"full ({FULL_SEEDS} seeds with PWD, {FULL_SEEDS_NOPWD} without, per point)"
    report.meta["runs"] = len(plan) + (0 if sensitivity is None else len(sensitivity))
    write_report(report, runs, paper, quick, sensitivity)
    for n, b, dl, p in sorted({(n, b, dl, p) for n, b, dl, p, _ in plan}):
        name = f"n{n}-{b:g}mbps-{'delack' if dl else 'nodelack'}-{'pwd' if p else 'nopwd'}"
        report.scenario(name, scenario(n, bandwidth_mbps=b, delayed_ack=dl, pwd=p, seed=1))
    report.meta["wall time"] = f"{time.perf_counter() - start:.1f} s"
    runs.drop(columns=["new_per_rtt"]).to_csv(out / "runs.csv", index=False)
    return report.write()
