//! Workloads at run time: flows created as they arrive, and retired when they are done, so
//! that a run of many short flows holds the state of the flows alive at once, not of every
//! flow it ever ran.
//!
//! A flow has an id (its row in the results, the `flow` of its packets, events and traces)
//! and, while it is alive, a slot in the simulation's flow table. The `[[flow]]` flows are
//! ids 0..F in slots 0..F, for the whole run; a workload's flows take the next ids as they
//! arrive, and a free slot, or a new one. A finished flow is retired once nothing of it is
//! left in the network (every packet it sent delivered or dropped, its sender's data all
//! acknowledged): its row of results is kept, its slot freed for the next arrival (its
//! sender, receiver and delay histogram dropped then). Stale timer events of a retired
//! flow find no slot and are ignored; no packet of it can be left to arrive.
//!
//! What a finished flow keeps: its row (`FlowResult`, some 300 bytes with its names) and
//! its packet counters in the network (64 bytes).

use super::build;
use super::endpoints::{Endpoints, Flow};
use super::results::{self, FlowResult};
use super::Simulation;
use crate::app::{FlowSizes, PoissonArrivals};
use crate::engine::{Event, TimerSlot};
use crate::net::Routes;
use crate::rng::RngStream;
use crate::scenario::{Pairs, Scenario, TcpSpec, WorkloadSpec};
use crate::time::{SimDuration, SimTime};
use crate::trace::Tracer;
use crate::units::BitsPerSec;
use std::collections::HashMap;

/// A workload's slot-table entry for a retired flow.
const NO_SLOT: u32 = u32::MAX;

/// One workload generating flows.
#[derive(Debug)]
struct Generator {
    name: String,
    arrivals: PoissonArrivals,
    sizes: FlowSizes,
    pairs: Pairs,
    tcp: TcpSpec,
    stop: Option<SimTime>,
    max_flows: Option<u64>,
    /// Its own stream (`workload/<name>`): arrival gaps, sizes and pairs.
    rng: RngStream,
    /// Flows created so far.
    created: u64,
}

/// A new flow of a workload, drawn at its arrival.
pub(super) struct Arrival {
    /// The flow, built and not started.
    pub(super) flow: Flow,
    /// Its TCP (`bytes` its size), for a capture's headers.
    pub(super) tcp: TcpSpec,
    /// When the workload's next flow arrives, if one does.
    pub(super) next: Option<SimTime>,
}

/// What a workload's generator draws at one arrival.
struct Draw {
    /// The flow's name, `<workload>-<n>`.
    name: String,
    /// Its endpoints.
    ends: (u32, u32),
    /// Its TCP, `bytes` its size.
    tcp: TcpSpec,
    /// When the workload's next flow arrives, if one does.
    next: Option<SimTime>,
}

/// A flow a workload creates, as a run draws it: the flows of a scenario's workloads are
/// known before the run (each workload's stream draws nothing else), which is how
/// `renolab emulate` starts the same flows in real kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnFlow {
    /// Index of its workload in the scenario.
    pub workload: usize,
    /// Its name, `<workload>-<n>`.
    pub name: String,
    /// When it arrives (its application starts).
    pub arrival: SimTime,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Its TCP, `bytes` its drawn size.
    pub tcp: TcpSpec,
}

/// The first `at_most` flows the workloads of `scenario` create before `end`, in the order
/// they arrive (the order of their ids in a simulation), drawn by the simulation's own
/// generators.
pub fn drawn_flows(scenario: &Scenario, end: SimTime, at_most: usize) -> Vec<DrawnFlow> {
    let mut generators: Vec<Generator> = (scenario.workloads.iter())
        .map(|w| Generator::new(scenario.seed, w))
        .collect();
    let mut next: Vec<Option<SimTime>> = (generators.iter_mut())
        .zip(&scenario.workloads)
        .map(|(g, w)| g.next_after(SimTime::ZERO + w.start))
        .collect();
    let mut out = Vec::new();
    while out.len() < at_most {
        // The earliest arrival; of equal ones, the first workload's.
        let Some((w, at)) = (next.iter().enumerate())
            .filter_map(|(w, t)| t.map(|t| (w, t)))
            .min_by_key(|&(w, t)| (t, w))
        else {
            break;
        };
        if at >= end {
            break;
        }
        let draw = generators[w].draw(at);
        next[w] = draw.next;
        out.push(DrawnFlow {
            workload: w,
            name: draw.name,
            arrival: at,
            src: draw.ends.0,
            dst: draw.ends.1,
            tcp: draw.tcp,
        });
    }
    out
}

/// The workloads of a run, and the flows they created.
#[derive(Debug, Default)]
pub(super) struct Workloads {
    generators: Vec<Generator>,
    /// Ids below this are the `[[flow]]` flows, in the slots of the same number.
    pub(super) fixed: u32,
    /// Slot of workload flow `fixed + i` at `[i]`, [`NO_SLOT`] once retired.
    slot_of: Vec<u32>,
    /// Slots of retired flows, free for the next arrivals.
    free: Vec<u32>,
    /// Finished flows not retired yet (packets of theirs still in the network), retried at
    /// every arrival.
    pub(super) draining: Vec<u32>,
    /// The rows of the retired flows, with their ids.
    pub(super) retired: Vec<(u32, FlowResult)>,
    /// The ideal completion times' view of the network.
    pub(super) paths: Paths,
    /// The master seed (each flow's endpoints draw from `flow/<name>`).
    seed: u64,
}

impl Workloads {
    /// The workloads of `scenario`, none started; each with the time of its first arrival.
    pub(super) fn new(scenario: &Scenario) -> (Self, Vec<Option<SimTime>>) {
        let mut first = Vec::new();
        let generators = (scenario.workloads.iter())
            .map(|w| {
                let mut g = Generator::new(scenario.seed, w);
                let start = SimTime::ZERO + w.start;
                first.push(g.next_after(start));
                g
            })
            .collect();
        let workloads = Workloads {
            generators,
            fixed: scenario.flows.len() as u32,
            paths: Paths::new(scenario),
            seed: scenario.seed,
            ..Default::default()
        };
        (workloads, first)
    }

    /// The slot of flow `flow`, if it is alive.
    #[inline(always)]
    pub(super) fn slot(&self, flow: u32) -> Option<usize> {
        if flow < self.fixed {
            return Some(flow as usize);
        }
        match self.slot_of.get((flow - self.fixed) as usize) {
            Some(&slot) if slot != NO_SLOT => Some(slot as usize),
            _ => None,
        }
    }

    /// True when `flow` is one of a workload's.
    #[inline]
    pub(super) fn is_workload_flow(&self, flow: u32) -> bool {
        flow >= self.fixed
    }

    /// Workload `w`'s flow arriving at `now`, numbered `id`, over `routes`.
    pub(super) fn arrive(&mut self, routes: &Routes, w: usize, now: SimTime, id: u32) -> Arrival {
        let Draw {
            name,
            ends,
            tcp,
            next,
        } = self.generators[w].draw(now);
        let ideal_fct = self.paths.ideal_fct(routes, ends.0, ends.1, &tcp);
        let mut flow = build::workload_flow(self.seed, id, name, ends, now, &tcp);
        flow.ideal_fct = ideal_fct;
        Arrival { flow, tcp, next }
    }

    /// Takes a slot for new flow `id` (the next id: ids are given in order).
    pub(super) fn take_slot(&mut self, id: u32, flows: usize) -> usize {
        debug_assert_eq!(id, self.fixed + self.slot_of.len() as u32);
        let slot = self.free.pop().unwrap_or(flows as u32);
        self.slot_of.push(slot);
        slot as usize
    }

    /// Frees the slot of `flow`, keeping its row.
    pub(super) fn retire(&mut self, flow: u32, row: FlowResult) {
        let entry = &mut self.slot_of[(flow - self.fixed) as usize];
        self.free.push(*entry);
        *entry = NO_SLOT;
        self.retired.push((flow, row));
    }

    /// The ids of the live workload flows and their slots.
    pub(super) fn live(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        (self.slot_of.iter().enumerate())
            .filter(|(_, &s)| s != NO_SLOT)
            .map(|(i, &s)| (self.fixed + i as u32, s as usize))
    }
}

impl<T: Tracer> Simulation<T> {
    /// The next flow of workload `w` arrives at `now`: it is built, given an id and a
    /// slot, and started; the workload's next arrival is scheduled. The finished flows
    /// that were waiting for their last packets are retired if they may be now.
    pub(super) fn on_workload_arrival(&mut self, now: SimTime, w: u32) {
        let mut draining = std::mem::take(&mut self.workloads.draining);
        draining.retain(|&id| match self.workloads.slot(id) {
            Some(slot) => !self.try_retire(now, slot),
            None => false,
        });
        self.workloads.draining = draining;

        let id = self.network.add_flow();
        let arrival = (self.workloads).arrive(self.network.routes(), w as usize, now, id);
        if T::ENABLED {
            let (src, dst) = (arrival.flow.src, arrival.flow.dst);
            let capture = super::run::pcap_tcp_flow(id, src, dst, &arrival.tcp);
            self.tracer.flow_added(id, capture);
        }
        match arrival.next {
            Some(at) => self
                .sched
                .schedule(at, Event::WorkloadArrival { workload: w }),
            None => self.unfinished -= 1,
        }
        let slot = self.workloads.take_slot(id, self.flows.len());
        if slot == self.flows.len() {
            self.flows.push(arrival.flow);
        } else {
            self.flows[slot] = arrival.flow;
        }
        self.unfinished += 1;
        self.on_flow_start(now, slot);
    }

    /// Retires the finished workload flow in `slot` if nothing of it is left in the
    /// network (its data all acknowledged, every packet it sent arrived or dropped): keeps
    /// its row, frees the slot. Returns whether it did.
    pub(super) fn try_retire(&mut self, now: SimTime, slot: usize) -> bool {
        let flow = &mut self.flows[slot];
        let Endpoints::Tcp(tcp) = &mut flow.endpoints else {
            return false;
        };
        if !tcp.sender.is_complete() || !self.network.flow_drained(flow.id) {
            return false;
        }
        // Its timer events still in the heap find these empty and do nothing.
        tcp.sender_timer = TimerSlot::default();
        tcp.release_timer = TimerSlot::default();
        tcp.receiver_timer = TimerSlot::default();
        let id = flow.id;
        let counted = &self.network.flow_counters()[id as usize];
        let crosses_medium = self.network.route_crosses_medium(flow.src, flow.dst);
        let row = results::flow_row(flow, counted, &self.node_names, crosses_medium, now);
        self.workloads.retire(id, row);
        true
    }
}

impl Generator {
    fn new(seed: u64, w: &WorkloadSpec) -> Self {
        Generator {
            name: w.name.clone(),
            arrivals: w.arrivals,
            sizes: w.sizes.clone(),
            pairs: w.pairs.clone(),
            tcp: w.tcp.clone(),
            stop: w.stop.map(|s| SimTime::ZERO + s),
            max_flows: w.max_flows,
            rng: RngStream::derive(seed, &format!("workload/{}", w.name)),
            created: 0,
        }
    }

    /// The flow arriving at `now`: its size, its pair and the gap to the next arrival, in
    /// this order from the workload's stream (docs/workloads.md, "Random streams").
    fn draw(&mut self, now: SimTime) -> Draw {
        let n = self.created;
        self.created += 1;
        let bytes = self.sizes.draw(&mut self.rng);
        let ends = self.pairs.draw(&mut self.rng);
        let more = self.max_flows.is_none_or(|m| self.created < m);
        let next = if more { self.next_after(now) } else { None };
        Draw {
            name: format!("{}-{n}", self.name),
            ends,
            tcp: TcpSpec {
                bytes: Some(bytes),
                ..self.tcp.clone()
            },
            next,
        }
    }

    /// The arrival after one at `t`, unless it falls after `stop`.
    fn next_after(&mut self, t: SimTime) -> Option<SimTime> {
        let next = SimTime(t.0.saturating_add(self.arrivals.gap(&mut self.rng).as_nanos()));
        match self.stop {
            Some(stop) if next > stop => None,
            _ => Some(next),
        }
    }
}

/// What a flow's ideal completion time needs of its path: the propagation delays and the
/// slowest rate, each at its most favourable (a scheduled delay's smallest value, a
/// scheduled rate's or a trace's highest), so that no run beats it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PathFacts {
    /// Propagation delay from the source to the destination.
    pub(super) one_way: SimDuration,
    /// Propagation delay there and back (the ACKs' route may differ).
    pub(super) round_trip: SimDuration,
    /// The slowest direction of the data's route.
    pub(super) bottleneck: BitsPerSec,
}

impl PathFacts {
    /// The completion time of a transfer alone on this path (docs/workloads.md, "Ideal
    /// completion time"): the handshake's round trip; for each round of slow start that
    /// ends before the ACK clock returns, a round trip and a segment's serialisation at the
    /// bottleneck (the window doubling from the initial window, at most the receiver's
    /// window: the fastest RFC 5681 growth, an ACK for every segment); then the rest
    /// serialised at the bottleneck and one propagation delay. Small packets' serialisation
    /// (SYN, ACKs) and the other hops' are left out: a lower bound, which a run can meet
    /// within about one serialisation time.
    pub(super) fn ideal_fct(&self, t: IdealInputs) -> Option<SimDuration> {
        let bytes = t.bytes?;
        let mss = t.mss as u64;
        let segments = bytes.div_ceil(mss);
        let segment_ns = tx_ns(self.bottleneck, mss + t.header_bytes as u64);
        let rtt = self.round_trip.0;
        let mut elapsed = if t.handshake { rtt } else { 0 };
        let (mut sent, mut window) = (0u64, t.initial_window.max(1) as u64);
        let receiver_window = t.receiver_window.max(1) as u64;
        window = window.min(receiver_window);
        // A round's first ACK is back a round trip after its first segment crossed the
        // bottleneck; the sender waits for it unless the round's segments keep the
        // bottleneck busy until then.
        while sent + window < segments && (window - 1).saturating_mul(segment_ns) < rtt {
            sent += window;
            elapsed += rtt + segment_ns;
            window = window.saturating_mul(2).min(receiver_window);
        }
        let rest = (bytes - sent * mss) + (segments - sent) * t.header_bytes as u64;
        Some(SimDuration(
            elapsed + tx_ns(self.bottleneck, rest) + self.one_way.0,
        ))
    }
}

/// The network as the ideal completion times see it: each link direction's far end,
/// smallest delay and highest rate; and the facts of each pair's path, once found. A route
/// that crosses a shared medium has no facts (no ideal time is given then).
#[derive(Debug, Default)]
pub struct Paths {
    /// Per link direction: (far end, smallest delay ns, highest rate).
    dirs: Vec<(u32, u64, BitsPerSec)>,
    found: HashMap<(u32, u32), Option<PathFacts>>,
}

impl Paths {
    /// The view of the network of `scenario`.
    pub fn new(scenario: &Scenario) -> Self {
        let n = scenario.links.len() as u32 * crate::net::DIRS_PER_LINK as u32;
        let dirs = (0..n)
            .map(|d| {
                let spec = scenario.dir_spec(d);
                let delay = spec
                    .delay
                    .values()
                    .copied()
                    .min()
                    .unwrap_or(SimDuration::ZERO);
                let peak = BitsPerSec(spec.rate.peak_bps().round() as u64);
                (scenario.far_end(d), delay.0, peak)
            })
            .collect();
        Paths {
            dirs,
            found: HashMap::new(),
        }
    }

    /// The facts of the path from `src` to `dst` over `routes`, found once.
    pub(super) fn facts(&mut self, routes: &Routes, src: u32, dst: u32) -> Option<PathFacts> {
        if let Some(found) = self.found.get(&(src, dst)) {
            return *found;
        }
        let far_end = |d: u32| self.dirs[d as usize].0;
        let delay = |d: &u32| self.dirs[*d as usize].1;
        let facts = (|| {
            let there = routes.link_path(src, dst, far_end)?;
            let back = routes.link_path(dst, src, far_end)?;
            let one_way = there.iter().map(delay).sum::<u64>();
            Some(PathFacts {
                one_way: SimDuration(one_way),
                round_trip: SimDuration(one_way + back.iter().map(delay).sum::<u64>()),
                bottleneck: there.iter().map(|&d| self.dirs[d as usize].2).min()?,
            })
        })();
        self.found.insert((src, dst), facts);
        facts
    }

    /// The ideal completion time of TCP transfer `t` from `src` to `dst`.
    pub fn ideal_fct(
        &mut self,
        routes: &Routes,
        src: u32,
        dst: u32,
        t: &TcpSpec,
    ) -> Option<SimDuration> {
        t.bytes?;
        self.facts(routes, src, dst)?.ideal_fct(IdealInputs::of(t))
    }
}

/// What [`PathFacts::ideal_fct`] needs of a flow.
#[derive(Clone, Copy, Debug)]
pub(super) struct IdealInputs {
    pub(super) bytes: Option<u64>,
    pub(super) mss: u32,
    pub(super) header_bytes: u32,
    pub(super) initial_window: u32,
    pub(super) receiver_window: u32,
    pub(super) handshake: bool,
}

impl IdealInputs {
    /// The inputs of TCP transfer `t`.
    pub(super) fn of(t: &TcpSpec) -> Self {
        IdealInputs {
            bytes: t.bytes,
            mss: t.mss,
            header_bytes: t.sender.header_bytes,
            initial_window: t.sender.initial_window,
            receiver_window: t.sender.receiver_window,
            handshake: t.sender.handshake,
        }
    }
}

/// Nanoseconds to serialise `bytes` at `rate` (rounded down: the ideal is a lower bound).
fn tx_ns(rate: BitsPerSec, bytes: u64) -> u64 {
    (bytes as u128 * 8 * 1_000_000_000 / rate.0.max(1) as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> PathFacts {
        PathFacts {
            one_way: SimDuration::from_millis(10),
            round_trip: SimDuration::from_millis(20),
            bottleneck: BitsPerSec(12_000_000), // a 1500-byte packet in 1 ms
        }
    }

    fn inputs(bytes: u64) -> IdealInputs {
        IdealInputs {
            bytes: Some(bytes),
            mss: 1460,
            header_bytes: 40,
            initial_window: 2,
            receiver_window: 1 << 20,
            handshake: true,
        }
    }

    #[test]
    fn a_transfer_in_the_initial_window_takes_a_handshake_its_serialisation_and_a_crossing() {
        let ms = |n: u64| SimDuration::from_millis(n);
        // Two segments: 20 ms handshake, 2 ms serialisation, 10 ms across.
        assert_eq!(path().ideal_fct(inputs(2 * 1460)), Some(ms(32)));
        // Without the handshake.
        let no_syn = IdealInputs {
            handshake: false,
            ..inputs(2 * 1460)
        };
        assert_eq!(path().ideal_fct(no_syn), Some(ms(12)));
    }

    #[test]
    fn slow_start_adds_a_round_trip_per_round_until_the_window_fills_the_pipe() {
        let ms = |n: u64| SimDuration::from_millis(n);
        // 2 + 4 + 8 segments: rounds of 2 and 4 wait for their first ACK (a round trip
        // and its first segment's 1 ms: their 2 and 4 ms of sending end before); the last
        // 8 go back to back.
        assert_eq!(
            path().ideal_fct(inputs(14 * 1460)),
            Some(ms(20 + 42 + 8 + 10))
        );
        // A window of 32 segments keeps the bottleneck busy until its first ACK is back
        // (31 ms >= 20 ms): from there on the link is busy. 2+4+8+16 = 30 sent in 4
        // rounds, then 970 segments back to back.
        assert_eq!(
            path().ideal_fct(inputs(1000 * 1460)),
            Some(ms(20 + 84 + 970 + 10))
        );
    }
}
