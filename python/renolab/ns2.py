"""Cross-validation with ns-2.35: export a scenario as an ns-2 Tcl script, run it, compare.

:func:`to_tcl` turns a scenario into a standalone ns-2.35 script (nodes, simplex links with
their queues and loss models, one-way TCP agents or CBR sources, start and stop times) that
prints, after the line ``# renolab-ns2 flows``, one CSV row per flow with the figures renolab
reports (completion time, delivered bytes, retransmissions, timeouts, drops, ...).
:func:`run_ns2` runs such a script with ``ns`` and parses that table, and :func:`validate`
runs both simulators (over several seeds when the scenario is random) and compares them flow
by flow against a :class:`Tolerance`.

The script is built from the *normalised* scenario (:meth:`renolab.Scenario.validate`), so it
mirrors exactly what renolab runs, and every renolab setting is mapped to the ns-2 variable
that does the same (see ``docs/ns2-behaviour.md``). Settings ns-2.35 cannot reproduce raise
:class:`renolab.ScenarioError` naming the field. How each one is mapped:

=====================================  ==========================================================
renolab                                ns-2.35
=====================================  ==========================================================
flow ``profile``                       only ``"ns2"``: the rfc/opnet profiles' RFC arithmetic
                                       (flight-size halving, RFC 6298 timer) is not ns-2's
``variant``                            Agent/TCP (tahoe), /Reno, /Newreno, /Sack1, /Vegas
``mss``, ``header_bytes``              ``packetSize_``; ``tcpip_base_hdr_size_`` and
                                       ``useHeaders_`` (off when 0); Vegas never adds a
                                       header, so its ``packetSize_`` is mss + header
``bytes``                              ``produce`` ceil(bytes / mss) segments (ns-2 sends
                                       whole segments: a short last segment is sent full)
``initial_window``, ``window``         ``windowInit_``, ``window_``
``initial_ssthresh``                   ns-2 resets ``ssthresh_`` to ``window_`` when the run
                                       starts; a different value is set when the flow starts
``dupack_threshold``                   ``numdupacks_``
``initial_rto``/``min_rto``/``max_rto``  ``rtxcur_init_``/``minrto_``/``maxrto_``
``clock_granularity``                  ``tcpTick_`` (0 refused)
``clock_phase``                        ``boot_time_`` is not settable from Tcl: the agent's
                                       reset draws it from the default RNG, which the script
                                       reseeds just before; with an explicit phase it searches
                                       20000 seeds for the closest (within ~1 us). The phase in
                                       force is printed (``clock_phase_s``).
``handshake``                          ``syn_`` and ``delay_growth_``
``limited_transmit``                   ``singledup_``
newreno ``partial_window_deflation``   ``partial_window_deflation_``
newreno ``timer_reset``                ``newreno_changes1_`` (impatient 1, slow_but_steady 0)
newreno ``careful``                    ``bugFix_`` (true 1, false 0); "less" refused (the
                                       RFC 6582 §4.1 heuristic is neither ns-2's
                                       ``lessCareful_`` nor its ``bugfix_ack_``)
newreno ``ssthresh_estimation``        ``newreno_changes_``
sack ``sack_recovery``                 ``"ns2"`` only (Agent/TCP/Sack1); rfc6675 refused
vegas ``alpha``/``beta``/``gamma``     ``v_alpha_``/``v_beta_``/``v_gamma_``
receiver                               Agent/TCPSink[/Sack1][/DelAck]; ``ack_bytes`` is
                                       ``packetSize_``, ``delack_timeout`` ``interval_``;
                                       ``ack_every`` other than 2 refused with delayed ACKs
droptail ``limit``/``limit_bytes``     ``limit_`` (bytes: ``queue_in_bytes_``,
                                       ``mean_pktsize_ 1``); ``counts_transmitting = false``
                                       is emulated exactly with a limit one larger
red                                    Queue/RED ``limit_``, ``thresh_``, ``maxthresh_``,
                                       ``linterm_`` = 1/max_p, ``q_weight_``, ``gentle_``,
                                       ``wait_``, ``bytes_``, ``queue_in_bytes_``,
                                       ``mean_pktsize_``, ``targetdelay_``
codel, fq_codel                        refused (not in ns-2.35)
loss ``drop``                          ``ErrorModel/List`` (packets); ``segments`` through
                                       ``Filter/Field`` on seqno, flow id and packet type
                                       feeding a per-segment ``ErrorModel/List``
loss ``uniform``                       ``ErrorModel`` unit pkt, ``rate_`` p
loss ``ber``                           ``ErrorModel`` unit byte, ``rate_`` 1-(1-BER)^8 (unit
                                       bit ignores the packet length in ns-2.35)
loss ``gilbert_elliott``               an ``ErrorModel/MultiState`` whose Tcl ``corrupt``
                                       runs renolab's per-packet two-state chain
loss ``applies_to``                    ``Filter/Field`` on the packet type (ns-2 counts a SYN
                                       as data and a SYN-ACK as an ACK)
latency ``fixed``                      added to the link's delay; other latencies refused
cbr                                    Application/Traffic/CBR on Agent/UDP (``random_`` 1
                                       for jitter 1; other jitters refused)
``start``, ``stop``                    ``$ns at``; a uniform start is drawn from an RNG
                                       seeded from the run's seed; TCP stop = no new data
=====================================  ==========================================================

Loss models sit after the link (``link-lossmodel``'s place): a lost packet has used the
wire, as in renolab.
"""

from __future__ import annotations

import concurrent.futures
import csv
import io
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Union

from renolab import __version__
from renolab._core import ScenarioError
from renolab.scenario import PathLike, Scenario

__all__ = [
    "INSTALL_HINT",
    "Ns2Error",
    "Ns2NotFound",
    "Ns2Run",
    "Report",
    "Tolerance",
    "is_random",
    "load",
    "run_ns2",
    "to_tcl",
    "validate",
]

#: What to tell a user without ns-2.
INSTALL_HINT = "ns-2 is not installed (no `ns` on PATH); install it with `apt-get install ns2` (Debian/Ubuntu)"

#: The line after which an exported script prints its per-flow table.
TABLE_MARKER = "# renolab-ns2 flows"

#: Columns of that table.
COLUMNS = (
    "flow",
    "variant",
    "bytes_delivered",
    "completion_time_s",
    "retransmits",
    "timeouts",
    "drops",
    "data_drops",
    "ack_drops",
    "segments_sent",
    "segments_delivered",
    "first_send_s",
    "finish_s",
    "clock_phase_s",
)

#: The figures :func:`validate` compares, with their labels.
METRICS = {
    "completion_time_s": "completion s",
    "bytes_delivered": "delivered bytes",
    "retransmits": "retransmissions",
    "timeouts": "timeouts",
    "drops": "drops",
}

#: Seeds tried when a flow sets ``clock_phase`` (see the module documentation).
PHASE_SEARCH_SEEDS = 20_000

_INT_MAX = 2**31 - 1
_VEGAS_MAX_WINDOW = 1_000_000
# ns-2.35 packet.h: packet_t values, and header layouts (hdr_cmn starts with ptype_;
# hdr_ip: src_, dst_ (8 bytes each), ttl_, fid_; hdr_tcp: ts_, ts_echo_ (doubles), seqno_).
_PT_TCP = 0
_PT_ACK = 5
_OFF_FID = 20
_OFF_SEQNO = 16

_AGENTS = {
    "tahoe": "Agent/TCP",
    "reno": "Agent/TCP/Reno",
    "newreno": "Agent/TCP/Newreno",
    "sack": "Agent/TCP/Sack1",
    "vegas": "Agent/TCP/Vegas",
}

ScenarioLike = Union[Scenario, Mapping[str, Any]]


class Ns2Error(Exception):
    """ns-2 could not run a script, or its output was not what an exported script prints."""


class Ns2NotFound(Ns2Error):
    """The ``ns`` command is not installed."""


# ----- units ----------------------------------------------------------------------------

_DURATION = re.compile(r"^(\d+)(ns|us|ms|s)$")
_DURATION_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_RATE = re.compile(r"^(\d+)(bps|Kbps|Mbps|Gbps)$")
_RATE_BPS = {"bps": 1, "Kbps": 1_000, "Mbps": 1_000_000, "Gbps": 1_000_000_000}


def _ns(text: str) -> int:
    """Nanoseconds of a normalised duration (``"48ms"``)."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"not a normalised duration: {text!r}")
    return int(m.group(1)) * _DURATION_NS[m.group(2)]


def _bps(text: str) -> int:
    m = _RATE.match(text)
    if not m:
        raise ValueError(f"not a normalised rate: {text!r}")
    return int(m.group(1)) * _RATE_BPS[m.group(2)]


def _num(x: float) -> str:
    """A number as Tcl reads it back exactly."""
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int):
        return str(x)
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def _secs(ns: int) -> str:
    return _num(ns / 1e9)


def _tcl_str(text: str) -> str:
    """A Tcl word holding *text* literally."""
    if re.fullmatch(r"[^{}\\\s]*", text):
        return "{" + text + "}"
    return '"' + re.sub(r'([\\$\[\]"{}])', r"\\\1", text) + '"'


# ----- scenarios --------------------------------------------------------------------------


def _as_scenario(scenario: ScenarioLike) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    return Scenario.from_dict(scenario)


def load(path: PathLike) -> tuple[Scenario, dict[str, Any]]:
    """Read a scenario file that may carry a ``[validation]`` table (tolerances and notes for
    ``renolab validate``); returns the scenario without it and the table (empty if absent)."""
    data = Scenario.from_toml(path).to_dict()
    extra = data.pop("validation", {})
    if not isinstance(extra, dict):
        raise ScenarioError("validation: expected a table")
    return Scenario.from_dict(data), extra


def is_random(scenario: ScenarioLike) -> bool:
    """True if the scenario draws random numbers that change its outcome: random losses,
    RED, random start times or CBR jitter (the RTT clock phase aside, which
    :func:`validate` pairs between the two simulators)."""
    norm = _as_scenario(scenario).validate()
    for link in norm["link"]:
        for d in (link, link["reverse"]):
            if d["queue"]["kind"] == "red":
                return True
            for loss in d["loss"]:
                if loss["kind"] == "uniform" and loss["p"] > 0:
                    return True
                if loss["kind"] == "ber" and loss["ber"] > 0:
                    return True
                if loss["kind"] == "gilbert_elliott" and (loss["loss_good"] > 0 or loss["p_gb"] > 0):
                    return True
            if d.get("latency") and d["latency"]["kind"] != "fixed":
                return True
    for f in norm["flow"]:
        if isinstance(f["start"], dict):
            lo, hi = f["start"]["uniform"]
            if _ns(lo) != _ns(hi):
                return True
        if f["kind"] == "cbr" and f["jitter"] > 0:
            return True
    return False


# ----- export -----------------------------------------------------------------------------


def to_tcl(scenario: ScenarioLike, *, source: str | None = None) -> str:
    """The ns-2.35 script equivalent to *scenario* (see the module documentation).

    Run it as ``ns script.tcl [SEED]`` (SEED defaults to the scenario's ``simulation.seed``).
    Raises :class:`renolab.ScenarioError` for an invalid scenario or one that uses a setting
    ns-2.35 cannot reproduce; the message names the field.
    """
    sc = _as_scenario(scenario)
    norm = sc.validate()
    description = sc.to_dict().get("description")
    if isinstance(description, str) and description.strip():
        norm["description"] = " ".join(description.split())
    return _Exporter(norm, source=source).render()


class _Exporter:
    def __init__(self, norm: dict[str, Any], *, source: str | None) -> None:
        self.norm = norm
        self.source = source
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.objects = 0
        nodes: list[str] = []
        for link in norm["link"]:
            for key in ("from", "to"):
                if link[key] not in nodes:
                    nodes.append(link[key])
        self.nodes = nodes
        self.fid = {f["name"]: i + 1 for i, f in enumerate(norm["flow"])}
        self.flows = {f["name"]: f for f in norm["flow"]}
        self.check()

    # -- refusals ---------------------------------------------------------------------------

    def check(self) -> None:
        if self.norm.get("medium"):
            raise ScenarioError(
                "medium: ns-2 export writes links only; a scenario with a [[medium]] (802.11) has no ns-2.35 script"
            )
        handshake_flows = [
            f["name"]
            for f in self.norm["flow"]
            if f["kind"] == "tcp" and f["options"]["handshake"] and f["variant"] != "vegas"
        ]
        for i, f in enumerate(self.norm["flow"]):
            p = f"flow[{i}]"
            if f["kind"] == "cbr":
                if f["jitter"] not in (0.0, 1.0):
                    raise ScenarioError(
                        f"{p}.jitter: {f['jitter']} has no ns-2 equivalent; ns-2's CBR knows jitter 0 "
                        "(random_ 0) or 1 (random_ 1)"
                    )
                continue
            o = f["options"]
            if f["profile"] != "ns2":
                raise ScenarioError(
                    f"{p}.profile: {f['profile']!r} has no ns-2 equivalent (its RFC loss response and "
                    'timer arithmetic are not ns-2.35\'s); export scenarios with profile = "ns2"'
                )
            if f["variant"] == "sack" and o["sack_recovery"] != "ns2":
                raise ScenarioError(
                    f"{p}.options.sack_recovery: {o['sack_recovery']!r} has no ns-2.35 equivalent; "
                    'ns-2\'s Agent/TCP/Sack1 is sack_recovery = "ns2"'
                )
            if _ns(o["clock_granularity"]) == 0:
                raise ScenarioError(
                    f"{p}.options.clock_granularity: 0s (an exact clock) has no ns-2 equivalent; "
                    "ns-2's tcpTick_ must be positive"
                )
            if f["variant"] == "newreno" and o["careful"] == "less":
                raise ScenarioError(
                    f'{p}.options.careful: "less" (RFC 6582 §4.1: fast retransmit also when the ACK is '
                    "within 4 segments of the highest ACK before the loss) has no ns-2.35 equivalent; "
                    "ns-2's lessCareful_ allows it only when the ACK equals recover_, and its "
                    "bugfix_ack_ compares with the previous ACK; use careful = true or false"
                )
            r = f["receiver"]
            if r["delayed_ack"] and r["ack_every"] != 2:
                raise ScenarioError(
                    f"{p}.receiver.ack_every: {r['ack_every']} has no ns-2 equivalent; "
                    "ns-2's TCPSink/DelAck acknowledges every second segment"
                )
            if f["variant"] == "vegas" and o["window"] > _VEGAS_MAX_WINDOW:
                raise ScenarioError(
                    f"{p}.options.window: {o['window']} is too large for ns-2's Vegas, which "
                    f"allocates per-segment state for the whole window; use at most {_VEGAS_MAX_WINDOW}"
                )
        for i, link in enumerate(self.norm["link"]):
            for d, p in ((link, f"link[{i}]"), (link["reverse"], f"link[{i}].reverse")):
                q = d["queue"]
                if q["kind"] in ("codel", "fq_codel"):
                    raise ScenarioError(
                        f"{p}.queue.kind: {q['kind']!r} has no ns-2.35 equivalent (ns-2.35 has no "
                        "CoDel); use droptail or red"
                    )
                if q["kind"] == "droptail" and "limit_bytes" in q and q["limit_bytes"] + 1 > _INT_MAX:
                    raise ScenarioError(f"{p}.queue.limit_bytes: ns-2's limit_ holds at most {_INT_MAX - 1} bytes")
                lat = d.get("latency")
                if lat and lat["kind"] != "fixed":
                    raise ScenarioError(
                        f"{p}.latency: {lat['kind']!r} latency (jitter) has no ns-2 equivalent; "
                        "only a fixed extra latency can be exported (as extra link delay)"
                    )
                for j, loss in enumerate(d["loss"]):
                    if (
                        loss["kind"] == "drop"
                        and loss["packets"]
                        and loss["applies_to"] != "all"
                        and handshake_flows
                    ):
                        raise ScenarioError(
                            f"{p}.loss[{j}].applies_to: packet indices counted over "
                            f"{loss['applies_to']!r} packets have no ns-2 equivalent while a flow "
                            f"({handshake_flows[0]}) opens with a SYN: ns-2 counts a SYN as data and a "
                            'SYN-ACK as an ACK; use applies_to = "all", handshake = false or `segments`'
                        )

    # -- helpers ------------------------------------------------------------------------------

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def obj(self) -> str:
        self.objects += 1
        return f"rl_o({self.objects})"

    def node(self, name: str) -> str:
        return f"$n({self.nodes.index(name)})"

    # -- rendering ----------------------------------------------------------------------------

    def render(self) -> str:
        sim = self.norm["simulation"]
        self.header()
        self.emit(f"set rl_seed {sim['seed']}", "if {$argc >= 1} { set rl_seed [lindex $argv 0] }", "")
        self.emit(_PREAMBLE)
        self.emit("# ---- nodes")
        for i, name in enumerate(self.nodes):
            self.emit(f"set n({i}) [$ns node] ;# {name}")
        self.emit("")
        self.emit("# ---- links (one simplex link per direction; loss models after the link)")
        for i, link in enumerate(self.norm["link"]):
            self.link(i, link)
        self.emit("# ---- flows")
        for i, f in enumerate(self.norm["flow"]):
            if f["kind"] == "tcp":
                self.tcp_flow(i, f)
            else:
                self.cbr_flow(i, f)
        finite = sum(1 for f in self.norm["flow"] if f["kind"] == "tcp" and "bytes" in f)
        if "duration" in sim:
            self.emit(f"$ns at {_secs(_ns(sim['duration']))} rl_finish")
            self.emit("set rl_stop_when_done 0")
        else:
            self.emit(f"$ns at {_secs(_ns(sim['time_limit']))} rl_finish ;# time_limit")
            self.emit("set rl_stop_when_done 1")
        self.emit(f"set rl_pending {finite}")
        self.emit("$ns run", "")
        text = "\n".join(self.lines)
        if self.notes:
            notes = "\n".join(f"# note: {n}" for n in self.notes)
            text = text.replace("# @NOTES@", notes, 1)
        else:
            text = text.replace("# @NOTES@\n", "", 1)
        return text

    def header(self) -> None:
        desc = self.norm.get("description") or self.source or "scenario"
        self.emit(
            f"# ns-2.35 script generated by renolab {__version__} (`renolab export ns2`) from {desc}.",
            "# It mirrors renolab's normalised scenario; see python/renolab/ns2.py for the mapping.",
            "#",
            "# usage: ns THIS.tcl [SEED]     (SEED: simulation.seed unless given)",
            f'# After the line "{TABLE_MARKER}" it prints one CSV row per flow:',
            "#   " + ",".join(COLUMNS),
            "# completion_time_s is lee2001's t_c (first data segment sent -> every segment received),",
            "# retransmits nrexmitpack_ (SYN retransmissions excluded), timeouts nrexmit_ (both taken",
            "# when the sender sees its last ACK), drops from the packet trace.",
            "# @NOTES@",
            "",
        )

    # -- links --------------------------------------------------------------------------------

    def link(self, i: int, link: dict[str, Any]) -> None:
        a, b = link["from"], link["to"]
        self.emit(f"# link[{i}] {link['name']}")
        for d, (x, y), p in ((link, (a, b), f"link[{i}]"), (link["reverse"], (b, a), f"link[{i}].reverse")):
            delay = _ns(d["delay"])
            lat = d.get("latency")
            if lat:
                delay += _ns(lat["delay"])
            q = d["queue"]
            qtype = "RED" if q["kind"] == "red" else "DropTail"
            nx, ny = self.node(x), self.node(y)
            self.emit(f"$ns simplex-link {nx} {ny} {_bps(d['rate'])} {_secs(delay)} {qtype}")
            self.emit(f"set q [[$ns link {nx} {ny}] queue]")
            if q["kind"] == "droptail":
                # ns-2 drops when waiting + 1 >= limit_ (bytes: waiting + size >= limit_ * mean_pktsize_);
                # counts_transmitting = false (the limit bounds what waits) is limit_ + 1.
                extra = 0 if q["counts_transmitting"] else 1
                if "limit_bytes" in q:
                    self.emit(
                        f"$q set queue_in_bytes_ true; $q set mean_pktsize_ 1; $q set limit_ {q['limit_bytes'] + extra}"
                    )
                else:
                    self.emit(f"$q set limit_ {q['limit'] + extra}")
            else:
                params = {
                    "limit_": q["limit"],
                    "thresh_": q.get("min_th", 0),
                    "maxthresh_": q.get("max_th", 0),
                    "linterm_": 1.0 / q["max_p"],
                    "q_weight_": q["w_q"],
                    "gentle_": q["gentle"],
                    "wait_": q["wait"],
                    "bytes_": q["byte_mode"],
                    "queue_in_bytes_": q["queue_in_bytes"],
                    "mean_pktsize_": q["mean_pktsize"],
                    "targetdelay_": _ns(q["target_delay"]) / 1e9,
                    "setbit_": False,
                    "use_mark_p_": True,
                    "adaptive_": 0,
                }
                self.emit("; ".join(f"$q set {k} {_num(v)}" for k, v in params.items()))
            if d["loss"]:
                self.losses(p, x, y, d["loss"])
        self.emit("")

    def losses(self, path: str, x: str, y: str, losses: list[dict[str, Any]]) -> None:
        nx, ny = self.node(x), self.node(y)
        self.emit(
            f"set rl_l [$ns link {nx} {ny}]",
            "set rl_ld [$rl_l link]",
            "set rl_dh [$rl_l set drophead_]",
            "set rl_next [$rl_ld target]",
        )
        # Built last to first: each element's exits lead to the element after it.
        for j in reversed(range(len(losses))):
            head = self.loss_element(f"{path}.loss[{j}]", losses[j])
            self.emit(f"set rl_next {head}")
        self.emit("$rl_ld target $rl_next")

    def filt(self, offset: str, match: int, on_match: str, otherwise: str) -> str:
        f = self.obj()
        self.emit(
            f"set {f} [new Filter/Field]; ${f} set offset_ {offset}; ${f} set match_ {match}",
            f"${f} filter-target {on_match}; ${f} target {otherwise}",
        )
        return f"${f}"

    def error_model(self, setup: str) -> str:
        e = self.obj()
        self.emit(f"set {e} [{setup}]; ${e} drop-target $rl_dh; ${e} target $rl_next")
        return f"${e}"

    def seeded_ranvar(self, em: str) -> None:
        self.emit(f"{em} ranvar [rl_uniform_ranvar [rl_subseed {self.objects + 100}]]")

    def loss_element(self, path: str, loss: dict[str, Any]) -> str:
        """Emits one loss model reading ``$rl_next`` as its exit; returns its entry."""
        kind = loss["kind"]
        self.emit(f"# {path}: {kind}")
        self.emit("set rl_exit $rl_next")
        if kind == "drop":
            entry = "$rl_exit"
            # segments (each its own counter), last first
            counts: dict[int, int] = {}
            for s in loss["segments"]:
                counts[s] = counts.get(s, 0) + 1
            if loss["applies_to"] != "ack" and counts:
                f = self.flows[loss["flow"]]
                off = _seq_offset(f)
                for seg in sorted(counts, reverse=True):
                    em = self.obj()
                    drops = " ".join(str(k) for k in range(counts[seg]))
                    self.emit(
                        f"set {em} [new ErrorModel/List]; ${em} unit pkt; ${em} droplist {{{drops}}}",
                        f"${em} drop-target $rl_dh; ${em} target $rl_exit",
                    )
                    ty = self.filt("0", _PT_TCP, f"${em}", "$rl_exit")
                    fid_offset = f"[expr {{[PacketHeader/IP offset] + {_OFF_FID}}}]"
                    fid = self.filt(fid_offset, self.fid[f["name"]], ty, "$rl_exit")
                    seq = self.filt(f"[expr {{[PacketHeader/TCP offset] + {_OFF_SEQNO}}}]", seg + off, fid, entry)
                    entry = seq
            if loss["packets"]:
                em = self.obj()
                drops = " ".join(str(k) for k in sorted(set(loss["packets"])))
                self.emit(
                    f"set {em} [new ErrorModel/List]; ${em} unit pkt; ${em} droplist {{{drops}}}",
                    f"${em} drop-target $rl_dh; ${em} target {entry}",
                )
                entry = f"${em}"
            if entry == "$rl_exit":
                return self.scope(loss, "$rl_exit")
            self.emit(f"set rl_entry {entry}")
            return self.scope(loss, "$rl_entry")
        if kind == "uniform":
            em = self.error_model("new ErrorModel")
            self.emit(f"{em} unit pkt; {em} set rate_ {_num(loss['p'])}")
            self.seeded_ranvar(em)
        elif kind == "ber":
            # ns-2.35: "unit bit" ignores the packet length; per byte, 1-(1-BER)^8, gives a
            # packet of S bytes the loss probability 1-(1-BER)^(8 S), as renolab's model.
            rate = -math.expm1(8 * math.log1p(-loss["ber"])) if loss["ber"] < 1 else 1.0
            em = self.error_model("new ErrorModel")
            self.emit(f"{em} unit byte; {em} set rate_ {_num(rate)}")
            self.seeded_ranvar(em)
        else:  # gilbert_elliott
            args = " ".join(_num(loss[k]) for k in ("p_gb", "p_bg", "loss_good", "loss_bad"))
            em = self.error_model(f"rl_gilbert_elliott {args} [rl_subseed {self.objects + 100}]")
        return self.scope(loss, em)

    def scope(self, loss: dict[str, Any], entry: str) -> str:
        """Restricts a loss model to data or ACK packets (a Filter/Field on the packet type)."""
        if loss["applies_to"] == "all" or entry == "$rl_exit":
            return entry
        if loss["applies_to"] == "ack":
            return self.filt("0", _PT_ACK, entry, "$rl_exit")
        return self.filt("0", _PT_ACK, "$rl_exit", entry)

    # -- flows ----------------------------------------------------------------------------

    def start_time(self, i: int, f: dict[str, Any]) -> str:
        start = f["start"]
        if isinstance(start, dict):
            lo, hi = (_ns(t) for t in start["uniform"])
            return f"[rl_start_draw {i} {_secs(lo)} {_secs(hi)}]"
        return _secs(_ns(start))

    def tcp_flow(self, i: int, f: dict[str, Any]) -> None:
        o, r, v = f["options"], f["receiver"], f["variant"]
        name = f["name"]
        mss, hdr = f["mss"], f["header_bytes"]
        nsegs = -(-f["bytes"] // mss) if "bytes" in f else -1
        off = _seq_offset(f)
        tick = _ns(o["clock_granularity"]) / 1e9
        what = f"{f['bytes']} bytes = {nsegs} segments of {mss}" if nsegs >= 0 else "unlimited"
        self.emit(f"# flow[{i}] {name}: {v} {f['src']} -> {f['dst']}, {what}")
        if nsegs >= 0 and f["bytes"] % mss:
            self.notes.append(
                f"flow {name}: {f['bytes']} bytes is not a whole number of {mss}-byte segments; "
                "ns-2 sends the last segment full"
            )
        if v == "vegas" and o["handshake"]:
            self.notes.append(
                f"flow {name}: ns-2's Vegas sends no SYN; syn_ true only starts it with cwnd 1 "
                "until the first ACK"
            )
        if o["handshake"] is False and hdr > 0 and v != "vegas":
            self.notes.append(
                f"flow {name}: with syn_ false ns-2 sends segment 0 without the {hdr}-byte header"
            )
        params: dict[str, Any] = {
            "fid_": self.fid[name],
            "window_": min(o["window"], _INT_MAX),
            "windowInit_": o["initial_window"],
            "windowInitOption_": 1,
            "syn_": o["handshake"],
            "delay_growth_": o["handshake"],
            "packetSize_": mss + hdr if v == "vegas" else mss,
            "tcpip_base_hdr_size_": hdr,
            "useHeaders_": hdr > 0 and v != "vegas",
            "tcpTick_": tick,
            "minrto_": _ns(o["min_rto"]) / 1e9,
            "maxrto_": _ns(o["max_rto"]) / 1e9,
            "rtxcur_init_": _ns(o["initial_rto"]) / 1e9,
            "numdupacks_": o["dupack_threshold"],
            "singledup_": 1 if o["limited_transmit"] else 0,
        }
        if v == "newreno":
            careful = o["careful"]
            params.update(
                {
                    "newreno_changes_": 1 if o["ssthresh_estimation"] else 0,
                    "newreno_changes1_": 1 if o["timer_reset"] == "impatient" else 0,
                    "partial_window_deflation_": 1 if o["partial_window_deflation"] else 0,
                    "bugFix_": careful is not False,
                    "lessCareful_": False,
                }
            )
        elif v == "vegas":
            params.update({"v_alpha_": o["alpha"], "v_beta_": o["beta"], "v_gamma_": o["gamma"]})
        sink = "Agent/TCPSink/Sack1" if v == "sack" else "Agent/TCPSink"
        sink_params: dict[str, Any] = {"fid_": self.fid[name], "packetSize_": r["ack_bytes"]}
        if r["delayed_ack"]:
            sink += "/DelAck"
            sink_params["interval_"] = _ns(r["delack_timeout"]) / 1e9
        plist = " ".join(f"{k} {_num(val)}" for k, val in params.items())
        slist = " ".join(f"{k} {_num(val)}" for k, val in sink_params.items())
        phase = "{}" if "clock_phase" not in o else _num((_ns(o["clock_phase"]) / 1e9) % tick)
        src, dst = self.node(f["src"]), self.node(f["dst"])
        self.emit(
            f"set tcp({i}) [rl_new {_AGENTS[v]} {{{plist}}}]",
            f"set sink({i}) [rl_new {sink} {{{slist}}}]",
            f"$ns attach-agent {src} $tcp({i}); $ns attach-agent {dst} $sink({i}); $ns connect $tcp({i}) $sink({i})",
            f"rl_boot {i} $tcp({i}) {_num(tick)} {phase}",
            f"set app({i}) [new Application/FTP]; $app({i}) attach-agent $tcp({i})",
        )
        ssthresh = min(o["initial_ssthresh"], _INT_MAX)
        set_ssthresh = "" if ssthresh == min(o["window"], _INT_MAX) else f"$tcp({i}) set ssthresh_ {ssthresh}; "
        if nsegs >= 0:
            action = f"$app({i}) produce {nsegs}"
            self.emit(f"$tcp({i}) proc done {{}} {{ rl_done {i} }}")
        else:
            action = f"$app({i}) start"
        self.emit(f'$ns at {self.start_time(i, f)} "{set_ssthresh}{action}"')
        if "stop" in f:
            self.emit(f'$ns at {_secs(_ns(f["stop"]))} "rl_tcp_stop $tcp({i})"')
        total = f.get("bytes", -1)
        self.emit(
            f"rl_flow {i} {_tcl_str(_csv_field(name))} {v} tcp $tcp({i}) [{src} id] [{dst} id] {self.fid[name]} "
            f"{off} {nsegs} {mss} {total}",
            "",
        )

    def cbr_flow(self, i: int, f: dict[str, Any]) -> None:
        name, size = f["name"], f["packet_bytes"]
        src, dst = self.node(f["src"]), self.node(f["dst"])
        self.emit(
            f"# flow[{i}] {name}: cbr {f['src']} -> {f['dst']}, {f['rate']} of {size}-byte packets",
            f"set udp({i}) [new Agent/UDP]; $udp({i}) set packetSize_ {size}; $udp({i}) set fid_ {self.fid[name]}",
            f"set sink({i}) [new Agent/Null]",
            f"$ns attach-agent {src} $udp({i}); $ns attach-agent {dst} $sink({i}); $ns connect $udp({i}) $sink({i})",
            f"set app({i}) [new Application/Traffic/CBR]; $app({i}) attach-agent $udp({i})",
            f"$app({i}) set packetSize_ {size}; $app({i}) set rate_ {_bps(f['rate'])}; "
            f"$app({i}) set random_ {1 if f['jitter'] else 0}",
            f'$ns at {self.start_time(i, f)} "$app({i}) start"',
        )
        if "stop" in f:
            self.emit(f'$ns at {_secs(_ns(f["stop"]))} "$app({i}) stop"')
        self.emit(
            f"rl_flow {i} {_tcl_str(_csv_field(name))} cbr cbr $udp({i}) [{src} id] [{dst} id] "
            f"{self.fid[name]} 0 -1 {size} -1",
            "",
        )


def _csv_field(text: str) -> str:
    """*text* as one CSV field (quoted if it holds a comma or a quote)."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"') else text


def _seq_offset(f: dict[str, Any]) -> int:
    """ns-2 numbers the SYN 0 and data from 1 when ``syn_`` is on (Vegas has no SYN)."""
    return 1 if f["options"]["handshake"] and f["variant"] != "vegas" else 0


_PREAMBLE = r"""# ---- renolab support procedures
proc rl_subseed {k} {
    # A seed for ns-2's RNG (1 .. 2^31-1) for stream k of the run's seed, scrambled
    # (splitmix64): ns-2's MRG32k3a "seed n" sets its whole state to n, so the i-th draw of
    # seed n is n times that of seed 1 (mod 1); nearby seeds would give related streams.
    global rl_seed
    set m 0xFFFFFFFFFFFFFFFF
    set x [expr {($rl_seed * 0x9E3779B97F4A7C15 + ($k + 1) * 0xD1B54A32D192ED03) & $m}]
    set x [expr {(($x ^ ($x >> 30)) * 0xBF58476D1CE4E5B9) & $m}]
    set x [expr {(($x ^ ($x >> 27)) * 0x94D049BB133111EB) & $m}]
    return [expr {1 + (($x ^ ($x >> 31)) % 2147483646)}]
}
set ns [new Simulator]
global defaultRNG
set rl_mainseed [rl_subseed 0]
$defaultRNG seed $rl_mainseed
set rl_tracefile [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] "renolab_ns2_[pid].tr"]
set rl_trace [open $rl_tracefile w]
$ns trace-all $rl_trace
set rl_nflows 0
set rl_finished 0
set rl_scratch [new RNG]

proc rl_new {cls params} {
    # class defaults first (some values are read when the agent is built), then the instance
    foreach {k v} $params { $cls set $k $v }
    set o [new $cls]
    foreach {k v} $params { $o set $k $v }
    return $o
}

# TcpAgent::reset() draws boot_time_ (the phase of the agent's RTT clock) from the default
# RNG when "$ns run" resets the agents; boot_time_ cannot be set from Tcl. Reseeding just
# before makes it tcpTick_ * (first draw of that seed).
proc rl_boot {k agent tick want} {
    global rl_bootseed rl_f rl_scratch
    if {$want eq ""} {
        set s [rl_subseed [expr {1000 + $k}]]
    } else {
        set s 1; set best 2.0
        for {set c 1} {$c <= 20000} {incr c} {
            $rl_scratch seed $c
            set d [expr {abs($tick * [$rl_scratch uniform 0 1] - $want)}]
            if {$d < $best} { set best $d; set s $c }
        }
    }
    $rl_scratch seed $s
    set rl_bootseed($agent) $s
    set rl_f($k,phase) [expr {$tick * [$rl_scratch uniform 0 1]}]
}
Agent/TCP instproc reset {} {
    global defaultRNG rl_bootseed rl_mainseed
    if {[info exists rl_bootseed($self)]} {
        $defaultRNG seed $rl_bootseed($self)
        $self cmd reset
        $defaultRNG seed $rl_mainseed
    } else {
        $self cmd reset
    }
}

proc rl_start_draw {k lo hi} {
    set r [new RNG]
    $r seed [rl_subseed [expr {2000 + $k}]]
    return [$r uniform $lo $hi]
}
proc rl_uniform_ranvar {seed} {
    set r [new RNG]; $r seed $seed
    set v [new RandomVariable/Uniform]; $v use-rng $r
    return $v
}

# Gilbert-Elliott: per packet, judge with the current state's loss probability, then move.
Class ErrorModel/RenolabGE -superclass ErrorModel/MultiState
ErrorModel/RenolabGE instproc init {} { $self next {} {} {} pkt pkt 0 none }
ErrorModel/RenolabGE instproc corrupt {} {
    $self instvar rl_rng rl_bad rl_p
    set loss [expr {[$rl_rng uniform 0 1] < [lindex $rl_p [expr {$rl_bad ? 3 : 2}]]}]
    if {[$rl_rng uniform 0 1] < [lindex $rl_p [expr {$rl_bad ? 1 : 0}]]} { set rl_bad [expr {!$rl_bad}] }
    return $loss
}
proc rl_gilbert_elliott {p_gb p_bg loss_good loss_bad seed} {
    set em [new ErrorModel/RenolabGE]
    $em set rl_rng [new RNG]; [$em set rl_rng] seed $seed
    $em set rl_bad 0
    $em set rl_p [list $p_gb $p_bg $loss_good $loss_bad]
    return $em
}

proc rl_tcp_stop {agent} {
    # the application stops offering data: what has been sent is still delivered
    $agent advance [expr {[$agent set maxseq_] + 1}]
}

proc rl_flow {k name variant kind agent src dst fid off nsegs size total} {
    global rl_f rl_nflows
    foreach {key v} [list name $name variant $variant kind $kind agent $agent src $src dst $dst \
                         fid $fid off $off nsegs $nsegs size $size total $total] {
        set rl_f($k,$key) $v
    }
    incr rl_nflows
}
proc rl_snapshot {k} {
    global rl_f
    if {[info exists rl_f($k,snap)]} return
    set a $rl_f($k,agent)
    set rl_f($k,snap) [list [$a set nrexmitpack_] [$a set nrexmit_]]
}
proc rl_done {k} {
    global ns rl_pending rl_stop_when_done rl_f
    if {[info exists rl_f($k,snap)]} return
    rl_snapshot $k
    incr rl_pending -1
    if {$rl_pending <= 0 && $rl_stop_when_done} { $ns at [$ns now] rl_finish }
}

proc rl_finish {} {
    global rl_f rl_nflows rl_trace rl_tracefile rl_finished
    if {$rl_finished} return
    set rl_finished 1
    close $rl_trace
    for {set k 0} {$k < $rl_nflows} {incr k} {
        if {$rl_f($k,kind) eq "tcp"} { rl_snapshot $k }
        set idx($rl_f($k,fid)) $k
        set src($k) $rl_f($k,src); set dst($k) $rl_f($k,dst); set off($k) $rl_f($k,off)
        set tcp($k) [expr {$rl_f($k,kind) eq "tcp"}]
        set first($k) ""; set finish($k) ""; set next($k) $off($k); set sent($k) 0; set syns($k) 0
        set rcvd($k) 0; set rbytes($k) 0; set drops($k) 0; set ddrops($k) 0; set adrops($k) 0
    }
    set f [open $rl_tracefile r]
    while {[gets $f line] >= 0} {
        lassign [split $line " "] ev t from to ty size flags fid s d seq
        if {![info exists idx($fid)]} continue
        set k $idx($fid)
        if {$ev eq "+"} {
            if {$from != $src($k) || $ty eq "ack"} continue
            if {$tcp($k) && $seq < $off($k)} { incr syns($k); continue }
            incr sent($k)
            if {$first($k) eq ""} { set first($k) $t }
        } elseif {$ev eq "r"} {
            if {$to != $dst($k) || $ty eq "ack"} continue
            if {!$tcp($k)} { incr rcvd($k); incr rbytes($k) $size; continue }
            if {$seq < $off($k)} continue
            set got($k,$seq) 1
            while {[info exists got($k,$next($k))]} { incr next($k) }
            if {$finish($k) eq "" && $rl_f($k,nsegs) >= 0 && $next($k) - $off($k) >= $rl_f($k,nsegs)} {
                set finish($k) $t
            }
        } elseif {$ev eq "d"} {
            incr drops($k)
            if {$ty eq "ack"} { incr adrops($k) } else { incr ddrops($k) }
        }
    }
    close $f
    file delete $rl_tracefile
    puts "# renolab-ns2 flows"
    puts "flow,variant,bytes_delivered,completion_time_s,retransmits,timeouts,drops,data_drops,ack_drops,segments_sent,segments_delivered,first_send_s,finish_s,clock_phase_s"
    for {set k 0} {$k < $rl_nflows} {incr k} {
        set tc ""
        if {$first($k) ne "" && $finish($k) ne ""} { set tc [expr {$finish($k) - $first($k)}] }
        if {$tcp($k)} {
            set segs [expr {$next($k) - $off($k)}]
            if {$rl_f($k,nsegs) >= 0 && $segs > $rl_f($k,nsegs)} { set segs $rl_f($k,nsegs) }
            set bytes [expr {$segs * $rl_f($k,size)}]
            if {$rl_f($k,total) >= 0 && $bytes > $rl_f($k,total)} { set bytes $rl_f($k,total) }
            lassign $rl_f($k,snap) rexmit timeouts
            if {$syns($k) > 1} { set rexmit [expr {$rexmit - ($syns($k) - 1)}] }
            set phase $rl_f($k,phase)
        } else {
            set segs $rcvd($k); set bytes $rbytes($k); set rexmit 0; set timeouts 0; set phase ""
        }
        puts [join [list $rl_f($k,name) $rl_f($k,variant) $bytes $tc $rexmit $timeouts $drops($k) \
                        $ddrops($k) $adrops($k) $sent($k) $segs $first($k) $finish($k) $phase] ","]
    }
    exit 0
}
"""


# ----- running ns-2 -------------------------------------------------------------------------


@dataclass
class Ns2Run:
    """What one run of an exported script printed: one dict per flow, keys :data:`COLUMNS`
    (numbers as int or float; ``None`` where empty, e.g. the completion time of an
    unfinished flow)."""

    flows: list[dict[str, Any]]
    seed: int | None = None

    def flow(self, name: str) -> dict[str, Any]:
        return next(f for f in self.flows if f["flow"] == name)


def find_ns(ns: str = "ns") -> str:
    """The path of the ``ns`` command; raises :class:`Ns2NotFound` with how to install it."""
    path = shutil.which(ns)
    if path is None:
        raise Ns2NotFound(INSTALL_HINT)
    return path


def run_ns2(tcl: str, *, seed: int | None = None, ns: str = "ns", timeout: float | None = 600) -> Ns2Run:
    """Run an exported script (text from :func:`to_tcl`) with ns-2 and return its table.

    *seed* overrides the scenario's seed. Raises :class:`Ns2NotFound` without ns-2 and
    :class:`Ns2Error` if the run fails.
    """
    exe = find_ns(ns)
    with tempfile.TemporaryDirectory(prefix="renolab-ns2-") as tmp:
        script = os.path.join(tmp, "scenario.tcl")
        with open(script, "w", encoding="utf-8") as f:
            f.write(tcl)
        cmd = [exe, script] + ([] if seed is None else [str(seed)])
        env = dict(os.environ, TMPDIR=tmp)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns-2 did not finish within {timeout} s") from None
    if proc.returncode != 0 or TABLE_MARKER not in proc.stdout:
        detail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise Ns2Error(f"ns-2 failed (exit {proc.returncode}): {' / '.join(detail[-3:]) or 'no output'}")
    return Ns2Run(parse_table(proc.stdout), seed=seed)


_TIME_COLUMNS = ("completion_time_s", "first_send_s", "finish_s", "clock_phase_s")


def parse_table(stdout: str) -> list[dict[str, Any]]:
    """The per-flow rows an exported script printed after :data:`TABLE_MARKER`."""
    text = stdout.split(TABLE_MARKER, 1)[1].strip()
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        out: dict[str, Any] = {}
        for key in COLUMNS:
            value = row.get(key, "")
            if key in ("flow", "variant"):
                out[key] = value
            elif value == "":
                out[key] = None
            else:
                number = float(value)
                out[key] = number if key in _TIME_COLUMNS else int(number)
        rows.append(out)
    return rows


# ----- comparison ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """How far renolab may be from ns-2 and still agree.

    Relative tolerances (fractions) for the completion time, delivered bytes and drops;
    absolute ones (counts) for retransmissions and timeouts. For random scenarios the means
    agree when their 95 % confidence intervals overlap or differ by no more than these.
    """

    completion_time_s: float = 0.01
    bytes_delivered: float = 0.01
    drops: float = 0.01
    retransmits: float = 0
    timeouts: float = 0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: Tolerance | None = None) -> Tolerance:
        """A tolerance from a ``[validation]`` table's keys (unknown keys are ignored)."""
        names = {f.name for f in fields(cls)}
        aliases = {"completion_time": "completion_time_s", "time": "completion_time_s", "bytes": "bytes_delivered"}
        changes = {}
        for key, value in values.items():
            key = aliases.get(key, key)
            if key in names:
                changes[key] = float(value)
        return replace(base or cls(), **changes)

    def relative(self, metric: str) -> bool:
        return metric in ("completion_time_s", "bytes_delivered", "drops")

    def allowed(self, metric: str, a: float, b: float) -> float:
        """Largest |a - b| within tolerance."""
        tol = getattr(self, metric)
        return tol * max(abs(a), abs(b)) if self.relative(metric) else tol


@dataclass
class Row:
    """One flow's figure in both simulators."""

    flow: str
    metric: str
    ns2: list[float | None]
    renolab: list[float | None]
    ok: bool
    diff: float | None
    ns2_mean: float | None
    ns2_hw: float
    renolab_mean: float | None
    renolab_hw: float
    note: str = ""

    @property
    def rel(self) -> float | None:
        if self.ns2_mean is None or self.renolab_mean is None or self.ns2_mean == 0:
            return None
        return (self.renolab_mean - self.ns2_mean) / abs(self.ns2_mean)


@dataclass
class Report:
    """The outcome of :func:`validate`."""

    name: str
    random: bool
    seeds: list[int]
    tolerance: Tolerance
    rows: list[Row] = field(default_factory=list)
    #: What renolab is compared with (the table's title and its reference column).
    reference: str = "ns-2.35"
    ns2_runs: list[Ns2Run] = field(default_factory=list)
    renolab_runs: list[list[dict[str, Any]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    def failures(self) -> list[Row]:
        return [r for r in self.rows if not r.ok]

    def worst_completion_rel(self) -> float:
        rels = [abs(r.rel) for r in self.rows if r.metric == "completion_time_s" and r.rel is not None]
        return max(rels, default=0.0)

    def format(self) -> str:
        """A side-by-side table, one block of rows per flow."""
        how = (
            f"random: {len(self.seeds)} seeds, means with 95 % confidence intervals"
            if self.random
            else ("deterministic" + (f", {len(self.seeds)} runs" if len(self.seeds) > 1 else ""))
        )
        column = "ns-2" if self.reference == "ns-2.35" else self.reference
        head = ["flow", "metric", column, "renolab", "diff", "tolerance", ""]
        body = []
        for r in self.rows:
            tol = getattr(self.tolerance, r.metric)
            tol_text = f"{tol * 100:g} %" if self.tolerance.relative(r.metric) else f"±{tol:g}"
            if self.random:
                tol_text = "CIs, " + tol_text
            body.append(
                [
                    r.flow,
                    METRICS[r.metric],
                    _fmt_stat(r.metric, r.ns2_mean, r.ns2_hw, self.random),
                    _fmt_stat(r.metric, r.renolab_mean, r.renolab_hw, self.random),
                    _fmt_diff(r),
                    tol_text,
                    ("ok" if r.ok else "OUTSIDE") + (f" ({r.note})" if r.note else ""),
                ]
            )
        widths = [max(len(c) for c in col) for col in zip(head, *body)]
        right = {2, 3, 4, 5}

        def line(cells: Sequence[str]) -> str:
            padded = (c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
            return "  ".join(padded).rstrip()

        out = [f"{self.name}: renolab vs {self.reference} ({how})", line(head)]
        prev = None
        for cells in body:
            shown = list(cells)
            if shown[0] == prev:
                shown[0] = ""
            else:
                prev = shown[0]
            out.append(line(shown))
        bad = len(self.failures())
        out.append(f"{'all figures within tolerance' if not bad else f'{bad} figure(s) outside tolerance'}")
        return "\n".join(out)


def _fmt_value(metric: str, v: float | None) -> str:
    if v is None:
        return "-"
    if metric == "completion_time_s":
        return f"{v:.4f}"
    return f"{v:.1f}" if not float(v).is_integer() else f"{int(v)}"


def _fmt_stat(metric: str, mean: float | None, hw: float, random: bool) -> str:
    if not random or mean is None:
        return _fmt_value(metric, mean)
    if metric == "completion_time_s":
        return f"{mean:.4f} ± {hw:.4f}"
    return f"{mean:.2f} ± {hw:.2f}"


def _fmt_diff(r: Row) -> str:
    if r.diff is None:
        return "-"
    if r.metric in ("retransmits", "timeouts") and float(r.diff).is_integer():
        return f"{int(r.diff):+d}"
    rel = r.rel
    return f"{rel:+.2%}" if rel is not None else f"{r.diff:+.3g}"


def _t95(n: int) -> float:
    """Two-sided 95 % Student-t quantile with n - 1 degrees of freedom."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
             10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
             18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
             26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042}
    df = n - 1
    if df in table:
        return table[df]
    if df <= 40:
        return 2.021
    if df <= 60:
        return 2.000
    if df <= 120:
        return 1.980
    return 1.960


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (Student t)."""
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, 0.0
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, _t95(n) * math.sqrt(var / n)


def compare(
    name: str,
    ns2_runs: Sequence[Ns2Run],
    renolab_runs: Sequence[Sequence[Mapping[str, Any]]],
    *,
    random: bool,
    tolerance: Tolerance,
    seeds: Sequence[int],
    reference: str = "ns-2.35",
) -> Report:
    """Compare per-flow figures of paired runs of renolab and a *reference* (ns-2, or the
    Linux kernel: :mod:`renolab.kernel_validation`)."""
    report = Report(name=name, random=random, seeds=list(seeds), tolerance=tolerance, reference=reference)
    report.ns2_runs = list(ns2_runs)
    report.renolab_runs = [list(r) for r in renolab_runs]
    flows = [f["flow"] for f in ns2_runs[0].flows]
    for flow in flows:
        theirs_rows = [run.flow(flow) for run in ns2_runs]
        ours_rows = [next(r for r in run if r["flow"] == flow) for run in renolab_runs]
        for metric in METRICS:
            theirs = [_value(r[metric]) for r in theirs_rows]
            ours = [_value(r[metric]) for r in ours_rows]
            report.rows.append(_compare_metric(flow, metric, theirs, ours, random, tolerance))
    return report


def _value(v: Any) -> float | None:
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) else v


def _compare_metric(
    flow: str, metric: str, theirs: list[float | None], ours: list[float | None], random: bool, tol: Tolerance
) -> Row:
    a = [v for v in theirs if v is not None]
    b = [v for v in ours if v is not None]
    note = ""
    if len(a) != len(b):
        note = f"finished in {len(a)} ns-2 runs, {len(b)} renolab runs"
    if not a or not b:
        ok = not a and not b
        return Row(flow, metric, theirs, ours, ok, None, None, 0.0, None, 0.0, note or ("" if ok else "missing"))
    if not random:
        ma, mb = a[0], b[0]
        ha = hb = 0.0
        ok = abs(mb - ma) <= tol.allowed(metric, ma, mb) + 1e-9
    else:
        ma, ha = mean_ci(a)
        mb, hb = mean_ci(b)
        ok = abs(mb - ma) <= ha + hb + tol.allowed(metric, ma, mb) + 1e-9
    if note:
        ok = False
    return Row(flow, metric, theirs, ours, ok, mb - ma, ma, ha, mb, hb, note)


def _with_phases(scenario: Scenario, run: Ns2Run, seed: int) -> Scenario:
    """*scenario* reseeded, each TCP flow's RTT clock phase set to the one ns-2 ran with."""
    data = scenario.with_seed(seed).to_dict()
    for f in data.get("flow", []):
        row = run.flow(f["name"])
        if row.get("clock_phase_s") is not None:
            options = f.setdefault("options", {})
            options["clock_phase"] = f"{round(row['clock_phase_s'] * 1e9)}ns"
    return Scenario.from_dict(data)


def renolab_rows(scenario: Scenario) -> list[dict[str, Any]]:
    """renolab's per-flow figures, as plain dicts with the keys of :data:`COLUMNS`."""
    flows = scenario.run().flows
    rows = []
    for rec in flows.to_dict("records"):
        row = {k: rec.get(k) for k in COLUMNS if k in rec}
        for k in ("completion_time_s", "first_send_s", "finish_s"):
            row[k] = _value(row.get(k))
        rows.append(row)
    return rows


def validate(
    scenario: ScenarioLike,
    *,
    runs: int | None = None,
    tolerance: Tolerance | None = None,
    seed: int | None = None,
    jobs: int = 1,
    ns: str = "ns",
    name: str = "scenario",
    ns2_runs: Sequence[Ns2Run] | None = None,
) -> Report:
    """Run *scenario* in ns-2 and in renolab and compare them flow by flow.

    Deterministic scenarios run once (or *runs* times on consecutive seeds); random ones (see
    :func:`is_random`) on *runs* seeds (default 30) from *seed* (default the scenario's), and
    their means are compared. Each renolab run uses the RTT clock phases its ns-2 run drew.
    *ns2_runs* (e.g. stored references) replaces running ns-2.
    """
    sc = _as_scenario(scenario)
    norm = sc.validate()
    random = is_random(sc)
    n = runs if runs is not None else (30 if random else 1)
    if n < 1:
        raise ValueError("runs must be at least 1")
    base = norm["simulation"]["seed"] if seed is None else seed
    seeds = [base + i for i in range(n)]
    if ns2_runs is None:
        tcl = to_tcl(sc)
        find_ns(ns)
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            theirs = list(pool.map(lambda s: run_ns2(tcl, seed=s, ns=ns), seeds))
    else:
        theirs = list(ns2_runs)
        seeds = [r.seed if r.seed is not None else s for r, s in zip(theirs, seeds)]
    ours = [renolab_rows(_with_phases(sc, run, s)) for run, s in zip(theirs, seeds)]
    return compare(name, theirs, ours, random=random, tolerance=tolerance or Tolerance(), seeds=seeds)


# ----- command line ---------------------------------------------------------------------------


def add_export_arguments(export: Any) -> None:
    """``renolab export ns2 SCENARIO.toml [-o FILE.tcl]``."""
    targets = export.add_subparsers(dest="target", metavar="TARGET", required=True)
    p = targets.add_parser("ns2", help="a standalone ns-2.35 Tcl script equivalent to the scenario")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p.add_argument("-o", "--output", metavar="FILE.tcl", help="write the script here (default: standard output)")
    p.set_defaults(handler=export_command)


def export_command(args: Any) -> int:
    scenario, _ = load(args.scenario)
    tcl = to_tcl(scenario, source=os.path.basename(args.scenario))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(tcl)
        print(f"wrote {args.output}; run it with: ns {args.output} [SEED]")
    else:
        print(tcl, end="")
    return 0


def add_validate_arguments(p: Any) -> None:
    """``renolab validate SCENARIO.toml [--against ns2|linux] [--runs N] [tolerances]``."""
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (a [validation] table may set tolerances)")
    p.add_argument(
        "--against",
        choices=["ns2", "linux"],
        default="ns2",
        help="compare with ns-2.35 (default) or with real Linux TCP through renolab's links (root; runs default 5)",
    )
    p.add_argument("--runs", type=int, metavar="N", help="seeds to run (default: 30 for a random scenario, else 1)")
    p.add_argument("--seed", type=int, metavar="S", help="first seed (default: simulation.seed)")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="ns-2 runs at once (default 1)")
    d = Tolerance()
    p.add_argument("--time-tol", type=float, metavar="F",
                   help=f"relative tolerance on completion times (default {d.completion_time_s})")
    p.add_argument("--bytes-tol", type=float, metavar="F",
                   help=f"relative tolerance on delivered bytes (default {d.bytes_delivered})")
    p.add_argument("--drops-tol", type=float, metavar="F", help=f"relative tolerance on drops (default {d.drops})")
    p.add_argument("--retransmits-tol", type=float, metavar="N", help="retransmissions that may differ (default 0)")
    p.add_argument("--timeouts-tol", type=float, metavar="N", help="timeouts that may differ (default 0)")
    p.add_argument("--ns", default="ns", metavar="PATH", help="the ns-2 command (default: ns)")
    p.set_defaults(handler=validate_command)


def validate_command(args: Any) -> int:
    from renolab.cli import EXIT_BAD_INPUT, EXIT_SIMULATION_FAILED, _fail

    if getattr(args, "against", "ns2") == "linux":
        from renolab.kernel_validation import validate_command as against_linux

        return against_linux(args)

    for name in ("runs", "jobs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            return _fail(f"--{name}: {value} is not a whole number >= 1", EXIT_BAD_INPUT)
    scenario, extra = load(args.scenario)
    tolerance = Tolerance.from_mapping(extra)
    given = {
        "completion_time_s": args.time_tol,
        "bytes_delivered": args.bytes_tol,
        "drops": args.drops_tol,
        "retransmits": args.retransmits_tol,
        "timeouts": args.timeouts_tol,
    }
    tolerance = replace(tolerance, **{k: v for k, v in given.items() if v is not None})
    runs = args.runs if args.runs is not None else extra.get("runs")
    try:
        report = validate(
            scenario,
            runs=runs,
            tolerance=tolerance,
            seed=args.seed,
            jobs=args.jobs,
            ns=args.ns,
            name=os.path.basename(args.scenario),
        )
    except Ns2NotFound as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    except Ns2Error as exc:
        return _fail(exc, EXIT_SIMULATION_FAILED)
    print(report.format())
    return 0 if report.ok else 1
