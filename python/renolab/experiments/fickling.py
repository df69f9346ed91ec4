"""Fickling, Kelly & Douglas: Reno, NewReno, Tahoe and Vegas in ns-2.

Six nodes N1..N6 in a chain of five 10 Mb/s, 10 ms DropTail links
(``topology.chain(6, ...)``); a CBR/UDP flow between the inner nodes N2 and N3; the TCP flow
under study from N1 to N4 (the paper's §2). Three experiments:

1. One TCP flow of each variant against CBR rates from 0 to 10 Mb/s: throughput, latency and
   drop rate (Figs. 2-4).
2. Two TCP flows, both N1 -> N4, of the pairs Vegas/Vegas, Reno/Reno, Reno/NewReno and
   NewReno/Vegas against the same CBR rates: per-flow throughput, drops and Jain's fairness
   index (Figs. 5-8).
3. One Reno or SACK flow from 0 s; an 8 Mb/s CBR flow joins at 5 s; DropTail against RED on
   every link (Figs. 9-10).

ns-2 defaults throughout (the paper used them "whenever we had the option"), i.e. renolab's
``ns2`` profile: 1000-byte segments, SYN handshake, a plain ACK per segment, 200 ms minimum RTO,
50-packet DropTail queues (ns-2's ``limit_``) and RED with ns-2.35's defaults; CBR packets of
1000 bytes without jitter. One exception: the receiver window. ns-2's default ``window_`` of 20
segments caps a flow at 2.7 Mb/s on this 62 ms round trip, so it could neither fill the link
(experiment 3: "TCP had been able to fully utilize the network") nor build the ~80 ms latencies
of §3a; the paper's results need a larger window, and we use 1000 segments (no limit here).

Not in the paper and chosen here: 20 s per run (10 s in quick mode), TCP start times drawn
uniformly from the first 100 ms (seeds differ in those and in the SYN clock phase), the CBR
rate of experiment 3 (8 Mb/s) and the second flow's endpoints in experiment 2 (the same as the
first: the paper does not name them, and a chain offers no other path through N2 -> N3 with the
same round trip).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab import metrics, topology
from renolab.experiments._aggregate import VARIANT_LABELS
from renolab.experiments.report import Report, paper_values
from renolab.experiments.runner import run_many
from renolab.scenario import Scenario
from renolab.stats import mean_ci

STUDY = "fickling"
TITLE = "Performance Comparisons of Reno, New-Reno, Tahoe, and Vegas TCP"

VARIANTS = ("tahoe", "reno", "newreno", "vegas")
PAIRS = (("vegas", "vegas"), ("reno", "reno"), ("reno", "newreno"), ("newreno", "vegas"))
WINDOW = 1000
#: ns-2's default receiver window (``Agent/TCP set window_ 20``).
NS2_WINDOW = 20
QUEUE_LIMIT = 50
CBR_PACKET = 1000
EXP3_CBR_MBPS = 8.0
EXP3_CBR_START_S = 5.0
MSS = 1000


def _links(queue: str = "droptail") -> list[dict[str, Any]]:
    q: dict[str, Any] = {"kind": queue, "limit": QUEUE_LIMIT}
    return topology.chain(6, link={"rate": "10Mbps", "delay": "10ms", "queue": q})


def _tcp(name: str, variant: str, start: Any = None, window: int = WINDOW) -> dict[str, Any]:
    return {
        "name": name,
        "variant": variant,
        "src": "N1",
        "dst": "N4",
        "start": start if start is not None else {"uniform": ["0s", "0.1s"]},
        "options": {"window": window},
    }


def _cbr(rate_mbps: float, start: str = "0s") -> dict[str, Any]:
    return {"name": "cbr", "kind": "cbr", "src": "N2", "dst": "N3", "rate": f"{rate_mbps:g}Mbps", "packet_bytes": CBR_PACKET, "start": start}


def experiment1(variant: str, cbr_mbps: float, *, seed: int = 1, duration_s: float = 20.0) -> Scenario:
    """One TCP flow (N1 -> N4) against CBR at *cbr_mbps* (N2 -> N3)."""
    flows = [_tcp("tcp", variant)]
    if cbr_mbps > 0:
        flows.append(_cbr(cbr_mbps))
    return Scenario(
        description=f"fickling experiment 1: {variant} against {cbr_mbps:g} Mb/s CBR on the six-node chain",
        simulation={"seed": seed, "profile": "ns2", "duration": f"{duration_s:g}s"},
        link=_links(),
        flow=flows,
    )


def experiment2(pair: tuple[str, str], cbr_mbps: float, *, seed: int = 1, duration_s: float = 20.0) -> Scenario:
    """Two TCP flows ``a`` and ``b`` (both N1 -> N4) of the variants *pair* against CBR."""
    flows = [_tcp("a", pair[0]), _tcp("b", pair[1])]
    if cbr_mbps > 0:
        flows.append(_cbr(cbr_mbps))
    return Scenario(
        description=f"fickling experiment 2: {pair[0]} and {pair[1]} against {cbr_mbps:g} Mb/s CBR",
        simulation={"seed": seed, "profile": "ns2", "duration": f"{duration_s:g}s"},
        link=_links(),
        flow=flows,
    )


def experiment3(variant: str, queue: str, *, seed: int = 1, duration_s: float = 20.0, window: int = WINDOW) -> Scenario:
    """One TCP flow from 0 s and an 8 Mb/s CBR flow from 5 s; *queue* is droptail or red on every link;
    *window*: the receiver window (ns-2's default is 20)."""
    return Scenario(
        description=f"fickling experiment 3: {variant}, {queue} queues, window {window}, CBR {EXP3_CBR_MBPS:g} Mb/s from {EXP3_CBR_START_S:g} s",
        simulation={"seed": seed, "profile": "ns2", "duration": f"{duration_s:g}s"},
        link=_links(queue),
        flow=[_tcp("tcp", variant, window=window), _cbr(EXP3_CBR_MBPS, start=f"{EXP3_CBR_START_S:g}s")],
    )


# ----- reductions (run in the workers) ----------------------------------------------------------------


def mean_rtt(result: Any) -> dict[str, float]:
    """Mean RTT sample of every TCP flow (from the ``rtt`` trace)."""
    rtt = result.trace("rtt")
    if not len(rtt):
        return {}
    return {str(k): float(v) for k, v in rtt.groupby("flow", observed=True)["rtt_s"].mean().items()}


def exp3_reduce(result: Any) -> dict[str, Any]:
    """Throughput series of the TCP and CBR flows (0.5 s bins), TCP drops after the CBR start,
    mean RTT before and after it."""
    seq = result.trace("seq")
    bin_s = 0.5
    end = float(result.summary["sim_time_s"])
    tcp = metrics.throughput_series(seq[seq["flow"] == "tcp"], bin_s, MSS, end_s=end)
    tcp = tcp[tcp["flow"] == "tcp"]
    cbr = seq[seq["flow"] == "cbr"]
    dropped = set(cbr.loc[cbr["event"] == "dropped", "seq"].tolist())
    delivered = cbr[(cbr["event"] == "sent") & ~cbr["seq"].isin(dropped)]
    n = int(math.ceil(end / bin_s))
    counts = np.bincount(np.minimum((delivered["time_s"].to_numpy() / bin_s).astype(int), n - 1), minlength=n)
    tcp_drops = seq[(seq["flow"] == "tcp") & (seq["event"] == "dropped")]
    rtt = result.trace("rtt")
    rtt = rtt[rtt["flow"] == "tcp"]
    return {
        "time_s": tcp["time_s"].to_numpy()[:n],
        "tcp_bps": tcp["goodput_bps"].to_numpy()[:n],
        "cbr_bps": counts[:n] * CBR_PACKET * 8.0 / bin_s,
        "tcp_drops_after": int((tcp_drops["time_s"] >= EXP3_CBR_START_S).sum()),
        "tcp_drops_before": int((tcp_drops["time_s"] < EXP3_CBR_START_S).sum()),
        "rtt_after_s": float(rtt.loc[rtt["time_s"] >= EXP3_CBR_START_S, "rtt_s"].mean()),
        "rtt_before_s": float(rtt.loc[rtt["time_s"] < EXP3_CBR_START_S, "rtt_s"].mean()),
    }


# ----- the study -------------------------------------------------------------------------------------


def reproduce(out: Path, quick: bool = False, workers: int | None = None) -> Path:
    """Run the study and write its report into *out*; return the path of report.md."""
    from renolab.experiments.fickling_figures import fig_exp1, fig_exp3, fig_jain, fig_newreno_vegas, fig_pair

    start = time.perf_counter()
    out = Path(out)
    paper = paper_values(STUDY)
    duration = 10.0 if quick else 20.0
    rates = [float(r) for r in range(0, 11)] if quick else [r / 2 for r in range(0, 21)]
    reps = 2 if quick else 5
    exp3_reps = 3 if quick else 10

    report = Report(STUDY, TITLE, paper["paper"]["citation"], out)

    # ----- experiment 1 -----------------------------------------------------------------------------
    plan1 = [(v, r, s) for v in VARIANTS for r in rates for s in range(reps)]
    out1 = run_many(
        (experiment1(v, r, seed=s + 1, duration_s=duration) for v, r, s in plan1),
        workers=workers, desc=f"{STUDY} experiment 1", traces=("rtt",), reduce=mean_rtt, keep_traces=False,
    )
    rows1 = []
    for (v, r, s), o in zip(plan1, out1):
        f = o.flow("tcp")
        rows1.append(
            {
                "variant": v, "cbr_mbps": r, "seed": s + 1,
                "throughput_mbps": f["goodput_bps"] / 1e6,
                "latency_ms": f["mean_latency_s"] * 1e3,
                "rtt_ms": (o.value or {}).get("tcp", math.nan) * 1e3,
                "drop_rate_pct": f["drop_rate"] * 100.0,
                "drops": f["data_drops"],
                "timeouts": f["timeouts"],
            }
        )
    e1 = _mean_table(pd.DataFrame(rows1), ["variant", "cbr_mbps"], ["throughput_mbps", "latency_ms", "rtt_ms", "drop_rate_pct", "drops", "timeouts"])

    # ----- experiment 2 -----------------------------------------------------------------------------
    plan2 = [(p, r, s) for p in PAIRS for r in rates for s in range(reps)]
    out2 = run_many(
        (experiment2(p, r, seed=s + 1, duration_s=duration) for p, r, s in plan2),
        workers=workers, desc=f"{STUDY} experiment 2", traces=("rtt",), reduce=mean_rtt, keep_traces=False,
    )
    rows2 = []
    for (p, r, s), o in zip(plan2, out2):
        a, b = o.flow("a"), o.flow("b")
        ga, gb = a["goodput_bps"] / 1e6, b["goodput_bps"] / 1e6
        rows2.append(
            {
                "pair": f"{p[0]}-{p[1]}", "cbr_mbps": r, "seed": s + 1,
                "a_mbps": ga, "b_mbps": gb,
                "a_latency_ms": a["mean_latency_s"] * 1e3, "b_latency_ms": b["mean_latency_s"] * 1e3,
                "a_drop_pct": a["drop_rate"] * 100.0, "b_drop_pct": b["drop_rate"] * 100.0,
                "jain": metrics.jain_index([ga, gb]),
                "ratio": max(ga, gb) / min(ga, gb) if min(ga, gb) > 0 else math.inf,
            }
        )
    runs2 = pd.DataFrame(rows2)
    e2 = _mean_table(runs2, ["pair", "cbr_mbps"], ["a_mbps", "b_mbps", "a_latency_ms", "b_latency_ms", "a_drop_pct", "b_drop_pct", "jain"])

    # ----- experiment 3 -----------------------------------------------------------------------------
    plan3 = [(v, q, w, s) for w in (WINDOW, NS2_WINDOW) for v in ("reno", "sack") for q in ("droptail", "red") for s in range(exp3_reps)]
    out3 = run_many(
        (experiment3(v, q, seed=s + 1, window=w) for v, q, w, s in plan3),
        workers=workers, desc=f"{STUDY} experiment 3", traces=("seq", "rtt"), reduce=exp3_reduce, keep_traces=False,
    )
    rows3 = []
    for (v, q, w, s), o in zip(plan3, out3):
        f, c = o.flow("tcp"), o.flow("cbr")
        val = o.value
        rows3.append(
            {
                "variant": v, "queue": q, "window": w, "seed": s + 1,
                "tcp_mbps": f["goodput_bps"] / 1e6, "cbr_mbps": c["goodput_bps"] / 1e6,
                "tcp_drops_after_cbr": val["tcp_drops_after"], "tcp_drops_before_cbr": val["tcp_drops_before"],
                "cbr_drops": c["drops"],
                "rtt_after_cbr_ms": val["rtt_after_s"] * 1e3,
                "tcp_latency_ms": f["mean_latency_s"] * 1e3,
            }
        )
    runs3 = pd.DataFrame(rows3)
    e3_all = _mean_table(runs3, ["variant", "queue", "window"], ["tcp_mbps", "cbr_mbps", "tcp_drops_after_cbr", "cbr_drops", "rtt_after_cbr_ms", "tcp_latency_ms"])
    e3 = e3_all[e3_all["window"] == WINDOW]
    series3 = {(v, q): o.value for (v, q, w, s), o in zip(plan3, out3) if s == 0 and w == WINDOW}

    report.meta.update(
        {
            "mode": "quick" if quick else "full",
            "run length": f"{duration:g} s (experiment 3: 20 s)",
            "CBR rates": f"{len(rates)} from 0 to 10 Mb/s",
            "seeds per point": reps,
            "runs": len(plan1) + len(plan2) + len(plan3),
        }
    )

    def E1(v: str, r: float, m: str) -> float:
        return float(e1[(e1["variant"] == v) & (e1["cbr_mbps"] == r)][m].iloc[0])

    def E2(p: str, r: float, m: str) -> float:
        return float(e2[(e2["pair"] == p) & (e2["cbr_mbps"] == r)][m].iloc[0])

    # ----- claims: experiment 1 -------------------------------------------------------------------------
    loaded = [r for r in rates if 0 < r < 10]
    spread = [
        (max(E1(v, r, "throughput_mbps") for v in VARIANTS) - min(E1(v, r, "throughput_mbps") for v in VARIANTS)) / 10.0
        for r in loaded
    ]
    report.claim(
        "Throughput of the four variants is approximately equivalent at every level of congestion (Fig. 2).",
        f"largest spread between variants at one CBR rate: {100 * max(spread):.1f} % of the link (median "
        f"{100 * float(np.median(spread)):.1f} %)",
        max(spread) <= 0.15,
    )
    rho = {v: _spearman(rates, [E1(v, r, "throughput_mbps") for r in rates]) for v in VARIANTS}
    last = max(E1(v, rates[-1], "throughput_mbps") for v in VARIANTS)
    report.claim(
        "Throughput trends to zero as the network gets more congested (Fig. 2).",
        "rank correlation of throughput with the CBR rate: "
        + ", ".join(f"{VARIANT_LABELS[v]} {rho[v]:.3f}" for v in VARIANTS)
        + f"; at {rates[-1]:g} Mb/s CBR the best gets {last:.3f} Mb/s",
        all(x <= -0.95 for x in rho.values()) and last < 0.5,
    )
    low = [r for r in rates if 0 < r <= 2]
    tahoe_best = sum(E1("tahoe", r, "throughput_mbps") >= max(E1(v, r, "throughput_mbps") for v in ("reno", "newreno")) for r in low)
    vegas_worse = sum(E1("vegas", r, "throughput_mbps") < min(E1(v, r, "throughput_mbps") for v in ("tahoe", "reno", "newreno")) for r in low)
    report.claim(
        "Under little congestion Tahoe does a little better than Reno and New-Reno, and Vegas a little worse (§3a).",
        f"at CBR <= 2 Mb/s Tahoe beats Reno and NewReno at {tahoe_best}/{len(low)} rates; Vegas is below the other "
        f"three at {vegas_worse}/{len(low)}",
        tahoe_best == len(low) and vegas_worse == len(low),
    )
    up_to = float(paper["exp1"]["loss_below_pct_up_to_80"]["congestion_pct"]) / 10.0
    limit = float(paper["exp1"]["loss_below_pct_up_to_80"]["value"])
    worst = max(E1(v, r, "drop_rate_pct") for v in ("tahoe", "reno", "newreno") for r in rates if r <= up_to)
    report.claim(
        f"Tahoe, Reno and New-Reno lose below {limit:g} % of their packets up to {up_to * 10:g} % congestion; "
        "beyond 80 % losses skyrocket (Fig. 4).",
        f"highest drop rate up to {up_to:g} Mb/s CBR: {worst:.2f} %; at {rates[-2]:g} Mb/s: "
        + ", ".join(f"{VARIANT_LABELS[v]} {E1(v, rates[-2], 'drop_rate_pct'):.1f} %" for v in ("tahoe", "reno", "newreno")),
        worst < limit,
    )
    vegas_to = float(paper["exp1"]["vegas_no_loss_up_to_pct"]["value"]) / 10.0
    vegas_drops = [E1("vegas", r, "drops") for r in rates if r <= vegas_to]
    report.claim(
        f"Between 0 and {vegas_to * 10:g} % congestion TCP Vegas has no packet loss (Fig. 4).",
        f"Vegas loses {sum(vegas_drops) * reps:.0f} packets in all {len(vegas_drops) * reps} runs up to "
        f"{vegas_to:g} Mb/s CBR (a run's first slow start may overflow the queue)",
        max(vegas_drops) <= 1.0,
    )
    below = [r for r in rates if r < 10]
    vegas_lower = [E1("vegas", r, "latency_ms") < min(E1(v, r, "latency_ms") for v in ("tahoe", "reno", "newreno")) for r in below]
    upto = below[vegas_lower.index(False) - 1] if False in vegas_lower and vegas_lower.index(False) > 0 else below[-1]
    report.claim(
        "Vegas always has lower latency than Tahoe, Reno and New-Reno (Fig. 3).",
        f"Vegas' mean one-way latency is the lowest at {sum(vegas_lower)}/{len(vegas_lower)} CBR rates below 10 Mb/s, "
        f"every rate up to {upto:g} Mb/s "
        f"(e.g. at 5 Mb/s: Vegas {E1('vegas', 5.0, 'latency_ms'):.1f} ms, Reno {E1('reno', 5.0, 'latency_ms'):.1f} ms)",
        all(vegas_lower),
    )
    target = float(paper["exp1"]["loss_latency_ms"]["value"])
    lat = [E1(v, r, "rtt_ms") for v in ("tahoe", "reno", "newreno") for r in rates if 0 < r < 10]
    report.claim(
        f"Tahoe, Reno and New-Reno jump to around {target:g} ms delay as soon as there is minimal congestion (Fig. 3).",
        f"their mean RTT with CBR between 0 and 10 Mb/s is {min(lat):.0f}-{max(lat):.0f} ms (one-way latency "
        f"{min(E1(v, r, 'latency_ms') for v in ('tahoe', 'reno', 'newreno') for r in rates if 0 < r < 10):.0f}-"
        f"{max(E1(v, r, 'latency_ms') for v in ('tahoe', 'reno', 'newreno') for r in rates if 0 < r < 10):.0f} ms; "
        "the propagation RTT is 60 ms)",
        0.75 * target <= float(np.median(lat)) <= 1.25 * target,
    )

    # ----- claims: experiment 2 -------------------------------------------------------------------------
    vv = runs2[(runs2["pair"] == "vegas-vegas") & (runs2["cbr_mbps"] < 10)]
    report.claim(
        "Two Vegas flows have near identical throughput over the entire range of congestion (Fig. 5).",
        f"Jain's index of the two Vegas flows: median {vv['jain'].median():.3f}, lowest {vv['jain'].min():.3f} over "
        f"{len(vv)} runs",
        float(vv["jain"].median()) >= 0.98,
    )
    nv = e2[(e2["pair"] == "newreno-vegas") & (e2["cbr_mbps"] < 10)]
    nr_wins = int((nv["a_mbps"] > nv["b_mbps"]).sum())
    share = float((nv["b_mbps"] / (nv["a_mbps"] + nv["b_mbps"])).mean())
    report.claim(
        "Against New-Reno, Vegas gets overwhelmed in throughput (§3b).",
        f"NewReno out-sends Vegas at {nr_wins}/{len(nv)} CBR rates; Vegas' mean share of the two flows' throughput "
        f"is {100 * share:.0f} %",
        nr_wins == len(nv) and share < 0.4,
    )
    vlow = int((nv["b_latency_ms"] < nv["a_latency_ms"]).sum())
    report.claim(
        "Vegas has universally lower latency than a competing New-Reno flow (§3b).",
        f"Vegas' one-way latency is below NewReno's at {vlow}/{len(nv)} CBR rates",
        vlow == len(nv),
    )
    rr = runs2[(runs2["pair"] == "reno-reno") & (runs2["cbr_mbps"] < 10)]
    report.claim(
        "When two Reno flows compete one dominates the other; the dominating flow swaps as congestion increases "
        "(Fig. 6).",
        f"per run, the larger Reno flow gets {rr['ratio'].median():.2f}x the smaller (median; Vegas pair "
        f"{vv['ratio'].median():.2f}x); Jain's index median {rr['jain'].median():.3f}; flow a leads in "
        f"{int((rr['a_mbps'] > rr['b_mbps']).sum())}/{len(rr)} runs",
        float(rr["ratio"].median()) >= 1.2,
    )
    rrm = e2[(e2["pair"] == "reno-reno") & (e2["cbr_mbps"] < 10)]
    drop_gap = float((rrm["a_drop_pct"] - rrm["b_drop_pct"]).abs().mean())
    drop_level = float(((rrm["a_drop_pct"] + rrm["b_drop_pct"]) / 2).mean())
    report.claim(
        "Two competing Reno flows have the same drop rate (Fig. 7).",
        f"the two flows' mean drop rates differ by {drop_gap:.2f} percentage points on average over the CBR rates, "
        f"against an average drop rate of {drop_level:.2f} % (holds within a quarter of it)",
        drop_gap <= 0.25 * drop_level,
    )
    rn = e2[(e2["pair"] == "reno-newreno") & (e2["cbr_mbps"] < 10)]
    nr_more = int((rn["b_mbps"] > rn["a_mbps"]).sum())
    nr_share = float((rn["b_mbps"] / (rn["a_mbps"] + rn["b_mbps"])).mean())
    report.claim(
        "Against Reno, New-Reno uses more than its fair share of the bandwidth (Fig. 8).",
        f"NewReno out-sends Reno at {nr_more}/{len(rn)} CBR rates; its mean share is {100 * nr_share:.1f} %",
        nr_more > len(rn) / 2 and nr_share > 0.5,
    )

    # ----- claims: experiment 3 -------------------------------------------------------------------------
    def E3(v: str, q: str, m: str) -> float:
        return float(e3[(e3["variant"] == v) & (e3["queue"] == q)][m].iloc[0])

    more = all(E3(v, "red", "tcp_drops_after_cbr") > E3(v, "droptail", "tcp_drops_after_cbr") for v in ("reno", "sack"))
    pap = paper["exp3"]["sack_tcp_drops_after_cbr"]
    report.claim(
        f"RED causes more TCP drops than Drop Tail after the CBR flow starts (SACK: {pap['red']} with RED, "
        f"{pap['droptail']} with Drop Tail).",
        "mean TCP drops after 5 s: "
        + "; ".join(f"{VARIANT_LABELS[v]} RED {E3(v, 'red', 'tcp_drops_after_cbr'):.1f}, Drop Tail {E3(v, 'droptail', 'tcp_drops_after_cbr'):.1f}" for v in ("reno", "sack")),
        more,
    )
    lat_better = all(E3(v, "droptail", "rtt_after_cbr_ms") < E3(v, "red", "rtt_after_cbr_ms") for v in ("reno", "sack"))
    report.claim(
        "Latency with Drop Tail is slightly better than with RED (§3b).",
        "mean RTT after 5 s: "
        + "; ".join(f"{VARIANT_LABELS[v]} Drop Tail {E3(v, 'droptail', 'rtt_after_cbr_ms'):.1f} ms, RED {E3(v, 'red', 'rtt_after_cbr_ms'):.1f} ms" for v in ("reno", "sack")),
        lat_better,
    )
    tput_better = all(E3(v, "droptail", "tcp_mbps") > E3(v, "red", "tcp_mbps") for v in ("reno", "sack"))
    report.claim(
        "For the TCP variants tested, drop tail queuing performs better than RED (§4).",
        "TCP throughput over the run: "
        + "; ".join(f"{VARIANT_LABELS[v]} Drop Tail {E3(v, 'droptail', 'tcp_mbps'):.2f}, RED {E3(v, 'red', 'tcp_mbps'):.2f} Mb/s" for v in ("reno", "sack")),
        tput_better,
    )
    sack_more = all(E3("sack", q, "tcp_drops_after_cbr") > E3("reno", q, "tcp_drops_after_cbr") for q in ("droptail", "red"))
    report.claim(
        "SACK has a higher throughput than Reno and, being faster, experiences more drops (§3b).",
        "TCP throughput "
        + ", ".join(f"{q}: SACK {E3('sack', q, 'tcp_mbps'):.2f} vs Reno {E3('reno', q, 'tcp_mbps'):.2f} Mb/s" for q in ("droptail", "red"))
        + "; drops after 5 s "
        + ", ".join(f"{q}: SACK {E3('sack', q, 'tcp_drops_after_cbr'):.1f} vs Reno {E3('reno', q, 'tcp_drops_after_cbr'):.1f}" for q in ("droptail", "red")),
        sack_more and all(E3("sack", q, "tcp_mbps") > E3("reno", q, "tcp_mbps") for q in ("droptail", "red")),
    )
    dips = []
    for (v, q), val in series3.items():
        t, tcp = val["time_s"], val["tcp_bps"]
        dip = tcp[(t >= EXP3_CBR_START_S) & (t < EXP3_CBR_START_S + 2)].min()
        later = tcp[t >= EXP3_CBR_START_S + 3].mean()
        dips.append(dip / later if later > 0 else math.nan)
    report.claim(
        "Both TCP Reno and TCP SACK drop to (nearly) zero throughput when the CBR flow starts, then quickly bounce "
        "back to use what the CBR flow leaves (Figs. 9-10).",
        f"lowest 0.5 s goodput in the 2 s after the CBR start: {100 * min(dips):.0f}-{100 * max(dips):.0f} % of the "
        "flow's mean goodput from 3 s after the start on (seed 1; holds below 50 %)",
        max(dips) <= 0.5,
    )

    # ----- setup, figures, tables ------------------------------------------------------------------------
    report.heading("Setup")
    report.note(
        "Chain N1-N2-N3-N4-N5-N6 of 10 Mb/s, 10 ms links with 50-packet DropTail queues (renolab's "
        "`topology.chain(6, ...)`); CBR/UDP N2 -> N3 with 1000-byte packets; TCP N1 -> N4 (propagation RTT 60 ms). "
        f"ns-2 defaults (`ns2` profile) except a {WINDOW}-segment receiver window (ns-2's 20 would cap TCP at "
        f"2.7 Mb/s here). Runs of {duration:g} s, {reps} seeds per point, means shown.\n\n"
        "- Latency: the paper does not define it; we show each flow's mean one-way delay of its delivered data "
        "packets (renolab's `mean_latency_s`) and, for the ~80 ms statement, the mean RTT sample.\n"
        "- The captions of the paper's Figs. 3 and 4 contradict its text; we follow the captions (Fig. 3 latency, "
        "Fig. 4 packet drops).\n"
        "- Experiment 2 runs the second TCP flow over the same path as the first (N1 -> N4); the paper names no "
        "endpoints for it. Jain's index is computed over the two TCP flows' throughputs "
        "(`renolab.metrics.jain_index`).\n"
        f"- Experiment 3: CBR of {EXP3_CBR_MBPS:g} Mb/s from {EXP3_CBR_START_S:g} s (the rate is not given), 20 s runs, "
        f"{exp3_reps} seeds (repeated with ns-2's default 20-segment window, Table R3); RED with ns-2.35's defaults (limit 50, thresholds from a 5 ms target delay, max_p 0.1, "
        "gentle) on every link."
    )
    for v in VARIANTS:
        report.scenario(f"exp1-{v}-cbr5", experiment1(v, 5.0, duration_s=duration))
    for p in PAIRS:
        report.scenario(f"exp2-{p[0]}-{p[1]}-cbr5", experiment2(p, 5.0, duration_s=duration))
    for v in ("reno", "sack"):
        for q in ("droptail", "red"):
            report.scenario(f"exp3-{v}-{q}", experiment3(v, q))

    report.heading("Experiment 1: TCP against a CBR flow of rising rate")
    report.figure(fig_exp1(e1, "throughput_mbps", "TCP throughput (Mb/s)"), "Fig. 2", "TCP variant throughput vs CBR rate")
    report.figure(fig_exp1(e1, "latency_ms", "mean one-way latency (ms)"), "Fig. 3", "TCP variant latency vs CBR rate")
    report.figure(fig_exp1(e1, "drop_rate_pct", "packets dropped (%)"), "Fig. 4", "TCP variant packet drops vs CBR rate")
    wide = e1.pivot(index="cbr_mbps", columns="variant", values=["throughput_mbps", "latency_ms", "drop_rate_pct"])
    wide.columns = [f"renolab_{v}_{m}" for m, v in wide.columns]
    report.table(wide.reset_index(), "Table R1", "Experiment 1: mean throughput, latency and drop rate per variant and CBR rate (the paper gives only graphs)")

    report.heading("Experiment 2: fairness between pairs of variants")
    report.figure(fig_pair(e2, "vegas-vegas", "mbps", "throughput (Mb/s)"), "Fig. 5", "Vegas-Vegas throughput")
    report.figure(fig_pair(e2, "reno-reno", "mbps", "throughput (Mb/s)", runs2), "Fig. 6", "Reno-Reno throughput")
    report.figure(fig_pair(e2, "reno-reno", "drop_pct", "packets dropped (%)"), "Fig. 7", "Reno-Reno packet drops")
    report.figure(fig_pair(e2, "reno-newreno", "mbps", "throughput (Mb/s)"), "Fig. 8", "Reno-NewReno throughput")
    report.figure(fig_newreno_vegas(e2), "Fig. R1", "NewReno-Vegas throughput and latency (the paper describes it in §3b without a figure)")
    report.figure(fig_jain(e2), "Fig. R2", "Jain's fairness index of each pair vs CBR rate")
    t2 = e2.copy()
    t2.columns = [c if c in ("pair", "cbr_mbps") else f"renolab_{c}" for c in t2.columns]
    report.table(t2, "Table R2", "Experiment 2: per-flow throughput, latency, drop rate and Jain's index (flow a is the first variant of the pair)")

    report.heading("Experiment 3: Drop Tail vs RED")
    report.figure(fig_exp3(series3, "reno"), "Fig. 9", "TCP Reno vs UDP throughput over time (seed 1)")
    report.figure(fig_exp3(series3, "sack"), "Fig. 10", "TCP SACK vs UDP throughput over time (seed 1)")
    t3 = e3_all.rename(columns={c: f"renolab_{c}" for c in e3_all.columns if c not in ("variant", "queue", "window")})
    t3["paper_tcp_drops_after_cbr"] = [
        float(pap[q]) if v == "sack" else math.nan for v, q in zip(t3["variant"], t3["queue"])
    ]
    report.table(
        t3,
        "Table R3",
        f"Experiment 3: means over {exp3_reps} seeds, with our {WINDOW}-segment window and with ns-2's default of "
        f"{NS2_WINDOW}; the paper gives SACK's TCP drops after the CBR start",
    )
    small = e3_all[e3_all["window"] == NS2_WINDOW]

    def red_more(frame: pd.DataFrame) -> str:
        verdicts = []
        for v in ("reno", "sack"):
            d = frame[frame["variant"] == v].set_index("queue")["tcp_drops_after_cbr"]
            verdicts.append(f"{VARIANT_LABELS[v]} {'more' if d['red'] > d['droptail'] else 'fewer'} with RED")
        return ", ".join(verdicts)

    report.note(
        f"TCP drops after the CBR start (15 s): with a {WINDOW}-segment window "
        + ", ".join(f"{VARIANT_LABELS[r.variant]}/{r.queue} {r.tcp_drops_after_cbr:.0f}" for r in e3.itertuples())
        + f" ({red_more(e3)}); with ns-2's default window of {NS2_WINDOW} segments "
        + ", ".join(f"{VARIANT_LABELS[r.variant]}/{r.queue} {r.tcp_drops_after_cbr:.0f}" for r in small.itertuples())
        + f" ({red_more(small)}). The paper counts {pap['droptail']} (Drop Tail) and {pap['red']} (RED) for SACK. "
        "A 20-segment flow fits in the 50-packet Drop Tail queue beside the CBR flow and is never dropped there, "
        "while RED drops early from a short average queue; a large-window flow overflows Drop Tail repeatedly."
    )
    report.note(
        "Where renolab departs from the paper and why: RED keeps the average queue short, so with RED the TCP flow "
        "sees early drops but shorter queues and RTTs; the paper's 'RED causes more drops' and 'Drop Tail has "
        "slightly better latency' are single ns-2 runs of unstated length, and its own authors call the RED "
        "result an anomaly. The drop counts depend on how long the run lasts after the CBR start and on the RED "
        "parameters, neither of which the paper gives."
    )

    report.meta["wall time"] = f"{time.perf_counter() - start:.1f} s"
    return report.write()


def _spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    rx = pd.Series(x).rank().to_numpy()
    ry = pd.Series(y).rank().to_numpy()
    return float(np.corrcoef(rx, ry)[0, 1])


def _mean_table(frame: pd.DataFrame, keys: list[str], metrics_: list[str]) -> pd.DataFrame:
    rows = []
    for key, group in frame.groupby(keys, sort=False):
        row = dict(zip(keys, key))
        for m in metrics_:
            row[m] = mean_ci(group[m])[0]
        rows.append(row)
    return pd.DataFrame(rows)
