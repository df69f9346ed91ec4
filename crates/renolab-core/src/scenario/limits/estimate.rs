//! The estimate behind the limits: events, packets, the peak of packets alive and the memory
//! a run could need, added up flow by flow ([`super::flow_load`]) and direction by direction.

use super::flow_load::FlowLoad;
use super::human_secs;
use crate::loss::LatencyDist;
use crate::net::{is_forward, link_of, Packet, Routes, DIRS_PER_LINK};
use crate::queue::QueueLimit;
use crate::scenario::{fmt_duration, fmt_rate, DirSpec, LinkSpec, QueueSpec, Scenario};

/// Bytes per entry of the routing table (nodes x nodes next hops, `u32` each).
const ROUTE_ENTRY_BYTES: f64 = std::mem::size_of::<u32>() as f64;
/// Bytes of memory per packet alive: its slab slot and its queue or wire entry, doubled for
/// the spare capacity of growing vectors.
const PACKET_BYTES: f64 = 2.0 * (std::mem::size_of::<Packet>() + 16) as f64;
/// Bytes per flow (endpoints, counters, timers), a generous round figure, plus its delay
/// histogram (`sim::delay`, 2.6 kB).
const FLOW_BYTES: f64 = 2048.0 + 2624.0;
/// Bytes per link direction, besides the packets it holds.
const DIR_BYTES: f64 = 1024.0;
/// Bytes per FQ-CoDel sub-queue.
const FQ_FLOW_BYTES: f64 = 96.0;

/// Rough figures for a run of a scenario, computed before it starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Events the run would take without losses (it may take more).
    pub events: u64,
    /// Data packets sent by all flows, without retransmissions.
    pub data_packets: u64,
    /// ACKs sent by all TCP flows.
    pub acks: u64,
    /// Packet transmissions over link directions (a packet crossing three links counts 3).
    pub hops: u64,
    /// Packets that could be in the network at once: a bound, not a forecast.
    pub peak_packets: u64,
    /// Memory the run could need, bytes: routing table, flows, links and `peak_packets`.
    pub memory_bytes: u64,
    /// Which field makes `events` large, why, and roughly how many events that part takes.
    pub(super) events_blame: Option<(String, String, f64)>,
    /// Which field makes `memory_bytes` large, and why.
    pub(super) memory_blame: Option<(String, String)>,
    /// An unlimited flow that could send more segments than it can number: the field that
    /// bounds its time, and why.
    pub(super) segments_blame: Option<(String, String)>,
}

impl Estimate {
    /// Rough size in bytes of the trace `name` for this run (records x record size), for
    /// refusing an in-memory trace that could not fit before the run starts. `None` for an
    /// unknown trace name.
    pub fn trace_bytes(&self, name: &str) -> Option<u64> {
        let record = crate::trace::record_bytes(crate::trace::layout(name)?) as u64;
        let records = match name {
            // A window change per ACK; a sequence event per send, per arrival at the
            // receiver and per ACK.
            "cwnd" => self.acks,
            "seq" => 2 * self.data_packets + self.acks,
            // Enqueue, dequeue and receive at every hop; a queue length after each change.
            "hops" => 3 * self.hops,
            "queue" => self.hops,
            // One sample per round trip, drops only with losses: no floor worth checking.
            _ => 0,
        };
        Some(records.saturating_mul(record))
    }
}

/// Direction `d` of the directions routing numbers.
pub(super) fn dir(links: &[LinkSpec], d: u32) -> &DirSpec {
    let link = &links[link_of(d) as usize];
    if is_forward(d) {
        &link.forward
    } else {
        &link.reverse
    }
}

/// Path of direction `d`'s settings in the document.
fn dir_path(d: u32) -> String {
    if is_forward(d) {
        format!("link[{}]", link_of(d))
    } else {
        format!("link[{}].reverse", link_of(d))
    }
}

/// The directions a packet takes from `from` to `to` (empty when there is no route).
pub(super) fn path(routes: &Routes, links: &[LinkSpec], from: u32, to: u32) -> Vec<u32> {
    let mut hops = Vec::new();
    let mut at = from;
    while let Some(d) = routes.next_hop(at, to) {
        hops.push(d);
        let l = &links[link_of(d) as usize];
        at = if is_forward(d) { l.to } else { l.from };
        if hops.len() > links.len() * DIRS_PER_LINK {
            break; // a routing loop cannot happen with BFS routes; be safe all the same
        }
    }
    hops
}

/// Most packets a queue can hold when its smallest packets are `min_size` bytes.
pub(super) fn queue_packets(q: &QueueSpec, min_size: f64) -> f64 {
    let limit = |l: QueueLimit| match l {
        QueueLimit::Packets(n) => n as f64,
        QueueLimit::Bytes(b) => (b as f64 / min_size).ceil(),
    };
    match q {
        QueueSpec::DropTail { limit: l, .. } => limit(*l),
        // ns-2 RED in byte mode holds `limit` mean-sized packets' worth of bytes, and
        // tests the length before the arrival: one more may get in.
        QueueSpec::Red(c) if c.queue_in_bytes => {
            let bytes = c
                .limit_bytes
                .unwrap_or(c.limit as u64 * c.mean_pktsize as u64);
            (bytes as f64 / min_size).ceil() + 1.0
        }
        QueueSpec::Red(c) => c.limit as f64 + 1.0,
        QueueSpec::CoDel(c) => limit(c.limit),
        QueueSpec::FqCoDel(c) => limit(c.limit),
    }
}

/// Longest extra latency a direction adds, seconds (a normal's mean plus six deviations).
fn max_latency_s(d: &DirSpec) -> f64 {
    match d.latency.map(|l| l.dist) {
        None => 0.0,
        Some(LatencyDist::Fixed(x)) => x.as_secs_f64(),
        Some(LatencyDist::Uniform { hi, .. }) => hi.as_secs_f64(),
        Some(LatencyDist::Normal { mean, sd }) => mean.as_secs_f64() + 6.0 * sd.as_secs_f64(),
    }
}

fn sat(x: f64) -> u64 {
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x.max(0.0) as u64
    }
}

impl Scenario {
    /// Rough figures for a run of this scenario: events, packets, peak packets, memory.
    pub fn estimate(&self) -> Estimate {
        let dirs: Vec<(u32, u32)> = self
            .links
            .iter()
            .flat_map(|l| [(l.from, l.to), (l.to, l.from)])
            .collect();
        let routes = Routes::compute(self.nodes.len(), &dirs);
        self.estimate_with(&routes)
    }

    pub(in crate::scenario) fn estimate_with(&self, routes: &Routes) -> Estimate {
        let end_s = self.duration.unwrap_or(self.time_limit).as_secs_f64();
        let n_dirs = self.links.len() * DIRS_PER_LINK;
        let mut est = Estimate::default();
        let (mut events, mut data_packets, mut acks, mut hops) = (0.0, 0.0, 0.0, 0.0);
        let mut worst_events = 0.0f64;
        // Smallest packet seen on each direction (for byte limits and wire capacity), and
        // packets the flows crossing it can have in the network at once.
        let mut min_size = vec![f64::INFINITY; n_dirs];
        let mut traffic = vec![0.0f64; n_dirs];
        let mut flows_bound = 0.0;
        for (i, f) in self.flows.iter().enumerate() {
            let FlowLoad {
                data,
                ack_path,
                active_s,
                sent,
                carried,
                acked,
                outstanding,
                blame,
                own_events,
                segments_blame,
            } = self.flow_load(i, f, routes, end_s, &mut min_size);
            if est.segments_blame.is_none() {
                est.segments_blame = segments_blame;
            }
            for &d in data.iter().chain(if f.tcp().is_some() {
                &ack_path[..]
            } else {
                &[]
            }) {
                traffic[d as usize] += outstanding;
            }
            flows_bound += outstanding;
            // An arrival at the end of every hop, plus a send event per CBR packet or TCP
            // timeout (other TCP sends ride on ACK arrivals). Transmission ends where packets
            // queue and other timers come on top: the estimate errs low.
            let flow_events =
                own_events + carried * data.len() as f64 + acked * ack_path.len() as f64;
            events += flow_events;
            data_packets += sent;
            acks += acked;
            hops += carried * data.len() as f64 + acked * ack_path.len() as f64;
            if flow_events > worst_events {
                worst_events = flow_events;
                let why = format!(
                    "flow {:?} alone: about {:.2e} packets over {} hop(s) in {} s of simulated time",
                    f.name,
                    sent,
                    data.len(),
                    human_secs(active_s)
                );
                est.events_blame = Some((blame, why, flow_events));
            }
        }
        est.events = sat(events);
        est.data_packets = sat(data_packets);
        est.acks = sat(acks);
        est.hops = sat(hops);

        let (peak, dir_bytes, memory_blame) = self.peak_by_direction(&min_size, &traffic, end_s);
        // Plus the one arrival a queue is judging (it is alive until refused).
        let peak = peak.min(flows_bound) + 1.0;
        let nodes = self.nodes.len() as f64;
        let memory = nodes * nodes * ROUTE_ENTRY_BYTES
            + self.flows.len() as f64 * FLOW_BYTES
            + n_dirs as f64 * DIR_BYTES
            + dir_bytes
            + peak * PACKET_BYTES;
        est.peak_packets = sat(peak.ceil());
        est.memory_bytes = sat(memory);
        est.memory_blame = memory_blame.map(|(_, f, w)| (f, w));
        est
    }

    /// Packets alive at the peak, over every direction whose flows can fill it: its queue and
    /// wire full (of its smallest packets, `min_size`), unless the flows crossing it cannot
    /// have that many out (`traffic`). Also the FQ-CoDel sub-queues' bytes, and the
    /// direction that holds the most (its count, field and why) for the memory error.
    fn peak_by_direction(
        &self,
        min_size: &[f64],
        traffic: &[f64],
        end_s: f64,
    ) -> (f64, f64, Option<(f64, String, String)>) {
        let mut peak = 0.0;
        let mut memory_blame: Option<(f64, String, String)> = None;
        let mut dir_bytes = 0.0;
        for d in 0..traffic.len() as u32 {
            let spec = dir(&self.links, d);
            if let QueueSpec::FqCoDel(c) = spec.queue {
                dir_bytes += c.flows as f64 * FQ_FLOW_BYTES;
            }
            if traffic[d as usize] == 0.0 {
                continue;
            }
            let size = min_size[d as usize];
            let queued = queue_packets(&spec.queue, size);
            let wire_s = (spec.delay.as_secs_f64() + max_latency_s(spec)).min(end_s);
            let on_wire = (spec.rate.0 as f64 * wire_s / (8.0 * size)).ceil() + 1.0;
            let here = (queued + on_wire).min(traffic[d as usize]);
            peak += here;
            // Blame the larger of the two places packets wait.
            let (field, what) = if queued >= on_wire {
                (
                    format!("{}.queue.limit", dir_path(d)),
                    format!("{} may queue {:.0} packets", dir_path(d), here.min(queued)),
                )
            } else {
                (
                    format!("{}.delay", dir_path(d)),
                    format!(
                        "{} may hold {:.0} packets on the wire, {} x {}",
                        dir_path(d),
                        here.min(on_wire),
                        fmt_rate(spec.rate),
                        fmt_duration(spec.delay)
                    ),
                )
            };
            if memory_blame.as_ref().is_none_or(|(p, _, _)| here > *p) {
                memory_blame = Some((here, field, what));
            }
        }
        (peak, dir_bytes, memory_blame)
    }
}
