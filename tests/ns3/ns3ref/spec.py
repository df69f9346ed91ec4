"""Reading a renolab scenario file (the subset ns-3 can reproduce) and the Wi-Fi file.

This reads the TOML itself instead of asking renolab: the harness must run where only ns-3
is installed, and a reference should not inherit the reading of the simulator it checks.
Units follow renolab's (``crates/renolab-core/src/units.rs``, the table of docs/scenario.md):
case-sensitive, decimal rate prefixes, ``b`` bits and ``B`` bytes, durations rounded to the
nanosecond, sizes in B/KB/MB/GB/KiB/MiB/GiB. ``tests/python/test_ns3_harness.py`` checks that
both read the same spellings the same way.

Every error is a :class:`SpecError` whose message starts with the field's path, like
renolab's (``link[2].queue.kind: ...``).
"""

from __future__ import annotations

import math
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Union

#: IPv4 (20) + TCP (20) + timestamp option (12) bytes: the header of every ns-3 segment
#: with timestamps on, and renolab's linux profile's ``header_bytes``.
TCP_IP_TS_HEADER_BYTES = 52
#: Payload bytes per segment: a 1500-byte MTU less those headers (renolab's linux profile).
DEFAULT_MSS = 1448
#: renolab's default DropTail limit (docs/scenario.md).
DEFAULT_QUEUE_LIMIT = 100
#: renolab's default safety stop without a duration.
DEFAULT_TIME_LIMIT_NS = 3600 * 10**9

#: renolab variant -> ns-3 TCP congestion control (``--map`` overrides any of them).
DEFAULT_VARIANT_MAP = {
    "reno": "ns3::TcpLinuxReno",
    "newreno": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "bbr": "ns3::TcpBbr",
    "dctcp": "ns3::TcpDctcp",
}


class SpecError(ValueError):
    """A scenario the harness cannot read or ns-3 cannot reproduce; the message names the field."""


# ----- units --------------------------------------------------------------------------------------

_NUMBER = re.compile(r"^\s*([0-9.eE+-]+?)\s*([A-Za-zµ/]*)\s*$")
#: Every rate spelling renolab reads, bits per second in one: ``b`` bits, ``B`` bytes (x8).
_RATE_UNITS = {
    **{unit: 1.0 for unit in ("bps", "bit/s", "b/s", "bit")},
    **{unit: 1e3 for unit in ("kbps", "Kbps", "kbit/s", "Kbit/s", "kb/s", "Kb/s", "kbit", "Kbit")},
    **{unit: 1e6 for unit in ("Mbps", "Mbit/s", "Mb/s", "Mbit")},
    **{unit: 1e9 for unit in ("Gbps", "Gbit/s", "Gb/s", "Gbit")},
    **{unit: 8.0 for unit in ("Bps", "B/s")},
    **{unit: 8e3 for unit in ("kBps", "KBps", "kB/s", "KB/s")},
    **{unit: 8e6 for unit in ("MBps", "MB/s")},
    **{unit: 8e9 for unit in ("GBps", "GB/s")},
}
_RATE_HINT = ('use e.g. "10Mbps" (bits/s: bps, kbps, Mbps, Gbps, or Mbit, Mbit/s, Mb/s; '
              'bytes/s: Bps, KBps, MBps, GBps, or MB/s)')
_DURATION_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}
_SIZE_UNITS = {"": 1.0, "B": 1.0, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024.0,
               "MiB": 1024.0**2, "GiB": 1024.0**3}


def _shown(value: Any) -> str:
    """A value as renolab's messages quote it: strings in double quotes."""
    return '"' + value + '"' if isinstance(value, str) else repr(value)


def _quantity(text: Any, units: Mapping[str, float], path: str, what: str, hint: str) -> int:
    bad = f"{path}: {_shown(text)} is not a {what}; {hint}"
    if isinstance(text, bool) or not isinstance(text, str):
        raise SpecError(bad)
    m = _NUMBER.match(text)
    if not m or m.group(2) not in units:
        raise SpecError(bad)
    try:
        value = float(m.group(1)) * units[m.group(2)]
    except ValueError:
        raise SpecError(bad) from None
    if not math.isfinite(value) or value < 0:
        raise SpecError(f"{path}: {_shown(text)} must be a non-negative {what}; {hint}")
    return round(value)


def _case_only(text: Any, path: str) -> None:
    """Refuses a rate whose unit is renolab's only when case is ignored (``mbps``)."""
    m = _NUMBER.match(text) if isinstance(text, str) else None
    if not m or m.group(2) in _RATE_UNITS:
        return
    alike = [u for u in _RATE_UNITS if u.lower() == m.group(2).lower()]
    if alike:
        raise SpecError(f"{path}: {_shown(text)}: units are case-sensitive; renolab reads "
                        + " or ".join(f'"{u}"' for u in alike))


def rate_bps(text: Any, path: str) -> int:
    """Bits per second of ``"10Mbps"`` or ``"50MBps"`` (decimal prefixes, as renolab and ns-2)."""
    _case_only(text, path)
    bps = _quantity(text, _RATE_UNITS, path, "rate", _RATE_HINT)
    if bps == 0:
        raise SpecError(f'{path}: {_shown(text)}: a rate must be positive; use e.g. "10Mbps"')
    return bps


def duration_ns(text: Any, path: str) -> int:
    """Nanoseconds of ``"48ms"`` (rounded to the nanosecond)."""
    return _quantity(text, _DURATION_UNITS, path, "duration",
                     'use e.g. "10ms" (units: ns, us, ms, s, min)')


def size_bytes(value: Any, path: str) -> int:
    """Bytes of a whole number or of ``"8MiB"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise SpecError(f"{path}: {value} must be a non-negative size")
        return value
    return _quantity(value, _SIZE_UNITS, path, "size",
                     'use a number of bytes or e.g. "8MiB" (units: B, KB, MB, GB, KiB, MiB, GiB)')


# ----- the scenario model -------------------------------------------------------------------------


@dataclass(frozen=True)
class Queue:
    """One direction's output queue, in renolab's terms (packets waiting)."""

    kind: str  # "droptail" or "red"
    #: Packets that may wait, not counting the one being serialised.
    waiting: int
    # RED only (renolab's names; thresholds in packets waiting)
    min_th: float = 0.0
    max_th: float = 0.0
    max_p: float = 0.1
    w_q: float = -1.0
    gentle: bool = True
    wait: bool = True
    ecn: bool = False


@dataclass(frozen=True)
class Loss:
    """A random loss model of a direction: ``uniform`` (per packet) or ``ber`` (per bit)."""

    kind: str
    value: float


@dataclass(frozen=True)
class Direction:
    rate_bps: int
    delay_ns: int
    queue: Queue
    loss: Optional[Loss] = None


@dataclass(frozen=True)
class Link:
    name: str
    a: str
    b: str
    forward: Direction  # a -> b
    reverse: Direction  # b -> a


@dataclass(frozen=True)
class Flow:
    name: str
    variant: str
    src: str
    dst: str
    #: Bytes to transfer; None for an unlimited transfer.
    bytes: Optional[int]
    #: Start time in ns, or a (low, high) range drawn uniformly per run.
    start: Union[int, tuple[int, int]]
    stop_ns: Optional[int] = None


@dataclass(frozen=True)
class Simulation:
    seed: int = 1
    duration_ns: Optional[int] = None
    time_limit_ns: int = DEFAULT_TIME_LIMIT_NS
    profile: str = "rfc"

    @property
    def counts_transmitting(self) -> bool:
        """renolab's default for DropTail's ``counts_transmitting``: only the ns2 profile's."""
        return self.profile == "ns2"


@dataclass(frozen=True)
class WifiSettings:
    """One 802.11b station and its access point (see the README's Wi-Fi file)."""

    data_rate_bps: int = 11_000_000
    basic_rate_bps: int = 1_000_000
    rts_cts: bool = False
    distance_m: float = 5.0
    queue_limit: int = DEFAULT_QUEUE_LIMIT
    retry_limit: int = 7
    #: Frame errors: ("ber", bit error rate) or ("uniform", frame error rate), or None.
    error: Optional[Loss] = None
    #: Frames the errors apply to: "data" or "all".
    error_applies_to: str = "data"


@dataclass
class Scenario:
    """A scenario as the harness runs it."""

    source: str
    simulation: Simulation
    flows: list[Flow]
    links: list[Link] = field(default_factory=list)
    wifi: Optional[WifiSettings] = None
    mss: int = DEFAULT_MSS
    #: Keys read but not reproduced in ns-3, with why (written to summary.json).
    ignored: list[str] = field(default_factory=list)

    @property
    def nodes(self) -> list[str]:
        """Node names in order of first appearance."""
        if self.wifi is not None:
            return list(WIFI_NODES)
        seen: dict[str, None] = {}
        for link in self.links:
            seen.setdefault(link.a)
            seen.setdefault(link.b)
        return list(seen)


#: Node names of a Wi-Fi scenario.
WIFI_NODES = ("sta", "ap")


# ----- reading -------------------------------------------------------------------------------------


class _Table:
    """A TOML table with its path, for messages."""

    def __init__(self, data: Any, path: str):
        if not isinstance(data, dict):
            raise SpecError(f"{path}: must be a table")
        self.data = data
        self.path = path

    def field(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def only(self, allowed: set[str], ignored: Mapping[str, str], notes: list[str]) -> None:
        for key in self.data:
            if key in ignored:
                notes.append(f"{self.field(key)}: {ignored[key]}")
            elif key not in allowed:
                names = ", ".join(sorted(allowed | set(ignored)))
                raise SpecError(f"{self.field(key)}: unknown key; allowed: {names}")

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def text(self, key: str, default: Optional[str] = None) -> Optional[str]:
        v = self.data.get(key, default)
        if v is not None and not isinstance(v, str):
            raise SpecError(f"{self.field(key)}: must be a string")
        return v

    def flag(self, key: str, default: bool) -> bool:
        v = self.data.get(key, default)
        if not isinstance(v, bool):
            raise SpecError(f"{self.field(key)}: must be true or false")
        return v

    def whole(self, key: str, default: Optional[int], low: int = 0) -> Optional[int]:
        v = self.data.get(key, default)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise SpecError(f"{self.field(key)}: must be a whole number >= {low}")
        return v

    def number(self, key: str, default: float, low: float, high: float) -> float:
        v = self.data.get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
            raise SpecError(f"{self.field(key)}: must be a number in [{low}, {high}]")
        return float(v)

    def choice(self, key: str, allowed: tuple[str, ...], default: Optional[str] = None) -> str:
        v = self.data.get(key, default)
        if v not in allowed:
            shown = f'"{v}"' if isinstance(v, str) else repr(v)
            if v is None:
                raise SpecError(f"{self.field(key)}: is required; allowed: {', '.join(allowed)}")
            raise SpecError(f"{self.field(key)}: unknown value {shown}; allowed: {', '.join(allowed)}")
        return v

    def table(self, key: str) -> Optional[_Table]:
        v = self.data.get(key)
        return None if v is None else _Table(v, self.field(key))


def load(path: Union[str, Path]) -> Scenario:
    """Read a scenario file: a renolab dumbbell scenario or the harness's Wi-Fi file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise SpecError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    return parse(data, source=str(path))


def parse(data: Mapping[str, Any], source: str = "<dict>") -> Scenario:
    """The scenario of a parsed TOML document."""
    root = _Table(dict(data), "")
    notes: list[str] = []
    root.only({"simulation", "link", "topology", "flow", "wifi"}, {}, notes)
    simulation = _simulation(root.table("simulation") or _Table({}, "simulation"), notes)
    wifi_table = root.table("wifi")
    if wifi_table is not None:
        if "link" in root.data or "topology" in root.data:
            raise SpecError("wifi: a Wi-Fi scenario has no [[link]] or [[topology]] tables")
        wifi = _wifi(wifi_table, notes)
        links: list[Link] = []
        nodes = set(WIFI_NODES)
    else:
        wifi = None
        links = _links(root, simulation, notes)
        if not links:
            raise SpecError("link: a scenario needs at least one [[link]] or [[topology]]")
        nodes = {n for link in links for n in (link.a, link.b)}
    flows, mss = _flows(root, nodes, simulation, notes)
    return Scenario(source=source, simulation=simulation, flows=flows, links=links, wifi=wifi,
                    mss=mss, ignored=notes)


def _simulation(t: _Table, notes: list[str]) -> Simulation:
    t.only({"seed", "duration", "time_limit", "profile"},
           {"max_events": "renolab's own limit", "max_memory": "renolab's own limit"}, notes)
    profile = t.get("profile", "rfc")
    if profile != "linux":
        notes.append(f'simulation.profile = "{profile}": ns-3 runs its Linux-like settings (README); '
                     'compare with renolab\'s "linux" profile')
    seed = t.whole("seed", 1, low=0)
    duration = t.get("duration")
    return Simulation(
        seed=seed,
        profile=str(profile),
        duration_ns=None if duration is None else duration_ns(duration, t.field("duration")),
        time_limit_ns=duration_ns(t.get("time_limit", "3600s"), t.field("time_limit")),
    )


def _links(root: _Table, sim: Simulation, notes: list[str]) -> list[Link]:
    raw: list[tuple[dict[str, Any], str]] = []
    for i, topo in enumerate(_array(root, "topology")):
        raw.extend(_expand_topology(_Table(topo, f"topology[{i}]")))
    raw.extend((t, f"link[{i}]") for i, t in enumerate(_array(root, "link")))
    links = []
    names: set[str] = set()
    for data, path in raw:
        link = _link(_Table(data, path), sim, notes)
        if link.name in names:
            raise SpecError(f"{path}.name: duplicate link name {link.name!r}")
        names.add(link.name)
        links.append(link)
    return links


def _array(root: _Table, key: str) -> list[Any]:
    v = root.get(key, [])
    if not isinstance(v, list):
        raise SpecError(f"{key}: must be an array of tables ([[{key}]])")
    return v


def _expand_topology(t: _Table) -> list[tuple[dict[str, Any], str]]:
    """renolab's [[topology]] helpers (crates/renolab-core/src/scenario/topology.rs)."""
    kind = t.choice("kind", ("dumbbell", "chain"))

    def settings(key: str) -> dict[str, Any]:
        v = t.get(key)
        if not isinstance(v, dict):
            raise SpecError(f"{t.field(key)}: is required: a table of link settings (rate, delay, queue, ...)")
        return {k: val for k, val in v.items() if k != "name"}

    out = []
    if kind == "dumbbell":
        t.only({"kind", "n", "access", "bottleneck", "left", "right", "sender_prefix",
                "receiver_prefix"}, {}, [])
        n = t.whole("n", None, low=1)
        if n is None:
            raise SpecError(f"{t.field('n')}: is required: the number of sender/receiver pairs")
        access, bottleneck = settings("access"), settings("bottleneck")
        left, right = t.text("left", "r1"), t.text("right", "r2")
        sp, rp = t.text("sender_prefix", "s"), t.text("receiver_prefix", "d")
        name = t.get("bottleneck", {}).get("name", "bottleneck")
        for i in range(1, n + 1):
            out.append(({"name": f"{sp}{i}-{left}", "from": f"{sp}{i}", "to": left, **access},
                        f"{t.path}.access"))
        out.append(({"name": name, "from": left, "to": right, **bottleneck}, f"{t.path}.bottleneck"))
        for i in range(1, n + 1):
            out.append(({"name": f"{right}-{rp}{i}", "from": right, "to": f"{rp}{i}", **access},
                        f"{t.path}.access"))
    else:
        t.only({"kind", "nodes", "link", "prefix"}, {}, [])
        n = t.whole("nodes", None, low=2)
        if n is None:
            raise SpecError(f"{t.field('nodes')}: is required: the number of nodes")
        link, p = settings("link"), t.text("prefix", "N")
        for i in range(1, n):
            out.append(({"name": f"{p}{i}-{p}{i + 1}", "from": f"{p}{i}", "to": f"{p}{i + 1}", **link},
                        f"{t.path}.link"))
    return out


def _link(t: _Table, sim: Simulation, notes: list[str]) -> Link:
    if "latency" in t.data:
        raise SpecError(f"{t.field('latency')}: extra latency is not reproduced by the ns-3 harness")
    t.only({"name", "from", "to", "rate", "delay", "queue", "loss", "reverse", "reorder"}, {}, notes)
    a, b = t.text("from"), t.text("to")
    if not a or not b:
        raise SpecError(f"{t.field('from' if not a else 'to')}: is required: a node name")
    if a == b:
        raise SpecError(f"{t.field('to')}: a link joins two different nodes")
    if t.get("reorder", False) is not False:
        raise SpecError(f"{t.field('reorder')}: ns-3's point-to-point links keep packet order; only false")
    if "rate" not in t.data:
        raise SpecError(f"{t.field('rate')}: is required")
    forward = _direction(t, sim)
    rev = t.table("reverse")
    if rev is None:
        reverse = forward
    else:
        if "latency" in rev.data:
            raise SpecError(f"{rev.field('latency')}: extra latency is not reproduced by the ns-3 harness")
        rev.only({"rate", "delay", "queue", "loss"}, {}, notes)
        merged = _Table({**{k: v for k, v in t.data.items() if k in ("rate", "delay", "queue", "loss")},
                         **rev.data}, rev.path)
        reverse = _direction(merged, sim)
        if reverse.delay_ns != forward.delay_ns:
            raise SpecError(f"{rev.field('delay')}: an ns-3 point-to-point channel has one delay for "
                            "both directions")
    return Link(name=t.text("name", f"{a}-{b}"), a=a, b=b, forward=forward, reverse=reverse)


def _direction(t: _Table, sim: Simulation) -> Direction:
    queue = _queue(t.table("queue") or _Table({}, t.field("queue")), sim.counts_transmitting)
    return Direction(rate_bps=rate_bps(t.get("rate"), t.field("rate")),
                     delay_ns=duration_ns(t.get("delay", "0s"), t.field("delay")),
                     queue=queue, loss=_loss(t))


_RED_KEYS = {"kind", "limit", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "byte_mode",
             "queue_in_bytes", "mean_pktsize", "target_delay", "ecn"}


def _queue(t: _Table, counts_default: bool) -> Queue:
    kind = t.choice("kind", ("droptail", "red"), "droptail")
    if "limit_bytes" in t.data:
        raise SpecError(f"{t.field('limit_bytes')}: the ns-3 harness takes queue limits in packets; use limit")
    if kind == "droptail":
        t.only({"kind", "limit", "counts_transmitting", "ecn_threshold"}, {}, [])
        limit = t.whole("limit", DEFAULT_QUEUE_LIMIT, low=1)
        if "ecn_threshold" in t.data:
            # DCTCP's step marking at K packets waiting is ns-3's RED with min_th = max_th =
            # K, w_q = 1 (the instantaneous queue) and ECN, as ns-3's dctcp-example does.
            k = t.number("ecn_threshold", 0, 1, limit)
            return Queue("red", limit, min_th=k, max_th=k, max_p=1.0, w_q=1.0, gentle=False, wait=False,
                         ecn=True)
        # renolab's limit counts the packet on the wire only when counts_transmitting is set
        # (ns-2's drop-tail.cc; by default only under the ns2 profile).
        counts = t.flag("counts_transmitting", counts_default)
        waiting = limit - 1 if counts else limit
        if waiting < 2:
            raise SpecError(f"{t.field('limit')}: the ns-3 harness needs room for at least 2 waiting "
                            "packets (one in the device, one in the queue disc)")
        return Queue("droptail", waiting)
    t.only(_RED_KEYS, {}, [])
    for key in ("queue_in_bytes", "byte_mode"):
        if t.flag(key, True):
            raise SpecError(f"{t.field(key)}: the ns-3 harness runs RED in packets; set "
                            "queue_in_bytes = false and byte_mode = false")
    for key in ("min_th", "max_th"):
        if key not in t.data:
            raise SpecError(f"{t.field(key)}: is required by the ns-3 harness (ns-3 and ns-2 choose "
                            "automatic thresholds differently)")
    limit = t.whole("limit", 50, low=2)
    min_th = t.number("min_th", 0, 0, limit)
    max_th = t.number("max_th", 0, min_th, limit)
    w_q = t.number("w_q", -1.0, -2.0, 1.0)
    if w_q < 0 and w_q not in (-1.0, -2.0):
        raise SpecError(f"{t.field('w_q')}: a weight in (0, 1] or one of ns-2's codes -1, 0, -2")
    return Queue("red", limit, min_th=min_th, max_th=max_th,
                 max_p=t.number("max_p", 0.1, 0.0, 1.0), w_q=w_q,
                 gentle=t.flag("gentle", True), wait=t.flag("wait", True), ecn=t.flag("ecn", False))


def _loss(t: _Table) -> Optional[Loss]:
    raw = t.get("loss")
    if raw is None:
        return None
    path = t.field("loss")
    if isinstance(raw, list):
        if len(raw) != 1:
            raise SpecError(f"{path}: the ns-3 harness takes at most one loss model per direction")
        raw, path = raw[0], f"{path}[0]"
    lt = _Table(raw, path)
    kind = lt.choice("kind", ("uniform", "ber"))
    if lt.get("applies_to", "all") != "all":
        raise SpecError(f"{lt.field('applies_to')}: the ns-3 harness applies loss to every packet; only \"all\"")
    lt.only({"kind", "applies_to", "p" if kind == "uniform" else "ber"}, {}, [])
    key = "p" if kind == "uniform" else "ber"
    if key not in lt.data:
        raise SpecError(f"{lt.field(key)}: is required")
    return Loss(kind, lt.number(key, 0.0, 0.0, 1.0))


_FLOW_IGNORED = {
    "receiver": "ns-3's receiver: delayed ACK every 2 segments or 40 ms (README)",
    "options": "ns-3 runs its own defaults with the Linux-like settings of the README",
    "profile": "the harness always runs ns-3 with Linux-like settings (README)",
}


def _flows(root: _Table, nodes: set[str], sim: Simulation, notes: list[str]) -> tuple[list[Flow], int]:
    flows = []
    names: set[str] = set()
    mss_seen: Optional[int] = None
    for i, raw in enumerate(_array(root, "flow")):
        t = _Table(raw, f"flow[{i}]")
        t.only({"name", "kind", "variant", "src", "dst", "start", "stop", "bytes", "mss",
                "header_bytes"}, _FLOW_IGNORED, notes)
        name = t.text("name")
        if not name:
            raise SpecError(f"{t.field('name')}: is required")
        if name in names:
            raise SpecError(f"{t.field('name')}: duplicate flow name {name!r}")
        names.add(name)
        if t.get("kind", "tcp") != "tcp":
            raise SpecError(f"{t.field('kind')}: the ns-3 harness runs TCP flows only; allowed: tcp")
        variant = t.text("variant", "reno")
        for end in ("src", "dst"):
            node = t.text(end)
            if node is None:
                raise SpecError(f"{t.field(end)}: is required: a node name")
            if node not in nodes:
                raise SpecError(f"{t.field(end)}: unknown node {node!r}; nodes: {', '.join(sorted(nodes))}")
        if t.get("src") == t.get("dst"):
            raise SpecError(f"{t.field('dst')}: a flow needs two different nodes")
        mss = t.whole("mss", DEFAULT_MSS, low=1)
        if mss_seen is not None and mss != mss_seen:
            raise SpecError(f"{t.field('mss')}: every flow must use the same mss in ns-3 "
                            f"(TcpSocket::SegmentSize is global); flow[0] uses {mss_seen}")
        mss_seen = mss
        header = t.whole("header_bytes", TCP_IP_TS_HEADER_BYTES)
        if header != TCP_IP_TS_HEADER_BYTES:
            notes.append(f"{t.field('header_bytes')} = {header}: ns-3 sends "
                         f"{TCP_IP_TS_HEADER_BYTES}-byte IP+TCP headers (timestamps on)")
        size = t.get("bytes")
        stop = t.get("stop")
        flow = Flow(name=name, variant=variant, src=t.get("src"), dst=t.get("dst"),
                    bytes=None if size is None else size_bytes(size, t.field("bytes")),
                    start=_start(t), stop_ns=None if stop is None else duration_ns(stop, t.field("stop")))
        if flow.bytes == 0:
            raise SpecError(f"{t.field('bytes')}: must be positive; omit it for an unlimited transfer")
        if flow.bytes is None and sim.duration_ns is None:
            raise SpecError("simulation.duration: is required when a flow has no bytes")
        flows.append(flow)
    if not flows:
        raise SpecError("flow: a scenario needs at least one [[flow]]")
    return flows, mss_seen or DEFAULT_MSS


def _start(t: _Table) -> Union[int, tuple[int, int]]:
    v = t.get("start", "0s")
    path = t.field("start")
    if isinstance(v, dict):
        bounds = v.get("uniform")
        if set(v) != {"uniform"} or not isinstance(bounds, list) or len(bounds) != 2:
            raise SpecError(f'{path}: a duration or {{ uniform = ["50s", "51s"] }}')
        lo, hi = (duration_ns(x, f"{path}.uniform[{j}]") for j, x in enumerate(bounds))
        if hi < lo:
            raise SpecError(f"{path}.uniform: the upper bound is below the lower")
        return (lo, hi)
    return duration_ns(v, path)


def _wifi(t: _Table, notes: list[str]) -> WifiSettings:
    t.only({"standard", "data_rate", "basic_rate", "preamble", "rts_cts", "distance", "queue_limit",
            "retry_limit", "error"}, {}, notes)
    t.choice("standard", ("802.11b",), "802.11b")
    data_rate = rate_bps(t.get("data_rate", "11Mbps"), t.field("data_rate"))
    if data_rate not in DSSS_MODES:
        raise SpecError(f"{t.field('data_rate')}: not an 802.11b rate; allowed: 1Mbps, 2Mbps, 5.5Mbps, 11Mbps")
    basic = rate_bps(t.get("basic_rate", "1Mbps"), t.field("basic_rate"))
    if basic not in (1_000_000, 2_000_000):
        raise SpecError(f"{t.field('basic_rate')}: an 802.11b basic rate; allowed: 1Mbps, 2Mbps")
    # ns-3 sends the short DSSS preamble only to ERP (802.11g) stations.
    t.choice("preamble", ("long",), "long")
    distance = t.get("distance", "5m")
    if not isinstance(distance, str) or not distance.endswith("m"):
        raise SpecError(f'{t.field("distance")}: a distance such as "5m"')
    try:
        distance_m = float(distance[:-1])
    except ValueError:
        raise SpecError(f'{t.field("distance")}: a distance such as "5m"') from None
    error = None
    applies_to = "data"
    et = t.table("error")
    if et is not None:
        kind = et.choice("kind", ("ber", "uniform"))
        key = "ber" if kind == "ber" else "p"
        et.only({"kind", key, "applies_to"}, {}, [])
        if key not in et.data:
            raise SpecError(f"{et.field(key)}: is required")
        error = Loss(kind, et.number(key, 0.0, 0.0, 1.0))
        applies_to = et.choice("applies_to", ("data", "all"), "all" if kind == "ber" else "data")
    return WifiSettings(data_rate_bps=data_rate, basic_rate_bps=basic, rts_cts=t.flag("rts_cts", False),
                        distance_m=distance_m, queue_limit=t.whole("queue_limit", DEFAULT_QUEUE_LIMIT, low=1),
                        retry_limit=t.whole("retry_limit", 7, low=1), error=error,
                        error_applies_to=applies_to)


#: 802.11b rates and ns-3's names for them.
DSSS_MODES = {1_000_000: "DsssRate1Mbps", 2_000_000: "DsssRate2Mbps",
              5_500_000: "DsssRate5_5Mbps", 11_000_000: "DsssRate11Mbps"}


def parse_variant_map(items: list[str], base: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """``["reno=TcpLinuxReno", ...]`` over the defaults; a bare name gets ``ns3::``."""
    out = dict(DEFAULT_VARIANT_MAP if base is None else base)
    for item in items:
        variant, sep, type_name = item.partition("=")
        if not sep or not variant or not type_name:
            raise SpecError(f"--map: {item!r} is not VARIANT=NS3TYPE (e.g. cubic=TcpCubic)")
        out[variant.strip()] = type_name if "::" in type_name else f"ns3::{type_name.strip()}"
    return out


def warn(message: str) -> None:
    print(f"run_ns3: note: {message}", file=sys.stderr)
