"""Routes and bottlenecks: which link directions a flow crosses, and the slowest of them.

Plain Python over a links table (a DataFrame or a dict of lists), so that building a
:class:`renolab.Result` needs no pandas.  The route is the core's: fewest hops, ties broken
by link order.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

__all__ = ["bottleneck_rows", "flow_path"]


def flow_path(links: Any, src: str, dst: str) -> list[int]:
    """Row numbers of *links* (one row per link direction, columns ``from`` and ``to``; a
    DataFrame or a dict of lists) on the route from *src* to *dst*: fewest hops, ties broken
    by link order, exactly as the core routes.  Empty if *src* == *dst* or there is no route."""
    pairs = list(zip([str(x) for x in links["from"]], [str(x) for x in links["to"]]))
    incoming: dict[str, list[int]] = {}
    for i, (_, to) in enumerate(pairs):
        incoming.setdefault(to, []).append(i)
    # Breadth-first search from the destination over the reversed graph (the core's order).
    next_hop: dict[str, int] = {}
    seen = {dst}
    frontier = deque([dst])
    while frontier:
        v = frontier.popleft()
        for d in incoming.get(v, ()):
            u = pairs[d][0]
            if u not in seen:
                seen.add(u)
                next_hop[u] = d
                frontier.append(u)
    path: list[int] = []
    node = src
    while node != dst and node in next_hop:
        d = next_hop[node]
        path.append(d)
        node = pairs[d][1]
        if len(path) > len(pairs):
            break
    return path if node == dst else []


def bottleneck_rows(flows: Any, links: Any) -> list[tuple[str, Any, float, list[str]]]:
    """Per flow of *flows* (columns ``flow``, ``src``, ``dst``): ``(flow, bottleneck link
    direction or None, its rate_bps or NaN, [link directions of the path])``.  The
    bottleneck is the slowest link direction on the data path, the first of equals; *links*
    needs ``link``, ``from``, ``to`` and ``rate_bps``."""
    names = [str(x) for x in links["link"]]
    rates = [float(x) for x in links["rate_bps"]] if "rate_bps" in links else [float("nan")] * len(names)
    rows = []
    for flow, src, dst in zip(flows["flow"], flows["src"], flows["dst"]):
        path = flow_path(links, str(src), str(dst))
        known = [i for i in path if not math.isnan(rates[i])]
        if known:
            slowest = min(known, key=lambda i: rates[i])  # the first of equals
            rows.append((str(flow), names[slowest], rates[slowest], [names[i] for i in path]))
        else:
            rows.append((str(flow), None, float("nan"), [names[i] for i in path]))
    return rows
