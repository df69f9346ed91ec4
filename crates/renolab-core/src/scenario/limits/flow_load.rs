//! One flow's share of a run's estimate: the packets it sends and carries, its ACKs, what it
//! can have in the network at once, and the smallest packets it puts on each direction.
//!
//! Worked out in two steps: [`Scenario::flow_demand`] is what the flow would do with its path
//! to itself; [`FlowDemand::load`] is what it does once the links it shares with other flows
//! have been divided ([`super::share`]).

use super::estimate::{queue_packets, Places};
use super::human_secs;
use crate::net::Routes;
use crate::scenario::{FlowSpec, Scenario, Start, Traffic};

/// Most segments of a receiver window an estimate counts as sent besides the flow's rate
/// (an unlimited window is u32::MAX segments).
const WINDOW_CAP: u32 = 1 << 20;

/// What one flow would do with its path to itself.
pub(super) struct FlowDemand {
    /// Places its data packets wait in (link directions, stations).
    pub data: Vec<u32>,
    /// Places its ACKs wait in.
    pub ack_path: Vec<u32>,
    /// Seconds it runs.
    pub active_s: f64,
    /// Bytes of one of its data packets on the wire.
    pub packet_bytes: f64,
    /// Data packets it would carry alone: at its path's line rate, within its window, its
    /// bytes and its time.
    pub alone: f64,
    /// Packets it can have in the network at once, its ACKs included.
    pub outstanding: f64,
    /// TCP only: its round trip without queueing, seconds.
    pub rtt_s: f64,
    /// TCP only: packets it may have out before it can have learnt anything about the path
    /// (its initial window) and the copies of its timer's early expiries, twice over (a
    /// timeout resends), its ACKs included.
    pub burst: f64,
    /// The field that bounds its packet count when it is not sharing.
    blame: String,
    /// What else it needs to finish its load.
    kind: DemandKind,
}

enum DemandKind {
    Tcp {
        /// Segments it has to send, if it is limited.
        segments: f64,
        window: f64,
        per_ack: f64,
        /// Timeouts at the longest timer, each resending a segment.
        timeouts: f64,
        /// The timer's field when it alone could expire more often than the flow sends.
        max_rto_blame: Option<String>,
        /// The field bounding its time.
        time_field: String,
    },
    Cbr {
        /// Packets the source sends, whether or not the path can carry them.
        offered: f64,
    },
}

/// What one flow adds to a run, without losses.
pub(super) struct FlowLoad {
    /// Data packets sent, retransmissions aside.
    pub sent: f64,
    /// Data packets carried over each hop (timeouts' resends included).
    pub carried: f64,
    /// ACKs sent.
    pub acked: f64,
    /// The field that bounds its packet count.
    pub blame: String,
    /// Events of its own: a send per CBR packet, a TCP timeout.
    pub own_events: f64,
    /// For an unlimited TCP flow that could send more segments than it can number: the field
    /// that bounds its time, and why.
    pub segments_blame: Option<(String, String)>,
}

impl FlowDemand {
    /// Its load when it carries at most `packets` data packets (its share of the links it
    /// crosses); `name` is the flow's name, for the messages.
    pub(super) fn load(&self, packets: f64, name: &str) -> FlowLoad {
        // (Below what it would carry alone by more than rounding.)
        let shared = packets < self.alone * (1.0 - 1e-9);
        let packets = packets.min(self.alone);
        match &self.kind {
            DemandKind::Tcp {
                segments,
                window,
                per_ack,
                timeouts,
                max_rto_blame,
                time_field,
            } => {
                // Sharing stretches a limited transfer in time: the time bounds it then.
                let blame = if shared {
                    time_field.clone()
                } else {
                    self.blame.clone()
                };
                // Segment numbers are u32 (like ns-2's): an unlimited flow stops offering
                // data at the last one, which would silently cut a long run short.
                let numbered = packets + window.min(WINDOW_CAP as f64);
                let segments_blame = (segments.is_infinite() && numbered >= u32::MAX as f64)
                    .then(|| {
                        (
                            blame.clone(),
                            format!(
                                "flow {name:?} could send about {numbered:.2e} segments in {} s, more than the {} a flow can number; shorten the run or use a larger mss",
                                human_secs(self.active_s),
                                u32::MAX
                            ),
                        )
                    });
                let blame = match max_rto_blame {
                    Some(field) if *timeouts > packets => field.clone(),
                    _ => blame,
                };
                FlowLoad {
                    sent: packets,
                    carried: packets + timeouts,
                    acked: packets / per_ack,
                    blame,
                    own_events: *timeouts,
                    segments_blame,
                }
            }
            DemandKind::Cbr { offered } => FlowLoad {
                sent: *offered,
                carried: packets,
                acked: 0.0,
                blame: self.blame.clone(),
                own_events: *offered,
                segments_blame: None,
            },
        }
    }
}

impl Scenario {
    /// What flow `i` (`f`) would do alone in a run ending at `end_s`; lowers `min_size`, the
    /// smallest packet seen at each place, to the flow's packets.
    pub(super) fn flow_demand(
        &self,
        i: usize,
        f: &FlowSpec,
        places: &Places<'_>,
        routes: &Routes,
        end_s: f64,
        min_size: &mut [f64],
    ) -> FlowDemand {
        let rate = |d: u32| places.get(d).rate.0 as f64;
        let data = places.path(routes, f.src, f.dst);
        let ack_path = places.path(routes, f.dst, f.src);
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
                let q = queue_packets(&places.get(d).queue, size);
                rate(d) * active_s / (8.0 * size) + q + 1.0
            })
        };
        let time_field = self.time_field(f.stop, end_s, i);
        match &f.traffic {
            Traffic::Tcp(t) => {
                let wire = (t.mss + t.sender.header_bytes).max(1) as f64;
                let mut pps = bottleneck / (8.0 * wire);
                // A window of W segments per round trip bounds the rate too.
                let rtt: f64 = data
                    .iter()
                    .chain(&ack_path)
                    .map(|&d| places.get(d).delay.as_secs_f64())
                    .sum::<f64>()
                    + data.iter().map(|&d| 8.0 * wire / rate(d)).sum::<f64>();
                if rtt > 0.0 {
                    pps = pps.min(t.sender.receiver_window as f64 / rtt);
                }
                let by_time = pps * active_s;
                let segments = t
                    .bytes
                    .map_or(f64::INFINITY, |b| b.div_ceil(t.mss as u64) as f64);
                let (alone, blame) = if segments < by_time {
                    (segments, format!("flow[{i}].bytes"))
                } else {
                    (by_time, time_field.clone())
                };
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
                // more than the sender's link could have taken; as many ACKs again.
                // (While the handshake lasts the sender resends bare SYNs, smaller
                // than segments: more of them fit through its link.)
                let smallest = if t.sender.handshake {
                    (t.sender.header_bytes.max(1) as f64).min(wire)
                } else {
                    wire
                };
                let outstanding = 2.0
                    * (2.0 * window.min(segments) + spurious)
                        .min(first_hop(data.first(), smallest));
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
                let max_rto_blame = (max_rto < rtt).then(|| format!("flow[{i}].options.max_rto"));
                FlowDemand {
                    data,
                    ack_path,
                    active_s,
                    packet_bytes: wire,
                    alone,
                    outstanding,
                    rtt_s: rtt,
                    burst: 2.0 * (2.0 * t.sender.initial_window as f64 + spurious),
                    blame,
                    kind: DemandKind::Tcp {
                        segments,
                        window,
                        per_ack,
                        timeouts,
                        max_rto_blame,
                        time_field,
                    },
                }
            }
            Traffic::Cbr(c) => {
                let size = c.packet_bytes as f64;
                let bits = 8.0 * size;
                let offered = c.rate.0 as f64 / bits * active_s;
                for &d in &data {
                    min_size[d as usize] = min_size[d as usize].min(size);
                }
                FlowDemand {
                    data,
                    ack_path,
                    active_s,
                    packet_bytes: size,
                    alone: offered.min(bottleneck / bits * active_s),
                    // Jitter bunches packets: allow twice the mean count.
                    outstanding: 2.0 * offered + 2.0,
                    rtt_s: 0.0,
                    burst: 0.0,
                    blame: time_field,
                    kind: DemandKind::Cbr { offered },
                }
            }
        }
    }

    /// The field that bounds flow `i`'s active time: its `stop`, the duration or the limit.
    fn time_field(&self, stop: Option<crate::time::SimDuration>, end_s: f64, i: usize) -> String {
        match stop {
            Some(s) if s.as_secs_f64() < end_s => format!("flow[{i}].stop"),
            _ if self.duration.is_some() => "simulation.duration".to_string(),
            _ => "simulation.time_limit".to_string(),
        }
    }
}
