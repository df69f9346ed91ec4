"""A renolab link graph as ns-3 point-to-point links, with the buffers counted renolab's way.

Every link direction gets a queue disc in front of a one-packet device queue:

- **Why a disc even for DropTail.** ns-3 puts FqCoDel on every device unless told
  otherwise. Removing it and letting the device's own DropTailQueue hold the backlog would
  lose the drops: once that queue is full, ns-3 stops it and the traffic-control layer
  discards the next packets itself, past the queue's and FlowMonitor's drop traces (only
  the node-wide TrafficControlLayer "Drop" sees them). A FifoQueueDisc drops where both
  see it.
- **Counting.** The device holds the packet being serialised plus one waiting packet (its
  queue of one is refilled from the disc as soon as it empties), so packets waiting = the
  disc's + 1. renolab's ``limit`` L counts the packets waiting, not the one on the wire,
  under the linux and rfc profiles (with ``counts_transmitting``, L - 1 wait; applied by
  :mod:`ns3ref.spec`), so the disc holds L - 1. (The bare device with MaxSize Q holds Q
  waiting plus the one on the wire: the "Q + 1" of NS3-NOTES.)
- **DropTail**: FifoQueueDisc, MaxSize L - 1.
- **RED**: RedQueueDisc in packets, limit and thresholds one below renolab's (RED averages
  the disc's length, renolab's RED every packet waiting). With ``ecn`` it marks ECT packets
  instead of dropping them, above ``max_th`` too (UseHardDrop off), as Linux's RED with
  ``ecn``; min_th = max_th = K and w_q = 1 is DCTCP's step marking at K.
- **Rate**: the device runs faster by (S + 2) / S so that a full segment and its 2-byte PPP
  header take renolab's time for the segment alone (:func:`ns3ref.sim.wire_factor`).
- **Loss**: a RateErrorModel on the receiving device (per packet or per bit; a bit error
  rate then also covers the PPP header's 16 bits).
"""

from __future__ import annotations

from typing import Any

from ns3ref.sim import Ns3Run, wire_factor
from ns3ref.spec import TCP_IP_TS_HEADER_BYTES, Direction, Link

#: Packets a device's own queue holds; the queue disc in front of it holds the rest.
DEVICE_QUEUE = 1


class WiredRun(Ns3Run):
    """A scenario of point-to-point links."""

    def build(self) -> None:
        ns, probes, sc = self.ns, self.probes, self.scenario
        self.reset()
        from ns3ref.sim import configure_tcp  # noqa: PLC0415

        configure_tcp(ns, sc.mss)
        names = sc.nodes
        container = ns.NodeContainer()
        container.Create(len(names))
        self.nodes = {name: container.Get(i) for i, name in enumerate(names)}
        ns.InternetStackHelper().Install(container)
        factor = wire_factor(sc.mss)
        self.addresses: dict[str, Any] = {}
        self.link_probes: list[tuple[Link, str, Direction, Any]] = []
        stream = 2000
        for i, link in enumerate(sc.links):
            p2p = ns.PointToPointHelper()
            p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(link.forward.delay_ns)))
            devices = p2p.Install(self.nodes[link.a], self.nodes[link.b])
            ends = [(devices.Get(0), devices.Get(1), link.forward), (devices.Get(1), devices.Get(0), link.reverse)]
            discs = []
            for dev, peer, d in ends:
                dev.SetAttribute("DataRate", ns.DataRateValue(ns.DataRate(round(d.rate_bps * factor))))
                probes.SetDeviceQueue(dev, DEVICE_QUEUE)
                discs.append(self._install_disc(dev, d))  # before Assign, which would add FqCoDel
                if d.loss is not None:
                    em = ns.CreateObject[ns.RateErrorModel]()
                    em.SetAttribute("ErrorRate", ns.DoubleValue(d.loss.value))
                    unit = "ERROR_UNIT_PACKET" if d.loss.kind == "uniform" else "ERROR_UNIT_BIT"
                    em.SetAttribute("ErrorUnit", ns.StringValue(unit))
                    em.AssignStreams(stream)
                    stream += 1
                    peer.SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
                    self.keep.append(em)
            addr = ns.Ipv4AddressHelper()
            addr.SetBase(ns.Ipv4Address(f"10.{1 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.252"))
            interfaces = addr.Assign(devices)
            self.addresses.setdefault(link.a, interfaces.GetAddress(0))
            self.addresses.setdefault(link.b, interfaces.GetAddress(1))
            for j, ((dev, peer, d), disc) in enumerate(zip(ends, discs)):
                probe = probes.LinkProbe()
                probes.AttachLink(dev, peer, disc, probe)
                name = link.name if j == 0 else f"{link.name}/rev"
                self.link_probes.append((link, name, d, probe))
            self.keep += [p2p, devices, addr, interfaces, discs]
        ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
        self.install_flows(self.nodes, self.addresses)

    def _install_disc(self, dev: Any, d: Direction) -> Any:
        """The direction's queue disc (see the module documentation); returns it."""
        ns, q = self.ns, d.queue
        below = DEVICE_QUEUE  # the disc holds one packet fewer than wait in all
        if q.kind == "droptail":
            kind = "ns3::FifoQueueDisc"
            settings = {"MaxSize": ns.QueueSizeValue(ns.QueueSize(f"{q.waiting - below}p"))}
        else:
            kind = "ns3::RedQueueDisc"
            settings = {
                "MaxSize": ns.QueueSizeValue(ns.QueueSize(f"{q.waiting - below}p")),
                "MinTh": ns.DoubleValue(max(0.0, q.min_th - below)),
                "MaxTh": ns.DoubleValue(max(0.0, q.max_th - below)),
                "LInterm": ns.DoubleValue(1.0 / q.max_p if q.max_p > 0 else 1e12),
                "QW": ns.DoubleValue(q.w_q),
                "Gentle": ns.BooleanValue(q.gentle),
                "Wait": ns.BooleanValue(q.wait),
                "UseEcn": ns.BooleanValue(q.ecn),
                "UseHardDrop": ns.BooleanValue(not q.ecn),
                "MeanPktSize": ns.UintegerValue(self.scenario.mss + TCP_IP_TS_HEADER_BYTES),
                "LinkBandwidth": ns.DataRateValue(ns.DataRate(d.rate_bps)),
                "LinkDelay": ns.TimeValue(ns.NanoSeconds(d.delay_ns)),
            }
        # Attributes through the defaults: TrafficControlHelper's setter is variadic, which
        # cppyy does not bind; defaults are read when the disc is created, just below.
        for name, value in settings.items():
            ns.Config.SetDefault(f"{kind}::{name}", value)
        tc = ns.TrafficControlHelper()
        tc.SetRootQueueDisc(kind)
        discs = tc.Install(dev)
        self.keep.append(tc)
        return discs.Get(0)

    def link_rows(self) -> list[dict[str, Any]]:
        """One row per link direction, renolab's links.csv columns where ns-3 has them."""
        rows = []
        factor = wire_factor(self.scenario.mss)
        for link, name, d, p in self.link_probes:
            sent_bytes = int(p.bytesSent) - 2 * int(p.packetsSent)  # without the PPP headers
            busy_s = int(p.bytesSent) * 8 / (d.rate_bps * factor)
            a, b = (link.a, link.b) if not name.endswith("/rev") else (link.b, link.a)
            rows.append({
                "link": name,
                "from": a,
                "to": b,
                "packets_sent": int(p.packetsSent),
                "bytes_sent": sent_bytes,
                "queue_drops": int(p.queueDrops),
                "loss_drops": int(p.lossDrops),
                "marks": int(p.marks),
                "utilisation": busy_s / self.end_s if self.end_s > 0 else 0.0,
                "mean_queue": p.MeanQueue(),  # first: it closes the last interval
                "max_queue": int(p.maxQueue),
                "rate_bps": d.rate_bps,
                "delay_s": d.delay_ns * 1e-9,
                "queue": d.queue.kind,
                "ns3_disc_limit": d.queue.waiting - DEVICE_QUEUE,
            })
        return rows


#: Columns of links.csv, in order.
LINK_COLUMNS = (
    "link", "from", "to", "packets_sent", "bytes_sent", "queue_drops", "loss_drops", "marks",
    "utilisation", "max_queue", "mean_queue", "rate_bps", "delay_s", "queue", "ns3_disc_limit",
)
