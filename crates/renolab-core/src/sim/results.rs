//! What a run reports: one row per flow, one per link direction, and a summary.

use super::{Endpoints, Simulation};
use crate::time::SimTime;
use crate::trace::{TraceData, Tracer};

/// Why the event loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `simulation.duration` was reached.
    Duration,
    /// Every finite flow finished (no duration given).
    AllFlowsFinished,
    /// No duration was given and `simulation.time_limit` was reached first.
    TimeLimit,
}

impl StopReason {
    /// Name used in summaries.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::AllFlowsFinished => "all_flows_finished",
            StopReason::TimeLimit => "time_limit",
        }
    }
}

/// Per-flow results.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    /// Flow name.
    pub flow: String,
    /// Variant name (`"cbr"` for a constant-bit-rate flow).
    pub variant: &'static str,
    /// Source node name.
    pub src: String,
    /// Destination node name.
    pub dst: String,
    /// Payload bytes delivered to the receiving application, in order, each once.
    pub bytes_delivered: u64,
    /// First data segment sent.
    pub first_send: Option<SimTime>,
    /// Last segment of a finite transfer received (lee2001's end of t_c).
    pub finish: Option<SimTime>,
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    /// Segments delivered in order.
    pub segments_delivered: u64,
    /// Retransmitted segments.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Packets of this flow (data and ACKs) dropped anywhere.
    pub drops: u64,
    /// Data segments of this flow dropped.
    pub data_drops: u64,
    /// ACKs of this flow dropped.
    pub ack_drops: u64,
    /// Mean one-way latency of the data packets that arrived (first transmissions and
    /// retransmissions alike), seconds.
    pub mean_latency_s: Option<f64>,
    /// Time from the first segment sent to the end of the run, for unfinished flows' throughput.
    pub end: SimTime,
}

impl FlowResult {
    /// Completion time t_c = last segment received - first segment sent (lee2001), seconds.
    pub fn completion_time_s(&self) -> Option<f64> {
        Some((self.finish? - self.first_send?).as_secs_f64())
    }

    /// Delivered payload bits per second over t_c, or over the time the flow ran.
    pub fn throughput_bps(&self) -> f64 {
        let Some(start) = self.first_send else {
            return 0.0;
        };
        let span = self
            .finish
            .unwrap_or(self.end)
            .saturating_since(start)
            .as_secs_f64();
        if span > 0.0 {
            self.bytes_delivered as f64 * 8.0 / span
        } else {
            0.0
        }
    }
}

/// Per link-direction results.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    /// Direction name (`"<link>"` or `"<link>/rev"`).
    pub link: String,
    /// Node names at both ends.
    pub from: String,
    /// Node at the far end.
    pub to: String,
    /// Packets that were transmitted.
    pub packets_sent: u64,
    /// Bytes transmitted.
    pub bytes_sent: u64,
    /// Drops by the queue (overflow, RED early drops, AQM drops).
    pub queue_drops: u64,
    /// Drops by loss models (bit errors, random, scripted).
    pub loss_drops: u64,
    /// Counters by cause.
    pub stats: crate::net::LinkStats,
    /// Fraction of the run spent serialising.
    pub utilisation: f64,
    /// Most packets waiting at once.
    pub max_queue: u64,
}

/// Whole-run figures.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// Master seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Simulated time at the end.
    pub sim_time: SimTime,
    /// Why the run ended.
    pub stop_reason: StopReason,
    /// Wall-clock seconds of the event loop.
    pub core_wall_time_s: f64,
    /// Data segments delivered in order, all flows together.
    pub packets_delivered: u64,
    /// Most packets alive at once.
    pub peak_packets: u64,
}

/// Everything a run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// One row per flow, in scenario order.
    pub flows: Vec<FlowResult>,
    /// One row per link direction.
    pub links: Vec<LinkResult>,
    /// Summary.
    pub summary: RunSummary,
    /// The recorded traces: name, record layout (field name, numpy dtype), records.
    pub traces: Vec<(
        &'static str,
        &'static [(&'static str, &'static str)],
        TraceData,
    )>,
}

/// A decoded `cwnd` trace, for tests and Rust users.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CwndSeries {
    /// Time of each change, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// Congestion window, segments.
    pub cwnd: Vec<f64>,
    /// Slow-start threshold, segments.
    pub ssthresh: Vec<f64>,
}

/// A decoded `seq` trace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeqSeries {
    /// Time of each event, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// [`crate::trace::SeqEvent`] code.
    pub event: Vec<u8>,
    /// Segment (or cumulative ACK).
    pub seq: Vec<u32>,
}

/// A decoded `cc` trace: the controllers' state at each change (NaN where a controller has
/// no such value).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CcSeries {
    /// Time of each change, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// Mode code (an index into [`crate::tcp::cc::CC_MODES`]; 255 for none).
    pub mode: Vec<u8>,
    /// Bottleneck-bandwidth estimate, bit/s.
    pub btl_bw_bps: Vec<f64>,
    /// Min-RTT estimate, ns.
    pub min_rtt_ns: Vec<f64>,
    /// Pacing gain.
    pub pacing_gain: Vec<f64>,
    /// Cwnd gain.
    pub cwnd_gain: Vec<f64>,
    /// Pacing rate, bit/s of payload.
    pub pacing_rate_bps: Vec<f64>,
    /// Last delivery-rate sample, bit/s of payload.
    pub delivery_rate_bps: Vec<f64>,
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}
fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().expect("4 bytes"))
}

impl RunOutput {
    fn trace_bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.traces
            .iter()
            .find(|t| t.0 == name)
            .map(|t| match &t.2 {
                TraceData::Bytes(b) => b.clone(),
                TraceData::File(p) => std::fs::read(p).unwrap_or_default(),
            })
    }

    /// The `cwnd` trace, decoded, if it was recorded.
    pub fn cwnd(&self) -> Option<CwndSeries> {
        let b = self.trace_bytes("cwnd")?;
        let mut s = CwndSeries::default();
        for r in b.chunks_exact(28) {
            s.time_ns.push(le_u64(&r[..8]));
            s.flow.push(le_u32(&r[8..12]));
            s.cwnd.push(f64::from_bits(le_u64(&r[12..20])));
            s.ssthresh.push(f64::from_bits(le_u64(&r[20..28])));
        }
        Some(s)
    }

    /// The `cc` trace, decoded, if it was recorded.
    pub fn cc(&self) -> Option<CcSeries> {
        let b = self.trace_bytes("cc")?;
        let mut s = CcSeries::default();
        let f = |r: &[u8], i: usize| f64::from_bits(le_u64(&r[13 + 8 * i..21 + 8 * i]));
        for r in b.chunks_exact(61) {
            s.time_ns.push(le_u64(&r[..8]));
            s.flow.push(le_u32(&r[8..12]));
            s.mode.push(r[12]);
            s.btl_bw_bps.push(f(r, 0));
            s.min_rtt_ns.push(f(r, 1));
            s.pacing_gain.push(f(r, 2));
            s.cwnd_gain.push(f(r, 3));
            s.pacing_rate_bps.push(f(r, 4));
            s.delivery_rate_bps.push(f(r, 5));
        }
        Some(s)
    }

    /// The `seq` trace, decoded, if it was recorded.
    pub fn seq(&self) -> Option<SeqSeries> {
        let b = self.trace_bytes("seq")?;
        let mut s = SeqSeries::default();
        for r in b.chunks_exact(17) {
            s.time_ns.push(le_u64(&r[..8]));
            s.flow.push(le_u32(&r[8..12]));
            s.event.push(r[12]);
            s.seq.push(le_u32(&r[13..17]));
        }
        Some(s)
    }
}

pub(super) fn collect<T: Tracer>(
    sim: &Simulation<T>,
    stop_reason: StopReason,
    wall_s: f64,
) -> RunOutput {
    let end = sim.sched.now().min(sim.stop_at);
    let flows: Vec<FlowResult> = sim
        .flows
        .iter()
        .map(|f| {
            let c = &f.counters;
            let mean_latency_s = (c.data_arrived > 0)
                .then(|| c.latency_sum_ns as f64 / c.data_arrived as f64 * 1e-9);
            let mut row = FlowResult {
                flow: f.name.clone(),
                variant: "cbr",
                src: sim.node_names[f.src as usize].clone(),
                dst: sim.node_names[f.dst as usize].clone(),
                bytes_delivered: 0,
                first_send: None,
                finish: None,
                segments_sent: 0,
                segments_delivered: 0,
                retransmits: 0,
                timeouts: 0,
                fast_retransmits: 0,
                drops: c.data_dropped + c.acks_dropped,
                data_drops: c.data_dropped,
                ack_drops: c.acks_dropped,
                mean_latency_s,
                end,
            };
            match &f.endpoints {
                Endpoints::Tcp(tcp) => {
                    let s = tcp.sender.stats();
                    let r = tcp.receiver.stats();
                    row.variant = tcp.variant.name();
                    row.bytes_delivered = r.bytes_delivered;
                    row.first_send = s.first_send;
                    row.finish = r.finished_at;
                    row.segments_sent = s.segments_sent;
                    row.segments_delivered = tcp.receiver.rcv_nxt() as u64;
                    row.retransmits = s.retransmits;
                    row.timeouts = s.timeouts;
                    row.fast_retransmits = s.fast_retransmits;
                }
                Endpoints::Cbr { source, sink } => {
                    row.bytes_delivered = sink.bytes;
                    row.first_send = (source.sent() > 0).then_some(f.start);
                    row.segments_sent = source.sent();
                    row.segments_delivered = sink.packets;
                }
            }
            row
        })
        .collect();
    let run_ns = end.0.max(1) as f64;
    let links = sim
        .dirs
        .iter()
        .map(|d| LinkResult {
            link: d.name.clone(),
            from: sim.node_names[d.from as usize].clone(),
            to: sim.node_names[d.to as usize].clone(),
            packets_sent: d.stats.packets_sent,
            bytes_sent: d.stats.bytes_sent,
            queue_drops: d.stats.overflow_drops + d.stats.early_drops + d.stats.aqm_drops,
            loss_drops: d.stats.bit_error_drops + d.stats.random_drops + d.stats.scripted_drops,
            stats: d.stats,
            utilisation: (d.stats.busy_ns as f64 / run_ns).min(1.0),
            max_queue: d.stats.max_queue,
        })
        .collect();
    let summary = RunSummary {
        seed: sim.seed,
        events: sim.sched.events_fired(),
        sim_time: end,
        stop_reason,
        core_wall_time_s: wall_s,
        packets_delivered: flows.iter().map(|f| f.segments_delivered).sum(),
        peak_packets: sim.pool.capacity_used() as u64,
    };
    RunOutput {
        flows,
        links,
        summary,
        traces: Vec::new(),
    }
}
