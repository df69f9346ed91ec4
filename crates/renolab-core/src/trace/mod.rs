//! Observability through typed events.
//!
//! The engine reports what happens through a [`Tracer`]. [`NoTrace`] has empty inline methods
//! and `ENABLED = false`, so with tracing off the engine compiles to code with no tracing cost
//! at all; [`Recorder`] keeps the requested series as columns for Python to wrap.

use crate::tcp::Window;
use crate::time::SimTime;

/// Names of the traces a run can record.
pub const TRACE_NAMES: &[&str] = &["cwnd", "seq"];

/// Receives trace events from the engine.
pub trait Tracer {
    /// False for a tracer that records nothing; lets the engine skip work that only feeds traces.
    const ENABLED: bool;
    /// A flow's congestion window or slow-start threshold changed.
    fn cwnd_changed(&mut self, now: SimTime, flow: u32, cwnd: Window, ssthresh: Window);
    /// Something happened to a segment of a flow (see [`SeqEvent`]).
    fn seq_event(&mut self, now: SimTime, flow: u32, event: SeqEvent, seq: u32);
}

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
}

impl SeqEvent {
    /// Names used in trace files, indexed by the event's code.
    pub const NAMES: [&'static str; 5] =
        ["sent", "retransmitted", "acked", "dropped", "ack_dropped"];
}

/// Records nothing, costs nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Tracer for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn cwnd_changed(&mut self, _: SimTime, _: u32, _: Window, _: Window) {}
    #[inline(always)]
    fn seq_event(&mut self, _: SimTime, _: u32, _: SeqEvent, _: u32) {}
}

/// The time-sequence series as columns: one row per segment event.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SeqSeries {
    /// Time of the event, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// Event code ([`SeqEvent`] as `u8`).
    pub event: Vec<u8>,
    /// Segment number (or cumulative ACK for ACK events).
    pub seq: Vec<u32>,
}

/// The cwnd series as columns: one row per change.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CwndSeries {
    /// Time of the change, ns.
    pub time_ns: Vec<u64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// Congestion window, segments.
    pub cwnd: Vec<f64>,
    /// Slow-start threshold, segments (`u32::MAX` when still "infinite").
    pub ssthresh: Vec<f64>,
}

/// Keeps the series that were asked for.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Recorder {
    /// The cwnd series, if requested.
    pub cwnd: Option<CwndSeries>,
    /// The time-sequence series, if requested.
    pub seq: Option<SeqSeries>,
}

impl Recorder {
    /// A recorder for the named traces; unknown names are an error naming the allowed ones.
    pub fn for_traces<S: AsRef<str>>(names: &[S]) -> Result<Self, String> {
        let mut r = Recorder::default();
        for name in names {
            match name.as_ref() {
                "cwnd" => r.cwnd = Some(CwndSeries::default()),
                "seq" => r.seq = Some(SeqSeries::default()),
                other => {
                    return Err(format!(
                        "unknown trace {other:?}; allowed: {}",
                        TRACE_NAMES.join(", ")
                    ))
                }
            }
        }
        Ok(r)
    }
}

impl Tracer for Recorder {
    const ENABLED: bool = true;
    fn cwnd_changed(&mut self, now: SimTime, flow: u32, cwnd: Window, ssthresh: Window) {
        if let Some(s) = &mut self.cwnd {
            s.time_ns.push(now.0);
            s.flow.push(flow);
            s.cwnd.push(cwnd.as_f64());
            s.ssthresh.push(ssthresh.as_f64());
        }
    }
    fn seq_event(&mut self, now: SimTime, flow: u32, event: SeqEvent, seq: u32) {
        if let Some(s) = &mut self.seq {
            s.time_ns.push(now.0);
            s.flow.push(flow);
            s.event.push(event as u8);
            s.seq.push(seq);
        }
    }
}
