//! The simulation: builds the network and the flows from a [`Scenario`] and runs the event
//! loop.
//!
//! Packets move through the network without events where none is needed: a packet that
//! reaches a node is forwarded into the next link direction in the same step, and an idle
//! transmitter with a stateless queue starts serialising at once. Events exist only for the
//! ends of serialisation on busy links, for arrivals at the far end of links, for
//! application starts, stops and constant-bit-rate sends, and for endpoint timers (see
//! [`crate::engine`]).

mod build;
mod results;

pub use results::{
    CcSeries, CwndSeries, FlowResult, LinkResult, RunOutput, RunSummary, SeqSeries, StopReason,
};

use crate::app::{CbrSink, CbrSource};
use crate::engine::{Event, Scheduler, TimerSlot};
use crate::loss::LossCause;
use crate::net::link::TxSeqs;
use crate::net::pipe::InFlight;
use crate::net::{LinkDir, Packet, PacketId, PacketKind, PacketPool, Routes};
use crate::queue::{QueueDrop, Queued};
use crate::scenario::{Scenario, Variant};
use crate::tcp::cc::{CcState, CongestionControl};
use crate::tcp::sack::SackBlocks;
use crate::tcp::sender::SegmentKind;
use crate::tcp::{TcpReceiver, TcpSender, Window};
use crate::time::SimTime;
use crate::trace::{
    DropCause, HopEvent, NoTrace, PcapFlow, PcapSet, Recorder, SeqEvent, TraceRequest, Tracer,
};

/// Per-flow packet counters kept by the network (not by the endpoints), for conservation.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FlowCounters {
    data_sent: u64,
    data_arrived: u64,
    data_dropped: u64,
    acks_sent: u64,
    acks_arrived: u64,
    acks_dropped: u64,
    /// Sum of one-way latencies of data packets that arrived, ns.
    latency_sum_ns: u128,
}

/// A TCP connection's two endpoints and their timers.
#[derive(Debug)]
pub(crate) struct TcpEndpoints {
    variant: Variant,
    sender: TcpSender,
    receiver: TcpReceiver,
    sender_timer: TimerSlot,
    /// The sender's pacing release, apart from its retransmission timer: sharing one slot,
    /// each release that came before the timer's deadline left a stale heap entry behind,
    /// one per round of window-limited sending.
    release_timer: TimerSlot,
    receiver_timer: TimerSlot,
}

/// What generates and absorbs a flow's packets.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Endpoints {
    /// A TCP sender and receiver (inline: boxing them costs a pointer chase per packet, and
    /// the few bytes a CBR flow wastes do not matter).
    Tcp(TcpEndpoints),
    /// A constant-bit-rate source and its sink.
    Cbr {
        /// Sending side.
        source: CbrSource,
        /// Receiving side.
        sink: CbrSink,
    },
}

/// A flow: its endpoints, timing and counters.
#[derive(Debug)]
pub(crate) struct Flow {
    name: String,
    src: u32,
    dst: u32,
    start: SimTime,
    stop: Option<SimTime>,
    endpoints: Endpoints,
    counters: FlowCounters,
    finished: bool,
    /// Last (cwnd, ssthresh) reported to the tracer.
    traced: Option<(Window, Window)>,
    /// Last controller state reported to the tracer.
    traced_cc: CcState,
}

/// A simulation in progress, generic over its tracer so that tracing off costs nothing.
pub struct Simulation<T: Tracer> {
    sched: Scheduler,
    pool: PacketPool,
    dirs: Vec<LinkDir>,
    routes: Routes,
    flows: Vec<Flow>,
    node_names: Vec<String>,
    seed: u64,
    stop_at: SimTime,
    stop_when_finished: bool,
    unfinished: usize,
    check_invariants: bool,
    /// `simulation.max_events`: the run fails when it passes this many events.
    max_events: u64,
    /// Scratch list of packets a queue drops during one operation (reused, never freed).
    queue_drops: Vec<(PacketId, QueueDrop)>,
    tracer: T,
}

/// A broken invariant found by [`Simulation::audit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantViolation(pub String);

impl std::fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invariant violated: {}", self.0)
    }
}

impl std::error::Error for InvariantViolation {}

/// Runs `scenario` to the end, recording what `traces` asks for.
///
/// With `check_invariants`, packet conservation and the window bounds are audited after
/// every event (slow; for tests).
pub fn run(
    scenario: &Scenario,
    traces: &TraceRequest,
    check_invariants: bool,
) -> Result<RunOutput, RunError> {
    check_trace_sizes(scenario, traces)?;
    if traces.is_empty() {
        let mut sim = Simulation::new(scenario, NoTrace);
        sim.check_invariants = check_invariants;
        return Ok(sim.run_to_end()?.0);
    }
    let pcap = match &traces.pcap_dir {
        Some(dir) => Some(pcap_set(scenario, dir).map_err(RunError::Trace)?),
        None => None,
    };
    let recorder = Recorder::new(traces, pcap).map_err(RunError::BadTrace)?;
    let mut sim = Simulation::new(scenario, recorder);
    sim.check_invariants = check_invariants;
    let (mut out, recorder) = sim.run_to_end()?;
    out.traces = recorder.finish().map_err(RunError::Trace)?;
    Ok(out)
}

/// Refuses, before the run, an in-memory trace that the run's estimate says cannot fit.
fn check_trace_sizes(scenario: &Scenario, traces: &TraceRequest) -> Result<(), RunError> {
    if traces.dir.is_some() || traces.names.is_empty() {
        return Ok(());
    }
    let limit = traces
        .memory_limit
        .unwrap_or(crate::trace::DEFAULT_MEMORY_LIMIT);
    let estimate = scenario.estimate();
    for name in &traces.names {
        match estimate.trace_bytes(name) {
            Some(bytes) if bytes > limit => {
                return Err(RunError::Limit(format!(
                    "trace {name}: the run would record about {bytes} bytes, more than the in-memory trace limit of {limit} bytes; write traces to a directory (trace_dir, or the command line's --out) or raise the limit"
                )))
            }
            // Unknown names are left to the recorder, which lists the allowed ones.
            _ => {}
        }
    }
    Ok(())
}

fn pcap_set(scenario: &Scenario, dir: &std::path::Path) -> Result<PcapSet, String> {
    use crate::scenario::Traffic;
    use crate::trace::pcap::node_ip;
    let flows = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (udp, mss, bytes, header_bytes, sack) = match &f.traffic {
                Traffic::Tcp(t) => (
                    false,
                    t.mss,
                    t.bytes,
                    t.sender.header_bytes,
                    t.receiver.sack,
                ),
                Traffic::Cbr(c) => (true, c.packet_bytes, None, 28, false),
            };
            PcapFlow {
                src_ip: node_ip(f.src),
                dst_ip: node_ip(f.dst),
                src_port: 10_000 + i as u16,
                dst_port: if udp { 9 } else { 80 },
                udp,
                mss,
                bytes,
                header_bytes,
                sack,
            }
        })
        .collect();
    let names: Vec<String> = scenario.links.iter().map(|l| l.name.clone()).collect();
    PcapSet::create(dir, &names, flows)
}

/// Why a run could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A trace name that does not exist.
    BadTrace(String),
    /// A trace could not be written or outgrew its limit.
    Trace(String),
    /// An invariant check failed (a bug in the engine).
    Invariant(InvariantViolation),
    /// The run would pass, or passed, a limit (`simulation.max_events`, the in-memory trace
    /// limit).
    Limit(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::BadTrace(m) => write!(f, "trace: {m}"),
            RunError::Trace(m) => write!(f, "{m}"),
            RunError::Invariant(v) => write!(f, "{v}"),
            RunError::Limit(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<InvariantViolation> for RunError {
    fn from(v: InvariantViolation) -> Self {
        RunError::Invariant(v)
    }
}

impl<T: Tracer> Simulation<T> {
    /// Builds the network and flows of `scenario`; nothing has happened yet.
    pub fn new(scenario: &Scenario, tracer: T) -> Self {
        let mut dirs = Vec::with_capacity(scenario.links.len() * 2);
        for link in &scenario.links {
            dirs.push(build::link_dir(
                scenario.seed,
                link.name.clone(),
                link.from,
                link.to,
                &link.forward,
            ));
            dirs.push(build::link_dir(
                scenario.seed,
                format!("{}/rev", link.name),
                link.to,
                link.from,
                &link.reverse,
            ));
        }
        let pairs: Vec<(u32, u32)> = dirs.iter().map(|d| (d.from, d.to)).collect();
        let routes = Routes::compute(scenario.nodes.len(), &pairs);
        let flows: Vec<Flow> = scenario
            .flows
            .iter()
            .map(|f| build::flow(scenario.seed, f))
            .collect();
        let mut sched = Scheduler::new();
        for (i, f) in flows.iter().enumerate() {
            sched.schedule(f.start, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = f.stop {
                sched.schedule(stop, Event::FlowStop { flow: i as u32 });
            }
        }
        let stop_at = SimTime::ZERO + scenario.duration.unwrap_or(scenario.time_limit);
        sched.schedule(stop_at, Event::Stop);
        let unfinished = scenario.flows.iter().filter(|f| f.is_finite()).count();
        Simulation {
            sched,
            pool: PacketPool::new(),
            dirs,
            routes,
            flows,
            node_names: scenario.nodes.clone(),
            seed: scenario.seed,
            stop_at,
            stop_when_finished: scenario.duration.is_none(),
            unfinished,
            check_invariants: false,
            max_events: scenario.max_events,
            queue_drops: Vec::new(),
            tracer,
        }
    }

    /// Runs until the stop time (or, without a duration, until every flow has finished).
    /// Returns the results and the tracer with whatever it recorded.
    pub fn run_to_end(mut self) -> Result<(RunOutput, T), RunError> {
        let wall = std::time::Instant::now();
        let mut stop_reason = StopReason::TimeLimit;
        if self.stop_when_finished && self.unfinished == 0 {
            stop_reason = StopReason::AllFlowsFinished;
        } else {
            while let Some((now, event)) = self.sched.pop() {
                if self.sched.events_fired() > self.max_events {
                    return Err(RunError::Limit(format!(
                        "simulation.max_events: the run passed {} events at t = {now} s; raise simulation.max_events or shorten the run",
                        self.max_events
                    )));
                }
                match event {
                    Event::TxEnd { dir } => self.on_tx_end(now, dir),
                    Event::Arrive { dir } => self.on_arrive(now, dir),
                    Event::FlowStart { flow } => self.on_flow_start(now, flow),
                    Event::FlowStop { flow } => self.on_flow_stop(now, flow),
                    Event::CbrSend { flow } => self.on_cbr_send(now, flow),
                    Event::SenderTimer { flow } => self.on_sender_timer(now, flow),
                    Event::ReceiverTimer { flow } => self.on_receiver_timer(now, flow),
                    Event::Stop => {
                        stop_reason = if self.stop_when_finished {
                            StopReason::TimeLimit
                        } else {
                            StopReason::Duration
                        };
                        break;
                    }
                }
                if self.check_invariants {
                    self.audit()?;
                }
                if self.stop_when_finished && self.unfinished == 0 {
                    stop_reason = StopReason::AllFlowsFinished;
                    break;
                }
            }
        }
        if self.check_invariants {
            self.audit()?;
        }
        let out = results::collect(&self, stop_reason, wall.elapsed().as_secs_f64());
        Ok((out, self.tracer))
    }

    // ----- links -------------------------------------------------------------------------

    /// Hands packet `id` to link direction `d` at `now`: straight onto an idle wire, or through
    /// the queue.
    fn enqueue(&mut self, now: SimTime, d: u32, id: PacketId) {
        let packet = self.pool.get(id);
        let (size, flow) = (packet.size, packet.flow);
        let link = &mut self.dirs[d as usize];
        let transmitting = !link.idle_at(now);
        if T::ENABLED {
            let p = *self.pool.get(id);
            self.tracer.hop(now, d, HopEvent::Enqueue, &p, id.0);
        }
        let link = &mut self.dirs[d as usize];
        if !transmitting && !link.tx_end_pending && link.queue.may_bypass_when_idle(size) {
            // Fast path: an idle wire and a queue with nothing to decide.
            self.transmit(now, d, id, size);
            return;
        }
        let dropped = &mut self.queue_drops;
        let offered = link.queue.enqueue(
            now,
            Queued::new(id, size, flow),
            transmitting,
            &mut |victim, cause| dropped.push((victim, cause)),
        );
        match offered {
            // Idle wire and no transmission end pending, so the queue was empty: start now,
            // as if a transmission had just ended (RED has seen the arrival).
            Ok(()) if !transmitting && !link.tx_end_pending => {
                self.drop_queued(now, d);
                self.on_tx_end(now, d);
                return;
            }
            Ok(()) => {
                link.stats.max_queue = link.stats.max_queue.max(link.queue.len() as u64);
                if !link.tx_end_pending {
                    self.schedule_tx_end(d);
                }
            }
            Err(cause) => dropped.push((id, cause)),
        }
        self.drop_queued(now, d);
    }

    /// Drops the packets direction `d`'s queue refused or pushed out (gathered in
    /// `queue_drops`), counting them.
    #[inline(always)]
    fn drop_queued(&mut self, now: SimTime, d: u32) {
        if !self.queue_drops.is_empty() || T::ENABLED {
            self.drop_queued_now(now, d);
        }
    }

    // Out of line: the common case (nothing dropped, no tracer) then costs the caller a test.
    #[inline(never)]
    fn drop_queued_now(&mut self, now: SimTime, d: u32) {
        // Taken out while dropping needs `&mut self`, and put back to keep its capacity.
        let mut victims = std::mem::take(&mut self.queue_drops);
        for (victim, cause) in victims.drain(..) {
            self.dirs[d as usize].stats.count_queue_drop(cause);
            let cause = match cause {
                QueueDrop::Overflow => DropCause::Overflow,
                QueueDrop::EarlyDrop => DropCause::Early,
                QueueDrop::AqmDrop => DropCause::Aqm,
            };
            self.drop_packet(now, victim, Some((d, cause)));
        }
        self.queue_drops = victims;
        if T::ENABLED {
            self.trace_queue(now, d);
        }
    }

    /// Reports the length of direction `d`'s queue to the tracer.
    fn trace_queue(&mut self, now: SimTime, d: u32) {
        let q = &self.dirs[d as usize].queue;
        self.tracer.queue_changed(now, d, q.len() as u32, q.bytes());
    }

    fn on_tx_end(&mut self, now: SimTime, d: u32) {
        let dropped = &mut self.queue_drops;
        let link = &mut self.dirs[d as usize];
        link.tx_end_pending = false;
        let next = link
            .queue
            .dequeue(now, &mut |victim, cause| dropped.push((victim, cause)));
        if let Some(id) = next {
            let size = self.pool.get(id).size;
            self.transmit(now, d, id, size);
            if !self.dirs[d as usize].queue.is_empty() {
                self.schedule_tx_end(d);
            }
        }
        self.drop_queued(now, d);
    }

    /// Puts packet `id` (`size` bytes) on direction `d`'s idle wire, scheduling its arrival
    /// if it leads the pipe. Its arrival and transmission end take their event numbers now,
    /// in that order, as ns-2's link does (see [`TxSeqs`]).
    // Always inlined: as a call from its two places it cost 5 % more instructions.
    #[inline(always)]
    fn transmit(&mut self, now: SimTime, d: u32, id: PacketId, size: u32) {
        let seqs = TxSeqs {
            arrival: self.sched.reserve(),
            end: self.sched.reserve(),
        };
        if let Some((arrival, seq)) = self.dirs[d as usize].start_tx(now, id, size, seqs) {
            let event = Event::Arrive { dir: d };
            self.sched.schedule_reserved(arrival, seq, event);
        }
        if T::ENABLED {
            let p = *self.pool.get(id);
            self.tracer.hop(now, d, HopEvent::Dequeue, &p, id.0);
        }
    }

    /// Schedules the end of direction `d`'s transmission in progress: packets wait behind it.
    #[inline(always)]
    fn schedule_tx_end(&mut self, d: u32) {
        let link = &mut self.dirs[d as usize];
        link.tx_end_pending = true;
        let (at, seq) = (link.busy_until, link.tx_end_seq);
        self.sched
            .schedule_reserved(at, seq, Event::TxEnd { dir: d });
    }

    fn on_arrive(&mut self, now: SimTime, d: u32) {
        let link = &mut self.dirs[d as usize];
        // With reordering latency an earlier packet may have taken the head after this event
        // was scheduled: the entry is then stale.
        let Some(&InFlight { arrival, id, .. }) = link.pipe.front() else {
            return;
        };
        if arrival != now {
            return;
        }
        link.pipe.pop_front();
        if let Some(next) = link.pipe.front() {
            let event = Event::Arrive { dir: d };
            self.sched.schedule_reserved(next.arrival, next.seq, event);
        }
        if !link.losses.is_empty() {
            let packet = *self.pool.get(id);
            if let Some(cause) = link.losses.iter_mut().find_map(|m| m.judge(&packet)) {
                link.stats.count_loss(cause);
                let cause = match cause {
                    LossCause::BitError => DropCause::BitError,
                    LossCause::Random => DropCause::Random,
                    LossCause::Burst => DropCause::Burst,
                    LossCause::Scripted => DropCause::Scripted,
                };
                self.drop_packet(now, id, Some((d, cause)));
                return;
            }
        }
        let to = link.to;
        if T::ENABLED {
            let packet = *self.pool.get(id);
            self.tracer.hop(now, d, HopEvent::Receive, &packet, id.0);
        }
        self.at_node(now, to, id);
    }

    /// Packet `id` is at `node`: deliver it to its endpoint or forward it.
    fn at_node(&mut self, now: SimTime, node: u32, id: PacketId) {
        let dst = self.pool.get(id).dst;
        if dst == node {
            let packet = self.pool.remove(id);
            self.deliver(now, packet);
        } else {
            match self.routes.next_hop(node, dst) {
                Some(d) => self.enqueue(now, d, id),
                // Validation guarantees a route for every flow; be safe all the same.
                None => self.drop_packet(now, id, None),
            }
        }
    }

    /// Drops packet `id`, on link direction `at.0` for cause `at.1` when known.
    fn drop_packet(&mut self, now: SimTime, id: PacketId, at: Option<(u32, DropCause)>) {
        let packet = self.pool.remove(id);
        if T::ENABLED {
            if let Some((d, cause)) = at {
                self.tracer.hop(now, d, HopEvent::Drop, &packet, id.0);
                self.tracer.dropped(now, d, &packet, cause);
            }
            let event = match packet.kind {
                PacketKind::Data | PacketKind::Datagram => SeqEvent::Dropped,
                _ => SeqEvent::AckDropped,
            };
            self.tracer.seq_event(now, packet.flow, event, packet.seq);
        }
        let c = &mut self.flows[packet.flow as usize].counters;
        if packet.kind.is_forward() {
            c.data_dropped += 1;
        } else {
            c.acks_dropped += 1;
        }
    }

    /// Puts a new packet of flow `f` into the network at node `from`.
    fn inject(&mut self, now: SimTime, from: u32, packet: Packet) {
        let c = &mut self.flows[packet.flow as usize].counters;
        if packet.kind.is_forward() {
            c.data_sent += 1;
        } else {
            c.acks_sent += 1;
        }
        let id = self.pool.insert(packet);
        self.at_node(now, from, id);
    }

    // ----- applications ------------------------------------------------------------------

    fn on_flow_start(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        let stop = flow.stop;
        match &mut flow.endpoints {
            Endpoints::Tcp(tcp) => {
                tcp.sender.start(now);
                self.after_sender(now, f);
            }
            Endpoints::Cbr { source, .. } => {
                source.start(now, stop);
                self.on_cbr_send(now, f);
            }
        }
    }

    fn on_flow_stop(&mut self, now: SimTime, f: u32) {
        match &mut self.flows[f as usize].endpoints {
            Endpoints::Tcp(tcp) => {
                tcp.sender.stop_offering();
                self.after_sender(now, f);
            }
            Endpoints::Cbr { source, .. } => source.stop(),
        }
    }

    fn on_cbr_send(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        let Endpoints::Cbr { source, .. } = &mut flow.endpoints else {
            return;
        };
        let Some(seq) = source.poll_send(now) else {
            return;
        };
        let size = source.packet_bytes();
        let next = source.poll_timeout();
        let (src, dst) = (flow.src, flow.dst);
        if let Some(at) = next {
            self.sched.schedule(at, Event::CbrSend { flow: f });
        }
        if T::ENABLED {
            self.tracer.seq_event(now, f, SeqEvent::Sent, seq);
        }
        let packet = Packet {
            flow: f,
            kind: PacketKind::Datagram,
            seq,
            size,
            dst,
            retransmit: false,
            sent_at: now,
            sack: SackBlocks::EMPTY,
        };
        self.inject(now, src, packet);
    }

    // ----- endpoints ---------------------------------------------------------------------

    fn deliver(&mut self, now: SimTime, packet: Packet) {
        let f = packet.flow;
        let flow = &mut self.flows[f as usize];
        if packet.kind.is_forward() {
            flow.counters.data_arrived += 1;
            flow.counters.latency_sum_ns += (now - packet.sent_at).as_nanos() as u128;
        } else {
            flow.counters.acks_arrived += 1;
        }
        match (&mut flow.endpoints, packet.kind) {
            (Endpoints::Tcp(tcp), PacketKind::Data) => {
                tcp.receiver.on_segment(now, packet.seq);
                if !flow.finished && tcp.receiver.stats().finished_at.is_some() {
                    flow.finished = true;
                    self.unfinished -= 1;
                }
                self.after_receiver(now, f);
            }
            (Endpoints::Tcp(tcp), PacketKind::Ack) => {
                tcp.sender.on_ack(now, packet.seq, &packet.sack);
                if T::ENABLED {
                    self.tracer.seq_event(now, f, SeqEvent::Acked, packet.seq);
                    if let Some((rtt, srtt, rto)) = tcp.sender.take_rtt_sample() {
                        self.tracer.rtt_sample(now, f, rtt, srtt, rto);
                    }
                }
                self.after_sender(now, f);
            }
            (Endpoints::Tcp(tcp), PacketKind::Syn) => {
                tcp.receiver.on_syn(now);
                self.after_receiver(now, f);
            }
            (Endpoints::Tcp(tcp), PacketKind::SynAck) => {
                tcp.sender.on_syn_ack(now);
                self.after_sender(now, f);
            }
            (Endpoints::Cbr { sink, .. }, PacketKind::Datagram) => sink.on_packet(packet.size),
            _ => debug_assert!(
                false,
                "packet {packet:?} reached the wrong kind of endpoint"
            ),
        }
    }

    /// Sends what the TCP sender of flow `f` wants to send, re-arms its timer, traces its
    /// window.
    fn after_sender(&mut self, now: SimTime, f: u32) {
        loop {
            let flow = &mut self.flows[f as usize];
            let Endpoints::Tcp(tcp) = &mut flow.endpoints else {
                return;
            };
            let Some(tx) = tcp.sender.poll_transmit(now) else {
                break;
            };
            let kind = match tx.kind {
                SegmentKind::Data => PacketKind::Data,
                SegmentKind::Syn => PacketKind::Syn,
            };
            let packet = Packet {
                flow: f,
                kind,
                seq: tx.seq,
                size: tcp.sender.wire_size(tx.payload),
                dst: flow.dst,
                retransmit: tx.retransmit,
                sent_at: now,
                sack: SackBlocks::EMPTY,
            };
            if T::ENABLED && kind == PacketKind::Data {
                let event = if tx.retransmit {
                    SeqEvent::Retransmitted
                } else {
                    SeqEvent::Sent
                };
                self.tracer.seq_event(now, f, event, tx.seq);
            }
            let src = flow.src;
            self.inject(now, src, packet);
        }
        let flow = &mut self.flows[f as usize];
        let Endpoints::Tcp(tcp) = &mut flow.endpoints else {
            return;
        };
        if let Some(at) = tcp.sender_timer.arm(tcp.sender.poll_timer()) {
            self.sched.schedule(at, Event::SenderTimer { flow: f });
        }
        if let Some(at) = tcp.release_timer.arm(tcp.sender.poll_release()) {
            self.sched.schedule(at, Event::SenderTimer { flow: f });
        }
        if T::ENABLED {
            let now_w = (tcp.sender.inflated_cwnd(), tcp.sender.ssthresh());
            if flow.traced != Some(now_w) {
                flow.traced = Some(now_w);
                self.tracer.cwnd_changed(now, f, now_w.0, now_w.1);
            }
            let cc = tcp.sender.cc().cc_state();
            if flow.traced_cc != cc {
                flow.traced_cc = cc;
                self.tracer.cc_changed(now, f, &cc);
            }
        }
    }

    /// Sends the ACK the TCP receiver of flow `f` wants to send and re-arms its timer.
    fn after_receiver(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        let Endpoints::Tcp(tcp) = &mut flow.endpoints else {
            return;
        };
        if let Some(ack) = tcp.receiver.poll_transmit(now) {
            let packet = Packet {
                flow: f,
                kind: if ack.syn {
                    PacketKind::SynAck
                } else {
                    PacketKind::Ack
                },
                seq: ack.ack,
                size: tcp.receiver.ack_size(ack.sack.len()),
                dst: flow.src,
                retransmit: false,
                sent_at: now,
                sack: ack.sack,
            };
            let from = flow.dst;
            self.inject(now, from, packet);
        }
        let Endpoints::Tcp(tcp) = &mut self.flows[f as usize].endpoints else {
            return;
        };
        if let Some(at) = tcp.receiver_timer.arm(tcp.receiver.poll_timeout()) {
            self.sched.schedule(at, Event::ReceiverTimer { flow: f });
        }
    }

    fn on_sender_timer(&mut self, now: SimTime, f: u32) {
        let Endpoints::Tcp(tcp) = &mut self.flows[f as usize].endpoints else {
            return;
        };
        if !(tcp.sender_timer.fire(now) || tcp.release_timer.fire(now)) {
            return; // stale entry, superseded by an earlier one
        }
        if matches!(tcp.sender.poll_timeout(), Some(d) if d <= now) {
            tcp.sender.on_timeout(now);
        }
        self.after_sender(now, f);
    }

    fn on_receiver_timer(&mut self, now: SimTime, f: u32) {
        let Endpoints::Tcp(tcp) = &mut self.flows[f as usize].endpoints else {
            return;
        };
        if !tcp.receiver_timer.fire(now) {
            return;
        }
        if matches!(tcp.receiver.poll_timeout(), Some(d) if d <= now) {
            tcp.receiver.on_timeout(now);
        }
        self.after_receiver(now, f);
    }

    // ----- invariants --------------------------------------------------------------------

    /// Checks packet conservation per flow (sent = arrived + dropped + in the network), the
    /// window bounds, and in-order delivery, by scanning every queue and wire.
    pub fn audit(&self) -> Result<(), InvariantViolation> {
        let mut data_in_net = vec![0u64; self.flows.len()];
        let mut acks_in_net = vec![0u64; self.flows.len()];
        for link in &self.dirs {
            for id in link.queue.iter().chain(link.pipe.iter().map(|p| p.id)) {
                let p = self.pool.get(id);
                if p.kind.is_forward() {
                    data_in_net[p.flow as usize] += 1;
                } else {
                    acks_in_net[p.flow as usize] += 1;
                }
            }
        }
        let live: u64 = data_in_net.iter().chain(&acks_in_net).sum();
        if live != self.pool.live() as u64 {
            return Err(InvariantViolation(format!(
                "{} packets alive in the pool but {live} in queues and wires",
                self.pool.live()
            )));
        }
        for (i, flow) in self.flows.iter().enumerate() {
            let c = &flow.counters;
            if c.data_sent != c.data_arrived + c.data_dropped + data_in_net[i] {
                return Err(InvariantViolation(format!(
                    "flow {}: data sent {} != arrived {} + dropped {} + in flight {}",
                    flow.name, c.data_sent, c.data_arrived, c.data_dropped, data_in_net[i]
                )));
            }
            if c.acks_sent != c.acks_arrived + c.acks_dropped + acks_in_net[i] {
                return Err(InvariantViolation(format!(
                    "flow {}: ACKs sent {} != arrived {} + dropped {} + in flight {}",
                    flow.name, c.acks_sent, c.acks_arrived, c.acks_dropped, acks_in_net[i]
                )));
            }
            let Endpoints::Tcp(tcp) = &flow.endpoints else {
                continue;
            };
            let st = tcp.sender.stats();
            if st.segments_sent + st.syns_sent != c.data_sent {
                return Err(InvariantViolation(format!(
                    "flow {}: sender and network disagree on segments sent",
                    flow.name
                )));
            }
            if tcp.sender.cwnd() < Window::segments(1)
                || tcp.sender.ssthresh() < Window::segments(2)
            {
                return Err(InvariantViolation(format!(
                    "flow {}: cwnd {} < 1 or ssthresh {} < 2",
                    flow.name,
                    tcp.sender.cwnd(),
                    tcp.sender.ssthresh()
                )));
            }
            let r = &tcp.receiver;
            let in_order_bytes = tcp.sender.transfer().bytes_before(r.rcv_nxt());
            if r.stats().bytes_delivered != in_order_bytes {
                return Err(InvariantViolation(format!(
                    "flow {}: {} bytes delivered but segments 0..{} hold {in_order_bytes}",
                    flow.name,
                    r.stats().bytes_delivered,
                    r.rcv_nxt()
                )));
            }
        }
        Ok(())
    }
}
