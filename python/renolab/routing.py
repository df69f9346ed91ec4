"""Routes and bottlenecks: which link directions a flow crosses, and the slowest of them.

Plain Python over a links table (a DataFrame or a dict of lists), so that building a
:class:`renolab.Result` needs no pandas.  The route is the core's: fewest hops, ties broken
by link order.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Optional

__all__ = ["bottleneck_rows", "flow_path"]


class _Routes:
    """The routes of one links table, searched once per destination.

    As the core's routing does (``crates/renolab-core/src/net/routing.rs``), stub nodes (one
    direction out and one in, to and from one neighbour) are left out of the searches: a stub
    leaves by its one direction, and a route to it is the route to its neighbour and then the
    last hop, so a 1000-flow dumbbell takes one search, not one per flow.  The routes are
    those of a search from every destination (``tests/python/test_metrics.py`` compares them).
    """

    def __init__(self, links: Any) -> None:
        self.pairs = list(zip([str(x) for x in links["from"]], [str(x) for x in links["to"]]))
        self.incoming: dict[str, list[int]] = {}
        outgoing: dict[str, list[int]] = {}
        for i, (src, to) in enumerate(self.pairs):
            self.incoming.setdefault(to, []).append(i)
            outgoing.setdefault(src, []).append(i)
        candidates: dict[str, tuple[str, int, int]] = {}
        for node, out in outgoing.items():
            into = self.incoming.get(node, [])
            if len(out) == 1 and len(into) == 1:
                neighbour = self.pairs[out[0]][1]
                if neighbour != node and self.pairs[into[0]][0] == neighbour:
                    candidates[node] = (neighbour, out[0], into[0])
        # Two nodes joined only to each other are no stubs.
        self.stubs = {v: s for v, s in candidates.items() if s[0] not in candidates}
        self._next: dict[str, dict[str, int]] = {}

    def _next_hops(self, dst: str) -> dict[str, int]:
        """The direction each node takes towards *dst*: a breadth-first search from it over
        the reversed graph (the core's order)."""
        found = self._next.get(dst)
        if found is None:
            found = {}
            seen = {dst}
            frontier = deque([dst])
            while frontier:
                v = frontier.popleft()
                for d in self.incoming.get(v, ()):
                    u = self.pairs[d][0]
                    if u not in seen:
                        seen.add(u)
                        found[u] = d
                        frontier.append(u)
            self._next[dst] = found
        return found

    def path(self, src: str, dst: str) -> list[int]:
        if src == dst:
            return []
        target, tail = dst, []
        stub: Optional[tuple[str, int, int]] = self.stubs.get(dst)
        if stub is not None:
            target, tail = stub[0], [stub[2]]
        node, head = src, []
        stub = self.stubs.get(src)
        if stub is not None and src != target:
            node, head = stub[0], [stub[1]]
        middle: list[int] = []
        if node != target:
            next_hop = self._next_hops(target)
            while node != target and node in next_hop:
                d = next_hop[node]
                middle.append(d)
                node = self.pairs[d][1]
                if len(middle) > len(self.pairs):
                    break
            if node != target:
                return []
        return head + middle + tail


def flow_path(links: Any, src: str, dst: str) -> list[int]:
    """Row numbers of *links* (one row per link direction, columns ``from`` and ``to``; a
    DataFrame or a dict of lists) on the route from *src* to *dst*: fewest hops, ties broken
    by link order, exactly as the core routes.  Empty if *src* == *dst* or there is no route."""
    return _Routes(links).path(str(src), str(dst))


def bottleneck_rows(flows: Any, links: Any) -> list[tuple[str, Any, float, list[str]]]:
    """Per flow of *flows* (columns ``flow``, ``src``, ``dst``): ``(flow, bottleneck link
    direction or None, its rate_bps or NaN, [link directions of the path])``.  The
    bottleneck is the slowest link direction on the data path, the first of equals; *links*
    needs ``link``, ``from``, ``to`` and ``rate_bps``."""
    names = [str(x) for x in links["link"]]
    rates = [float(x) for x in links["rate_bps"]] if "rate_bps" in links else [float("nan")] * len(names)
    routes = _Routes(links)
    rows = []
    for flow, src, dst in zip(flows["flow"], flows["src"], flows["dst"]):
        path = routes.path(str(src), str(dst))
        known = [i for i in path if not math.isnan(rates[i])]
        if known:
            slowest = min(known, key=lambda i: rates[i])  # the first of equals
            rows.append((str(flow), names[slowest], rates[slowest], [names[i] for i in path]))
        else:
            rows.append((str(flow), None, float("nan"), [names[i] for i in path]))
    return rows
