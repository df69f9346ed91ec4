//! What a run reports: one row per flow, one per link direction, one per station of a
//! shared medium, and a summary.

use super::delay::DelayStats;
use super::{Endpoints, Flow, FlowCounters, Simulation};
use crate::app::{CbrSink, CbrSource};
use crate::histogram::LogHistogram;
use crate::net::LinkDir;
use crate::time::{SimDuration, SimTime};
use crate::trace::{layout, record_bytes, FinishedTrace, TraceData, TraceFailure, Tracer};

/// Why the event loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `simulation.duration` was reached.
    Duration,
    /// Every finite flow finished (no duration given).
    AllFlowsFinished,
    /// No duration was given and `simulation.time_limit` was reached first.
    TimeLimit,
    /// The run's monitor stopped it (Ctrl-C): the results are what was collected so far.
    Interrupted,
}

impl StopReason {
    /// Name used in summaries.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::AllFlowsFinished => "all_flows_finished",
            StopReason::TimeLimit => "time_limit",
            StopReason::Interrupted => "interrupted",
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
    /// Data segments the receiver got marked Congestion Experienced (RFC 3168).
    pub ecn_marks: u64,
    /// Window reductions in answer to ECN-Echo, at most one a window.
    pub cwnd_reductions: u64,
    /// Median one-way delay of the data packets that arrived, seconds (from a log-bucket
    /// histogram: within 3.2 %, [`super::delay`]).
    pub latency_p50_s: Option<f64>,
    /// 99th percentile of the same delays, seconds.
    pub latency_p99_s: Option<f64>,
    /// Mean jitter of the same packets: mean |delay - previous delay|, seconds.
    pub jitter_s: Option<f64>,
    /// Mean of the RTT samples the sender took, seconds (`None` for a CBR flow, and
    /// before the first sample).
    pub mean_rtt_s: Option<f64>,
    /// Median of the same samples, seconds (log-bucket histogram: within 3.2 %).
    pub rtt_p50_s: Option<f64>,
    /// 99th percentile of the same samples, seconds.
    pub rtt_p99_s: Option<f64>,
    /// Mean time a data packet that arrived spent waiting in link queues, summed over the
    /// hops of its path, seconds; `None` when the path crosses a shared medium, whose
    /// stations' queues are not counted.
    pub mean_queue_delay_s: Option<f64>,
    /// When the flow's application started (a workload's flow: when it arrived).
    pub start: SimTime,
    /// Payload bytes of a finite transfer (`None`: unlimited, or CBR).
    pub size_bytes: Option<u64>,
    /// The completion time the transfer would have alone on its path (docs/workloads.md).
    pub ideal_fct: Option<SimDuration>,
}

impl FlowResult {
    /// The row of flow `flow` from `src` to `dst` at the end `end` of a run, with what the
    /// network counted of its packets and the one-way `delays` of its data; the endpoints'
    /// figures are zero (and the variant `"cbr"`) until the caller sets them.
    pub fn counted(
        flow: String,
        src: String,
        dst: String,
        counted: &FlowCounters,
        delays: &DelayStats,
        end: SimTime,
    ) -> Self {
        let per_arrival = |sum_ns: u128| {
            (counted.data_arrived > 0).then(|| sum_ns as f64 / counted.data_arrived as f64 * 1e-9)
        };
        FlowResult {
            flow,
            variant: "cbr",
            src,
            dst,
            bytes_delivered: 0,
            first_send: None,
            finish: None,
            segments_sent: 0,
            segments_delivered: 0,
            retransmits: 0,
            timeouts: 0,
            fast_retransmits: 0,
            drops: counted.data_dropped + counted.acks_dropped,
            data_drops: counted.data_dropped,
            ack_drops: counted.acks_dropped,
            mean_latency_s: per_arrival(counted.latency_sum_ns),
            end,
            ecn_marks: 0,
            cwnd_reductions: 0,
            latency_p50_s: delays.quantile_s(0.5),
            latency_p99_s: delays.quantile_s(0.99),
            jitter_s: delays.jitter_s(),
            mean_rtt_s: None,
            rtt_p50_s: None,
            rtt_p99_s: None,
            mean_queue_delay_s: per_arrival(counted.queue_wait_sum_ns),
            start: SimTime::ZERO,
            size_bytes: None,
            ideal_fct: None,
        }
    }

    /// Sets the RTT figures from the sender's samples `rtts` (ns).
    pub fn set_rtts(&mut self, rtts: &LogHistogram) {
        self.mean_rtt_s = rtts.mean_s();
        self.rtt_p50_s = rtts.quantile_s(0.5);
        self.rtt_p99_s = rtts.quantile_s(0.99);
    }

    /// Flow completion time: from the application's start to the last byte delivered,
    /// seconds.
    pub fn fct_s(&self) -> Option<f64> {
        Some(self.finish?.saturating_since(self.start).as_secs_f64())
    }

    /// The ideal completion time, seconds.
    pub fn ideal_fct_s(&self) -> Option<f64> {
        self.ideal_fct.map(SimDuration::as_secs_f64)
    }

    /// Completion time over the ideal one (at least 1 for a flow that ran alone).
    pub fn slowdown(&self) -> Option<f64> {
        let ideal = self.ideal_fct_s().filter(|&i| i > 0.0)?;
        Some(self.fct_s()? / ideal)
    }

    /// Sets the figures of a constant-bit-rate flow that started at `start`.
    pub fn set_cbr(&mut self, source: &CbrSource, sink: &CbrSink, start: SimTime) {
        self.bytes_delivered = sink.bytes;
        self.first_send = (source.sent() > 0).then_some(start);
        self.segments_sent = source.sent();
        self.segments_delivered = sink.packets;
    }

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
    /// A DualPI2's counters of its L and classic queues (zero for other disciplines).
    pub dual: crate::queue::DualQueueStats,
    /// Mean time a packet waited in the queue before its transmission started (0 for a
    /// packet that found the wire idle), over the packets transmitted, seconds.
    pub mean_queue_delay_s: Option<f64>,
    /// Median of the same waits, seconds (log-bucket histogram: within 3.2 %).
    pub queue_delay_p50_s: Option<f64>,
    /// 99th percentile of the same waits, seconds.
    pub queue_delay_p99_s: Option<f64>,
    /// Packets waiting, averaged over time from the start to the end of the run.
    pub mean_queue_packets: f64,
}

impl LinkResult {
    /// The row of direction `dir` (node names in `nodes`) at the end `end` of a run.
    pub fn of(dir: &LinkDir, nodes: &[String], end: SimTime) -> Self {
        let run_ns = end.0.max(1) as f64;
        let stats = dir.stats;
        // Every packet transmitted either waited (recorded when it left the queue) or went
        // straight onto an idle wire: 0.
        let mut waits = dir.occupancy.sojourns.clone();
        waits.record_zeros(stats.packets_sent.saturating_sub(waits.count()));
        LinkResult {
            link: dir.name.clone(),
            from: nodes[dir.from as usize].clone(),
            to: nodes[dir.to as usize].clone(),
            packets_sent: stats.packets_sent,
            bytes_sent: stats.bytes_sent,
            queue_drops: stats.overflow_drops + stats.early_drops + stats.aqm_drops,
            loss_drops: stats.bit_error_drops + stats.random_drops + stats.scripted_drops,
            stats,
            utilisation: (stats.busy_ns as f64 / run_ns).min(1.0),
            max_queue: stats.max_queue,
            dual: dir.queue.dual_stats(),
            mean_queue_delay_s: waits.mean_s(),
            queue_delay_p50_s: waits.quantile_s(0.5),
            queue_delay_p99_s: waits.quantile_s(0.99),
            mean_queue_packets: dir.occupancy.mean_packets(end, dir.queue.len()),
        }
    }
}

/// Per-station results of a shared medium.
#[derive(Clone, Debug, PartialEq)]
pub struct StationResult {
    /// `"<medium>/<node>"`: the name the traces give the station.
    pub station: String,
    /// Medium name.
    pub medium: String,
    /// Node name.
    pub node: String,
    /// The MAC's counters.
    pub stats: crate::net::wifi::StationStats,
    /// Fraction of the run spent transmitting.
    pub airtime_share: f64,
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
    /// Most flows alive at once (a workload's finished flows are retired: their rows are
    /// all that is left of them).
    pub peak_flows: u64,
}

/// Everything a run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// One row per flow, in scenario order.
    pub flows: Vec<FlowResult>,
    /// One row per link direction.
    pub links: Vec<LinkResult>,
    /// One row per station of a shared medium, medium by medium.
    pub stations: Vec<StationResult>,
    /// Summary.
    pub summary: RunSummary,
    /// The recorded traces: name, record layout (field name, numpy dtype), records.
    pub traces: Vec<FinishedTrace>,
    /// The traces (and pcap files) that stopped before the end of the run: each holds its
    /// records up to the failure's time ([`TraceFailure`]); the other results are whole.
    pub trace_failures: Vec<TraceFailure>,
}

/// A decoded `cwnd` trace, for tests and Rust users.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CwndSeries {
    /// Time of each change, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// The congestion controller's window, segments (no fast-recovery inflation).
    pub cwnd: Vec<f64>,
    /// Slow-start threshold, segments (infinite while unset).
    pub ssthresh: Vec<f64>,
    /// Congestion window with Reno's fast-recovery inflation, segments.
    pub inflated_cwnd: Vec<f64>,
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

/// Reads a packed record's fields in order (little-endian, as the trace sinks write them).
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("N bytes")
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_bits(self.u64())
    }
}

/// A decoded `cc` trace: the controllers' state at each change (NaN where a controller has
/// no such value).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CcSeries {
    /// Time of each change, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// Mode code (an index into [`crate::tcp::cc::cc_modes`]; 255 for none).
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
    /// CUBIC's `W_max`, segments.
    pub w_max: Vec<f64>,
    /// CUBIC's `K`, ns.
    pub k_ns: Vec<f64>,
    /// When CUBIC's epoch began, ns.
    pub epoch_start_ns: Vec<f64>,
}

impl RunOutput {
    /// The records of trace `name`, if it was recorded, one slice each.
    fn trace_records(&self, name: &str) -> Option<(Vec<u8>, usize)> {
        let bytes = self
            .traces
            .iter()
            .find(|t| t.0 == name)
            .map(|t| match &t.2 {
                TraceData::Bytes(b) => b.clone(),
                TraceData::File(p) => std::fs::read(p).unwrap_or_default(),
            })?;
        Some((bytes, record_bytes(layout(name)?)))
    }

    /// Column `column` of trace `name`, as numbers (a controller's `cc` fields included,
    /// whatever the registry declares), if the trace was recorded and has that column.
    pub fn trace_column(&self, name: &str, column: &str) -> Option<Vec<f64>> {
        let fields = layout(name)?;
        let at = fields.iter().position(|(f, _)| *f == column)?;
        let offset = record_bytes(&fields[..at]);
        let dtype = fields[at].1;
        let (bytes, size) = self.trace_records(name)?;
        let value = |r: &[u8]| -> f64 {
            let b = &r[offset..];
            match dtype {
                "u1" => b[0] as f64,
                "<u4" => u32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as f64,
                "<u8" => u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) as f64,
                _ => f64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            }
        };
        Some(bytes.chunks_exact(size).map(value).collect())
    }

    /// The `cwnd` trace, decoded, if it was recorded.
    pub fn cwnd(&self) -> Option<CwndSeries> {
        let (bytes, size) = self.trace_records("cwnd")?;
        let mut s = CwndSeries::default();
        for record in bytes.chunks_exact(size) {
            let mut fields = Fields(record);
            s.time_ns.push(fields.u64());
            s.flow.push(fields.u32());
            s.cwnd.push(fields.f64());
            s.ssthresh.push(fields.f64());
            s.inflated_cwnd.push(fields.f64());
        }
        Some(s)
    }

    /// The `cc` trace, decoded, if it was recorded.
    pub fn cc(&self) -> Option<CcSeries> {
        let (bytes, size) = self.trace_records("cc")?;
        let mut s = CcSeries::default();
        for record in bytes.chunks_exact(size) {
            let mut fields = Fields(record);
            s.time_ns.push(fields.u64());
            s.flow.push(fields.u32());
            s.mode.push(fields.u8());
            s.btl_bw_bps.push(fields.f64());
            s.min_rtt_ns.push(fields.f64());
            s.pacing_gain.push(fields.f64());
            s.cwnd_gain.push(fields.f64());
            s.pacing_rate_bps.push(fields.f64());
            s.delivery_rate_bps.push(fields.f64());
            s.w_max.push(fields.f64());
            s.k_ns.push(fields.f64());
            s.epoch_start_ns.push(fields.f64());
        }
        Some(s)
    }

    /// The `seq` trace, decoded, if it was recorded.
    pub fn seq(&self) -> Option<SeqSeries> {
        let (bytes, size) = self.trace_records("seq")?;
        let mut s = SeqSeries::default();
        for record in bytes.chunks_exact(size) {
            let mut fields = Fields(record);
            s.time_ns.push(fields.u64());
            s.flow.push(fields.u32());
            s.event.push(fields.u8());
            s.seq.push(fields.u32());
        }
        Some(s)
    }
}

/// The row of `flow`, whose packets the network counted as `counted`, at `end`.
pub(super) fn flow_row(
    flow: &Flow,
    counted: &FlowCounters,
    node_names: &[String],
    crosses_medium: bool,
    end: SimTime,
) -> FlowResult {
    let mut row = FlowResult::counted(
        flow.name.clone(),
        node_names[flow.src as usize].clone(),
        node_names[flow.dst as usize].clone(),
        counted,
        &flow.delays,
        end,
    );
    row.start = flow.start;
    row.ideal_fct = flow.ideal_fct;
    match &flow.endpoints {
        Endpoints::Tcp(tcp) => {
            let sender = tcp.sender.stats();
            let receiver = tcp.receiver.stats();
            row.variant = tcp.variant.name();
            row.bytes_delivered = receiver.bytes_delivered;
            row.first_send = sender.first_send;
            row.finish = receiver.finished_at;
            row.segments_sent = sender.segments_sent;
            row.segments_delivered = tcp.receiver.rcv_nxt() as u64;
            row.retransmits = sender.retransmits;
            row.timeouts = sender.timeouts;
            row.fast_retransmits = sender.fast_retransmits;
            row.ecn_marks = receiver.ce_received;
            row.cwnd_reductions = sender.cwnd_reductions;
            row.size_bytes = tcp.sender.transfer().bytes;
            row.set_rtts(&flow.rtts);
        }
        Endpoints::Cbr { source, sink } => row.set_cbr(source, sink, flow.start),
    }
    if crosses_medium {
        // A station's queue is not a link's: its waits are not counted.
        row.mean_queue_delay_s = None;
    }
    row
}

/// The results of `sim`, stopped for `stop_reason` after `wall_s` seconds of wall-clock time;
/// `retired` are the rows of the workloads' retired flows (taken from `sim`: a run of many
/// flows holds them once).
pub(super) fn collect<T: Tracer>(
    sim: &Simulation<T>,
    mut retired: Vec<(u32, FlowResult)>,
    stop_reason: StopReason,
    wall_s: f64,
) -> RunOutput {
    let end = sim.sched.now().min(sim.stop_at);
    let counters = sim.network.flow_counters();
    let fixed = sim.workloads.fixed as usize;
    // A workload's flows, retired or alive, in the order they arrived, after the scenario's.
    retired.extend(sim.workloads.live().map(|(id, slot)| {
        let flow = &sim.flows[slot];
        let crosses_medium = sim.network.route_crosses_medium(flow.src, flow.dst);
        let row = flow_row(
            flow,
            &counters[id as usize],
            &sim.node_names,
            crosses_medium,
            end,
        );
        (id, row)
    }));
    retired.sort_unstable_by_key(|(id, _)| *id);
    // Mapped in place (the same allocation), then the scenario's flows put first.
    let mut flows: Vec<FlowResult> = retired.into_iter().map(|(_, row)| row).collect();
    let scenario_flows = (sim.flows[..fixed].iter()).map(|flow| {
        let crosses_medium = sim.network.route_crosses_medium(flow.src, flow.dst);
        flow_row(
            flow,
            &counters[flow.id as usize],
            &sim.node_names,
            crosses_medium,
            end,
        )
    });
    flows.splice(0..0, scenario_flows);
    let run_ns = end.0.max(1) as f64;
    let links = sim
        .network
        .dirs()
        .iter()
        .map(|dir| LinkResult::of(dir, &sim.node_names, end))
        .collect();
    let stations = sim
        .network
        .media()
        .iter()
        .flat_map(|medium| {
            (0..medium.len() as u32).map(move |station| {
                let node = sim.node_names[medium.node(station) as usize].clone();
                let stats = *medium.stats(station);
                StationResult {
                    station: format!("{}/{node}", medium.name),
                    medium: medium.name.clone(),
                    node,
                    stats,
                    airtime_share: (stats.airtime_ns as f64 / run_ns).min(1.0),
                }
            })
        })
        .collect();
    let summary = RunSummary {
        seed: sim.seed,
        events: sim.sched.events_fired(),
        sim_time: end,
        stop_reason,
        core_wall_time_s: wall_s,
        packets_delivered: flows.iter().map(|f| f.segments_delivered).sum(),
        peak_packets: sim.network.peak_packets() as u64,
        peak_flows: sim.flows.len() as u64,
    };
    RunOutput {
        flows,
        links,
        stations,
        summary,
        traces: Vec::new(),
        trace_failures: Vec::new(),
    }
}
