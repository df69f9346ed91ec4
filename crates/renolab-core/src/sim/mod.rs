//! The simulation: builds the network and the flows from a [`Scenario`] and runs the event
//! loop.
//!
//! Packets move through the network without events where none is needed: a packet that
//! reaches a node is forwarded into the next link direction in the same step, and an idle
//! transmitter starts serialising at once. Events exist only for the ends of serialisation
//! on busy links, for arrivals at the far end of links, for flow starts and for endpoint
//! timers (see [`crate::engine`]).

mod results;

pub use results::{FlowResult, LinkResult, RunOutput, RunSummary, StopReason};

use crate::engine::{Event, Scheduler, TimerSlot};
use crate::loss::{DropList, LossModel, Uniform};
use crate::net::{LinkDir, Packet, PacketId, PacketKind, PacketPool, Routes};
use crate::queue::{DropTail, Queue, Queued};
use crate::rng::RngStream;
use crate::scenario::{DirSpec, LossSpec, QueueSpec, Scenario, Variant};
use crate::tcp::cc::{Cc, NewReno, Reno, Tahoe, Vegas};
use crate::tcp::sack::SackBlocks;
use crate::tcp::sender::SegmentKind;
use crate::tcp::{Dialect, TcpReceiver, TcpSender, Transfer, Window};
use crate::time::SimTime;
use crate::trace::{NoTrace, Recorder, SeqEvent, Tracer};

/// Per-flow packet counters kept by the network (not by the endpoints), for conservation.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FlowCounters {
    data_sent: u64,
    data_arrived: u64,
    data_dropped: u64,
    acks_sent: u64,
    acks_arrived: u64,
    acks_dropped: u64,
}

/// A flow: its two endpoints, their timers and counters.
#[derive(Debug)]
pub(crate) struct Flow {
    name: String,
    variant: Variant,
    src: u32,
    dst: u32,
    sender: TcpSender,
    receiver: TcpReceiver,
    sender_timer: TimerSlot,
    receiver_timer: TimerSlot,
    counters: FlowCounters,
    finished: bool,
    /// Last (cwnd, ssthresh) reported to the tracer.
    traced: Option<(Window, Window)>,
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
    /// Scratch list of packets a queue drops during one operation (reused, never freed).
    aqm_drops: Vec<PacketId>,
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

/// Runs `scenario` to the end, recording the traces named in `traces`.
///
/// With `check_invariants`, packet conservation and the window bounds are audited after
/// every event (slow; for tests).
pub fn run(
    scenario: &Scenario,
    traces: &[String],
    check_invariants: bool,
) -> Result<RunOutput, RunError> {
    let recorder = Recorder::for_traces(traces).map_err(RunError::BadTrace)?;
    if traces.is_empty() {
        let mut sim = Simulation::new(scenario, NoTrace);
        sim.check_invariants = check_invariants;
        let out = sim.run_to_end()?;
        Ok(out.0)
    } else {
        let mut sim = Simulation::new(scenario, recorder);
        sim.check_invariants = check_invariants;
        let (mut out, tracer) = sim.run_to_end()?;
        out.cwnd = tracer.cwnd;
        out.seq = tracer.seq;
        Ok(out)
    }
}

/// Why a run could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A trace name that does not exist.
    BadTrace(String),
    /// An invariant check failed (a bug in the engine).
    Invariant(InvariantViolation),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::BadTrace(m) => write!(f, "trace: {m}"),
            RunError::Invariant(v) => write!(f, "{v}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<InvariantViolation> for RunError {
    fn from(v: InvariantViolation) -> Self {
        RunError::Invariant(v)
    }
}

fn build_queue(spec: &QueueSpec) -> Queue {
    match *spec {
        QueueSpec::DropTail {
            limit,
            counts_transmitting,
        } => Queue::DropTail(DropTail::new(limit, counts_transmitting)),
    }
}

fn build_losses(specs: &[LossSpec], seed: u64, dir_name: &str) -> Vec<LossModel> {
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| match spec {
            LossSpec::Drop {
                flow,
                segments,
                packets,
            } => LossModel::List(DropList::new(*flow, segments, packets)),
            LossSpec::Uniform { p } => LossModel::Uniform(Uniform::new(
                *p,
                RngStream::derive(seed, &format!("link/{dir_name}/loss/{i}")),
            )),
        })
        .collect()
}

impl<T: Tracer> Simulation<T> {
    /// Builds the network and flows of `scenario`; nothing has happened yet.
    pub fn new(scenario: &Scenario, tracer: T) -> Self {
        let mut dirs = Vec::with_capacity(scenario.links.len() * 2);
        let mut add_dir = |name: String, from: u32, to: u32, spec: &DirSpec| {
            let losses = build_losses(&spec.losses, scenario.seed, &name);
            dirs.push(LinkDir::new(
                name,
                from,
                to,
                spec.rate,
                spec.delay,
                build_queue(&spec.queue),
                losses,
            ));
        };
        for link in &scenario.links {
            add_dir(link.name.clone(), link.from, link.to, &link.forward);
            add_dir(
                format!("{}/rev", link.name),
                link.to,
                link.from,
                &link.reverse,
            );
        }
        let pairs: Vec<(u32, u32)> = dirs.iter().map(|d| (d.from, d.to)).collect();
        let routes = Routes::compute(scenario.nodes.len(), &pairs);
        let flows: Vec<Flow> = scenario
            .flows
            .iter()
            .map(|f| {
                let transfer = Transfer {
                    mss: f.mss,
                    bytes: f.bytes,
                };
                let (iw, ssthresh) = (f.sender.initial_window, f.sender.initial_ssthresh);
                // ns-2 keeps the fraction of W/2 after a fast retransmit (precisionReduce_).
                let keep_fraction = f.sender.dialect == Dialect::Ns2;
                let cc = match f.variant {
                    Variant::Tahoe => Cc::Tahoe(Tahoe::new(iw, ssthresh)),
                    Variant::Reno | Variant::Sack(_) => {
                        Cc::Reno(Reno::new(iw, ssthresh, keep_fraction))
                    }
                    Variant::NewReno(c) => Cc::NewReno(NewReno::new(
                        iw,
                        ssthresh,
                        c.ssthresh_estimation,
                        keep_fraction,
                    )),
                    Variant::Vegas(c) => Cc::Vegas(Vegas::new(iw, ssthresh, c)),
                };
                // The phase of ns-2's RTT tick clock (its random `boot_time_`), from the
                // flow's own stream.
                let tick = f.sender.rto.granularity.as_nanos();
                let mut rng = RngStream::derive(scenario.seed, &format!("flow/{}", f.name));
                let clock_phase = match f.sender.clock_phase {
                    Some(phase) if tick > 0 => phase.as_nanos() % tick,
                    _ if tick > 0 => rng.next_u64() % tick,
                    _ => 0,
                };
                Flow {
                    name: f.name.clone(),
                    variant: f.variant,
                    src: f.src,
                    dst: f.dst,
                    sender: TcpSender::new(f.sender, transfer, cc, clock_phase),
                    receiver: TcpReceiver::new(f.receiver, transfer),
                    sender_timer: TimerSlot::default(),
                    receiver_timer: TimerSlot::default(),
                    counters: FlowCounters::default(),
                    finished: false,
                    traced: None,
                }
            })
            .collect();
        let mut sched = Scheduler::new();
        for (i, f) in scenario.flows.iter().enumerate() {
            sched.schedule(SimTime::ZERO + f.start, Event::FlowStart { flow: i as u32 });
        }
        let stop_at = SimTime::ZERO + scenario.duration.unwrap_or(scenario.time_limit);
        sched.schedule(stop_at, Event::Stop);
        let unfinished = scenario.flows.iter().filter(|f| f.bytes.is_some()).count();
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
            aqm_drops: Vec::new(),
            tracer,
        }
    }

    /// Runs until the stop time (or, without a duration, until every flow has finished).
    /// Returns the results and the tracer with whatever it recorded.
    pub fn run_to_end(mut self) -> Result<(RunOutput, T), InvariantViolation> {
        let wall = std::time::Instant::now();
        let mut stop_reason = StopReason::TimeLimit;
        if self.stop_when_finished && self.unfinished == 0 {
            stop_reason = StopReason::AllFlowsFinished;
        } else {
            while let Some((now, event)) = self.sched.pop() {
                match event {
                    Event::TxEnd { dir } => self.on_tx_end(now, dir),
                    Event::Arrive { dir } => self.on_arrive(now, dir),
                    Event::FlowStart { flow } => {
                        self.flows[flow as usize].sender.start(now);
                        self.after_sender(now, flow);
                    }
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

    /// Hands packet `id` to link direction `d` at `now`. Every packet goes through the queue,
    /// as in ns-2's `Queue::recv()` (RED's average must see arrivals at an idle link too);
    /// an idle wire then takes it straight back.
    fn enqueue(&mut self, now: SimTime, d: u32, id: PacketId) {
        let packet = self.pool.get(id);
        let (size, flow) = (packet.size, packet.flow);
        let link = &mut self.dirs[d as usize];
        let transmitting = !link.idle_at(now);
        if !transmitting && !link.tx_end_pending && link.queue.may_bypass_when_idle(size) {
            // Fast path: an idle wire and a queue with nothing to decide.
            let (arrival, pipe_was_empty) = link.start_tx(now, id, size);
            if pipe_was_empty {
                self.sched.schedule(arrival, Event::Arrive { dir: d });
            }
            return;
        }
        let mut pushed_out = std::mem::take(&mut self.aqm_drops);
        let offered = link.queue.enqueue(
            now,
            Queued::new(id, size, flow),
            transmitting,
            &mut |victim, _| pushed_out.push(victim),
        );
        match offered {
            // Idle wire and no transmission end pending, so the queue was empty: start now,
            // exactly as if a transmission had just ended.
            Ok(()) if !transmitting && !link.tx_end_pending => {
                self.drop_queued(now, d, &mut pushed_out);
                self.aqm_drops = pushed_out;
                self.on_tx_end(now, d);
                return;
            }
            Ok(()) => {
                link.stats.max_queue = link.stats.max_queue.max(link.queue.len() as u64);
                if !link.tx_end_pending {
                    link.tx_end_pending = true;
                    let at = link.busy_until;
                    self.sched.schedule(at, Event::TxEnd { dir: d });
                }
            }
            Err(_) => pushed_out.push(id),
        }
        self.drop_queued(now, d, &mut pushed_out);
        self.aqm_drops = pushed_out;
    }

    /// Drops the packets a queue refused or pushed out, counting them on direction `d`.
    #[inline]
    fn drop_queued(&mut self, now: SimTime, d: u32, victims: &mut Vec<PacketId>) {
        if victims.is_empty() {
            return;
        }
        self.dirs[d as usize].stats.queue_drops += victims.len() as u64;
        for victim in victims.drain(..) {
            self.drop_packet(now, victim);
        }
    }

    fn on_tx_end(&mut self, now: SimTime, d: u32) {
        let mut dropped = std::mem::take(&mut self.aqm_drops);
        let link = &mut self.dirs[d as usize];
        link.tx_end_pending = false;
        let head = link
            .queue
            .dequeue(now, &mut |victim, _| dropped.push(victim));
        if let Some(id) = head {
            let size = self.pool.get(id).size;
            let (arrival, pipe_was_empty) = link.start_tx(now, id, size);
            if pipe_was_empty {
                self.sched.schedule(arrival, Event::Arrive { dir: d });
            }
            if !link.queue.is_empty() {
                link.tx_end_pending = true;
                let at = link.busy_until;
                self.sched.schedule(at, Event::TxEnd { dir: d });
            }
        }
        self.drop_queued(now, d, &mut dropped);
        self.aqm_drops = dropped;
    }

    fn on_arrive(&mut self, now: SimTime, d: u32) {
        let link = &mut self.dirs[d as usize];
        let Some((at, id)) = link.pipe.pop_front() else {
            return;
        };
        debug_assert_eq!(at, now);
        if let Some(&(next, _)) = link.pipe.front() {
            self.sched.schedule(next, Event::Arrive { dir: d });
        }
        if !link.losses.is_empty() {
            let packet = *self.pool.get(id);
            if link.losses.iter_mut().any(|m| m.judge(&packet).is_some()) {
                link.stats.loss_drops += 1;
                self.drop_packet(now, id);
                return;
            }
        }
        let to = link.to;
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
                None => self.drop_packet(now, id),
            }
        }
    }

    fn drop_packet(&mut self, now: SimTime, id: PacketId) {
        let packet = self.pool.remove(id);
        if T::ENABLED {
            let event = match packet.kind {
                PacketKind::Data => SeqEvent::Dropped,
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

    // ----- endpoints ---------------------------------------------------------------------

    fn deliver(&mut self, now: SimTime, packet: Packet) {
        let f = packet.flow;
        let flow = &mut self.flows[f as usize];
        match packet.kind {
            PacketKind::Data => {
                flow.counters.data_arrived += 1;
                flow.receiver.on_segment(now, packet.seq);
                if !flow.finished && flow.receiver.stats().finished_at.is_some() {
                    flow.finished = true;
                    self.unfinished -= 1;
                }
                self.after_receiver(now, f);
            }
            PacketKind::Ack => {
                flow.counters.acks_arrived += 1;
                flow.sender.on_ack(now, packet.seq, &packet.sack);
                if T::ENABLED {
                    self.tracer.seq_event(now, f, SeqEvent::Acked, packet.seq);
                }
                self.after_sender(now, f);
            }
            PacketKind::Syn => {
                flow.counters.data_arrived += 1;
                flow.receiver.on_syn(now);
                self.after_receiver(now, f);
            }
            PacketKind::SynAck => {
                flow.counters.acks_arrived += 1;
                flow.sender.on_syn_ack(now);
                self.after_sender(now, f);
            }
        }
    }

    /// Sends what the sender wants to send, re-arms its timer, traces its window.
    fn after_sender(&mut self, now: SimTime, f: u32) {
        loop {
            let flow = &mut self.flows[f as usize];
            let Some(tx) = flow.sender.poll_transmit(now) else {
                break;
            };
            flow.counters.data_sent += 1;
            let kind = match tx.kind {
                SegmentKind::Data => PacketKind::Data,
                SegmentKind::Syn => PacketKind::Syn,
            };
            let packet = Packet {
                flow: f,
                kind,
                seq: tx.seq,
                size: flow.sender.wire_size(tx.payload),
                dst: flow.dst,
                retransmit: tx.retransmit,
                sent_at: now,
                sack: SackBlocks::EMPTY,
            };
            let src = flow.src;
            if T::ENABLED && tx.kind == SegmentKind::Data {
                let event = if tx.retransmit {
                    SeqEvent::Retransmitted
                } else {
                    SeqEvent::Sent
                };
                self.tracer.seq_event(now, f, event, tx.seq);
            }
            let id = self.pool.insert(packet);
            self.at_node(now, src, id);
        }
        let flow = &mut self.flows[f as usize];
        if let Some(at) = flow.sender_timer.arm(flow.sender.poll_timeout()) {
            self.sched.schedule(at, Event::SenderTimer { flow: f });
        }
        if T::ENABLED {
            let now_w = (flow.sender.cwnd(), flow.sender.ssthresh());
            if flow.traced != Some(now_w) {
                flow.traced = Some(now_w);
                self.tracer.cwnd_changed(now, f, now_w.0, now_w.1);
            }
        }
    }

    /// Sends the ACK the receiver wants to send and re-arms its timer.
    fn after_receiver(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(ack) = flow.receiver.poll_transmit(now) {
            flow.counters.acks_sent += 1;
            let packet = Packet {
                flow: f,
                kind: if ack.syn {
                    PacketKind::SynAck
                } else {
                    PacketKind::Ack
                },
                seq: ack.ack,
                size: flow.receiver.ack_size(ack.sack.len()),
                dst: flow.src,
                retransmit: false,
                sent_at: now,
                sack: ack.sack,
            };
            let dst_node = flow.dst;
            let id = self.pool.insert(packet);
            self.at_node(now, dst_node, id);
        }
        let flow = &mut self.flows[f as usize];
        if let Some(at) = flow.receiver_timer.arm(flow.receiver.poll_timeout()) {
            self.sched.schedule(at, Event::ReceiverTimer { flow: f });
        }
    }

    fn on_sender_timer(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        if !flow.sender_timer.fire(now) {
            return; // stale entry, superseded by an earlier one
        }
        if matches!(flow.sender.poll_timeout(), Some(d) if d <= now) {
            flow.sender.on_timeout(now);
        }
        self.after_sender(now, f);
    }

    fn on_receiver_timer(&mut self, now: SimTime, f: u32) {
        let flow = &mut self.flows[f as usize];
        if !flow.receiver_timer.fire(now) {
            return;
        }
        if matches!(flow.receiver.poll_timeout(), Some(d) if d <= now) {
            flow.receiver.on_timeout(now);
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
            for id in link.queue.iter().chain(link.pipe.iter().map(|&(_, id)| id)) {
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
            let st = flow.sender.stats();
            if st.segments_sent + st.syns_sent != c.data_sent {
                return Err(InvariantViolation(format!(
                    "flow {}: sender and network disagree on segments sent",
                    flow.name
                )));
            }
            if flow.sender.cwnd() < Window::segments(1)
                || flow.sender.ssthresh() < Window::segments(2)
            {
                return Err(InvariantViolation(format!(
                    "flow {}: cwnd {} < 1 or ssthresh {} < 2",
                    flow.name,
                    flow.sender.cwnd(),
                    flow.sender.ssthresh()
                )));
            }
            let r = &flow.receiver;
            let in_order_bytes = flow.sender.transfer().bytes_before(r.rcv_nxt());
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
