//! Observability through typed events.
//!
//! The engine reports what happens through a [`Tracer`]. [`NoTrace`] has empty inline methods
//! and `ENABLED = false`, so with tracing off the engine compiles to code with no tracing cost
//! at all. [`Recorder`] writes the requested series as packed records ([`sink`]) that Python
//! turns into tables, and pcap files ([`pcap`]) that Wireshark reads.

pub mod pcap;
pub mod sink;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use crate::loss::LossCause;
use crate::net::wifi::AirFrame;
use crate::packet::{Packet, PacketKind};
use crate::queue::{QueueDrop, SubQueue, SubQueueState, SUB_QUEUE_NAMES};
use crate::tcp::cc::{CcState, TraceKind};
use crate::tcp::Window;
use crate::time::{SimDuration, SimTime};
pub use pcap::{PcapFlow, PcapSet};
pub use sink::{create_fresh, Record, TraceData, TraceFailure, TraceSink};

/// A recorded trace: its name, its record layout (field name, numpy dtype) and its records.
pub type FinishedTrace = (
    &'static str,
    &'static [(&'static str, &'static str)],
    TraceData,
);

/// What happened to a segment, for the time-sequence trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SeqEvent {
    /// A new data segment left the sender.
    Sent = 0,
    /// A data segment left the sender again.
    Retransmitted = 1,
    /// A cumulative ACK reached the sender (`seq` = next segment expected).
    Acked = 2,
    /// A data segment was dropped in the network.
    Dropped = 3,
    /// An ACK was dropped in the network (`seq` = its cumulative ACK).
    AckDropped = 4,
    /// A data segment (or datagram) reached the receiver, in order or not, duplicates
    /// included: what the receiver's goodput is counted from.
    Received = 5,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropCause {
    /// The queue was full.
    Overflow = 0,
    /// RED dropped it early.
    Early = 1,
    /// CoDel / FQ-CoDel dropped it at dequeue.
    Aqm = 2,
    /// Bit errors corrupted it.
    BitError = 3,
    /// A random (Bernoulli) loss.
    Random = 4,
    /// A Gilbert-Elliott burst loss.
    Burst = 5,
    /// A deterministic drop list.
    Scripted = 6,
    /// A station of a medium gave the frame up after its retry limit.
    RetryLimit = 7,
    /// The link went down (an outage) while the packet was on it.
    Outage = 8,
}

impl From<QueueDrop> for DropCause {
    fn from(cause: QueueDrop) -> Self {
        match cause {
            QueueDrop::Overflow => DropCause::Overflow,
            QueueDrop::EarlyDrop => DropCause::Early,
            QueueDrop::AqmDrop => DropCause::Aqm,
        }
    }
}

impl From<LossCause> for DropCause {
    fn from(cause: LossCause) -> Self {
        match cause {
            LossCause::BitError => DropCause::BitError,
            LossCause::Random => DropCause::Random,
            LossCause::Burst => DropCause::Burst,
            LossCause::Scripted => DropCause::Scripted,
        }
    }
}

/// A packet's passage through a link direction, as ns-2's trace letters name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum HopEvent {
    /// `+`: offered to the output queue.
    Enqueue = 0,
    /// `-`: starts transmission.
    Dequeue = 1,
    /// `r`: received at the far end.
    Receive = 2,
    /// `d`: dropped.
    Drop = 3,
    /// A station of a medium starts sending a frame again (a link-layer retry; ns-2 would
    /// write `-` again).
    Retry = 4,
}

/// Code of a packet kind in trace records: 0 data, 1 ack, 2 syn, 3 synack, 4 datagram.
pub fn kind_code(kind: PacketKind) -> u8 {
    match kind {
        PacketKind::Data => 0,
        PacketKind::Ack => 1,
        PacketKind::Syn => 2,
        PacketKind::SynAck => 3,
        PacketKind::Datagram => 4,
    }
}

/// Names of the `seq` trace's `event` codes, indexed by [`SeqEvent`] `as usize`.
pub const SEQ_EVENT_NAMES: [&str; 6] = [
    "sent",
    "retransmitted",
    "acked",
    "dropped",
    "ack_dropped",
    "received",
];
/// Names of the `hops` trace's `event` codes, indexed by [`HopEvent`] `as usize`.
pub const HOP_EVENT_NAMES: [&str; 5] = ["enqueue", "dequeue", "receive", "drop", "retry"];
/// Names of the packet kinds, indexed by [`kind_code`].
pub const PACKET_KIND_NAMES: [&str; 5] = ["data", "ack", "syn", "synack", "datagram"];
/// Names of the drop causes, indexed by [`DropCause`] `as usize`.
pub const DROP_CAUSE_NAMES: [&str; 9] = [
    "overflow",
    "early",
    "aqm",
    "bit_error",
    "random",
    "burst",
    "scripted",
    "retry_limit",
    "outage",
];

/// The coded columns of the traces, `(trace, column, names of the codes in code order)`:
/// the one table of codes, which the Python package reads through the binding to turn
/// these columns into categoricals. The `cc` trace's modes are the controllers' declared
/// modes ([`crate::tcp::cc::cc_modes`]); code 255 ([`NO_MODE`]) for a controller without.
pub static CODED_COLUMNS: LazyLock<Vec<(&'static str, &'static str, &'static [&'static str])>> =
    LazyLock::new(|| {
        vec![
            ("seq", "event", &SEQ_EVENT_NAMES[..]),
            ("drops", "kind", &PACKET_KIND_NAMES[..]),
            ("drops", "cause", &DROP_CAUSE_NAMES[..]),
            ("hops", "event", &HOP_EVENT_NAMES[..]),
            ("hops", "kind", &PACKET_KIND_NAMES[..]),
            ("hops", "ecn", &crate::packet::CODEPOINT_NAMES[..]),
            ("queue", "queue", &SUB_QUEUE_NAMES[..]),
            ("cc", "mode", crate::tcp::cc::cc_modes()),
        ]
    });

/// Receives trace events from the engine.
pub trait Tracer {
    /// False for a tracer that records nothing; lets the engine skip work that only feeds traces.
    const ENABLED: bool;
    /// A flow's congestion window, slow-start threshold or fast-recovery inflation changed:
    /// `cwnd` is the congestion controller's window, `inflated` the window the sender may
    /// fill (cwnd plus Reno/NewReno's fast-recovery inflation, RFC 5681 §3.2 steps 3-4).
    fn cwnd_changed(
        &mut self,
        now: SimTime,
        flow: u32,
        cwnd: Window,
        ssthresh: Window,
        inflated: Window,
    );
    /// Something happened to a segment of a flow.
    fn seq_event(&mut self, now: SimTime, flow: u32, event: SeqEvent, seq: u32);
    /// A sender took an RTT sample.
    fn rtt_sample(
        &mut self,
        now: SimTime,
        flow: u32,
        rtt: SimDuration,
        srtt: SimDuration,
        rto: SimDuration,
    );
    /// The length of link direction `link`'s queue changed; `avg_packets` is RED's average
    /// queue in packets (NaN for other disciplines).
    fn queue_changed(
        &mut self,
        now: SimTime,
        link: u32,
        packets: u32,
        bytes: u64,
        avg_packets: f64,
    );
    /// A queue of direction `link`, holding `packets` packets of `bytes` bytes (RED's
    /// average `avg_packets`), marked `packet` Congestion Experienced (RFC 3168).
    fn marked(
        &mut self,
        now: SimTime,
        link: u32,
        packets: u32,
        bytes: u64,
        avg_packets: f64,
        packet: &Packet,
    );
    /// One of the two queues of link direction `link`'s DualPI2 changed (written after
    /// [`Tracer::queue_changed`] for the whole, as one row per queue).
    #[inline(always)]
    fn sub_queue_changed(&mut self, _now: SimTime, _link: u32, _state: &SubQueueState) {}
    /// A packet was dropped on link direction `link`.
    fn dropped(&mut self, now: SimTime, link: u32, packet: &Packet, cause: DropCause);
    /// A packet passed a point of link direction `link` (or of a medium's station: the
    /// stations are numbered after the link directions); `uid` identifies it while it lives.
    fn hop(&mut self, now: SimTime, link: u32, event: HopEvent, packet: &Packet, uid: u32);
    /// A flow's congestion controller changed state (see [`CcState`]).
    fn cc_changed(&mut self, now: SimTime, flow: u32, state: &CcState);
    /// A frame went on the air of medium `medium`, from node `from` to node `to` (for
    /// captures). Ignored unless a tracer records it.
    #[inline(always)]
    fn air_frame(&mut self, _medium: u32, _frame: &AirFrame, _from: u32, _to: u32) {}
    /// Flow `flow` was created during the run (a workload's: ids follow one another), with
    /// what a capture needs to write its headers.
    #[inline(always)]
    fn flow_added(&mut self, _flow: u32, _capture: PcapFlow) {}
}

/// Records nothing, costs nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Tracer for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn cwnd_changed(&mut self, _: SimTime, _: u32, _: Window, _: Window, _: Window) {}
    #[inline(always)]
    fn seq_event(&mut self, _: SimTime, _: u32, _: SeqEvent, _: u32) {}
    #[inline(always)]
    fn rtt_sample(&mut self, _: SimTime, _: u32, _: SimDuration, _: SimDuration, _: SimDuration) {}
    #[inline(always)]
    fn queue_changed(&mut self, _: SimTime, _: u32, _: u32, _: u64, _: f64) {}
    #[inline(always)]
    fn marked(&mut self, _: SimTime, _: u32, _: u32, _: u64, _: f64, _: &Packet) {}
    #[inline(always)]
    fn dropped(&mut self, _: SimTime, _: u32, _: &Packet, _: DropCause) {}
    #[inline(always)]
    fn hop(&mut self, _: SimTime, _: u32, _: HopEvent, _: &Packet, _: u32) {}
    #[inline(always)]
    fn cc_changed(&mut self, _: SimTime, _: u32, _: &CcState) {}
}

/// The traces of fixed layout, with their record layouts (numpy dtype strings).
const FIXED_TRACES: &[(&str, &[(&str, &str)])] = &[
    (
        "cwnd",
        &[
            ("time_ns", "<u8"),
            ("flow", "<u4"),
            ("cwnd", "<f8"),
            ("ssthresh", "<f8"),
            ("inflated_cwnd", "<f8"),
        ],
    ),
    (
        "seq",
        &[
            ("time_ns", "<u8"),
            ("flow", "<u4"),
            ("event", "u1"),
            ("seq", "<u4"),
        ],
    ),
    (
        "rtt",
        &[
            ("time_ns", "<u8"),
            ("flow", "<u4"),
            ("rtt_ns", "<u8"),
            ("srtt_ns", "<u8"),
            ("rto_ns", "<u8"),
        ],
    ),
    (
        "queue",
        &[
            ("time_ns", "<u8"),
            ("link", "<u4"),
            ("packets", "<u4"),
            ("bytes", "<u8"),
            ("marked", "u1"),
            ("avg_packets", "<f8"),
            ("queue", "u1"),
            ("prob", "<f8"),
        ],
    ),
    (
        "drops",
        &[
            ("time_ns", "<u8"),
            ("link", "<u4"),
            ("flow", "<u4"),
            ("kind", "u1"),
            ("seq", "<u4"),
            ("cause", "u1"),
        ],
    ),
    (
        "hops",
        &[
            ("time_ns", "<u8"),
            ("link", "<u4"),
            ("event", "u1"),
            ("kind", "u1"),
            ("size", "<u4"),
            ("flow", "<u4"),
            ("seq", "<u4"),
            ("uid", "<u8"),
            ("ecn", "u1"),
        ],
    ),
];

/// The record layout of one trace: `(field, numpy dtype)`.
pub type Layout = &'static [(&'static str, &'static str)];

/// The traces a run can record, with their record layouts (numpy dtype strings): those of
/// fixed layout, and `cc`, whose columns after time and flow are the registered
/// controllers' declared fields ([`crate::tcp::cc::cc_columns`]).
pub static TRACES: LazyLock<Vec<(&'static str, Layout)>> = LazyLock::new(|| {
    let mut cc: Vec<(&'static str, &'static str)> = vec![("time_ns", "<u8"), ("flow", "<u4")];
    cc.extend(crate::tcp::cc::cc_columns().iter().map(|f| {
        let dtype = match f.kind {
            TraceKind::Mode => "u1",
            TraceKind::Number => "<f8",
        };
        (f.name, dtype)
    }));
    let mut traces: Vec<(&'static str, Layout)> = FIXED_TRACES.to_vec();
    traces.push(("cc", Vec::leak(cc)));
    traces
});

/// The record layout of trace `name`, if there is such a trace.
pub fn layout(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
    TRACES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, fields)| *fields)
}

/// Bytes of one packed record of `fields` (numpy dtypes `u1`, `<u4`, `<u8`, `<f8`).
pub fn record_bytes(fields: &[(&str, &str)]) -> usize {
    fields
        .iter()
        .map(
            |(_, dtype)| match dtype.trim_start_matches(['<', '>', '|']) {
                "u1" => 1,
                "u4" => 4,
                _ => 8,
            },
        )
        .sum()
}
/// The `cc` trace's `mode` code of a controller without modes.
pub const NO_MODE: u8 = u8::MAX;

/// Default cap on a trace kept in memory (when no trace directory is given).
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;

/// What a run should record, and where.
#[derive(Debug, Clone, Default)]
pub struct TraceRequest {
    /// Names of the traces to record.
    pub names: Vec<String>,
    /// Stream trace records to files in this directory instead of memory.
    pub dir: Option<PathBuf>,
    /// Write pcap files (one per link, both directions, and one per medium) into this
    /// directory.
    pub pcap_dir: Option<PathBuf>,
    /// Cap on a trace kept in memory, bytes (`None`: [`DEFAULT_MEMORY_LIMIT`]).
    pub memory_limit: Option<u64>,
}

impl TraceRequest {
    /// A request for the named traces, kept in memory.
    pub fn names(names: &[&str]) -> Self {
        TraceRequest {
            names: names.iter().map(|n| n.to_string()).collect(),
            ..TraceRequest::default()
        }
    }

    /// True if nothing is to be recorded.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.pcap_dir.is_none()
    }
}

/// A slow-start threshold as traces record it: an unset threshold (RFC 5681 §3.1's
/// "arbitrarily high" initial value, `u32::MAX` segments) is infinite, not 4294967295.
pub fn ssthresh_value(ssthresh: Window) -> f64 {
    if ssthresh.whole() == u32::MAX {
        f64::INFINITY
    } else {
        ssthresh.as_f64()
    }
}

/// Records the traces that were asked for.
#[derive(Debug, Default)]
pub struct Recorder {
    cwnd: Option<TraceSink>,
    seq: Option<TraceSink>,
    rtt: Option<TraceSink>,
    queue: Option<TraceSink>,
    drops: Option<TraceSink>,
    hops: Option<TraceSink>,
    cc: Option<TraceSink>,
    pcap: Option<PcapSet>,
}

impl Recorder {
    /// A recorder for `request`; unknown names are an error naming the allowed ones.
    pub fn new(request: &TraceRequest, pcap: Option<PcapSet>) -> Result<Self, String> {
        let mut r = Recorder {
            pcap,
            ..Recorder::default()
        };
        let limit = request.memory_limit.unwrap_or(DEFAULT_MEMORY_LIMIT);
        for name in &request.names {
            let Some(&(name, fields)) = TRACES.iter().find(|(n, _)| n == name) else {
                let allowed: Vec<&str> = TRACES.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unknown trace {name:?}; allowed: {}",
                    allowed.join(", ")
                ));
            };
            let path = request
                .dir
                .as_deref()
                .map(|d: &Path| d.join(format!(".{name}.bin")));
            let sink = Some(TraceSink::new(name, fields, path, limit)?);
            match name {
                "cwnd" => r.cwnd = sink,
                "seq" => r.seq = sink,
                "rtt" => r.rtt = sink,
                "queue" => r.queue = sink,
                "drops" => r.drops = sink,
                "cc" => r.cc = sink,
                _ => r.hops = sink,
            }
        }
        Ok(r)
    }

    /// The finished traces, by name, with their layouts, and those that stopped early (a
    /// full disk, a limit): where and why.
    pub fn finish(self) -> (Vec<FinishedTrace>, Vec<TraceFailure>) {
        let mut failures = Vec::new();
        if let Some(p) = self.pcap {
            failures.extend(p.finish());
        }
        let sinks = [
            ("cwnd", self.cwnd),
            ("seq", self.seq),
            ("rtt", self.rtt),
            ("queue", self.queue),
            ("drops", self.drops),
            ("hops", self.hops),
            ("cc", self.cc),
        ];
        let mut out = Vec::new();
        for (name, sink) in sinks {
            if let Some(s) = sink {
                s.finish_into(name, &mut out, &mut failures);
            }
        }
        (out, failures)
    }
}

impl Tracer for Recorder {
    const ENABLED: bool = true;

    fn cwnd_changed(
        &mut self,
        now: SimTime,
        flow: u32,
        cwnd: Window,
        ssthresh: Window,
        inflated: Window,
    ) {
        if let Some(s) = &mut self.cwnd {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(flow)
                    .f64(cwnd.as_f64())
                    .f64(ssthresh_value(ssthresh))
                    .f64(inflated.as_f64()),
            );
        }
    }

    fn seq_event(&mut self, now: SimTime, flow: u32, event: SeqEvent, seq: u32) {
        if let Some(s) = &mut self.seq {
            s.push(Record::new().u64(now.0).u32(flow).u8(event as u8).u32(seq));
        }
    }

    fn rtt_sample(
        &mut self,
        now: SimTime,
        flow: u32,
        rtt: SimDuration,
        srtt: SimDuration,
        rto: SimDuration,
    ) {
        if let Some(s) = &mut self.rtt {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(flow)
                    .u64(rtt.0)
                    .u64(srtt.0)
                    .u64(rto.0),
            );
        }
    }

    fn queue_changed(
        &mut self,
        now: SimTime,
        link: u32,
        packets: u32,
        bytes: u64,
        avg_packets: f64,
    ) {
        if let Some(s) = &mut self.queue {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(link)
                    .u32(packets)
                    .u64(bytes)
                    .u8(0)
                    .f64(avg_packets)
                    .u8(SubQueue::All as u8)
                    .f64(f64::NAN),
            );
        }
    }

    fn sub_queue_changed(&mut self, now: SimTime, link: u32, state: &SubQueueState) {
        if let Some(s) = &mut self.queue {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(link)
                    .u32(state.packets)
                    .u64(state.bytes)
                    .u8(0)
                    .f64(f64::NAN)
                    .u8(state.queue as u8)
                    .f64(state.prob),
            );
        }
    }

    fn marked(
        &mut self,
        now: SimTime,
        link: u32,
        packets: u32,
        bytes: u64,
        avg_packets: f64,
        _: &Packet,
    ) {
        // A row of its own, flagged, at the queue's length when the mark was made.
        if let Some(s) = &mut self.queue {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(link)
                    .u32(packets)
                    .u64(bytes)
                    .u8(1)
                    .f64(avg_packets)
                    .u8(SubQueue::All as u8)
                    .f64(f64::NAN),
            );
        }
    }

    fn dropped(&mut self, now: SimTime, link: u32, p: &Packet, cause: DropCause) {
        if let Some(s) = &mut self.drops {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(link)
                    .u32(p.flow)
                    .u8(kind_code(p.kind))
                    .u32(p.seq)
                    .u8(cause as u8),
            );
        }
    }

    fn hop(&mut self, now: SimTime, link: u32, event: HopEvent, p: &Packet, uid: u32) {
        if let Some(s) = &mut self.hops {
            s.push(
                Record::new()
                    .u64(now.0)
                    .u32(link)
                    .u8(event as u8)
                    .u8(kind_code(p.kind))
                    .u32(p.size)
                    .u32(p.flow)
                    .u32(p.seq)
                    .u64(uid as u64)
                    .u8(p.ecn.field()),
            );
        }
        if event == HopEvent::Dequeue {
            if let Some(pcap) = &mut self.pcap {
                pcap.record(now, link, p);
            }
        }
    }

    fn air_frame(&mut self, medium: u32, frame: &AirFrame, from: u32, to: u32) {
        if let Some(pcap) = &mut self.pcap {
            pcap.record_air(medium, frame, from, to);
        }
    }

    fn flow_added(&mut self, flow: u32, capture: PcapFlow) {
        if let Some(pcap) = &mut self.pcap {
            pcap.add_flow(flow, capture);
        }
    }

    fn cc_changed(&mut self, now: SimTime, flow: u32, c: &CcState) {
        if let Some(s) = &mut self.cc {
            s.push(cc_record(now, flow, c));
        }
    }
}

/// The `cc` trace's record of `flow`'s controller state `c` at `now`: time, flow, and one
/// value per column of [`crate::tcp::cc::cc_columns`] (also written by the emulator from the
/// kernel's `TCP_INFO`).
pub fn cc_record(now: SimTime, flow: u32, c: &CcState) -> CcRecord {
    let mut record = CcRecord::new().u64(now.0).u32(flow);
    for (i, column) in crate::tcp::cc::cc_columns().iter().enumerate() {
        record = match column.kind {
            TraceKind::Mode => record.u8(c.mode(i)),
            TraceKind::Number => record.f64(c.value(i)),
        };
    }
    record
}

/// A `cc` trace record: time, flow, and at most `MAX_CC_COLUMNS` values of 8 bytes.
pub type CcRecord = sink::RecordOf<{ 12 + 8 * crate::tcp::cc::registry::MAX_CC_COLUMNS }>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_indexes_its_name() {
        let seq = [
            (SeqEvent::Sent, "sent"),
            (SeqEvent::Retransmitted, "retransmitted"),
            (SeqEvent::Acked, "acked"),
            (SeqEvent::Dropped, "dropped"),
            (SeqEvent::AckDropped, "ack_dropped"),
            (SeqEvent::Received, "received"),
        ];
        for (event, name) in seq {
            assert_eq!(SEQ_EVENT_NAMES[event as usize], name);
        }
        let hops = [
            (HopEvent::Enqueue, "enqueue"),
            (HopEvent::Dequeue, "dequeue"),
            (HopEvent::Receive, "receive"),
            (HopEvent::Drop, "drop"),
            (HopEvent::Retry, "retry"),
        ];
        for (event, name) in hops {
            assert_eq!(HOP_EVENT_NAMES[event as usize], name);
        }
        let kinds = [
            (PacketKind::Data, "data"),
            (PacketKind::Ack, "ack"),
            (PacketKind::Syn, "syn"),
            (PacketKind::SynAck, "synack"),
            (PacketKind::Datagram, "datagram"),
        ];
        for (kind, name) in kinds {
            assert_eq!(PACKET_KIND_NAMES[kind_code(kind) as usize], name);
        }
        let causes = [
            (DropCause::Overflow, "overflow"),
            (DropCause::Early, "early"),
            (DropCause::Aqm, "aqm"),
            (DropCause::BitError, "bit_error"),
            (DropCause::Random, "random"),
            (DropCause::Burst, "burst"),
            (DropCause::Scripted, "scripted"),
            (DropCause::RetryLimit, "retry_limit"),
        ];
        for (cause, name) in causes {
            assert_eq!(DROP_CAUSE_NAMES[cause as usize], name);
        }
    }

    #[test]
    fn coded_columns_are_fields_of_their_traces() {
        for (trace, column, _) in CODED_COLUMNS.iter() {
            let (_, fields) = TRACES
                .iter()
                .find(|(name, _)| name == trace)
                .expect("a known trace");
            let (_, dtype) = fields
                .iter()
                .find(|(name, _)| name == column)
                .expect("a field of the trace");
            assert_eq!(*dtype, "u1", "{trace}.{column} is a one-byte code");
        }
    }
}
