//! One flow's share of a run's estimate: the packets it sends and carries, its ACKs, what it
//! can have in the network at once, and the smallest packets it puts on each direction.

use super::estimate::{queue_packets, Places};
use super::human_secs;
use crate::net::Routes;
use crate::scenario::{FlowSpec, Scenario, Start, Traffic};

/// Most segments of a receiver window an estimate counts as sent besides the flow's rate
/// (an unlimited window is u32::MAX segments).
const WINDOW_CAP: u32 = 1 << 20;

/// What one flow adds to a run, without losses.
pub(super) struct FlowLoad {
    /// Places its data packets wait in (link directions, stations).
    pub data: Vec<u32>,
    /// Places its ACKs wait in.
    pub ack_path: Vec<u32>,
    /// Seconds it runs.
    pub active_s: f64,
    /// Data packets sent, retransmissions aside.
    pub sent: f64,
    /// Data packets carried over each hop (timeouts' resends included).
    pub carried: f64,
    /// ACKs sent.
    pub acked: f64,
    /// Packets it can have in the network at once.
    pub outstanding: f64,
    /// The field that bounds its packet count.
    pub blame: String,
    /// Events of its own: a send per CBR packet, a TCP timeout.
    pub own_events: f64,
    /// For an unlimited TCP flow that could send more segments than it can number: the field
    /// that bounds its time, and why.
    pub segments_blame: Option<(String, String)>,
}

impl Scenario {
    /// The load of flow `i` (`f`) in a run ending at `end_s`; lowers `min_size`, the smallest
    /// packet seen at each place, to the flow's packets.
    pub(super) fn flow_load(
        &self,
        i: usize,
        f: &FlowSpec,
        places: &Places<'_>,
        routes: &Routes,
        end_s: f64,
        min_size: &mut [f64],
    ) -> FlowLoad {
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
        let mut segments_blame = None;
        let (sent, carried, acked, outstanding, blame, own_events) = match &f.traffic {
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
                if t.bytes.is_none() && numbered >= u32::MAX as f64 {
                    segments_blame = Some((
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
        FlowLoad {
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
