//! The estimate behind the limits: events, packets, the peak of packets alive and the memory
//! a run could need, added up flow by flow ([`super::flow_load`]) and place by place.
//!
//! The places packets wait are numbered as the traces number them: link directions first,
//! then every medium's stations ([`Places`]).

use super::flow_load::FlowDemand;
use super::human_secs;
use super::share;
use crate::histogram::LogHistogram;
use crate::loss::LatencyDist;
use crate::net::{is_forward, link_of, Hop, Routes, DIRS_PER_LINK};
use crate::packet::PacketPool;
use crate::queue::QueueLimit;
use crate::scenario::{
    fmt_duration, fmt_rate, DirSpec, LinkSpec, MediumSpec, QueueSpec, Scenario, StationSpec,
};
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Bytes of memory per packet alive: its slab slot (the packet and its waiting time) and its
/// queue or wire entry, doubled for the spare capacity of growing vectors.
const PACKET_BYTES: f64 = 2.0 * (PacketPool::SLOT_BYTES + 16) as f64;
/// Bytes of one histogram's counts (2.6 kB).
const HISTOGRAM_BYTES: f64 = LogHistogram::HEAP_BYTES as f64;
/// Bytes per flow (endpoints, counters, timers), a generous round figure, plus its
/// histograms of one-way delays and RTT samples.
const FLOW_BYTES: f64 = 2048.0 + 2.0 * HISTOGRAM_BYTES;
/// What a finished flow of a workload keeps: its row of results and its packet counters
/// (its endpoints are freed: sim/workload.rs).
const FINISHED_FLOW_BYTES: f64 = 512.0;
/// Bytes per link direction, besides the packets it holds, with its histogram of queueing
/// delays.
const DIR_BYTES: f64 = 1024.0 + HISTOGRAM_BYTES;
/// Bytes per FQ-CoDel sub-queue.
const FQ_FLOW_BYTES: f64 = 96.0;
/// Events a packet costs crossing a medium: the contention it wins, the end of its data
/// frame and of its Ack (the estimate assumes neither RTS/CTS nor retries: it errs low).
const EVENTS_PER_FRAME: f64 = 3.0;

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
    /// Bytes of those transmissions (what pcap files capture, record headers aside).
    pub wire_bytes: u64,
    /// Packets that could be in the network at once: a bound, not a forecast.
    pub peak_packets: u64,
    /// Memory the run could need, bytes: routes, flows, links and `peak_packets`.
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

    /// Rough size in bytes of the pcap files of this run: a 16-byte record header and the
    /// packet for every transmission on a link.
    pub fn pcap_bytes(&self) -> u64 {
        self.hops.saturating_mul(16).saturating_add(self.wire_bytes)
    }
}

/// The places packets wait: link directions (their queue and wire), then stations of
/// media (their interface queue), numbered as the traces' `link` column numbers them.
pub(super) struct Places<'a> {
    /// The end of the run (varying rates are averaged up to it).
    end: SimTime,
    links: &'a [LinkSpec],
    media: &'a [MediumSpec],
    /// Number of link directions.
    dirs: u32,
    /// Place of each medium's first station.
    bases: Vec<u32>,
}

/// What a place does to the packets that wait there.
pub(super) struct Place<'a> {
    /// Rate it sends at (a medium's data rate, an upper bound of what its MAC carries; a
    /// varying direction's mean over the run, a trace's mean).
    pub rate: BitsPerSec,
    /// Highest rate it sends at, for the packets its wire may hold.
    pub peak_rate: BitsPerSec,
    /// Propagation delay (none on a medium; a scheduled delay's longest).
    pub delay: SimDuration,
    /// Its queue.
    pub queue: QueueSpec,
    /// Events a packet costs crossing it, arrivals and transmission steps.
    pub events: f64,
    /// The link direction, if the place is one.
    pub dir: Option<&'a DirSpec>,
}

impl<'a> Places<'a> {
    pub(super) fn new(scenario: &'a Scenario) -> Self {
        let mut bases = Vec::with_capacity(scenario.media.len());
        let dirs = (scenario.links.len() * DIRS_PER_LINK) as u32;
        let mut next = dirs;
        for m in &scenario.media {
            bases.push(next);
            next += m.stations.len() as u32;
        }
        Places {
            end: SimTime::ZERO + scenario.duration.unwrap_or(scenario.time_limit),
            links: &scenario.links,
            media: &scenario.media,
            dirs,
            bases,
        }
    }

    /// Number of resources flows share: link directions, then media (all the stations
    /// of a medium share its air).
    pub(super) fn resources(&self) -> u32 {
        self.dirs + self.media.len() as u32
    }

    /// The resource place `p` uses.
    pub(super) fn resource(&self, p: u32) -> u32 {
        if p < self.dirs {
            p
        } else {
            self.dirs + (self.bases.partition_point(|&b| b <= p) - 1) as u32
        }
    }

    /// The rate of resource `r`.
    pub(super) fn resource_rate(&self, r: u32) -> BitsPerSec {
        match r.checked_sub(self.dirs) {
            None => self.get(r).rate,
            Some(m) => self.media[m as usize].data_rate,
        }
    }

    /// Number of places.
    pub(super) fn len(&self) -> usize {
        self.dirs as usize + self.media.iter().map(|m| m.stations.len()).sum::<usize>()
    }

    /// The medium and station of place `p`, a station.
    fn station(&self, p: u32) -> (&'a MediumSpec, usize, &'a StationSpec) {
        let m = self.bases.partition_point(|&b| b <= p) - 1;
        let position = (p - self.bases[m]) as usize;
        (&self.media[m], m, &self.media[m].stations[position])
    }

    /// What place `p` does.
    pub(super) fn get(&self, p: u32) -> Place<'a> {
        if p < self.dirs {
            let link = &self.links[link_of(p) as usize];
            let d = if is_forward(p) {
                &link.forward
            } else {
                &link.reverse
            };
            let mean = BitsPerSec((d.rate.mean_bps(self.end).round() as u64).max(1));
            return Place {
                rate: mean,
                peak_rate: BitsPerSec(d.rate.peak_bps().round() as u64).max(mean),
                delay: d.delay.values().copied().max().unwrap_or(SimDuration::ZERO),
                queue: d.queue,
                events: 1.0,
                dir: Some(d),
            };
        }
        let (medium, _, station) = self.station(p);
        Place {
            rate: medium.data_rate,
            peak_rate: medium.data_rate,
            delay: SimDuration::ZERO,
            queue: QueueSpec::DropTail {
                limit: station.queue,
                counts_transmitting: true,
                ecn_threshold: None,
            },
            events: EVENTS_PER_FRAME,
            dir: None,
        }
    }

    /// Path of place `p`'s settings in the document, and of its queue's limit.
    fn paths(&self, p: u32, nodes: &[String]) -> (String, String) {
        if p < self.dirs {
            let dir = if is_forward(p) {
                format!("link[{}]", link_of(p))
            } else {
                format!("link[{}].reverse", link_of(p))
            };
            let queue = format!("{dir}.queue.limit");
            return (dir, queue);
        }
        let (_, m, station) = self.station(p);
        let at = format!("medium[{m}].station.{}", nodes[station.node as usize]);
        let queue = format!("{at}.queue.limit");
        (at, queue)
    }

    /// The places a packet waits in from `from` to `to` (empty when there is no route).
    pub(super) fn path(&self, routes: &Routes, from: u32, to: u32) -> Vec<u32> {
        let mut places = Vec::new();
        let mut at = from;
        while let Some(hop) = routes.hop(at, to) {
            match hop {
                Hop::Link(d) => {
                    places.push(d);
                    let l = &self.links[link_of(d) as usize];
                    at = if is_forward(d) { l.to } else { l.from };
                }
                Hop::Medium(h) => {
                    let medium = &self.media[h.medium as usize];
                    let station = medium.station_of(at).expect("a hop leaves from its node");
                    places.push(self.bases[h.medium as usize] + station);
                    at = h.node;
                }
            }
            if places.len() > self.len() {
                break; // a routing loop cannot happen with BFS routes; be safe all the same
            }
        }
        places
    }
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
        QueueSpec::DualPi2(c) => limit(c.limit),
    }
}

/// Longest extra latency a place adds, seconds (a normal's mean plus six deviations, a
/// log-normal's median times six deviations of its log).
fn max_latency_s(place: &Place<'_>) -> f64 {
    match place.dir.and_then(|d| d.latency).map(|l| l.dist) {
        None => 0.0,
        Some(LatencyDist::Fixed(x)) => x.as_secs_f64(),
        Some(LatencyDist::Uniform { hi, .. }) => hi.as_secs_f64(),
        Some(LatencyDist::Normal { mean, sd }) => mean.as_secs_f64() + 6.0 * sd.as_secs_f64(),
        Some(LatencyDist::LogNormal { median, p99 }) => {
            median.as_secs_f64() * (6.0 * LatencyDist::log_sigma(median, p99)).exp()
        }
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
        self.estimate_with(&self.routes())
    }

    pub(in crate::scenario) fn estimate_with(&self, routes: &Routes) -> Estimate {
        let end_s = self.duration.unwrap_or(self.time_limit).as_secs_f64();
        let places = Places::new(self);
        let n_dirs = self.links.len() * DIRS_PER_LINK;
        // Smallest packet seen at each place (for byte limits and wire capacity).
        let mut min_size = vec![f64::INFINITY; places.len()];
        let demands: Vec<FlowDemand> = (self.flows.iter().enumerate())
            .map(|(i, f)| self.flow_demand(i, f, &places, routes, end_s, &mut min_size))
            .collect();
        // Flows crossing the same link divide what it can carry in the run.
        let capacity: Vec<f64> = (0..places.resources())
            .map(|r| places.resource_rate(r).0 as f64 * end_s / 8.0)
            .collect();
        let paths: Vec<Vec<u32>> = (demands.iter())
            .map(|d| d.data.iter().map(|&p| places.resource(p)).collect())
            .collect();
        let wanted: Vec<f64> = demands.iter().map(|d| d.alone * d.packet_bytes).collect();
        let shares = share::max_min(&capacity, &paths, &wanted);

        let mut est = Estimate::default();
        let (mut events, mut data_packets, mut acks, mut hops) = (0.0, 0.0, 0.0, 0.0);
        let mut wire_bytes = 0.0;
        let mut worst_events = 0.0f64;
        for ((f, d), share) in self.flows.iter().zip(&demands).zip(&shares) {
            let load = d.load(share.volume / d.packet_bytes, &f.name);
            if est.segments_blame.is_none() {
                est.segments_blame = load.segments_blame;
            }
            let ack_path: &[u32] = if f.tcp().is_some() { &d.ack_path } else { &[] };
            // An arrival at the end of every hop, plus a send event per CBR packet or TCP
            // timeout (other TCP sends ride on ACK arrivals). Transmission ends where packets
            // queue and other timers come on top: the estimate errs low.
            let per_packet = |path: &[u32]| path.iter().map(|&p| places.get(p).events).sum::<f64>();
            let flow_events = load.own_events
                + load.carried * per_packet(&d.data)
                + load.acked * per_packet(ack_path);
            events += flow_events;
            data_packets += load.sent;
            acks += load.acked;
            hops += load.carried * d.data.len() as f64 + load.acked * ack_path.len() as f64;
            let ack_bytes = f.tcp().map_or(0.0, |t| t.receiver.ack_bytes as f64);
            wire_bytes += load.carried * d.data.len() as f64 * d.packet_bytes
                + load.acked * ack_path.len() as f64 * ack_bytes;
            if flow_events > worst_events {
                worst_events = flow_events;
                let why = format!(
                    "flow {:?} alone: about {:.2e} packets over {} hop(s) in {} s of simulated time",
                    f.name,
                    load.sent,
                    d.data.len(),
                    human_secs(d.active_s)
                );
                est.events_blame = Some((load.blame, why, flow_events));
            }
        }
        // A workload's flows: their expected number, each its mean size's segments over the
        // first pair's route and as many ACKs back (the ACK every other segment and the
        // handshake left out: the estimate errs low, as above).
        let mut finished_flows = 0.0;
        for w in &self.workloads {
            let n = w.expected_flows(SimDuration((end_s * 1e9) as u64));
            let (src, dst) = w.pairs.first();
            let path = self.link_path(routes, src, dst).map_or(1, |p| p.len()) as f64;
            let segments = (w.sizes.mean() / w.tcp.mss as f64).ceil();
            events += n * segments * 2.0 * path;
            data_packets += n * segments;
            acks += n * segments;
            hops += n * segments * 2.0 * path;
            wire_bytes += n * segments * path * (w.tcp.mss + w.tcp.sender.header_bytes) as f64;
            finished_flows += n;
        }
        est.events = sat(events);
        est.data_packets = sat(data_packets);
        est.acks = sat(acks);
        est.hops = sat(hops);
        est.wire_bytes = sat(wire_bytes);

        let (traffic, flows_bound) = self.in_flight(&places, &demands, &shares, &min_size);
        let (peak, dir_bytes, memory_blame) =
            self.peak_by_place(&places, &min_size, &traffic, end_s);
        // Plus the one arrival a queue is judging (it is alive until refused).
        let peak = peak.min(flows_bound) + 1.0;
        let memory = routes.bytes() as f64
            + self.flows.len() as f64 * FLOW_BYTES
            + finished_flows * FINISHED_FLOW_BYTES
            + n_dirs as f64 * DIR_BYTES
            + dir_bytes
            + peak * PACKET_BYTES;
        est.peak_packets = sat(peak.ceil());
        est.memory_bytes = sat(memory);
        est.memory_blame = memory_blame.map(|(_, f, w)| (f, w));
        est
    }

    /// Packets the flows can have in the network at once: at each place (the flows crossing
    /// it, `traffic`), and in all (`flows_bound`).
    ///
    /// A TCP flow's window is no bound in practice (an unlimited receiver window is 2^32
    /// segments), but its congestion window is: it grows until the queue of its bottleneck
    /// (where its share was decided, else its slowest hop) overflows, so the flows with the
    /// same bottleneck have at most that queue and the bandwidth-delay product of their
    /// longest round trip out between them, doubled for slow start's overshoot (the window
    /// still doubles for a round trip before the sender learns of the loss), doubled again
    /// for their ACKs, plus each flow's [`FlowDemand::burst`].
    fn in_flight(
        &self,
        places: &Places<'_>,
        demands: &[FlowDemand],
        shares: &[share::Share],
        min_size: &[f64],
    ) -> (Vec<f64>, f64) {
        // Each TCP flow's bottleneck place.
        let bottleneck: Vec<Option<u32>> = (self.flows.iter().zip(demands).zip(shares))
            .map(|((f, d), s)| {
                f.tcp()?;
                let filled = s
                    .full_at
                    .and_then(|r| d.data.iter().copied().find(|&p| places.resource(p) == r));
                let slowest = || {
                    d.data
                        .iter()
                        .copied()
                        .min_by(|&a, &b| places.get(a).rate.0.cmp(&places.get(b).rate.0))
                };
                filled.or_else(slowest)
            })
            .collect();
        // What the flows of each bottleneck can have out together.
        let mut pipe = vec![0.0f64; places.len()];
        let mut burst = vec![0.0f64; places.len()];
        let mut wanted = vec![0.0f64; places.len()];
        for (d, b) in demands.iter().zip(&bottleneck) {
            if let Some(b) = *b {
                let rate = places.get(b).rate.0 as f64;
                let bdp = rate * d.rtt_s / (8.0 * d.packet_bytes);
                pipe[b as usize] = pipe[b as usize].max(bdp.ceil() + 1.0);
                burst[b as usize] += d.burst;
                wanted[b as usize] += d.outstanding;
            }
        }
        let group = |b: u32| {
            let queued = queue_packets(&places.get(b).queue, min_size[b as usize]);
            4.0 * (queued + pipe[b as usize]) + burst[b as usize]
        };
        let mut traffic = vec![0.0f64; places.len()];
        let mut flows_bound = 0.0;
        for (p, &w) in wanted.iter().enumerate() {
            if w > 0.0 {
                flows_bound += w.min(group(p as u32));
            }
        }
        for ((f, d), b) in self.flows.iter().zip(demands).zip(&bottleneck) {
            let outstanding = match *b {
                Some(b) => d.outstanding.min(group(b)),
                None => {
                    flows_bound += d.outstanding;
                    d.outstanding
                }
            };
            let ack_path: &[u32] = if f.tcp().is_some() { &d.ack_path } else { &[] };
            for &p in d.data.iter().chain(ack_path) {
                traffic[p as usize] += outstanding;
            }
        }
        (traffic, flows_bound)
    }

    /// Packets alive at the peak, over every place whose flows can fill it: its queue and
    /// wire full (of its smallest packets, `min_size`), unless the flows crossing it cannot
    /// have that many out (`traffic`). Also the FQ-CoDel sub-queues' bytes, and the
    /// place that holds the most (its count, field and why) for the memory error.
    fn peak_by_place(
        &self,
        places: &Places<'_>,
        min_size: &[f64],
        traffic: &[f64],
        end_s: f64,
    ) -> (f64, f64, Option<(f64, String, String)>) {
        let mut peak = 0.0;
        let mut memory_blame: Option<(f64, String, String)> = None;
        let mut dir_bytes = 0.0;
        for p in 0..traffic.len() as u32 {
            let spec = places.get(p);
            if let QueueSpec::FqCoDel(c) = spec.queue {
                dir_bytes += c.flows as f64 * FQ_FLOW_BYTES;
            }
            if let Some(d) = spec.dir {
                dir_bytes += d.rate.bytes() as f64;
            }
            if traffic[p as usize] == 0.0 {
                continue;
            }
            let size = min_size[p as usize];
            let queued = queue_packets(&spec.queue, size);
            let wire_s = (spec.delay.as_secs_f64() + max_latency_s(&spec)).min(end_s);
            let on_wire = (spec.peak_rate.0 as f64 * wire_s / (8.0 * size)).ceil() + 1.0;
            let here = (queued + on_wire).min(traffic[p as usize]);
            peak += here;
            // Blame the larger of the two places packets wait.
            let (at, queue_field) = places.paths(p, &self.nodes);
            let (field, what) = if queued >= on_wire {
                (
                    queue_field,
                    format!("{at} may queue {:.0} packets", here.min(queued)),
                )
            } else {
                (
                    format!("{at}.delay"),
                    format!(
                        "{at} may hold {:.0} packets on the wire, {} x {}",
                        here.min(on_wire),
                        fmt_rate(spec.peak_rate),
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
