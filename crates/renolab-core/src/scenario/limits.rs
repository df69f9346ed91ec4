//! Limits checked before a run: a scenario that could not finish in a sensible number of
//! events, or could exhaust memory, is refused while it is validated, with an error naming
//! the field that makes it so.
//!
//! The checks are cheap (one pass over links and flows, with the routes validation computes
//! anyway) and deliberately rough: [`Estimate::events`] assumes no losses and no
//! retransmissions, so it errs low and refuses only scenarios that are absurd on their face
//! (a 100 Gb/s path for 10^6 s); the engine also counts events as it runs and stops a run
//! that passes `simulation.max_events` anyway. [`Estimate::peak_packets`] errs high: it is
//! what queues, wires and windows could hold at once, the packet slab's worst case.

use super::{LinkSpec, QueueSpec, Scenario, ScenarioError, Start, Traffic};
use crate::loss::LatencyDist;
use crate::net::{Packet, Routes};
use crate::queue::QueueLimit;

/// Default `simulation.max_events`: ten billion, hours of work at the engine's speed.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000_000;
/// Default `simulation.max_memory`: 8 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;
/// Smallest `simulation.max_memory`: 1 MiB.
pub const MIN_MAX_MEMORY: u64 = 1 << 20;
/// Most links a scenario may have.
pub const MAX_LINKS: usize = 100_000;
/// Most nodes: routing keeps a next-hop table of nodes² entries (4 bytes each), so 20 000
/// nodes already take 1.6 GB.
pub const MAX_NODES: usize = 20_000;
/// Most flows a scenario may have.
pub const MAX_FLOWS: usize = 1_000_000;
// Events carry a flow or link-direction index in a few bits of the scheduler's key.
const _: () = assert!(MAX_FLOWS <= crate::engine::MAX_EVENT_INDEX as usize);
const _: () = assert!(2 * MAX_LINKS <= crate::engine::MAX_EVENT_INDEX as usize);

/// Most segments of a receiver window an estimate counts as sent besides the flow's rate
/// (an unlimited window is u32::MAX segments).
const WINDOW_CAP: u32 = 1 << 20;
/// Bytes of memory per packet alive: its slab slot and its queue or wire entry, doubled for
/// the spare capacity of growing vectors.
const PACKET_BYTES: f64 = 2.0 * (std::mem::size_of::<Packet>() + 16) as f64;
/// Bytes per flow (endpoints, counters, timers), a generous round figure.
const FLOW_BYTES: f64 = 2048.0;
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
    events_blame: Option<(String, String, f64)>,
    /// Which field makes `memory_bytes` large, and why.
    memory_blame: Option<(String, String)>,
    /// An unlimited flow that could send more segments than it can number: the field that
    /// bounds its time, and why.
    segments_blame: Option<(String, String)>,
}

impl Estimate {
    /// Rough size in bytes of the trace `name` for this run (records x record size), for
    /// refusing an in-memory trace that could not fit before the run starts. `None` for an
    /// unknown trace name.
    pub fn trace_bytes(&self, name: &str) -> Option<u64> {
        let record = crate::trace::record_bytes(crate::trace::layout(name)?) as u64;
        let records = match name {
            // A window change per ACK, a sequence event per send and per ACK.
            "cwnd" => self.acks,
            "seq" => self.data_packets + self.acks,
            // Enqueue, dequeue and receive at every hop; a queue length after each change.
            "hops" => 3 * self.hops,
            "queue" => self.hops,
            // One sample per round trip, drops only with losses: no floor worth checking.
            _ => 0,
        };
        Some(records.saturating_mul(record))
    }
}

/// Direction `d` of the directions routing numbers (link `d / 2`, forward when even).
fn dir(links: &[LinkSpec], d: u32) -> &super::DirSpec {
    let link = &links[d as usize / 2];
    if d % 2 == 0 {
        &link.forward
    } else {
        &link.reverse
    }
}

/// Path of direction `d`'s settings in the document.
fn dir_path(d: u32) -> String {
    if d % 2 == 0 {
        format!("link[{}]", d / 2)
    } else {
        format!("link[{}].reverse", d / 2)
    }
}

/// The directions a packet takes from `from` to `to` (empty when there is no route).
fn path(routes: &Routes, links: &[LinkSpec], from: u32, to: u32) -> Vec<u32> {
    let mut hops = Vec::new();
    let mut at = from;
    while let Some(d) = routes.next_hop(at, to) {
        hops.push(d);
        let l = &links[d as usize / 2];
        at = if d % 2 == 0 { l.to } else { l.from };
        if hops.len() > links.len() * 2 {
            break; // a routing loop cannot happen with BFS routes; be safe all the same
        }
    }
    hops
}

/// Most packets a queue can hold when its smallest packets are `min_size` bytes.
fn queue_packets(q: &QueueSpec, min_size: f64) -> f64 {
    let limit = |l: QueueLimit| match l {
        QueueLimit::Packets(n) => n as f64,
        QueueLimit::Bytes(b) => (b as f64 / min_size).ceil(),
    };
    match q {
        QueueSpec::DropTail { limit: l, .. } => limit(*l),
        // ns-2 RED in byte mode holds `limit` mean-sized packets' worth of bytes, and
        // tests the length before the arrival: one more may get in.
        QueueSpec::Red(c) if c.queue_in_bytes => {
            (c.limit as f64 * c.mean_pktsize as f64 / min_size).ceil() + 1.0
        }
        QueueSpec::Red(c) => c.limit as f64 + 1.0,
        QueueSpec::CoDel(c) => limit(c.limit),
        QueueSpec::FqCoDel(c) => limit(c.limit),
    }
}

/// Longest extra latency a direction adds, seconds (a normal's mean plus six deviations).
fn max_latency_s(d: &super::DirSpec) -> f64 {
    match d.latency.map(|l| l.dist) {
        None => 0.0,
        Some(LatencyDist::Fixed(x)) => x.as_secs_f64(),
        Some(LatencyDist::Uniform { hi, .. }) => hi.as_secs_f64(),
        Some(LatencyDist::Normal { mean, sd }) => mean.as_secs_f64() + 6.0 * sd.as_secs_f64(),
    }
}

fn human_bytes(b: f64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    match b {
        _ if b >= 1024.0 * GIB => format!("{:.1} TiB", b / (1024.0 * GIB)),
        _ if b >= GIB => format!("{:.1} GiB", b / GIB),
        _ if b >= MIB => format!("{:.1} MiB", b / MIB),
        _ => format!("{:.0} bytes", b),
    }
}

/// Seconds, without trailing zeros (`"0.5"`, `"1000000"`).
fn human_secs(s: f64) -> String {
    let text = format!("{s:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn sat(x: f64) -> u64 {
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x.max(0.0) as u64
    }
}

/// Number of nodes, links and flows: refused above the caps before anything is allocated
/// per node pair.
pub(super) fn check_counts(nodes: usize, links: usize, flows: usize) -> super::Result<()> {
    if links > MAX_LINKS {
        return Err(ScenarioError::new(
            "link",
            format!("{links} links is more than the {MAX_LINKS} allowed"),
        ));
    }
    if nodes > MAX_NODES {
        return Err(ScenarioError::new(
            "link",
            format!(
                "the links join {nodes} nodes, more than the {MAX_NODES} allowed (routing keeps a table of nodes x nodes)"
            ),
        ));
    }
    if flows > MAX_FLOWS {
        return Err(ScenarioError::new(
            "flow",
            format!("{flows} flows is more than the {MAX_FLOWS} allowed"),
        ));
    }
    Ok(())
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

    pub(super) fn estimate_with(&self, routes: &Routes) -> Estimate {
        let end_s = self.duration.unwrap_or(self.time_limit).as_secs_f64();
        let n_dirs = self.links.len() * 2;
        let rate = |d: u32| dir(&self.links, d).rate.0 as f64;
        let mut est = Estimate::default();
        let (mut events, mut data_packets, mut acks, mut hops) = (0.0, 0.0, 0.0, 0.0);
        let mut worst_events = 0.0f64;
        // Smallest packet seen on each direction (for byte limits and wire capacity), and
        // packets the flows crossing it can have in the network at once.
        let mut min_size = vec![f64::INFINITY; n_dirs];
        let mut traffic = vec![0.0f64; n_dirs];
        let mut flows_bound = 0.0;
        for (i, f) in self.flows.iter().enumerate() {
            let data = path(routes, &self.links, f.src, f.dst);
            let ack_path = path(routes, &self.links, f.dst, f.src);
            let start_s = match f.start {
                Start::At(t) => t.as_secs_f64(),
                Start::Uniform { lo, .. } => lo.as_secs_f64(),
            };
            let stop_s = f.stop.map_or(end_s, |s| s.as_secs_f64().min(end_s));
            let active_s = (stop_s - start_s).max(0.0);
            let bottleneck = data.iter().map(|&d| rate(d)).fold(f64::INFINITY, f64::min);
            let first_hop = |d: Option<&u32>, size: f64| {
                // What the sender's own link can carry in the run, and queue besides.
                d.map_or(0.0, |&d| {
                    let q = queue_packets(&dir(&self.links, d).queue, size);
                    rate(d) * active_s / (8.0 * size) + q + 1.0
                })
            };
            let (sent, carried, acked, outstanding, blame, own_events) = match &f.traffic {
                Traffic::Tcp(t) => {
                    let wire = (t.mss + t.sender.header_bytes).max(1) as f64;
                    let mut pps = bottleneck / (8.0 * wire);
                    // A window of W segments per round trip bounds the rate too.
                    let rtt: f64 = data
                        .iter()
                        .chain(&ack_path)
                        .map(|&d| dir(&self.links, d).delay.as_secs_f64())
                        .sum::<f64>()
                        + data.iter().map(|&d| 8.0 * wire / rate(d)).sum::<f64>();
                    if rtt > 0.0 {
                        pps = pps.min(t.sender.receiver_window as f64 / rtt);
                    }
                    let by_time = pps * active_s;
                    let segs = t
                        .bytes
                        .map_or(f64::INFINITY, |b| b.div_ceil(t.mss as u64) as f64);
                    let (packets, blame) = if segs < by_time {
                        (segs, format!("flow[{i}].bytes"))
                    } else {
                        (by_time, self.time_field(f.stop, end_s, i))
                    };
                    // Segment numbers are u32 (like ns-2's): an unlimited flow stops offering
                    // data at the last one, which would silently cut a long run short.
                    let numbered = packets + t.sender.receiver_window.min(WINDOW_CAP) as f64;
                    if t.bytes.is_none()
                        && numbered >= u32::MAX as f64
                        && est.segments_blame.is_none()
                    {
                        est.segments_blame = Some((
                            blame.clone(),
                            format!(
                                "flow {:?} could send about {:.2e} segments in {} s, more than the {} a flow can number; shorten the run or use a larger mss",
                                f.name,
                                numbered,
                                human_secs(active_s),
                                u32::MAX
                            ),
                        ));
                    }
                    let per_ack = if t.receiver.delayed_ack {
                        t.receiver.ack_every.max(1) as f64
                    } else {
                        1.0
                    };
                    // A timer shorter than a round trip with a window queued at the slowest
                    // hop may expire while the segment is still on its way: each such
                    // expiry puts one more copy in the network.
                    let window = t.sender.receiver_window as f64;
                    let slowest = data
                        .iter()
                        .map(|&d| 8.0 * wire / rate(d))
                        .fold(0.0, f64::max);
                    let min_rto = t.sender.rto.min.as_secs_f64().max(1e-9);
                    let spurious = if min_rto < rtt + window * slowest {
                        active_s / min_rto
                    } else {
                        0.0
                    };
                    // In the network at once: a window's worth, twice over (a timeout
                    // resends what may still be on its way), the spurious copies, and never
                    // more than the sender's link could have taken.
                    // (While the handshake lasts the sender resends bare SYNs, smaller
                    // than segments: more of them fit through its link.)
                    let smallest = if t.sender.handshake {
                        (t.sender.header_bytes.max(1) as f64).min(wire)
                    } else {
                        wire
                    };
                    let outstanding =
                        (2.0 * window.min(segs) + spurious).min(first_hop(data.first(), smallest));
                    for &d in &data {
                        min_size[d as usize] = min_size[d as usize].min(wire);
                    }
                    for &d in &ack_path {
                        let ack = t.receiver.ack_bytes as f64;
                        min_size[d as usize] = min_size[d as usize].min(ack);
                    }
                    // A flow whose path loses everything (a Gilbert-Elliott bad state it
                    // never leaves, say) times out at max_rto for as long as it runs, each
                    // expiry resending a segment; a timer capped below the round trip does
                    // so even without loss, what makes `max_rto = "8ns"` absurd.
                    let max_rto = t.sender.rto.max.as_secs_f64().max(1e-9);
                    let timeouts = active_s / max_rto;
                    let blame = if max_rto < rtt && timeouts > packets {
                        format!("flow[{i}].options.max_rto")
                    } else {
                        blame
                    };
                    (
                        packets,
                        packets + timeouts,
                        packets / per_ack,
                        2.0 * outstanding,
                        blame,
                        timeouts,
                    )
                }
                Traffic::Cbr(c) => {
                    let bits = 8.0 * c.packet_bytes as f64;
                    let sent = c.rate.0 as f64 / bits * active_s;
                    let carried = sent.min(bottleneck / bits * active_s);
                    for &d in &data {
                        let size = c.packet_bytes as f64;
                        min_size[d as usize] = min_size[d as usize].min(size);
                    }
                    // Jitter bunches packets: allow twice the mean count.
                    let outstanding = 2.0 * sent + 2.0;
                    (
                        sent,
                        carried,
                        0.0,
                        outstanding,
                        self.time_field(f.stop, end_s, i),
                        sent,
                    )
                }
            };
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

        // Peak packets: every direction's queue and wire full, unless the flows crossing it
        // cannot have that many packets out.
        let mut peak = 0.0;
        let mut memory_blame: Option<(f64, String, String)> = None;
        let mut dir_bytes = 0.0;
        for d in 0..n_dirs as u32 {
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
                        super::fmt_rate(spec.rate),
                        super::fmt_duration(spec.delay)
                    ),
                )
            };
            if memory_blame.as_ref().is_none_or(|(p, _, _)| here > *p) {
                memory_blame = Some((here, field, what));
            }
        }
        // Plus the one arrival a queue is judging (it is alive until refused).
        let peak = peak.min(flows_bound) + 1.0;
        let nodes = self.nodes.len() as f64;
        let memory = nodes * nodes * 4.0
            + self.flows.len() as f64 * FLOW_BYTES
            + n_dirs as f64 * DIR_BYTES
            + dir_bytes
            + peak * PACKET_BYTES;
        est.peak_packets = sat(peak.ceil());
        est.memory_bytes = sat(memory);
        est.memory_blame = memory_blame.map(|(_, f, w)| (f, w));
        est
    }

    /// The field that bounds flow `i`'s active time: its `stop`, the duration or the limit.
    fn time_field(&self, stop: Option<crate::time::SimDuration>, end_s: f64, i: usize) -> String {
        match stop {
            Some(s) if s.as_secs_f64() < end_s => format!("flow[{i}].stop"),
            _ if self.duration.is_some() => "simulation.duration".to_string(),
            _ => "simulation.time_limit".to_string(),
        }
    }

    /// Refuses a scenario whose estimate passes `max_events` or `max_memory`.
    pub(super) fn check_limits(&self, routes: &Routes) -> super::Result<()> {
        let est = self.estimate_with(routes);
        if let Some((field, why)) = est.segments_blame.clone() {
            return Err(ScenarioError::new(field, why));
        }
        if est.events > self.max_events {
            let (field, why, _) = est.events_blame.clone().unwrap_or_default();
            return Err(ScenarioError::new(
                field,
                format!(
                    "the run would take about {:.2e} events ({why}), more than simulation.max_events = {}; shorten the run or raise simulation.max_events",
                    est.events as f64, self.max_events
                ),
            ));
        }
        if est.memory_bytes > self.max_memory {
            let (field, why) = est
                .memory_blame
                .clone()
                .unwrap_or_else(|| ("link".to_string(), format!("{} nodes", self.nodes.len())));
            return Err(ScenarioError::new(
                field,
                format!(
                    "the run could need about {} of memory ({why}), more than simulation.max_memory = {}; make it smaller or raise simulation.max_memory",
                    human_bytes(est.memory_bytes as f64),
                    human_bytes(self.max_memory as f64)
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn scenario(extra_sim: &str, link: &str, flow: &str) -> Result<Scenario, String> {
        Scenario::from_toml_str(&format!(
            "[simulation]\n{extra_sim}\n[[link]]\nfrom = \"a\"\nto = \"b\"\n{link}\n[[flow]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\n{flow}\n"
        ))
        .map_err(|e| e.to_string())
    }

    #[test]
    fn an_ordinary_scenario_estimates_a_modest_run() {
        let s = scenario(
            "",
            "rate = \"10Mbps\"\ndelay = \"10ms\"",
            "bytes = 1000000\nmss = 1000",
        )
        .unwrap();
        let e = s.estimate();
        assert_eq!(e.data_packets, 1000);
        // Plus the timer's worst case: an expiry per max_rto (60 s) until the time limit
        // (an hour), each resending a segment.
        let timeouts = 3600 / 60;
        assert_eq!(
            e.events,
            1000 + 500 + 2 * timeouts,
            "each data packet and each delayed ACK arrives once"
        );
        assert!(e.memory_bytes < 1 << 20, "{e:?}");
    }

    #[test]
    fn a_hundred_gigabit_link_for_a_million_seconds_is_refused_naming_the_duration() {
        let e = scenario(
            "duration = \"1000000s\"",
            "rate = \"100Gbps\"\ndelay = \"1ms\"",
            "kind = \"cbr\"\nrate = \"100Gbps\"\npacket_bytes = 40",
        )
        .unwrap_err();
        assert!(
            e.starts_with("simulation.duration: the run would take about"),
            "{e}"
        );
        assert!(e.contains("simulation.max_events = 10000000000"), "{e}");
    }

    #[test]
    fn an_unlimited_flow_that_would_run_out_of_segment_numbers_is_refused() {
        let e = scenario(
            "duration = \"600s\"",
            "rate = \"100Gbps\"",
            "mss = 1000\nheader_bytes = 0",
        )
        .unwrap_err();
        assert!(e.starts_with("simulation.duration: flow \"f\" could send about 7.50e9 segments in 600 s, more than the 4294967295 a flow can number"), "{e}");
    }

    #[test]
    fn counts_above_the_caps_are_refused_naming_the_section() {
        use super::{check_counts, MAX_FLOWS, MAX_LINKS, MAX_NODES};
        assert!(check_counts(MAX_NODES, MAX_LINKS, MAX_FLOWS).is_ok());
        let e = |r: crate::scenario::Result<()>| r.unwrap_err().to_string();
        assert_eq!(
            e(check_counts(3, MAX_LINKS + 1, 1)),
            "link: 100001 links is more than the 100000 allowed"
        );
        assert!(
            e(check_counts(MAX_NODES + 1, 2, 1)).starts_with("link: the links join 20001 nodes")
        );
        assert_eq!(
            e(check_counts(3, 2, MAX_FLOWS + 1)),
            "flow: 1000001 flows is more than the 1000000 allowed"
        );
    }

    #[test]
    fn max_events_can_be_raised_and_lowered() {
        let s = "rate = \"10Mbps\"";
        let f = "bytes = 1000000\nmss = 1000";
        assert!(scenario("max_events = 100", s, f)
            .unwrap_err()
            .starts_with("flow[0].bytes: the run would take about"));
        assert!(scenario("max_events = 100000", s, f).is_ok());
    }

    #[test]
    fn an_enormous_queue_that_cbr_could_fill_is_refused_naming_the_limit() {
        let e = scenario(
            "duration = \"10s\"",
            "rate = \"1Gbps\"\nqueue = { kind = \"droptail\", limit = 4000000000 }",
            "kind = \"cbr\"\nrate = \"10Gbps\"\npacket_bytes = 40",
        )
        .unwrap_err();
        assert!(
            e.starts_with("link[0].queue.limit: the run could need about"),
            "{e}"
        );
        assert!(e.contains("simulation.max_memory"), "{e}");
    }

    #[test]
    fn a_timer_shorter_than_the_round_trip_counts_its_spurious_copies() {
        // 100 ms of serialisation per segment, a 10 ms timer that never backs off: up to
        // 100 expiries in a second, each leaving a copy in the network.
        let s = scenario(
            "duration = \"1s\"",
            "rate = \"80kbps\"\ndelay = \"0s\"\nqueue = { kind = \"droptail\", limit = 100000 }",
            "bytes = 3000\nmss = 960\noptions = { min_rto = \"10ms\", max_rto = \"10ms\", initial_rto = \"10ms\", handshake = false }",
        )
        .unwrap();
        let e = s.estimate();
        assert!(e.peak_packets >= 100, "{e:?}");
        assert!(e.events >= 2 * 100, "{e:?}");
        let out = crate::sim::run(&s, &crate::trace::TraceRequest::default(), false).unwrap();
        assert!(
            out.summary.peak_packets <= e.peak_packets,
            "{:?} {e:?}",
            out.summary
        );
        assert!(out.summary.events <= e.events, "{:?} {e:?}", out.summary);
    }

    #[test]
    fn the_same_queue_under_a_windowed_tcp_flow_is_fine() {
        scenario(
            "duration = \"10s\"",
            "rate = \"1Gbps\"\nqueue = { kind = \"droptail\", limit = 4000000000 }",
            "options = { window = 1000 }",
        )
        .unwrap();
    }

    #[test]
    fn trace_sizes_scale_with_packets_and_hops() {
        let s = scenario(
            "",
            "rate = \"10Mbps\"",
            "bytes = 1000000\nmss = 1000\nreceiver = { delayed_ack = false }",
        )
        .unwrap();
        let e = s.estimate();
        assert_eq!(e.trace_bytes("cwnd"), Some(1000 * 28));
        // Each hop record (34 bytes): enqueue, dequeue, receive; for 1000 segments, 1000
        // ACKs and the timer's worst case of 60 resends in the hour's time limit.
        assert_eq!(e.trace_bytes("hops"), Some(3 * (2000 + 60) * 34));
        assert_eq!(e.trace_bytes("nope"), None);
    }
}
