"""Per-packet queueing delay from the ``hops`` trace.

The trace records, per link direction, when a packet is offered to the output queue
(``enqueue``, ns-2's ``+``) and when its transmission starts (``dequeue``, ``-``); the time
between the two is the packet's sojourn in the queue, its queueing delay (transmission and
propagation excluded).  A packet is known by its ``uid`` while it is alive, and the core
reuses a uid only after the packet is gone, so on one link direction each ``enqueue`` is
paired with the next event of the same uid: a ``dequeue`` gives a delay, a ``drop`` none
(the packet never left the queue).  The ``queue`` trace cannot give this: it records how
many packets wait, not which, and not a packet that finds the queue empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["queue_delays"]


def queue_delays(hops: pd.DataFrame, *, links: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per packet that left a queue: ``link, flow, kind, seq, enqueued_s,
    dequeued_s, delay_s`` (delay = dequeued - enqueued), in order of dequeue time; only
    the link directions in *links* when given."""
    columns = ["link", "flow", "kind", "seq", "enqueued_s", "dequeued_s", "delay_s"]
    event = hops["event"].astype(str).to_numpy()
    keep = np.isin(event, ("enqueue", "dequeue", "drop"))
    link = hops["link"].astype(str).to_numpy()
    if links is not None:
        keep &= np.isin(link, list(links))
    rows = np.flatnonzero(keep)
    if not len(rows):
        return pd.DataFrame({c: [] for c in columns})
    uid = hops["uid"].to_numpy(dtype=np.int64)
    link_codes, _ = pd.factorize(link[rows])
    # By link direction, then packet, then the trace's own order (time never decreases).
    order = rows[np.lexsort((np.arange(len(rows)), uid[rows], link_codes))]
    same = (link[order][1:] == link[order][:-1]) & (uid[order][1:] == uid[order][:-1])
    paired = same & (event[order][:-1] == "enqueue") & (event[order][1:] == "dequeue")
    enq, deq = order[:-1][paired], order[1:][paired]
    time = hops["time_s"].to_numpy(dtype=np.float64)
    out = pd.DataFrame(
        {
            "link": link[deq],
            "flow": hops["flow"].astype(str).to_numpy()[deq],
            "kind": hops["kind"].astype(str).to_numpy()[deq],
            "seq": hops["seq"].to_numpy(dtype=np.int64)[deq],
            "enqueued_s": time[enq],
            "dequeued_s": time[deq],
        }
    )
    out["delay_s"] = out["dequeued_s"] - out["enqueued_s"]
    return out.sort_values(["dequeued_s"], kind="stable").reset_index(drop=True)[columns]
