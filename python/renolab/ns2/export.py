"""Exporting a scenario as a standalone ns-2.35 script (the mapping is in :mod:`renolab.ns2`).

The script is built from the *normalised* scenario; the support procedures every script
starts with (seeding, the Gilbert-Elliott error model, the per-flow table printed at the
end) are ``preamble.tcl``, shipped beside this module.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any, Union

from renolab import __version__
from renolab._core import ScenarioError
from renolab.ns2.run import COLUMNS, TABLE_MARKER
from renolab.scenario import PathLike, Scenario
from renolab.units import duration_ns, rate_bps

#: The loss recovery of each ns-2.35 agent, by renolab variant (Agent/TCP is Tahoe's
#: go-back-N, Agent/TCP/Sack1 ns-2's SACK recovery, and Vegas recovers as Reno does).
NS2_RECOVERY = {"tahoe": "tahoe", "reno": "reno", "newreno": "newreno", "sack": "sack", "vegas": "reno"}

__all__ = ["PHASE_SEARCH_SEEDS", "PREAMBLE", "is_random", "load", "to_tcl"]

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

#: The support procedures at the start of every exported script (``preamble.tcl``).
PREAMBLE = resources.files("renolab.ns2").joinpath("preamble.tcl").read_text(encoding="utf-8")


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


def _comment(text: Any) -> str:
    """*text* safe in a Tcl comment: one line of printable ASCII without a backslash (a
    newline would end the comment and start a command; a backslash at the end of the line
    would continue the comment over the next one). Anything else is written ``<U+XXXX>``."""
    return "".join(c if " " <= c <= "~" and c != "\\" else f"<U+{ord(c):04X}>" for c in str(text))


def _tcl_str(text: str) -> str:
    """A Tcl word holding *text* literally."""
    if re.fullmatch(r"[^{}\\\s]*", text):
        return "{" + text + "}"
    return '"' + re.sub(r'([\\$\[\]"{}])', r"\\\1", text) + '"'


def as_scenario(scenario: ScenarioLike) -> Scenario:
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


def _random_loss(loss: dict[str, Any]) -> bool:
    """True if the loss model (or a step of a scheduled one) draws random numbers that
    can drop a packet."""
    if "schedule" in loss:
        return any(_random_loss(step) for _, step in loss["schedule"])
    kind = loss["kind"]
    return (
        (kind == "uniform" and loss["p"] > 0)
        or (kind == "ber" and loss["ber"] > 0)
        or (kind == "gilbert_elliott" and (loss["loss_good"] > 0 or loss["p_gb"] > 0))
    )


def is_random(scenario: ScenarioLike) -> bool:
    """True if the scenario draws random numbers that change its outcome: random losses,
    RED, random start times or CBR jitter (the RTT clock phase aside, which
    :func:`validate` pairs between the two simulators)."""
    norm = as_scenario(scenario).validate()
    for link in norm["link"]:
        for d in (link, link["reverse"]):
            if d["queue"]["kind"] == "red":
                return True
            if any(_random_loss(loss) for loss in d["loss"]):
                return True
            if d.get("latency") and d["latency"]["kind"] != "fixed":
                return True
    for f in norm["flow"]:
        if isinstance(f["start"], dict):
            lo, hi = f["start"]["uniform"]
            if duration_ns(lo) != duration_ns(hi):
                return True
        if f["kind"] == "cbr" and f["jitter"] > 0:
            return True
    return False


# ----- export ----------------------------------------------------------------------------


def to_tcl(scenario: ScenarioLike, *, source: str | None = None) -> str:
    """The ns-2.35 script equivalent to *scenario* (see the module documentation).

    Run it as ``ns script.tcl [SEED]`` (SEED defaults to the scenario's ``simulation.seed``).
    Raises :class:`renolab.ScenarioError` for an invalid scenario or one that uses a setting
    ns-2.35 cannot reproduce; the message names the field.
    """
    sc = as_scenario(scenario)
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
            if f["variant"] == "cubic":
                raise ScenarioError(
                    f"{p}.variant: flow {f['name']!r} is CUBIC, which has no ns-2.35 agent (renolab runs it; "
                    "ns-2 export covers tahoe, reno, newreno, sack and vegas)"
                )
            if f["variant"] == "dctcp":
                raise ScenarioError(
                    f'{p}.variant: "dctcp" has no ns-2.35 equivalent (DCTCP is an outside patch); '
                    "export ECN with reno, newreno or sack and options.ecn = true"
                )
            if f["variant"].startswith("python:"):
                raise ScenarioError(
                    f"{p}.variant: {f['variant']!r} has no ns-2 equivalent; a Python controller runs "
                    "only in renolab"
                )
            agent_recovery = NS2_RECOVERY.get(f["variant"])
            if agent_recovery is None:
                raise ScenarioError(
                    f"{p}.variant: {f['variant']!r} is not an ns-2.35 agent; ns-2 has "
                    + ", ".join(NS2_RECOVERY)
                )
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
            if f.get("recovery", agent_recovery) != agent_recovery:
                raise ScenarioError(
                    f"{p}.recovery: {f['recovery']!r} with variant {f['variant']!r} has no ns-2.35 agent; "
                    "ns-2's agents pair " + ", ".join(f"{v}/{r}" for v, r in NS2_RECOVERY.items())
                )
            if o.get("pacing"):
                raise ScenarioError(f"{p}.options.pacing: ns-2.35's TCP agents do not pace; use pacing = false")
            if duration_ns(o["clock_granularity"]) == 0:
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
            if link.get("outages"):
                raise ScenarioError(
                    f"link[{i}].outages: ns-2 export writes links that stay up; an outage has no "
                    "ns-2.35 equivalent here (its rtmodel reroutes rather than holding the queue)"
                )
            for d, p in ((link, f"link[{i}]"), (link["reverse"], f"link[{i}].reverse")):
                for key in ("rate", "delay"):
                    if isinstance(d[key], dict):
                        what = "a mahimahi trace" if "trace" in d[key] else "a schedule"
                        raise ScenarioError(
                            f"{p}.{key}: {what} has no ns-2.35 equivalent (an ns-2 link has one "
                            f"{key}); export links whose {key} is fixed"
                        )
                for j, loss in enumerate(d["loss"]):
                    if "schedule" in loss:
                        raise ScenarioError(
                            f"{p}.loss[{j}]: a schedule of loss models has no ns-2 export; "
                            "exportable loss kinds: drop, uniform, ber, gilbert_elliott"
                        )
                q = d["queue"]
                if q["kind"] in ("codel", "fq_codel", "dualpi2"):
                    missing = "DualPI2" if q["kind"] == "dualpi2" else "CoDel"
                    raise ScenarioError(
                        f"{p}.queue.kind: {q['kind']!r} has no ns-2.35 equivalent (ns-2.35 has no "
                        f"{missing}); use droptail or red"
                    )
                if q["kind"] == "droptail" and "ecn_threshold" in q:
                    raise ScenarioError(
                        f"{p}.queue.ecn_threshold: ns-2.35's DropTail does not mark; use kind = "
                        '"red" with ecn = true'
                    )
                if q["kind"] == "red" and "limit_bytes" in q and q["limit_bytes"] % q["mean_pktsize"]:
                    raise ScenarioError(
                        f"{p}.queue.limit_bytes: {q['limit_bytes']} is not a multiple of mean_pktsize "
                        f"({q['mean_pktsize']}); ns-2's RED counts its limit_ in mean_pktsize_ units"
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
                    if loss["kind"] == "periodic":
                        raise ScenarioError(
                            f"{p}.loss[{j}].kind: \"periodic\" has no ns-2 export; exportable loss kinds: "
                            "drop, uniform, ber, gilbert_elliott"
                        )
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
        self.emit(PREAMBLE)
        self.emit("# ---- nodes")
        for i, name in enumerate(self.nodes):
            self.emit(f"set n({i}) [$ns node] ;# {_comment(name)}")
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
            self.emit(f"$ns at {_secs(duration_ns(sim['duration']))} rl_finish")
            self.emit("set rl_stop_when_done 0")
        else:
            self.emit(f"$ns at {_secs(duration_ns(sim['time_limit']))} rl_finish ;# time_limit")
            self.emit("set rl_stop_when_done 1")
        self.emit(f"set rl_pending {finite}")
        self.emit("$ns run", "")
        text = "\n".join(self.lines)
        if self.notes:
            notes = "\n".join(f"# note: {_comment(n)}" for n in self.notes)
            text = text.replace("# @NOTES@", notes, 1)
        else:
            text = text.replace("# @NOTES@\n", "", 1)
        return text

    def header(self) -> None:
        desc = self.norm.get("description") or self.source or "scenario"
        self.emit(
            f"# ns-2.35 script generated by renolab {__version__} (`renolab export ns2`) from {_comment(desc)}.",
            "# It mirrors renolab's normalised scenario; see python/renolab/ns2/__init__.py for the mapping.",
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
        self.emit(f"# link[{i}] {_comment(link['name'])}")
        for d, (x, y), p in ((link, (a, b), f"link[{i}]"), (link["reverse"], (b, a), f"link[{i}].reverse")):
            delay = duration_ns(d["delay"])
            lat = d.get("latency")
            if lat:
                delay += duration_ns(lat["delay"])
            q = d["queue"]
            qtype = "RED" if q["kind"] == "red" else "DropTail"
            nx, ny = self.node(x), self.node(y)
            self.emit(f"$ns simplex-link {nx} {ny} {rate_bps(d['rate'])} {_secs(delay)} {qtype}")
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
                    "limit_": q["limit_bytes"] // q["mean_pktsize"] if "limit_bytes" in q else q["limit"],
                    "thresh_": q.get("min_th", 0),
                    "maxthresh_": q.get("max_th", 0),
                    "linterm_": 1.0 / q["max_p"],
                    "q_weight_": q["w_q"],
                    "gentle_": q["gentle"],
                    "wait_": q["wait"],
                    "bytes_": q["byte_mode"],
                    "queue_in_bytes_": q["queue_in_bytes"],
                    "mean_pktsize_": q["mean_pktsize"],
                    "targetdelay_": duration_ns(q["target_delay"]) / 1e9,
                    # ECN (RFC 3168): setbit_ marks ECT arrivals the early test picks.
                    "setbit_": q.get("ecn", False),
                    "use_mark_p_": True,
                    "adaptive_": 0,
                }
                if q.get("ecn"):
                    params["mark_p_"] = q["mark_p"]
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
            lo, hi = (duration_ns(t) for t in start["uniform"])
            return f"[rl_start_draw {i} {_secs(lo)} {_secs(hi)}]"
        return _secs(duration_ns(start))

    def tcp_flow(self, i: int, f: dict[str, Any]) -> None:
        o, r, v = f["options"], f["receiver"], f["variant"]
        name = f["name"]
        mss, hdr = f["mss"], f["header_bytes"]
        nsegs = -(-f["bytes"] // mss) if "bytes" in f else -1
        off = _seq_offset(f)
        tick = duration_ns(o["clock_granularity"]) / 1e9
        what = f"{f['bytes']} bytes = {nsegs} segments of {mss}" if nsegs >= 0 else "unlimited"
        self.emit(_comment(f"# flow[{i}] {name}: {v} {f['src']} -> {f['dst']}, {what}"))
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
            "minrto_": duration_ns(o["min_rto"]) / 1e9,
            "maxrto_": duration_ns(o["max_rto"]) / 1e9,
            "rtxcur_init_": duration_ns(o["initial_rto"]) / 1e9,
            "numdupacks_": o["dupack_threshold"],
            "singledup_": 1 if o["limited_transmit"] else 0,
        }
        if o.get("ecn"):
            # ECN-Reno (tcp.cc ecn()): ECT data, ECN-Echo halves once per window; the sinks
            # echo CE whenever the data is ECT.
            params["ecn_"] = 1
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
            sink_params["interval_"] = duration_ns(r["delack_timeout"]) / 1e9
        plist = " ".join(f"{k} {_num(val)}" for k, val in params.items())
        slist = " ".join(f"{k} {_num(val)}" for k, val in sink_params.items())
        phase = "{}" if "clock_phase" not in o else _num((duration_ns(o["clock_phase"]) / 1e9) % tick)
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
            self.emit(f'$ns at {_secs(duration_ns(f["stop"]))} "rl_tcp_stop $tcp({i})"')
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
            _comment(f"# flow[{i}] {name}: cbr {f['src']} -> {f['dst']}, {f['rate']} of {size}-byte packets"),
            f"set udp({i}) [new Agent/UDP]; $udp({i}) set packetSize_ {size}; $udp({i}) set fid_ {self.fid[name]}",
            f"set sink({i}) [new Agent/Null]",
            f"$ns attach-agent {src} $udp({i}); $ns attach-agent {dst} $sink({i}); $ns connect $udp({i}) $sink({i})",
            f"set app({i}) [new Application/Traffic/CBR]; $app({i}) attach-agent $udp({i})",
            f"$app({i}) set packetSize_ {size}; $app({i}) set rate_ {rate_bps(f['rate'])}; "
            f"$app({i}) set random_ {1 if f['jitter'] else 0}",
            f'$ns at {self.start_time(i, f)} "$app({i}) start"',
        )
        if "stop" in f:
            self.emit(f'$ns at {_secs(duration_ns(f["stop"]))} "$app({i}) stop"')
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
