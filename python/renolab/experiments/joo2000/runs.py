"""joo2000's runs: each run's first loss episode of the new flow, found in its worker
(how it was detected, the drops from the window, W, the new packets sent during recovery and
the burst after it), and the runs as one table."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from renolab.experiments.joo2000.grid import Run, run_scenario, sensitivity_plan, sensitivity_scenario
from renolab.experiments.joo2000.scenarios import NEW_FLOW
from renolab.experiments.runner import run_many


def first_episode(result: Any) -> dict[str, Any]:
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


def run_plan(plan: list[Run], workers: int | None) -> pd.DataFrame:
    """Run *plan*; one row per run: its parameters and its first episode (``new_per_rtt`` last)."""
    outputs = run_many([run_scenario(r) for r in plan], workers=workers, desc="joo2000", traces=("seq", "cwnd"),
                       reduce=first_episode, keep_traces=False)
    rows = []
    for (n, b, dl, p, s), o in zip(plan, outputs):
        v = dict(o.value)
        v.pop("new_per_rtt", None)
        rows.append({"n": n, "bandwidth_mbps": b, "delayed_ack": dl, "pwd": p, "seed": s, **v,
                     "new_per_rtt": o.value.get("new_per_rtt")})
    return pd.DataFrame(rows)


def run_sensitivity(workers: int | None) -> pd.DataFrame:
    """The runs with the longer bottleneck delay: n, seed, first-loss pattern and the window
    when the first dropped packet was sent."""
    splan = sensitivity_plan()
    souts = run_many(
        [sensitivity_scenario(n, s) for n, s in splan],
        workers=workers, desc="joo2000 (round-trip sensitivity)", traces=("seq", "cwnd"), reduce=first_episode, keep_traces=False,
    )
    return pd.DataFrame([{"n": n, "seed": s, "pattern": o.value["pattern"], "cwnd_at_first_drop": o.value.get("cwnd_at_first_drop", math.nan)}
                         for (n, s), o in zip(splan, souts)])
