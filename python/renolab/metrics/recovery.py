"""joo2000's loss-recovery episodes and loss patterns, from the ``seq`` (and ``cwnd``) trace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from renolab.metrics._common import ACKED, DROPPED, RECEIVED, RETX, SENT, event_codes, flows_of, rows_by_flow

__all__ = ["DETECTIONS", "DROP_CLASSES", "EPISODE_COLUMNS", "loss_patterns", "recovery_episodes"]

#: Columns of :func:`recovery_episodes`, in order.
EPISODE_COLUMNS = (
    "flow",
    "episode",
    "detection",
    "start_s",
    "end_s",
    "duration_s",
    "una",
    "recover",
    "drops",
    "drop_class",
    "first_drop_seq",
    "first_drop_sent_s",
    "cwnd_at_first_drop",
    "w",
    "new_segments",
    "new_per_rtt",
    "burst",
    "retransmits",
    "timeouts",
    "drops_in_recovery",
)

#: Classes of :func:`recovery_episodes`' ``drop_class`` (joo2000 Figs. 2-3).
DROP_CLASSES = ("0", "1", "2", "3", ">3")
#: Detection methods of :func:`recovery_episodes`' ``detection``.
DETECTIONS = ("fast_retransmit", "rto")


def _drop_class(n: int) -> str:
    return ">3" if n > 3 else str(n)


def recovery_episodes(seq: pd.DataFrame, cwnd: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every loss-recovery episode of every flow, as joo2000 analyses them.

    An episode starts at a retransmission while no episode is open (the loss *detection*)
    and ends when a cumulative ACK covers ``recover``, the highest segment sent before the
    detection plus one.  Columns (see :data:`EPISODE_COLUMNS`):

    ``detection``
        ``fast_retransmit`` if the retransmission went out as a duplicate ACK for that
        segment arrived, else ``rto``.
    ``start_s``, ``end_s``, ``duration_s``
        detection time; arrival of the ACK that ended it (NaN if it never ended).
    ``una``, ``recover``
        first unacknowledged segment and highest sent + 1 at the detection.
    ``drops``, ``drop_class``
        segments sent before the detection (in ``[una, recover)``) that were dropped, and
        joo2000's class of that number: ``"1"``, ``"2"``, ``"3"``, ``">3"`` (``"0"`` for a
        spurious retransmission).
    ``first_drop_seq``, ``first_drop_sent_s``, ``cwnd_at_first_drop``
        the first of those dropped segments to be sent, when it was sent, and cwnd then.
    ``w``
        joo2000's W (Table 1): the ssthresh set at the detection (the window at the
        detection halved) -- needs *cwnd*; NaN without it.
    ``new_segments``, ``new_per_rtt``
        new segments (first transmissions) sent during the recovery, in total and between
        consecutive retransmissions (N_1, N_2, ...; one RTT-period each for NewReno).
    ``burst``
        new segments sent at the instant the recovery ended, after the ACK that ended it.
    ``retransmits``, ``timeouts``, ``drops_in_recovery``
        retransmissions during the episode (the detecting one included), how many of them
        went out without an ACK arriving at that instant (timer expiries), and packets sent
        during the episode that were dropped.

    *seq* is a ``seq`` trace (rows in event order); *cwnd* the ``cwnd`` trace of the same run.
    """
    results: list[dict[str, Any]] = []
    seq_rows = rows_by_flow(seq)
    cwnd_rows = rows_by_flow(cwnd) if cwnd is not None and len(cwnd) else {}
    for flow in flows_of(seq):
        part = seq.iloc[seq_rows[flow]]
        cw = cwnd.iloc[cwnd_rows[flow]] if cwnd is not None and flow in cwnd_rows else None
        results.extend(_flow_episodes(flow, part, cw))
    frame = pd.DataFrame(results, columns=list(EPISODE_COLUMNS))
    frame["detection"] = pd.Categorical(frame["detection"], categories=list(DETECTIONS))
    frame["drop_class"] = pd.Categorical(frame["drop_class"], categories=list(DROP_CLASSES))
    for column in ("episode", "una", "recover", "drops", "new_segments", "retransmits", "timeouts", "drops_in_recovery"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("first_drop_seq", "burst"):
        frame[column] = frame[column].astype("Int64")
    for column in ("start_s", "end_s", "duration_s", "first_drop_sent_s", "cwnd_at_first_drop", "w"):
        frame[column] = frame[column].astype(np.float64)
    return frame


def _flow_episodes(flow: str, part: pd.DataFrame, cwnd: pd.DataFrame | None) -> list[dict[str, Any]]:
    # The sender's view: arrivals at the receiver play no part in its recovery.
    part = part[event_codes(part["event"]) != RECEIVED]
    order = np.argsort(part["time_s"].to_numpy(dtype=np.float64), kind="stable")
    t = part["time_s"].to_numpy(dtype=np.float64)[order]
    c = event_codes(part["event"])[order]
    s = part["seq"].to_numpy(dtype=np.int64)[order]
    pos = np.arange(len(t))

    sent_pos = pos[c == SENT]
    sent_max = np.maximum.accumulate(s[sent_pos]) if len(sent_pos) else np.array([], dtype=np.int64)
    ack_pos = pos[c == ACKED]
    ack_t, ack_s = t[ack_pos], s[ack_pos]
    ack_cum = np.maximum.accumulate(ack_s) if len(ack_pos) else np.array([], dtype=np.int64)
    retx_pos = pos[c == RETX]

    def ack_at_same_instant(p: int, same_seq: bool) -> bool:
        """Whether an ACK (for segment s[p], if *same_seq*) arrived at t[p] just before row p."""
        lo, hi = np.searchsorted(ack_t, t[p], "left"), np.searchsorted(ack_t, t[p], "right")
        before = ack_pos[lo:hi] < p
        if same_seq:
            before &= ack_s[lo:hi] == s[p]
        return bool(np.any(before))

    def cum_ack_before(p: int) -> int:
        i = np.searchsorted(ack_pos, p) - 1
        return int(ack_cum[i]) if i >= 0 else 0

    # Episodes from the retransmissions.
    episodes: list[dict[str, Any]] = []
    for p in retx_pos.tolist():
        current = episodes[-1] if episodes else None
        if current is not None and (current["end_pos"] is None or p < current["end_pos"]):
            current["retx"].append(p)
            continue
        i = np.searchsorted(sent_pos, p) - 1
        recover = int(sent_max[i]) + 1 if i >= 0 else int(s[p]) + 1
        recover = max(recover, int(s[p]) + 1)
        una = cum_ack_before(p)
        j = int(np.searchsorted(ack_cum, recover, "left"))
        while j < len(ack_pos) and ack_pos[j] < p:
            j += 1
        end_pos = int(ack_pos[j]) if j < len(ack_pos) else None
        episodes.append({"det": p, "una": una, "recover": recover, "end_pos": end_pos, "retx": [p]})
    if not episodes:
        return []

    # Dropped copies: which transmission each drop belongs to.
    drop_pos = pos[c == DROPPED]
    tx_pos = pos[(c == SENT) | (c == RETX)]
    drop_tx = np.full(len(drop_pos), -1, dtype=np.int64)
    if len(drop_pos) and len(tx_pos):
        left = pd.DataFrame({"pos": drop_pos, "seq": s[drop_pos]})
        right = pd.DataFrame({"tx": tx_pos, "seq": s[tx_pos]})
        merged = pd.merge_asof(left, right, left_on="pos", right_on="tx", by="seq", direction="backward", allow_exact_matches=False)
        drop_tx = merged["tx"].fillna(-1).to_numpy(dtype=np.int64)
    det = np.array([e["det"] for e in episodes], dtype=np.int64)
    for e in episodes:
        e["drops"] = []
        e["drops_in"] = 0
    for d_seq, tx in zip(s[drop_pos].tolist(), drop_tx.tolist()):
        if tx < 0:
            continue
        k = int(np.searchsorted(det, tx, "right"))
        if k < len(episodes) and episodes[k]["una"] <= d_seq < episodes[k]["recover"]:
            episodes[k]["drops"].append((tx, d_seq))
        elif k > 0:
            e = episodes[k - 1]
            if e["end_pos"] is None or tx < e["end_pos"]:
                e["drops_in"] += 1

    cw_t = cw_c = cw_ss = None
    if cwnd is not None and len(cwnd):
        cw_order = np.argsort(cwnd["time_s"].to_numpy(dtype=np.float64), kind="stable")
        cw_t = cwnd["time_s"].to_numpy(dtype=np.float64)[cw_order]
        cw_c = cwnd["cwnd"].to_numpy(dtype=np.float64)[cw_order]
        cw_ss = cwnd["ssthresh"].to_numpy(dtype=np.float64)[cw_order]

    rows = []
    for number, e in enumerate(episodes):
        p, end_pos = e["det"], e["end_pos"]
        limit = end_pos if end_pos is not None else len(t)
        # Sends strictly between two rows a < b: sent_pos is sorted, so two binary searches.
        bounds = np.array([*e["retx"], limit], dtype=np.int64)
        counts = np.searchsorted(sent_pos, bounds[1:], "left") - np.searchsorted(sent_pos, bounds[:-1], "right")
        per_rtt = [int(n) for n in counts]
        new_segments = int(np.searchsorted(sent_pos, limit, "left") - np.searchsorted(sent_pos, p, "right"))
        burst = None
        if end_pos is not None:
            after = int(np.searchsorted(sent_pos, end_pos, "right"))
            same = int(np.searchsorted(t[sent_pos], t[end_pos], "right"))
            burst = max(0, same - after)
        drops = sorted(e["drops"])
        first_seq = first_sent = cwnd_first = None
        if drops:
            first_tx, first_seq = drops[0]
            first_sent = float(t[first_tx])
        w = None
        if cw_t is not None:
            k = int(np.searchsorted(cw_t, t[p], "left"))
            if k < len(cw_t):
                w = float(cw_ss[k])
            if first_sent is not None:
                k = int(np.searchsorted(cw_t, first_sent, "right")) - 1
                if k >= 0:
                    cwnd_first = float(cw_c[k])
        end_s = float(t[end_pos]) if end_pos is not None else np.nan
        fast = ack_at_same_instant(p, True)
        rows.append(
            {
                "flow": flow,
                "episode": number,
                "detection": "fast_retransmit" if fast else "rto",
                "start_s": float(t[p]),
                "end_s": end_s,
                "duration_s": end_s - float(t[p]),
                "una": e["una"],
                "recover": e["recover"],
                "drops": len(drops),
                "drop_class": _drop_class(len(drops)),
                "first_drop_seq": first_seq,
                "first_drop_sent_s": first_sent if first_sent is not None else np.nan,
                "cwnd_at_first_drop": cwnd_first if cwnd_first is not None else np.nan,
                "w": w if w is not None else np.nan,
                "new_segments": new_segments,
                "new_per_rtt": per_rtt,
                "burst": burst,
                "retransmits": len(e["retx"]),
                "timeouts": int(not fast) + sum(1 for q in e["retx"][1:] if not ack_at_same_instant(q, False)),
                "drops_in_recovery": e["drops_in"],
            }
        )
    return rows


def loss_patterns(episodes: pd.DataFrame, *, first_only: bool = True) -> pd.DataFrame:
    """joo2000 Figs. 2-3: how losses were detected -- ``rto``, or by fast retransmit with
    ``1``, ``2``, ``3`` or ``>3`` drops.  *first_only* keeps each flow's first episode (the
    start-up transition the paper studies).  Columns ``pattern, count, fraction``."""
    frame = episodes
    if first_only and len(frame):
        frame = frame.sort_values(["flow", "episode"]).groupby("flow", observed=True, sort=False).head(1)
    detection = frame["detection"].astype(str).to_numpy()
    drop_class = frame["drop_class"].astype(str).to_numpy()
    pattern = np.where(detection == "rto", "rto", drop_class)
    names = ["rto", "1", "2", "3", ">3"]
    counts = [int(np.count_nonzero(pattern == name)) for name in names]
    total = sum(counts)
    return pd.DataFrame(
        {"pattern": names, "count": counts, "fraction": [n / total if total else np.nan for n in counts]}
    )
