"""Running a scenario in ns-3.44: the Linux-like TCP settings, the flows and their probes.

The topology itself is built by :mod:`ns3ref.wired` (point-to-point links) or
:mod:`ns3ref.wifi` (one 802.11b station and its access point); both hand back the nodes by
name and an address to reach each, and everything else (TCP, applications, counters,
results) is shared and lives here.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ns3ref.spec import TCP_IP_TS_HEADER_BYTES, Scenario, SpecError

#: Socket buffers, bytes: far above any window the scenarios reach (20 Mb/s x 40 ms with a
#: 4 BDP buffer is 0.5 MB; 10 Gb/s x 100 us is 125 kB), like Linux's autotuned buffers
#: (tcp_wmem / tcp_rmem up to 4-6 MB), so neither end limits the window.
SOCKET_BUFFER_BYTES = 16 * 1024 * 1024
#: First port of the receiving applications (below ns-3's ephemeral ports, 49152 up).
FIRST_PORT = 5001
#: Bytes an application writes at a time.
WRITE_CHUNK_SEGMENTS = 8

_NS = None  # (ns, probes), loaded once per process


def load_ns3() -> tuple[Any, Any]:
    """Import ns-3 (slow: cppyy parses its headers, about 10-15 s) and compile the probes."""
    global _NS
    if _NS is None:
        try:
            from ns import ns  # noqa: PLC0415  (the ns3 PyPI wheel)
        except ImportError as exc:
            raise SystemExit(f"run_ns3: ns-3 is not installed ({exc}); pip install ns3") from None
        import cppyy  # noqa: PLC0415

        cppyy.cppdef((Path(__file__).with_name("probes.cc")).read_text())
        _NS = (ns, cppyy.gbl.renolab_ns3)
    return _NS


def ns3_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("ns3")
    except PackageNotFoundError:
        return "unknown"


def configure_tcp(ns: Any, mss: int) -> None:
    """ns-3's TCP set as close to a Linux 6.x host as its options go (see the README).

    Defaults are set before any socket exists; every socket of the run takes them.
    """
    defaults = {
        # RFC 6937 PRR, as Linux (ns-3's default is the RFC 5681 classic recovery).
        "ns3::TcpL4Protocol::RecoveryType": ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpPrrRecovery")),
        "ns3::TcpSocket::SegmentSize": ns.UintegerValue(mss),
        "ns3::TcpSocket::InitialCwnd": ns.UintegerValue(10),  # TCP_INIT_CWND
        "ns3::TcpSocket::DelAckCount": ns.UintegerValue(2),
        "ns3::TcpSocket::DelAckTimeout": ns.TimeValue(ns.MilliSeconds(40)),  # TCP_ATO_MIN
        "ns3::TcpSocket::ConnTimeout": ns.TimeValue(ns.Seconds(1)),  # TCP_TIMEOUT_INIT
        # Consecutive timeouts before the connection is dropped: net.ipv4.tcp_retries2.
        "ns3::TcpSocket::DataRetries": ns.UintegerValue(15),
        "ns3::TcpSocket::SndBufSize": ns.UintegerValue(SOCKET_BUFFER_BYTES),
        "ns3::TcpSocket::RcvBufSize": ns.UintegerValue(SOCKET_BUFFER_BYTES),
        "ns3::TcpSocketBase::MinRto": ns.TimeValue(ns.MilliSeconds(200)),  # TCP_RTO_MIN
        "ns3::TcpSocketBase::Sack": ns.BooleanValue(True),
        "ns3::TcpSocketBase::Timestamp": ns.BooleanValue(True),
        "ns3::TcpSocketBase::WindowScaling": ns.BooleanValue(True),
        # Pacing stays off (Linux paces only with BBR or the fq qdisc); TcpBbr turns it on
        # for its own sockets. ns-3 caps the pacing rate at 4 Gb/s by default.
        "ns3::TcpSocketState::MaxPacingRate": ns.DataRateValue(ns.DataRate("1000Gb/s")),
    }
    for name, value in defaults.items():
        ns.Config.SetDefault(name, value)


def socket_types(scenario: Scenario, variant_map: Mapping[str, str]) -> dict[str, str]:
    """The ns-3 congestion control of every node that sends or receives.

    ns-3 chooses congestion control per node (TcpL4Protocol::SocketType, read when a socket
    is created), so a node's flows must agree. The receiver gets its sender's type: DCTCP
    needs its receiver's ECN echo.
    """
    types: dict[str, tuple[str, int]] = {}
    for i, flow in enumerate(scenario.flows):
        if flow.variant not in variant_map:
            raise SpecError(f"flow[{i}].variant: no ns-3 type for {flow.variant!r}; mapped: "
                            f"{', '.join(sorted(variant_map))} (add one with --map {flow.variant}=TYPE)")
        wanted = variant_map[flow.variant]
        for node in (flow.src, flow.dst):
            have = types.setdefault(node, (wanted, i))
            if have[0] != wanted:
                raise SpecError(f"flow[{i}].variant: node {node!r} already runs {have[0]} for flow[{have[1]}]; "
                                "ns-3 sets congestion control per node")
    return {node: t for node, (t, _) in types.items()}


@dataclass
class FlowHandles:
    sender: Any
    sink: Any
    port: int
    ns3_type: str
    start_s: float


class Ns3Run:
    """One ns-3 run of a scenario: build, run, collect. ns-3's simulator is a process-wide
    singleton, so runs happen one after the other (:meth:`finish` destroys it)."""

    def __init__(self, scenario: Scenario, variant_map: Mapping[str, str], run_number: int):
        self.scenario = scenario
        self.variant_map = dict(variant_map)
        self.run_number = run_number
        self.ns, self.probes = load_ns3()
        self.keep: list[Any] = []  # ns-3 objects Python must keep alive
        self.flows: list[FlowHandles] = []
        self.completion = self.probes.Completion()

    # ----- building -----

    def reset(self) -> None:
        """Start from a fresh ns-3, so that a run repeated in the same process (run_ns3.py
        --repeat) gives what a new process would: attribute defaults, the automatic random
        stream numbers, the address allocators; then RngSeed and RngRun."""
        ns = self.ns
        if self.scenario.simulation.seed < 1:
            raise SpecError("simulation.seed: ns-3's RngSeed must be at least 1")
        ns.Config.Reset()
        ns.RngSeedManager.ResetNextStreamIndex()
        ns.Ipv4AddressGenerator.Reset()
        ns.Mac48Address.ResetAllocationIndex()
        ns.RngSeedManager.SetSeed(self.scenario.simulation.seed)
        ns.RngSeedManager.SetRun(self.run_number)

    def install_flows(self, nodes: Mapping[str, Any], addresses: Mapping[str, Any]) -> None:
        ns, probes, sc = self.ns, self.probes, self.scenario
        types = socket_types(sc, self.variant_map)
        for node, type_name in types.items():
            if not ns.TypeId.LookupByNameFailSafe(type_name, ns.TypeId()):
                raise SpecError(f"--map: ns-3 has no type {type_name!r}")
            probes.SetSocketType(nodes[node], type_name)
        start_rng = ns.CreateObject[ns.UniformRandomVariable]()
        start_rng.SetStream(1000)  # a fixed stream: the draws depend on RngSeed/RngRun only
        finite = 0
        for i, flow in enumerate(sc.flows):
            port = FIRST_PORT + i
            any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
            sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(nodes[flow.dst])
            sink_apps.Start(ns.Seconds(0))
            to = ns.InetSocketAddress(addresses[flow.dst], port).ConvertTo()
            bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", to)
            bulk.SetAttribute("MaxBytes", ns.UintegerValue(flow.bytes or 0))
            bulk.SetAttribute("SendSize", ns.UintegerValue(sc.mss * WRITE_CHUNK_SEGMENTS))
            send_apps = bulk.Install(nodes[flow.src])
            if isinstance(flow.start, tuple):
                lo, hi = flow.start
                start_ns = round(start_rng.GetValue(lo, hi))
            else:
                start_ns = flow.start
            send_apps.Start(ns.NanoSeconds(start_ns))
            if flow.stop_ns is not None:
                send_apps.Stop(ns.NanoSeconds(flow.stop_ns))
            sender = probes.SenderProbe()
            sink = probes.SinkProbe()
            if flow.bytes:
                sink.target = flow.bytes
                sink.completion = self.completion
                finite += 1
            # The application makes its socket when it starts; attach one nanosecond later
            # (the first data segment needs a round trip for the handshake).
            probes.AttachSenderAt(ns.NanoSeconds(start_ns + 1), send_apps.Get(0), sender)
            probes.AttachSink(sink_apps.Get(0), sink)
            self.keep += [sink_apps, send_apps, bulk]
            self.flows.append(FlowHandles(sender, sink, port, types[flow.src], start_ns * 1e-9))
        self.completion.pending = finite
        self.completion.stopWhenDone = sc.simulation.duration_ns is None
        self.monitor_helper = ns.FlowMonitorHelper()
        self.monitor = self.monitor_helper.InstallAll()

    # ----- running -----

    def run_simulator(self) -> float:
        """Run to the scenario's duration, or until every transfer is complete (at most
        time_limit). Returns the simulated end time in seconds."""
        ns, sim = self.ns, self.scenario.simulation
        stop = sim.duration_ns if sim.duration_ns is not None else sim.time_limit_ns
        ns.Simulator.Stop(ns.NanoSeconds(stop))
        self.wall_start = time.perf_counter()
        cpu_start = time.process_time()
        ns.Simulator.Run()
        self.wall_s = time.perf_counter() - self.wall_start
        # CPU time moves less than wall time on a loaded machine.
        self.cpu_s = time.process_time() - cpu_start
        # Events executed, for events per second beside renolab's `renolab bench` figures.
        self.events = int(ns.Simulator.GetEventCount())
        self.end_s = ns.Simulator.Now().GetSeconds()
        if sim.duration_ns is None and self.completion.pending:
            self.stop_reason = "time_limit"
        elif sim.duration_ns is None:
            self.stop_reason = "all_flows_finished"
        else:
            self.stop_reason = "duration"
        return self.end_s

    # ----- results -----

    def flow_rows(self) -> list[dict[str, Any]]:
        """One row per flow, renolab's flows.csv columns where ns-3 has them."""
        rows = []
        self.monitor.CheckForLostPackets()
        classifier = self.monitor_helper.GetClassifier()
        for flow, h in zip(self.scenario.flows, self.flows):
            s, k = h.sender, h.sink
            mon = self.probes.CountMonitoredFlow(self.monitor, classifier, h.port)
            first = s.firstSendS if s.firstSendS >= 0 else None
            finish = k.finishS if k.finishS >= 0 else None
            span = None
            if first is not None:
                span = (finish if finish is not None else self.end_s) - first
            delivered = int(k.bytes)
            rows.append({
                "flow": flow.name,
                "variant": flow.variant,
                "ns3_type": h.ns3_type,
                "src": flow.src,
                "dst": flow.dst,
                "bytes_delivered": delivered,
                "completion_time_s": None if finish is None or first is None else finish - first,
                "throughput_bps": delivered * 8 / span if span else 0.0,
                "retransmits": int(s.retransmits),
                "timeouts": int(s.timeouts),
                "fast_retransmits": int(s.fastRecoveries),
                "drops": int(mon.dataDrops + mon.ackDrops),
                "data_drops": int(mon.dataDrops),
                "ack_drops": int(mon.ackDrops),
                "segments_sent": int(s.segmentsSent),
                "segments_delivered": math.ceil(delivered / self.scenario.mss),
                "first_send_s": first,
                "finish_s": finish,
                "start_s": h.start_s,
                "mean_latency_s": mon.dataDelaySumS / mon.dataReceived if mon.dataReceived else None,
                "mean_rtt_s": s.MeanRttS() if s.rttSamples else None,
                "min_rtt_s": s.rttMinS if s.rttSamples else None,
                "max_rtt_s": s.rttMaxS if s.rttSamples else None,
                "rtt_samples": int(s.rttSamples),
            })
        return rows

    def finish(self) -> None:
        self.ns.Simulator.Destroy()


#: Columns of flows.csv, in order (renolab's first, then ns-3's extras).
FLOW_COLUMNS = (
    "flow", "variant", "ns3_type", "src", "dst", "bytes_delivered", "completion_time_s",
    "throughput_bps", "retransmits", "timeouts", "fast_retransmits", "drops", "data_drops",
    "ack_drops", "segments_sent", "segments_delivered", "first_send_s", "finish_s", "start_s",
    "mean_latency_s", "mean_rtt_s", "min_rtt_s", "max_rtt_s", "rtt_samples",
)


def wire_factor(mss: int) -> float:
    """ns-3 adds a 2-byte PPP header to every packet a point-to-point device sends; speeding
    the device up by (S + 2) / S for a full-sized segment of S bytes gives such a segment
    renolab's serialisation time exactly (a 52-byte ACK then takes ~4 % longer than in
    renolab, which no scenario here notices: ACKs never fill a link)."""
    size = mss + TCP_IP_TS_HEADER_BYTES
    return (size + PPP_HEADER_BYTES) / size


#: ns-3's PointToPointNetDevice header (RFC 1661 protocol field only).
PPP_HEADER_BYTES = 2

