//! The network on its own: packets moving through link directions and nodes, with no
//! endpoints and no clock of its own, so that a driver other than the simulation's event
//! loop (a real-time emulator, say) can reuse it.
//!
//! A [`Network`] owns the packet pool, the link directions, the routes, the queue-drop
//! scratch list and the per-flow packet counters. Its [`Driver`] owns the network, the
//! clock's [`Scheduler`] and the [`Tracer`], and receives the packets that reach their
//! destination. The network's operations take the driver:
//!
//! - [`Network::inject`] puts a new packet in at a node at `now` (or, for a driver that keeps
//!   something of its own beside each packet, keyed by its [`PacketId`], [`Network::admit`]
//!   then [`Network::at_node`]);
//! - [`Network::on_tx_end`] and [`Network::on_arrive`] handle the two link events,
//!   [`Event::TxEnd`] and [`Event::Arrive`], when the driver's clock reaches them.
//!
//! Link events go on the driver's scheduler, reports to its tracer, and a packet that reaches
//! its destination node goes to [`Driver::deliver`], where the endpoint may answer (inject an
//! ACK, say) in the same step. Drops are counted here, per flow and per link direction.
//!
//! Why a driver passed in, rather than a scheduler, a tracer and a sink beside the network,
//! or delivered packets handed back: one pointer then reaches the network, the scheduler,
//! the tracer and the endpoints, as the simulation's single struct did before the network
//! had a type of its own, and the endpoint code inlines into the forwarding code. Measured
//! on the reference dumbbell (callgrind, 10 flows, 5 s): delivered packets handed back
//! cost 7 % more instructions, a scheduler, tracer and sink passed beside the network 2 %.
//!
//! Packets move without events where none is needed: a packet that reaches a node is
//! forwarded into the next link direction in the same step, and an idle transmitter with a
//! stateless queue starts serialising at once. Events exist only for the ends of
//! serialisation on busy links and for arrivals at the far end of links (see
//! [`crate::engine`]).
//!
//! Shared media live in the `wifi` child module: a packet whose next hop crosses a medium
//! goes to `Network::enter_medium`, and [`Event::Medium`] to [`Network::on_medium`].

mod wifi;

use crate::engine::{Event, Scheduler};
use crate::net::link::TxSeqs;
use crate::net::pipe::InFlight;
use crate::net::{Hop, LinkDir, Routes};
use crate::packet::{Packet, PacketId, PacketKind, PacketPool};
use crate::queue::{Admit, Dequeued, QueueDrop, Queued};
use crate::scenario::Scenario;
use crate::time::SimTime;
use crate::trace::{DropCause, HopEvent, SeqEvent, Tracer};

/// Packets of one flow counted by the network (not by its endpoints), for conservation and
/// for the flow's drop and latency figures.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FlowCounters {
    /// Forward packets (data, SYNs, datagrams) put into the network.
    pub data_sent: u64,
    /// Forward packets that reached the destination.
    pub data_arrived: u64,
    /// Forward packets dropped.
    pub data_dropped: u64,
    /// ACKs (and SYN-ACKs) put into the network.
    pub acks_sent: u64,
    /// ACKs that reached the sender.
    pub acks_arrived: u64,
    /// ACKs dropped.
    pub acks_dropped: u64,
    /// Sum of the one-way latencies of the forward packets that arrived, ns.
    pub latency_sum_ns: u128,
    /// Sum of the times the forward packets that arrived spent waiting in link queues, each
    /// over its whole path, ns.
    pub queue_wait_sum_ns: u128,
}

/// What drives a [`Network`]: the owner of the network, of the event scheduler its link
/// events go on and of the tracer it reports to, and the receiver of the packets that reach
/// their destination.
///
/// A driver that keeps what arrives, with the loop that runs its link events:
///
/// ```
/// use renolab_core::engine::{Event, Scheduler};
/// use renolab_core::packet::{Ecn, Packet, PacketId, PacketKind};
/// use renolab_core::sim::{Driver, Network};
/// use renolab_core::packet::sack::SackBlocks;
/// use renolab_core::time::SimTime;
/// use renolab_core::trace::NoTrace;
/// use renolab_core::Scenario;
///
/// struct Collector {
///     network: Network,
///     sched: Scheduler,
///     tracer: NoTrace,
///     arrived: Vec<(SimTime, Packet)>,
/// }
///
/// impl Driver for Collector {
///     type Tracer = NoTrace;
///     fn parts(&mut self) -> (&mut Network, &mut Scheduler, &mut NoTrace) {
///         (&mut self.network, &mut self.sched, &mut self.tracer)
///     }
///     fn deliver(&mut self, now: SimTime, packet: Packet, _id: PacketId) {
///         self.arrived.push((now, packet));
///     }
/// }
///
/// // One link a -> b; one flow, so that the network counts flow 0's packets.
/// let scenario = Scenario::from_toml_str(
///     r#"
///     simulation = { duration = "1s" }
///     link = [{ from = "a", to = "b", rate = "8Mbps", delay = "10ms" }]
///     flow = [{ name = "u", kind = "cbr", rate = "1Mbps", src = "a", dst = "b" }]
///     "#,
/// )?;
/// let mut driver = Collector {
///     network: Network::from_scenario(&scenario),
///     sched: Scheduler::new(),
///     tracer: NoTrace,
///     arrived: Vec::new(),
/// };
/// let packet = Packet {
///     flow: 0,
///     kind: PacketKind::Datagram,
///     seq: 0,
///     size: 1000,
///     dst: 1, // node b
///     retransmit: false,
///     sent_at: SimTime::ZERO,
///     sack: SackBlocks::EMPTY,
///     ecn: Ecn::NONE,
/// };
/// Network::inject(&mut driver, SimTime::ZERO, 0, packet);
/// while let Some((now, event)) = driver.sched.pop() {
///     match event {
///         Event::TxEnd { dir } => Network::on_tx_end(&mut driver, now, dir),
///         Event::Arrive { dir } => Network::on_arrive(&mut driver, now, dir),
///         _ => unreachable!("a bare network schedules only link events"),
///     }
/// }
/// // 1 ms to serialise 1000 bytes at 8 Mb/s, 10 ms to propagate.
/// assert_eq!(driver.arrived[0].0, SimTime(11_000_000));
/// # Ok::<(), renolab_core::ScenarioError>(())
/// ```
pub trait Driver {
    /// What the network reports to ([`crate::trace::NoTrace`] compiles the reports away).
    type Tracer: Tracer;
    /// The network, the scheduler and the tracer, borrowed together.
    fn parts(&mut self) -> (&mut Network, &mut Scheduler, &mut Self::Tracer);
    /// `packet` reached its destination node (`packet.dst`) at `now` and has left the
    /// network; the driver may send an answer into it at once ([`Network::inject`]). `id` is
    /// the handle it had (free again now), for a driver that keeps something of its own per
    /// packet (the emulator keeps its bytes).
    fn deliver(&mut self, now: SimTime, packet: Packet, id: PacketId);
    /// Packet `id` started crossing link direction `dir` at `now`: a driver that keeps the
    /// packets' bytes captures them here (the emulator's pcap). The simulation's captures
    /// come from its tracer, and this costs it nothing.
    #[inline(always)]
    fn transmitted(&mut self, _now: SimTime, _dir: u32, _id: PacketId) {}
}

/// Link directions joining nodes, the packets in them, and the routes between nodes.
#[derive(Debug)]
pub struct Network {
    pool: PacketPool,
    dirs: Vec<LinkDir>,
    routes: Routes,
    /// Scratch list of packets a queue drops during one operation (reused, never freed).
    queue_drops: Vec<(PacketId, QueueDrop)>,
    /// Indexed by [`Packet::flow`].
    counters: Vec<FlowCounters>,
    /// Shared media.
    media: wifi::Media,
}

impl Network {
    /// The links of `scenario` (direction 2k is link k forward, 2k + 1 its reverse), idle
    /// and empty, with counters for its flows.
    pub fn from_scenario(scenario: &Scenario) -> Self {
        let dirs = super::build::link_dirs(scenario);
        let mut network = Network::new(dirs, scenario.nodes.len(), scenario.flows.len());
        if !scenario.media.is_empty() {
            network.media = wifi::Media::from_scenario(scenario);
            network.routes = scenario.routes();
        }
        network
    }

    /// A network of `nodes` nodes joined by `dirs` (routes by fewest hops), carrying the
    /// packets of `flows` flows (packet `flow` fields below `flows`).
    pub fn new(dirs: Vec<LinkDir>, nodes: usize, flows: usize) -> Self {
        let pairs: Vec<(u32, u32)> = dirs.iter().map(|dir| (dir.from, dir.to)).collect();
        Network {
            pool: PacketPool::new(),
            routes: Routes::compute(nodes, &pairs),
            dirs,
            queue_drops: Vec::new(),
            counters: vec![FlowCounters::default(); flows],
            media: wifi::Media::default(),
        }
    }

    /// The shared media, in order.
    pub fn media(&self) -> &[crate::net::wifi::Medium] {
        self.media.list()
    }

    /// Makes the media record what happens on their air, for a driver whose tracer records.
    pub fn trace_media(&mut self) {
        self.media.set_tracing(true);
    }

    /// The link directions, in order.
    pub fn dirs(&self) -> &[LinkDir] {
        &self.dirs
    }

    /// True when the route from node `src` to node `dst` crosses a shared medium.
    pub fn route_crosses_medium(&self, src: u32, dst: u32) -> bool {
        let mut node = src;
        while node != dst && !self.media.list().is_empty() {
            match self.routes.hop(node, dst) {
                Some(Hop::Link(dir)) => node = self.dirs[dir as usize].to,
                Some(Hop::Medium(_)) => return true,
                None => break,
            }
        }
        false
    }

    /// The counters of every flow, by flow index.
    pub fn flow_counters(&self) -> &[FlowCounters] {
        &self.counters
    }

    /// Counts the packets of one more flow, numbered after the others; returns its number.
    pub fn add_flow(&mut self) -> u32 {
        self.counters.push(FlowCounters::default());
        (self.counters.len() - 1) as u32
    }

    /// True when every packet flow `flow` sent has arrived or been dropped.
    pub fn flow_drained(&self, flow: u32) -> bool {
        let c = &self.counters[flow as usize];
        c.data_sent == c.data_arrived + c.data_dropped
            && c.acks_sent == c.acks_arrived + c.acks_dropped
    }

    /// The routes between the nodes.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// The packet behind `id` (a handle found in a queue or a pipe).
    pub fn packet(&self, id: PacketId) -> &Packet {
        self.pool.get(id)
    }

    /// Packets in the network now.
    pub fn packets_alive(&self) -> usize {
        self.pool.live()
    }

    /// Most packets that were in the network at once.
    pub fn peak_packets(&self) -> usize {
        self.pool.capacity_used()
    }

    /// Puts `packet`, new, into `driver`'s network at `node` at `now` (delivering it at
    /// once if `node` is its destination, which a scenario's flows never ask for).
    pub fn inject<D: Driver>(driver: &mut D, now: SimTime, node: u32, packet: Packet) {
        let id = driver.parts().0.admit(packet);
        Network::at_node(driver, now, node, id);
    }

    /// Takes `packet`, new, into the network, counted as sent, and returns its handle; it
    /// goes nowhere until [`Network::at_node`] places it. The two together are
    /// [`Network::inject`], for a driver that keeps something of its own per packet, keyed by
    /// the handle, before the packet moves.
    #[inline]
    pub fn admit(&mut self, packet: Packet) -> PacketId {
        let counters = &mut self.counters[packet.flow as usize];
        if packet.kind.is_forward() {
            counters.data_sent += 1;
        } else {
            counters.acks_sent += 1;
        }
        self.pool.insert(packet)
    }

    /// Handles [`Event::TxEnd`] for direction `dir` at `now`: the transmitter is free, the
    /// next packet waiting (if any) starts.
    pub fn on_tx_end<D: Driver>(driver: &mut D, now: SimTime, dir: u32) {
        let (network, _, _) = driver.parts();
        let dropped = &mut network.queue_drops;
        let link = &mut network.dirs[dir as usize];
        link.set_tx_end_pending(false);
        link.occupancy.advance(now, link.queue.len());
        let next = link
            .queue
            .dequeue(now, &mut |victim, cause| dropped.push((victim, cause)));
        if let Some(Dequeued {
            id,
            size,
            marked,
            enqueued_at,
        }) = next
        {
            let waited = (now - enqueued_at).0;
            link.occupancy.sojourns.record(waited);
            network.pool.add_wait(id, waited);
            if marked {
                Network::mark_ce(driver, now, dir, id);
            }
            Network::transmit(driver, now, dir, id, size);
            let (network, _, _) = driver.parts();
            let queue = &network.dirs[dir as usize].queue;
            // The packet that leaves at the next transmission end: its record is read then
            // (its wait added), a packet's transmission time from now. (1000 flows on a
            // 10 Gb/s bottleneck, 2 s: median wall time -22 % with both prefetches, -6 %
            // with the arrival's alone; docs/benchmarks.md.)
            if let Some(next) = queue.head_id() {
                network.pool.prefetch(next);
            }
            if !queue.is_empty() {
                Network::schedule_tx_end(driver, dir);
            }
        }
        Network::drop_queued(driver, now, dir);
    }

    /// Handles [`Event::Arrive`] for direction `dir` at `now`: the packet at the head of its
    /// pipe reaches the far node, where the loss models judge it; there it is delivered if
    /// the node is its destination, or forwarded.
    // Always inlined: into the simulation's event loop, two copies of which (with and without
    // the audit) made LLVM call it instead, 4 % more instructions.
    #[inline(always)]
    pub fn on_arrive<D: Driver>(driver: &mut D, now: SimTime, dir: u32) {
        let (network, sched, tracer) = driver.parts();
        let link = &mut network.dirs[dir as usize];
        // With reordering latency an earlier packet may have taken the head after this event
        // was scheduled: the entry is then stale.
        let Some(InFlight { id, .. }) = link.pipe.pop_arrived(now) else {
            return;
        };
        if let Some(next) = link.pipe.front() {
            // Its record is read when it arrives, one transmission time from now at most.
            // (Here, before the scheduling, it costs the reference dumbbell 0.9 % more
            // instructions; after it, keeping more values alive across the push, 1.9 %.)
            network.pool.prefetch(next.id);
            let event = Event::Arrive { dir };
            sched.schedule_reserved(next.arrival, next.seq, event);
        }
        if link.judges_arrivals() {
            // The link went down while the packet was on it (the direction set its arrival
            // to the outage's start).
            if link.down_at(now) {
                link.stats.outage_drops += 1;
                Network::drop_packet(driver, now, id, Some((dir, DropCause::Outage)));
                return;
            }
            let packet = *network.pool.get(id);
            if let Some(cause) = link
                .losses
                .iter_mut()
                .find_map(|model| model.judge(now, &packet))
            {
                link.stats.count_loss(cause);
                Network::drop_packet(driver, now, id, Some((dir, cause.into())));
                return;
            }
        }
        let to = link.to;
        if D::Tracer::ENABLED {
            let packet = *network.pool.get(id);
            tracer.hop(now, dir, HopEvent::Receive, &packet, id.0);
        }
        Network::at_node(driver, now, to, id);
    }

    /// Packet `id` is at `node` at `now`: delivered if it is its destination, forwarded
    /// otherwise.
    pub fn at_node<D: Driver>(driver: &mut D, now: SimTime, node: u32, id: PacketId) {
        let (network, _, _) = driver.parts();
        let dst = network.pool.get(id).dst;
        if dst == node {
            let (packet, waited) = network.pool.take(id);
            let counters = &mut network.counters[packet.flow as usize];
            if packet.kind.is_forward() {
                counters.data_arrived += 1;
                counters.latency_sum_ns += (now - packet.sent_at).as_nanos() as u128;
                counters.queue_wait_sum_ns += waited as u128;
            } else {
                counters.acks_arrived += 1;
            }
            driver.deliver(now, packet, id);
            return;
        }
        match network.routes.next_hop(node, dst) {
            // Codes past the link directions cross a medium. (The comparison also spares
            // `enqueue` its bounds check: it costs nothing.)
            Some(dir) if (dir as usize) < network.dirs.len() => {
                Network::enqueue(driver, now, dir, id)
            }
            Some(medium_hop) => Network::enter_medium(driver, now, node, medium_hop, id),
            // Validation guarantees a route for every flow; be safe all the same.
            None => Network::drop_packet(driver, now, id, None),
        }
    }

    /// Hands packet `id` to link direction `dir` at `now`: straight onto an idle wire, or
    /// through the queue.
    fn enqueue<D: Driver>(driver: &mut D, now: SimTime, dir: u32, id: PacketId) {
        let (network, _, tracer) = driver.parts();
        let size = network.pool.get(id).size;
        let link = &mut network.dirs[dir as usize];
        let transmitting = !link.idle_at(now);
        if D::Tracer::ENABLED {
            let packet = *network.pool.get(id);
            tracer.hop(now, dir, HopEvent::Enqueue, &packet, id.0);
        }
        let link = &mut network.dirs[dir as usize];
        if !transmitting && link.may_bypass_queue(size) {
            // Fast path: an idle wire, fixed, and a queue with nothing to decide.
            Network::transmit(driver, now, dir, id, size);
            return;
        }
        link.occupancy.advance(now, link.queue.len());
        // Read here, not with the size: most hops take the fast path and need only that.
        let packet = network.pool.get(id);
        let (flow, ecn) = (packet.flow, packet.ecn.codepoint());
        let dropped = &mut network.queue_drops;
        let offered = link.queue.enqueue(
            now,
            Queued::new(id, size, flow).with_ecn(ecn),
            transmitting,
            &mut |victim, cause| dropped.push((victim, cause)),
        );
        if offered == Ok(Admit::Marked) {
            Network::mark_ce(driver, now, dir, id);
        }
        let (network, sched, _) = driver.parts();
        let link = &mut network.dirs[dir as usize];
        match offered {
            // Idle wire and no transmission end pending, so the queue was empty: start now,
            // as if a transmission had just ended (RED has seen the arrival), unless a
            // varying direction must wait (the link is down, or a trace's next delivery
            // opportunity is later).
            Ok(_) if !transmitting && !link.tx_end_pending() => {
                if !(link.varies() && link.hold(now, || sched.reserve())) {
                    Network::drop_queued(driver, now, dir);
                    Network::on_tx_end(driver, now, dir);
                    return;
                }
                link.stats.max_queue = link.stats.max_queue.max(link.queue.len() as u64);
                Network::schedule_tx_end(driver, dir);
            }
            Ok(_) => {
                link.stats.max_queue = link.stats.max_queue.max(link.queue.len() as u64);
                if !link.tx_end_pending() {
                    Network::schedule_tx_end(driver, dir);
                }
            }
            Err(cause) => network.queue_drops.push((id, cause)),
        }
        Network::drop_queued(driver, now, dir);
    }

    // ----- ECN ------------------------------------------------------------------------
    /// Direction `dir`'s queue marked packet `id` Congestion Experienced (RFC 3168 §5):
    /// set CE, count the mark, trace it.
    #[inline(never)]
    fn mark_ce<D: Driver>(driver: &mut D, now: SimTime, dir: u32, id: PacketId) {
        let (network, _, tracer) = driver.parts();
        let packet = network.pool.get_mut(id);
        packet.ecn = packet.ecn.with_ce();
        let link = &mut network.dirs[dir as usize];
        link.stats.marks += 1;
        if D::Tracer::ENABLED {
            let packet = *network.pool.get(id);
            let (len, bytes) = (link.queue.len() as u32, link.queue.bytes());
            tracer.marked(now, dir, len, bytes, link.queue.average_packets(), &packet);
        }
    }
    // ----- end ECN --------------------------------------------------------------------

    /// Drops the packets direction `dir`'s queue refused or pushed out (gathered in
    /// `queue_drops`), counting them.
    #[inline(always)]
    fn drop_queued<D: Driver>(driver: &mut D, now: SimTime, dir: u32) {
        if !driver.parts().0.queue_drops.is_empty() || D::Tracer::ENABLED {
            Network::drop_queued_now(driver, now, dir);
        }
    }

    // Out of line: the common case (nothing dropped, no tracer) then costs the caller a test.
    #[inline(never)]
    fn drop_queued_now<D: Driver>(driver: &mut D, now: SimTime, dir: u32) {
        // Taken out while dropping needs the driver, and put back to keep its capacity.
        let mut victims = std::mem::take(&mut driver.parts().0.queue_drops);
        for (victim, cause) in victims.drain(..) {
            driver.parts().0.dirs[dir as usize]
                .stats
                .count_queue_drop(cause);
            Network::drop_packet(driver, now, victim, Some((dir, cause.into())));
        }
        let (network, _, tracer) = driver.parts();
        network.queue_drops = victims;
        if D::Tracer::ENABLED {
            let queue = &network.dirs[dir as usize].queue;
            tracer.queue_changed(
                now,
                dir,
                queue.len() as u32,
                queue.bytes(),
                queue.average_packets(),
            );
            for state in queue.sub_queues().iter().flatten() {
                tracer.sub_queue_changed(now, dir, state);
            }
        }
    }

    /// Puts packet `id` (`size` bytes) on direction `dir`'s idle wire, scheduling its arrival
    /// if it leads the pipe. Its arrival and transmission end take their event numbers now,
    /// in that order, as ns-2's link does (see [`TxSeqs`]).
    // Always inlined: as a call from its two places it cost 5 % more instructions.
    #[inline(always)]
    fn transmit<D: Driver>(driver: &mut D, now: SimTime, dir: u32, id: PacketId, size: u32) {
        let (network, sched, tracer) = driver.parts();
        let (arrival, end) = sched.reserve_pair();
        let seqs = TxSeqs { arrival, end };
        if let Some((arrival, seq)) = network.dirs[dir as usize].start_tx(now, id, size, seqs) {
            let event = Event::Arrive { dir };
            sched.schedule_reserved(arrival, seq, event);
        }
        if D::Tracer::ENABLED {
            let packet = *network.pool.get(id);
            tracer.hop(now, dir, HopEvent::Dequeue, &packet, id.0);
        }
        driver.transmitted(now, dir, id);
    }

    /// Schedules the end of direction `dir`'s transmission in progress: packets wait behind
    /// it.
    #[inline(always)]
    fn schedule_tx_end<D: Driver>(driver: &mut D, dir: u32) {
        let (network, sched, _) = driver.parts();
        let link = &mut network.dirs[dir as usize];
        link.set_tx_end_pending(true);
        let (at, seq) = (link.busy_until, link.tx_end_seq);
        sched.schedule_reserved(at, seq, Event::TxEnd { dir });
    }

    /// Drops packet `id`, on link direction (or station) `at.0` for cause `at.1` when known.
    fn drop_packet<D: Driver>(
        driver: &mut D,
        now: SimTime,
        id: PacketId,
        at: Option<(u32, DropCause)>,
    ) {
        let (network, _, tracer) = driver.parts();
        let packet = network.pool.remove(id);
        if D::Tracer::ENABLED {
            if let Some((dir, cause)) = at {
                tracer.hop(now, dir, HopEvent::Drop, &packet, id.0);
                tracer.dropped(now, dir, &packet, cause);
            }
            let event = match packet.kind {
                PacketKind::Data | PacketKind::Datagram => SeqEvent::Dropped,
                _ => SeqEvent::AckDropped,
            };
            tracer.seq_event(now, packet.flow, event, packet.seq);
        }
        let counters = &mut network.counters[packet.flow as usize];
        if packet.kind.is_forward() {
            counters.data_dropped += 1;
        } else {
            counters.acks_dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::sack::SackBlocks;
    use crate::packet::Ecn;
    use crate::trace::NoTrace;

    /// A driver with no endpoints: it runs the link events of its scheduler and keeps what
    /// the network delivers.
    struct Recorder {
        network: Network,
        sched: Scheduler,
        tracer: NoTrace,
        delivered: Vec<(SimTime, Packet)>,
    }

    impl Driver for Recorder {
        type Tracer = NoTrace;
        fn parts(&mut self) -> (&mut Network, &mut Scheduler, &mut NoTrace) {
            (&mut self.network, &mut self.sched, &mut self.tracer)
        }
        fn deliver(&mut self, now: SimTime, packet: Packet, _id: PacketId) {
            self.delivered.push((now, packet));
        }
    }

    impl Recorder {
        fn run(&mut self) {
            while let Some((now, event)) = self.sched.pop() {
                match event {
                    Event::TxEnd { dir } => Network::on_tx_end(self, now, dir),
                    Event::Arrive { dir } => Network::on_arrive(self, now, dir),
                    other => panic!("a bare network scheduled {other:?}"),
                }
            }
        }
    }

    fn datagram(seq: u32, dst: u32) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Datagram,
            seq,
            size: 1000,
            dst,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: SackBlocks::EMPTY,
            ecn: Ecn::NONE,
        }
    }

    /// a -(8 Mb/s, 10 ms, room for one waiting packet)- b -(8 Mb/s, 10 ms)- c, one CBR flow.
    fn two_hops() -> Recorder {
        let scenario = Scenario::from_toml_str(
            r#"
            [simulation]
            duration = "1s"
            [[link]]
            from = "a"
            to = "b"
            rate = "8Mbps"
            delay = "10ms"
            queue = { kind = "droptail", limit = 1 }
            [[link]]
            from = "b"
            to = "c"
            rate = "8Mbps"
            delay = "10ms"
            [[flow]]
            name = "u"
            kind = "cbr"
            rate = "1Mbps"
            src = "a"
            dst = "c"
            "#,
        )
        .unwrap();
        Recorder {
            network: Network::from_scenario(&scenario),
            sched: Scheduler::new(),
            tracer: NoTrace,
            delivered: Vec::new(),
        }
    }

    #[test]
    fn a_packet_crosses_two_links_and_is_delivered_to_the_driver() {
        let mut driver = two_hops();
        Network::inject(&mut driver, SimTime::ZERO, 0, datagram(7, 2));
        driver.run();
        // Two hops of 1 ms serialisation (1000 bytes at 8 Mb/s) and 10 ms propagation.
        assert_eq!(driver.delivered.len(), 1);
        assert_eq!(driver.delivered[0].0, SimTime(22_000_000));
        assert_eq!(driver.delivered[0].1.seq, 7);
        let counted = driver.network.flow_counters()[0];
        assert_eq!((counted.data_sent, counted.data_arrived), (1, 1));
        assert_eq!(counted.latency_sum_ns, 22_000_000);
        assert_eq!(driver.network.packets_alive(), 0);
    }

    #[test]
    fn packets_wait_behind_a_busy_wire_and_the_queue_drops_what_does_not_fit() {
        let mut driver = two_hops();
        // Three at once: the first goes on the wire, the second waits, the third is refused.
        for seq in 0..3 {
            Network::inject(&mut driver, SimTime::ZERO, 0, datagram(seq, 2));
        }
        driver.run();
        let times: Vec<u64> = driver.delivered.iter().map(|(t, _)| t.0).collect();
        assert_eq!(times, [22_000_000, 23_000_000]);
        let counted = driver.network.flow_counters()[0];
        assert_eq!(
            (
                counted.data_sent,
                counted.data_arrived,
                counted.data_dropped
            ),
            (3, 2, 1)
        );
        assert_eq!(driver.network.dirs()[0].stats.overflow_drops, 1);
    }

    #[test]
    fn queueing_delays_are_counted_per_link_and_summed_over_each_packets_path() {
        let mut driver = two_hops();
        // Three at once: the first finds the wire idle (waits 0), the second waits 1 ms for
        // it, the third is refused. At b each arrives as the wire frees: no wait there.
        for seq in 0..3 {
            Network::inject(&mut driver, SimTime::ZERO, 0, datagram(seq, 2));
        }
        driver.run();
        let end = SimTime(30_000_000);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let first = crate::sim::LinkResult::of(&driver.network.dirs()[0], &names, end);
        assert_eq!(first.packets_sent, 2);
        assert_eq!(first.mean_queue_delay_s, Some(0.5e-3));
        // Nearest rank: the median of {0, 1 ms} is 0 (exact), the 99th percentile 1 ms
        // (its bucket's midpoint: within 1/32).
        assert_eq!(first.queue_delay_p50_s, Some(0.0));
        let p99 = first.queue_delay_p99_s.unwrap();
        assert!((p99 / 1e-3 - 1.0).abs() <= 1.0 / 32.0, "{p99}");
        // One packet waited 1 ms of the 30: 1/30 of a packet on average.
        assert!((first.mean_queue_packets - 1.0 / 30.0).abs() < 1e-15);
        let second = crate::sim::LinkResult::of(&driver.network.dirs()[2], &names, end);
        assert_eq!(
            (second.packets_sent, second.mean_queue_delay_s),
            (2, Some(0.0))
        );
        assert_eq!(second.mean_queue_packets, 0.0);
        let unused = crate::sim::LinkResult::of(&driver.network.dirs()[1], &names, end);
        assert_eq!(
            (unused.mean_queue_delay_s, unused.queue_delay_p50_s),
            (None, None)
        );
        // Over each delivered packet's path: 0 and 1 ms.
        let counted = driver.network.flow_counters()[0];
        assert_eq!(
            (counted.data_arrived, counted.queue_wait_sum_ns),
            (2, 1_000_000)
        );
    }

    #[test]
    fn a_packet_injected_at_its_destination_is_delivered_at_once() {
        let mut driver = two_hops();
        Network::inject(&mut driver, SimTime(5), 2, datagram(1, 2));
        assert_eq!(driver.delivered.len(), 1);
        assert_eq!(driver.delivered[0].0, SimTime(5));
        assert_eq!(driver.sched.pending(), 0);
    }
}
