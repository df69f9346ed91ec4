//! Observability through typed events.
//!
//! The engine reports what happens through a [`Tracer`]. [`NoTrace`] has empty inline methods
//! and `ENABLED = false`, so with tracing off the engine compiles to code with no tracing cost
//! at all; [`Recorder`] keeps the requested series as columns for Python to wrap.

use crate::tcp::Window;
use crate::time::SimTime;

/// Names of the traces a run can record.
pub const TRACE_NAMES: &[&str] = &["cwnd"];

/// Receives trace events from the engine.
pub trait Tracer {
    /// False for a tracer that records nothing; lets the engine skip work that only feeds traces.
    const ENABLED: bool;
    /// A flow's congestion window or slow-start threshold changed.
    fn cwnd_changed(&mut self, now: SimTime, flow: u32, cwnd: Window, ssthresh: Window);
}

/// Records nothing, costs nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Tracer for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn cwnd_changed(&mut self, _: SimTime, _: u32, _: Window, _: Window) {}
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
}

impl Recorder {
    /// A recorder for the named traces; unknown names are an error naming the allowed ones.
    pub fn for_traces<S: AsRef<str>>(names: &[S]) -> Result<Self, String> {
        let mut r = Recorder::default();
        for name in names {
            match name.as_ref() {
                "cwnd" => r.cwnd = Some(CwndSeries::default()),
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
}
