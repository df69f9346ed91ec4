//! The real-time driver: carries every datagram the kernels send across the scenario's links
//! with the simulator's link, queue and loss models ([`LinkDir`](renolab_core::net::LinkDir)), on the wall clock.
//!
//! Time is the simulator's [`SimTime`]: nanoseconds since the emulation started. The models
//! run on the *scheduled* time of each event, exactly as in the simulator, so a driver that
//! falls behind delivers late but never changes what the link decides; how late each
//! delivery to a kernel is, is measured ([`Lateness`]).
//!
//! The loop: read every datagram the kernels have sent (each enters the network at the time
//! it was read), handle every event that is due (ends of transmission, arrivals at the far
//! ends of links), deliver what reached a host into its TUN device, then wait for the next
//! event: in `ppoll` until [`Timing::spin`] before it, then spinning on the clock (a sleep
//! wakes tens of microseconds late on a VM; spinning does not).
//!
//! The links, queues, loss models, counters and drop accounting are the core's
//! [`Network`], which this driver drives ([`sim::Driver`]) as the simulation does, on its
//! own clock. Packets are the core's small `Copy` [`Packet`]s in the network's pool; their
//! bytes live beside them in [`Slab`], one buffer per pool slot, reused with the slot.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use renolab_core::app::{CbrSink, CbrSource};
use renolab_core::engine::{Event, Scheduler};
use renolab_core::packet::sack::SackBlocks;
use renolab_core::packet::{Packet, PacketId, PacketKind};
use renolab_core::rng::RngStream;
use renolab_core::scenario::Traffic;
use renolab_core::sim::{self, Network};
use renolab_core::time::SimTime;
use renolab_core::trace::pcap::node_ip;
use renolab_core::trace::{PcapSet, Recorder, SeqEvent, Tracer};

use super::sys;
use crate::lateness::Lateness;
use crate::plan::{FlowRole, Plan};
use crate::wire::{self, Parsed};

/// IPv4 and UDP headers (RFC 791, RFC 768).
const UDP_DATAGRAM_HEADERS: usize = 20 + 8;
/// Length of the windows over which the driver measures how busy it is.
const GUARD_WINDOW_NS: u64 = 100_000_000;
/// Busy fraction above which the driver stops spinning for a window: well below the 95 %
/// at which the kernel throttles a real-time thread.
const BUSY_LIMIT: f64 = 0.8;

/// How the driver waits.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Spin (instead of sleeping) when the next event is this close, nanoseconds.
    pub spin_ns: u64,
    /// Longest sleep, nanoseconds (the stop flag is checked at least this often).
    pub max_sleep_ns: u64,
}

/// What the driver learns of a flow from its packets' headers and deliveries (the
/// network counts its packets: [`Network::flow_counters`]).
#[derive(Clone, Debug, Default)]
pub struct FlowTrack {
    /// Data segments (with payload) read from the flow's sender, retransmissions included.
    pub segments_sent: u64,
    /// One-way delays of the data segments (or datagrams) delivered: quantiles and jitter.
    pub delays: renolab_core::sim::delay::DelayStats,
    /// First data segment read from the sender.
    pub first_data: Option<SimTime>,
    /// Segment size the sequence numbers are counted in: the negotiated MSS less the
    /// timestamps option, once the handshake has been seen.
    pub segment_bytes: u32,
    /// The sender's initial sequence number, once its SYN has been seen.
    isn: Option<u32>,
    /// MSS options of the SYN and the SYN-ACK.
    mss_options: (Option<u16>, Option<u16>),
    /// Timestamps offered in the SYN and in the SYN-ACK.
    timestamps: (bool, bool),
    /// Highest relative sequence number sent + 1 (byte offset of the next new byte).
    snd_max: u32,
}

impl FlowTrack {
    fn update_segment_size(&mut self) {
        if let (Some(a), Some(b)) = self.mss_options {
            // RFC 7323 §3.2: with timestamps every segment carries 12 option bytes.
            let ts = if self.timestamps.0 && self.timestamps.1 {
                12
            } else {
                0
            };
            self.segment_bytes = (a.min(b) as u32).saturating_sub(ts).max(1);
        }
    }
}

/// A constant-bit-rate flow's ends: the emulator's own traffic, as the simulator's.
#[derive(Clone, Debug)]
pub struct Cbr {
    /// Sending side.
    pub source: CbrSource,
    /// Receiving side.
    pub sink: CbrSink,
}

/// Figures the driver reports at the end.
#[derive(Debug, Default)]
pub struct DriverReport {
    /// Events handled.
    pub events: u64,
    /// Datagrams read from the kernels.
    pub ingress: u64,
    /// Datagrams that belong to no flow or cannot be routed (ICMP, IPv6, ...), dropped.
    pub stray: u64,
    /// Datagrams longer than the MTU (there must be none: no offloads), dropped.
    pub oversize: u64,
    /// Deliveries a kernel refused (write errors).
    pub write_errors: u64,
    /// Most packets alive at once.
    pub peak_packets: u64,
    /// Lateness of every delivery into a namespace.
    pub lateness: Lateness,
    /// Largest fraction of a 100 ms window the driver spent not sleeping.
    pub busy_max: f64,
    /// Time during which spinning was suspended because the driver was too busy, ns.
    pub spin_suspended_ns: u64,
}

/// Packet bytes, one buffer per packet-pool slot.
struct Slab {
    bufs: Vec<Box<[u8]>>,
    lens: Vec<u32>,
    size: usize,
}

impl Slab {
    fn store(&mut self, id: PacketId, bytes: &[u8]) {
        let i = id.0 as usize;
        while self.bufs.len() <= i {
            self.bufs.push(vec![0u8; self.size].into_boxed_slice());
            self.lens.push(0);
        }
        self.bufs[i][..bytes.len()].copy_from_slice(bytes);
        self.lens[i] = bytes.len() as u32;
    }

    fn get(&self, id: PacketId) -> &[u8] {
        let i = id.0 as usize;
        &self.bufs[i][..self.lens[i] as usize]
    }
}

/// The network of one emulation.
pub struct Driver {
    t0: u64,
    sched: Scheduler,
    network: Network,
    slab: Slab,
    /// Per flow, plus one last entry for stray packets.
    pub flows: Vec<FlowTrack>,
    flow_ips: Vec<([u8; 4], [u8; 4], u16)>,
    /// The ends of each constant-bit-rate flow.
    pub cbr: Vec<Option<Cbr>>,
    flow_nodes: Vec<(u32, u32)>,
    node_count: u32,
    /// Host of each node and its TUN descriptor.
    tun_of_node: Vec<Option<RawFd>>,
    host_fds: Vec<(u32, RawFd)>,
    tracer: Recorder,
    pcap: Option<PcapSet>,
    scratch: Vec<u8>,
    /// Where constant-bit-rate datagrams are built (apart from `scratch`, which holds the
    /// datagram being read when they are due).
    cbr_buf: Vec<u8>,
    cbr_stop: Vec<Option<SimTime>>,
    timing: Timing,
    /// What the driver reports.
    pub report: DriverReport,
}

impl Driver {
    /// The network of `plan`, with its hosts' TUN descriptors (`tuns[i]` for
    /// `plan.hosts[i]`).
    pub fn new(
        plan: &Plan,
        tuns: &[RawFd],
        tracer: Recorder,
        pcap: Option<PcapSet>,
        timing: Timing,
    ) -> Self {
        let sc = &plan.scenario;
        // One more flow than the plan's: stray packets are counted as the last (a plan
        // has no media: links are all there is).
        let network = Network::new(sim::link_dirs(sc), sc.nodes.len(), plan.flows.len() + 1);
        let mut tun_of_node = vec![None; sc.nodes.len()];
        let mut host_fds = Vec::new();
        for (h, &fd) in plan.hosts.iter().zip(tuns) {
            tun_of_node[h.node as usize] = Some(fd);
            host_fds.push((h.node, fd));
        }
        let mut sched = Scheduler::new();
        let mut cbr = Vec::new();
        let mut flows = Vec::new();
        let mut flow_ips = Vec::new();
        // The scenario's flows, then the workloads' (all TCP).
        let traffic = |i: usize| sc.flows.get(i).map(|spec| &spec.traffic);
        for (i, f) in plan.flows.iter().enumerate() {
            let mut track = FlowTrack::default();
            match (&f.role, traffic(i)) {
                (FlowRole::Tcp(t), _) => {
                    track.segment_bytes = t.mss;
                    flow_ips.push((node_ip(f.src), node_ip(f.dst), t.src_port));
                    cbr.push(None);
                }
                (FlowRole::Cbr, Some(Traffic::Cbr(c))) => {
                    let rng = RngStream::derive(sc.seed, &format!("flow/{}", f.name));
                    cbr.push(Some(Cbr {
                        source: CbrSource::new(*c, rng),
                        sink: CbrSink::default(),
                    }));
                    flow_ips.push((node_ip(f.src), node_ip(f.dst), 0));
                    sched.schedule(f.start, Event::FlowStart { flow: i as u32 });
                    if let Some(stop) = f.stop {
                        sched.schedule(stop, Event::FlowStop { flow: i as u32 });
                    }
                }
                (FlowRole::Cbr, _) => unreachable!("plan follows the scenario"),
            }
            flows.push(track);
        }
        flows.push(FlowTrack::default()); // stray packets
        let size = plan.mtu as usize;
        Driver {
            t0: 0,
            sched,
            network,
            slab: Slab {
                bufs: Vec::new(),
                lens: Vec::new(),
                size,
            },
            flow_nodes: plan.flows.iter().map(|f| (f.src, f.dst)).collect(),
            flows,
            flow_ips,
            cbr,
            node_count: sc.nodes.len() as u32,
            tun_of_node,
            host_fds,
            tracer,
            pcap,
            scratch: vec![0u8; 65_536],
            cbr_buf: vec![0u8; 65_536],
            cbr_stop: plan.flows.iter().map(|f| f.stop).collect(),
            timing,
            report: DriverReport::default(),
        }
    }

    /// The network (its links and counters, for the results).
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// Hands back the tracer and the pcap writer.
    pub fn into_traces(self) -> (Recorder, Option<PcapSet>) {
        (self.tracer, self.pcap)
    }

    #[inline]
    fn wall(&self) -> SimTime {
        SimTime(sys::clock_ns().saturating_sub(self.t0))
    }

    /// Runs from clock origin `t0` (`CLOCK_MONOTONIC` ns: emulated time 0) until `stop` is
    /// set.
    pub fn run(&mut self, t0: u64, stop: &AtomicBool) -> std::io::Result<()> {
        self.t0 = t0;
        let mut fds: Vec<libc::pollfd> = self
            .host_fds
            .iter()
            .map(|&(_, fd)| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // The real-time budget guard: the kernel stops a real-time thread for the rest of
        // its second once it has run 95 % of it (`sched_rt_runtime_us`), a 50 ms stall.
        // Over each 100 ms the driver measures how much of it it did not sleep; above
        // BUSY_LIMIT it stops spinning (it sleeps up to each event instead) for the next
        // 100 ms, trading microseconds of lateness for never meeting that limit.
        let mut window = (self.wall().0, 0u64); // (start, ns slept)
        let mut spin_ns = self.timing.spin_ns;
        while !stop.load(Ordering::Relaxed) {
            self.read_all()?;
            let now = self.wall();
            self.run_due(now);
            let now = self.wall().0;
            if now - window.0 >= GUARD_WINDOW_NS {
                let busy = 1.0 - window.1 as f64 / (now - window.0) as f64;
                self.report.busy_max = self.report.busy_max.max(busy);
                spin_ns = if busy > BUSY_LIMIT {
                    self.report.spin_suspended_ns += GUARD_WINDOW_NS;
                    0
                } else {
                    self.timing.spin_ns
                };
                window = (now, 0);
            }
            let wait = match self.sched.peek_time() {
                Some(t) => t.0.saturating_sub(now),
                None => u64::MAX,
            };
            if wait > spin_ns {
                let sleep = (wait - spin_ns).min(self.timing.max_sleep_ns);
                let before = sys::clock_ns();
                sys::wait(&mut fds, sleep)?;
                window.1 += sys::clock_ns() - before;
            }
            // Otherwise spin: the loop reads (non-blocking) and checks the clock again.
        }
        self.report.events = self.sched.events_fired();
        self.report.peak_packets = self.network.peak_packets() as u64;
        Ok(())
    }

    /// Reads every waiting datagram of every host, each entering the network at the time
    /// it is read (after the events due by then).
    fn read_all(&mut self) -> std::io::Result<()> {
        for h in 0..self.host_fds.len() {
            let (node, fd) = self.host_fds[h];
            loop {
                let mut buf = std::mem::take(&mut self.scratch);
                let got = sys::read_packet(fd, &mut buf);
                let result = match got {
                    Ok(Some(n)) => {
                        let now = self.wall();
                        self.run_due(now);
                        self.ingress(now, node, &buf[..n]);
                        Ok(true)
                    }
                    Ok(None) => Ok(false),
                    Err(e) => Err(e),
                };
                self.scratch = buf;
                if !result? {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Handles every event due at or before `now`, each at its own scheduled time.
    fn run_due(&mut self, now: SimTime) {
        while let Some(at) = self.sched.peek_time() {
            if at > now {
                break;
            }
            let (at, event) = self.sched.pop().expect("peeked");
            match event {
                Event::TxEnd { dir } => Network::on_tx_end(self, at, dir),
                Event::Arrive { dir } => Network::on_arrive(self, at, dir),
                Event::FlowStart { flow } => self.on_cbr_start(at, flow),
                Event::FlowStop { flow } => {
                    if let Some(cbr) = &mut self.cbr[flow as usize] {
                        cbr.source.stop();
                    }
                }
                Event::CbrSend { flow } => self.on_cbr_send(at, flow),
                Event::SenderTimer { .. }
                | Event::ReceiverTimer { .. }
                | Event::Stop
                | Event::Medium { .. }
                | Event::WorkloadArrival { .. } => {}
            }
        }
    }

    // ----- ingress ---------------------------------------------------------------------------

    /// A datagram read from the TUN device of host `node` at `now`.
    fn ingress(&mut self, now: SimTime, node: u32, bytes: &[u8]) {
        self.report.ingress += 1;
        if bytes.len() > self.slab.size {
            self.report.oversize += 1;
            return;
        }
        let stray = (self.flows.len() - 1) as u32;
        let (ip, classified) = match wire::parse(bytes) {
            Parsed::Tcp(ip, tcp) => (ip, self.classify(ip, &tcp)),
            Parsed::Udp(ip) | Parsed::OtherIpv4(ip) => (ip, None),
            Parsed::Other => {
                self.report.stray += 1;
                return;
            }
        };
        let Some(dst) = wire::node_of_ip(ip.dst).filter(|&d| d < self.node_count && d != node)
        else {
            self.report.stray += 1;
            return;
        };
        let (flow, kind, seq, retransmit) =
            classified.unwrap_or((stray, PacketKind::Ack, 0, false));
        if flow == stray {
            self.report.stray += 1;
        }
        let packet = Packet {
            flow,
            kind,
            seq,
            size: ip.len,
            dst,
            retransmit,
            sent_at: now,
            sack: SackBlocks::EMPTY,
            ecn: renolab_core::packet::Ecn::NONE,
        };
        if kind == PacketKind::Data {
            let track = &mut self.flows[flow as usize];
            track.segments_sent += 1;
            track.first_data.get_or_insert(now);
            let event = if retransmit {
                SeqEvent::Retransmitted
            } else {
                SeqEvent::Sent
            };
            self.tracer.seq_event(now, flow, event, seq);
        }
        let id = self.network.admit(packet);
        self.slab.store(id, &bytes[..ip.len as usize]);
        Network::at_node(self, now, node, id);
    }

    /// The flow, kind, segment number and retransmission flag of a TCP segment, learning
    /// the connection's initial sequence number and segment size from its handshake.
    fn classify(
        &mut self,
        ip: wire::Ipv4,
        tcp: &wire::Tcp,
    ) -> Option<(u32, PacketKind, u32, bool)> {
        // The sender's port is SENDER_PORT_BASE + the flow's index: a segment names its flow
        // by its source port (sender to receiver) or its destination port (the way back).
        let of_port = |port: u16| {
            let i = port.checked_sub(crate::plan::SENDER_PORT_BASE)? as usize;
            let &(s, d, p) = self.flow_ips.get(i)?;
            (p == port).then_some((i, s, d))
        };
        let (forward, i) = match (of_port(tcp.src_port), of_port(tcp.dst_port)) {
            (Some((i, s, d)), _) if ip.src == s && ip.dst == d => (true, i),
            (_, Some((i, s, d))) if ip.src == d && ip.dst == s => (false, i),
            _ => return None,
        };
        let track = &mut self.flows[i];
        let flow = i as u32;
        if tcp.is_syn() && forward {
            track.isn = Some(tcp.seq);
            track.mss_options.0 = tcp.mss_option;
            track.timestamps.0 = tcp.timestamps;
            track.snd_max = 0;
            return Some((flow, PacketKind::Syn, 0, false));
        }
        if tcp.is_syn_ack() && !forward {
            track.mss_options.1 = tcp.mss_option;
            track.timestamps.1 = tcp.timestamps;
            track.update_segment_size();
            return Some((flow, PacketKind::SynAck, 0, false));
        }
        let isn = track.isn.unwrap_or(0);
        let unit = track.segment_bytes.max(1);
        if forward && tcp.payload > 0 {
            let rel = tcp.seq.wrapping_sub(isn).wrapping_sub(1);
            let end = rel.wrapping_add(tcp.payload);
            // Sequence arithmetic (RFC 9293 §3.4): `end` at or before snd_max is old data.
            let retransmit = (end.wrapping_sub(track.snd_max) as i32) <= 0;
            if !retransmit {
                track.snd_max = end;
            }
            return Some((flow, PacketKind::Data, rel / unit, retransmit));
        }
        // An ACK: its segment number is the next segment expected.
        let acked = if forward {
            0
        } else {
            tcp.ack.wrapping_sub(isn).wrapping_sub(1)
        };
        Some((flow, PacketKind::Ack, acked.div_ceil(unit), false))
    }

    // ----- constant bit rate (the emulator's own traffic) -----------------------------------

    fn on_cbr_start(&mut self, now: SimTime, f: u32) {
        let stop = self.cbr_stop[f as usize];
        if let Some(cbr) = &mut self.cbr[f as usize] {
            cbr.source.start(now, stop);
        }
        self.on_cbr_send(now, f);
    }

    /// As the simulation's constant-bit-rate sender, with the datagram's bytes for the pcap.
    fn on_cbr_send(&mut self, now: SimTime, f: u32) {
        let Some(cbr) = &mut self.cbr[f as usize] else {
            return;
        };
        let (src, dst) = self.flow_nodes[f as usize];
        let Some(packet) = cbr.source.poll_datagram(now, f, dst) else {
            return;
        };
        if let Some(at) = cbr.source.poll_timeout() {
            self.sched.schedule(at, Event::CbrSend { flow: f });
        }
        self.tracer.seq_event(now, f, SeqEvent::Sent, packet.seq);
        let id = self.network.admit(packet);
        let len = udp_datagram(
            &mut self.cbr_buf,
            node_ip(src),
            node_ip(dst),
            f,
            packet.size,
        );
        // The pcap shows at most an MTU of a larger datagram (the emulator's own traffic
        // never reaches a kernel).
        self.slab
            .store(id, &self.cbr_buf[..len.min(self.slab.size)]);
        Network::at_node(self, now, src, id);
    }
}

impl sim::Driver for Driver {
    type Tracer = Recorder;

    fn parts(&mut self) -> (&mut Network, &mut Scheduler, &mut Recorder) {
        (&mut self.network, &mut self.sched, &mut self.tracer)
    }

    /// `packet` reached its destination at (scheduled) time `now`: its bytes go into the
    /// destination host's TUN device (constant-bit-rate datagrams, the emulator's own, end
    /// here).
    fn deliver(&mut self, now: SimTime, packet: Packet, id: PacketId) {
        let delay = (now - packet.sent_at).as_nanos();
        match packet.kind {
            PacketKind::Data => self.flows[packet.flow as usize].delays.record(delay),
            PacketKind::Datagram => {
                self.flows[packet.flow as usize].delays.record(delay);
                if let Some(cbr) = &mut self.cbr[packet.flow as usize] {
                    cbr.sink.on_packet(packet.size);
                }
                return;
            }
            PacketKind::Ack => self
                .tracer
                .seq_event(now, packet.flow, SeqEvent::Acked, packet.seq),
            PacketKind::Syn | PacketKind::SynAck => {}
        }
        if let Some(fd) = self.tun_of_node[packet.dst as usize] {
            let late = self.wall().0.saturating_sub(now.0);
            self.report.lateness.record(late);
            if sys::write_some(fd, self.slab.get(id)).is_err() {
                self.report.write_errors += 1;
            }
        }
    }

    fn transmitted(&mut self, now: SimTime, dir: u32, id: PacketId) {
        if let Some(pcap) = &mut self.pcap {
            pcap.record_raw(now, dir, self.slab.get(id));
        }
    }
}

/// Writes a UDP datagram of `size` bytes (zero payload; at least its 28 bytes of headers)
/// into `buf`; returns its length.
fn udp_datagram(buf: &mut [u8], src: [u8; 4], dst: [u8; 4], flow: u32, size: u32) -> usize {
    let n = (size as usize).clamp(UDP_DATAGRAM_HEADERS, buf.len());
    buf[..n].fill(0);
    buf[0] = 0x45;
    buf[2..4].copy_from_slice(&(n as u16).to_be_bytes());
    buf[6] = 0x40;
    buf[8] = 64;
    buf[9] = 17;
    buf[12..16].copy_from_slice(&src);
    buf[16..20].copy_from_slice(&dst);
    let port = (crate::plan::SENDER_PORT_BASE as u32 + flow) as u16;
    buf[20..22].copy_from_slice(&port.to_be_bytes());
    buf[22..24].copy_from_slice(&9u16.to_be_bytes());
    buf[24..26].copy_from_slice(&((n - 20) as u16).to_be_bytes());
    let sum = buf[..20]
        .chunks_exact(2)
        .fold(0u32, |s, w| s + u16::from_be_bytes([w[0], w[1]]) as u32);
    let folded = (sum & 0xffff) + (sum >> 16);
    let checksum = !(((folded & 0xffff) + (folded >> 16)) as u16);
    buf[10..12].copy_from_slice(&checksum.to_be_bytes());
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use renolab_core::sim::StopReason;
    use renolab_core::trace::TraceRequest;

    /// A scenario whose only flow is constant bit rate: it needs no kernel, so the driver's
    /// link code runs here without root.
    const CBR: &str = r#"{
        "simulation": {"seed": 7, "duration": "2s"},
        "link": [
            {"name": "a", "from": "s", "to": "r", "rate": "10Mbps", "delay": "2ms"},
            {"name": "b", "from": "r", "to": "d", "rate": "2Mbps", "delay": "3ms",
             "queue": {"kind": "droptail", "limit": 5},
             "loss": {"kind": "uniform", "p": 0.05}}
        ],
        "flow": [{"name": "c", "kind": "cbr", "src": "s", "dst": "d", "rate": "2.5Mbps",
                  "packet_bytes": 1000, "jitter": 1.0}]
    }"#;

    #[test]
    fn the_network_counts_a_kernels_syn_with_its_data_as_the_simulators_does() {
        use crate::plan::{RECEIVER_PORT_BASE, SENDER_PORT_BASE};
        use crate::wire::tests::segment;
        use crate::wire::{ACK, SYN};
        use renolab_core::sim::FlowCounters;
        // 8 Mb/s: a 40-byte SYN takes 40 us to serialise, a 1040-byte segment 1.04 ms.
        let plan = crate::plan_json(
            r#"{
            "simulation": {"duration": "1s"},
            "link": [{"name": "a", "from": "s", "to": "r", "rate": "8Mbps", "delay": "10ms"}],
            "flow": [{"name": "t", "src": "s", "dst": "r", "variant": "cubic"}]
        }"#,
        )
        .unwrap();
        let recorder = Recorder::new(&TraceRequest::default(), None).unwrap();
        let timing = Timing {
            spin_ns: 0,
            max_sleep_ns: 0,
        };
        // No TUN devices: what arrives is counted, and written nowhere.
        let mut driver = Driver::new(&plan, &[], recorder, None, timing);
        let (s, r) = (node_ip(0), node_ip(1));
        let ports = (SENDER_PORT_BASE, RECEIVER_PORT_BASE);
        let syn = segment(s, r, ports, 99, SYN, &[], 0);
        let data = segment(s, r, ports, 100, ACK, &[], 1000);
        driver.ingress(SimTime::ZERO, 0, &syn);
        driver.ingress(SimTime::ZERO, 0, &data);
        driver.run_due(plan.stop_at);
        let latencies = [10_040_000, 11_080_000];
        assert_eq!(
            driver.network().flow_counters()[0],
            FlowCounters {
                data_sent: 2,
                data_arrived: 2,
                latency_sum_ns: latencies.iter().sum::<u128>(),
                // The data segment waited in the queue while the SYN was serialised.
                queue_wait_sum_ns: 40_000,
                ..FlowCounters::default()
            }
        );
        // The flow's own figures count the data segment alone.
        let track = &driver.flows[0];
        assert_eq!((track.segments_sent, track.delays.packets()), (1, 1));
        assert_eq!(track.first_data, Some(SimTime::ZERO));
    }

    #[test]
    fn the_driver_makes_the_simulators_decisions_on_the_same_packets() {
        let plan = crate::plan_json(CBR).unwrap();
        assert!(plan.hosts.is_empty());
        let recorder = Recorder::new(&TraceRequest::default(), None).unwrap();
        let timing = Timing {
            spin_ns: 0,
            max_sleep_ns: 0,
        };
        let mut driver = Driver::new(&plan, &[], recorder, None, timing);
        driver.run_due(plan.stop_at);
        let simulated =
            renolab_core::sim::run(&plan.scenario, &TraceRequest::default(), false).unwrap();
        for (emulated, simulated) in driver.network().dirs().iter().zip(&simulated.links) {
            assert_eq!(emulated.stats, simulated.stats, "{}", simulated.link);
        }
        let b = &simulated.links[2].stats;
        assert!(b.overflow_drops > 0 && b.random_drops > 0, "{b:?}");
        // The flow's row, from the same counters, delays and source and sink as the
        // simulator's.
        let end = plan.stop_at;
        let emulated =
            super::super::collect(&plan, &driver, &[None], end, StopReason::Duration, 0.0);
        assert_eq!(emulated.flows, simulated.flows);
        assert_eq!(emulated.links, simulated.links);
    }
}
