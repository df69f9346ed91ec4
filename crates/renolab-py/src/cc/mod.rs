//! Congestion controllers written in Python (`renolab.cc.CongestionControl` subclasses),
//! run by the engine as the custom arm of its controller enum
//! (`renolab_core::tcp::cc::custom`).
//!
//! How a run with Python controllers goes, and why it is fast:
//!
//! - `run` keeps the GIL for the whole run: the engine calls Python on every ACK, and
//!   taking the GIL each time would cost more than the call. A hook therefore takes its GIL
//!   token without asking (see [`attached`]).
//! - Per flow, the binding builds the user's object once (`Class(**arguments)`, the flow's
//!   options that are not the sender's), and three objects it reuses for every call: `conn`,
//!   `ack` and `event` ([`objects`]), plain C structs whose fields Python reads and sets
//!   through member descriptors and the engine with loads and stores. The argument tuples
//!   `(conn,)`, `(conn, ack)` and `(conn, event)` are built once, and the bound methods of
//!   the hooks looked up once. No Python object is allocated per ACK but the floats the
//!   controller itself makes, and those of a new RTT sample.
//! - Only the hooks a class overrides are called (the Python side lists them).
//! - The engine's window is fixed point (1/2^32 segment). `conn.cwnd` is a float holding
//!   it exactly (every such window below 2^21 segments is a float); a value the controller
//!   sets is rounded down to the engine's resolution (`Window::from_f64`). Only a changed
//!   value is converted, so a window the controller leaves alone stays exact at any size.
//!
//! A Python exception, or a window that is NaN, negative or below one segment, ends the
//! run: the controller unwinds with a [`ControllerFailure`] (the engine has no error path
//! through its hooks), which `run` catches and raises as `SimulationError` (kind
//! `"controller"`): one line naming the class, the method and the simulated time; the
//! user's traceback in `user_traceback`; the exception as the cause.

mod objects;
mod trace;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use renolab_core::scenario::Scenario;
use renolab_core::tcp::cc::{
    AckSample, CcEvent, Congestion, CongestionControl, ControllerFactory, CustomInit,
};
use renolab_core::tcp::Window;
use renolab_core::time::{SimDuration, SimTime};
use renolab_core::units::BitsPerSec;

use objects::{AckObject, Conn, EventObject, Read, MIN_CWND_SEGMENTS};
pub use trace::{merge_records, CcTrace};
use trace::{TraceError, Traced};

/// The smallest threshold a flow starts with and the loss recovery may set (RFC 5681 eq.
/// 4's floor of 2 * SMSS), as the built-in controllers keep it.
const MIN_SSTHRESH_SEGMENTS: u32 = 2;

/// The hooks' names, in the order the Python base class lists them (`renolab.cc.HOOKS`).
pub const HOOKS: &[&str] = &[
    "on_start",
    "on_ack",
    "on_congestion",
    "on_ack_sample",
    "on_dup_ack",
    "on_sent",
    "on_recovery_end",
    "on_undo",
    "on_tx_start",
    "on_syn_ack",
];

/// The GIL token in a hook.
///
/// A [`PyController`] is built only by [`PyFactory`], which holds a token, inside `run`,
/// which holds the GIL (it never detaches with Python controllers) until `run_with` returns;
/// the controllers live in the simulation `run_with` owns, on this thread, and are dropped
/// before it returns. Every hook thus runs attached, and asking PyO3 again (a thread-local
/// access per call) would only cost time.
#[inline(always)]
fn attached() -> Python<'static> {
    // SAFETY: see above: the hooks run only while `run` holds the GIL on this thread.
    unsafe { Python::assume_attached() }
}

/// The bound methods of the hooks a class overrides.
#[derive(Default)]
struct Hooks {
    on_start: Option<Py<PyAny>>,
    on_ack: Option<Py<PyAny>>,
    on_congestion: Option<Py<PyAny>>,
    on_ack_sample: Option<Py<PyAny>>,
    on_dup_ack: Option<Py<PyAny>>,
    on_sent: Option<Py<PyAny>>,
    on_recovery_end: Option<Py<PyAny>>,
    on_undo: Option<Py<PyAny>>,
    on_tx_start: Option<Py<PyAny>>,
    on_syn_ack: Option<Py<PyAny>>,
}

impl Hooks {
    fn slot(&mut self, name: &str) -> Option<&mut Option<Py<PyAny>>> {
        Some(match name {
            "on_start" => &mut self.on_start,
            "on_ack" => &mut self.on_ack,
            "on_congestion" => &mut self.on_congestion,
            "on_ack_sample" => &mut self.on_ack_sample,
            "on_dup_ack" => &mut self.on_dup_ack,
            "on_sent" => &mut self.on_sent,
            "on_recovery_end" => &mut self.on_recovery_end,
            "on_undo" => &mut self.on_undo,
            "on_tx_start" => &mut self.on_tx_start,
            "on_syn_ack" => &mut self.on_syn_ack,
            _ => return None,
        })
    }
}

/// Why a Python controller stopped the run: the payload it unwinds with.
pub struct ControllerFailure {
    /// One line: class, method, simulated time, what went wrong.
    pub message: String,
    /// The exception the user's code raised, if that was the failure.
    pub error: Option<PyErr>,
}

/// Ends the run: unwinds to `run` with the failure (no panic hook runs).
fn fail(message: String, error: Option<PyErr>) -> ! {
    std::panic::resume_unwind(Box::new(ControllerFailure { message, error }))
}

/// `Type: message` of an exception, on one line.
fn describe(py: Python<'_>, err: &PyErr) -> String {
    let value = err.value(py);
    let kind = value
        .get_type()
        .qualname()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let text = value.str().map(|s| s.to_string()).unwrap_or_default();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        kind
    } else {
        format!("{kind}: {text}")
    }
}

/// A float as Python writes it (`nan`, `inf`, `-3.0`), for messages.
fn py_float(x: f64) -> String {
    match x {
        x if x.is_nan() => "nan".into(),
        x if x.is_infinite() => if x > 0.0 { "inf" } else { "-inf" }.into(),
        x => format!("{x:?}"),
    }
}

/// Is `err` Ctrl-C (a `KeyboardInterrupt` raised in the user's code while it ran)?
pub fn is_interrupt(py: Python<'_>, err: &PyErr) -> bool {
    err.is_instance_of::<PyKeyboardInterrupt>(py)
}

/// A Python controller, as the engine runs it.
pub struct PyController {
    cwnd: Window,
    ssthresh: Window,
    pacing: Option<BitsPerSec>,
    /// The flow paces (`options.pacing`): only then may the controller set a rate.
    paces: bool,
    /// The last smoothed RTT and the smallest RTT, for the ACKs that carry none.
    srtt: Option<SimDuration>,
    min_rtt: Option<SimDuration>,
    flow: u32,
    class: String,
    object: Py<PyAny>,
    conn: Conn,
    ack: AckObject,
    event: EventObject,
    /// `(conn,)`, `(conn, ack)` and `(conn, event)`, built once.
    conn_args: Py<PyTuple>,
    ack_args: Py<PyTuple>,
    event_args: Py<PyTuple>,
    hooks: Hooks,
    traced: Option<Traced>,
    /// Calls into Python by this controller, added to the run's count when it is dropped
    /// (an atomic add per call would cost more than the rest of the bookkeeping).
    calls: u64,
    run_calls: Arc<AtomicU64>,
}

impl Drop for PyController {
    fn drop(&mut self) {
        self.run_calls.fetch_add(self.calls, Ordering::Relaxed);
    }
}

impl PyController {
    /// `Class.method at t = ... s`, for messages.
    fn place(&self, method: &str, now: SimTime) -> String {
        format!("{}.{method} at t = {now} s", self.class)
    }

    /// Calls Python (`invoke`, which calls a hook of the controller): the engine's state into
    /// `conn` before, what the controller set out of it after.
    #[inline]
    fn call<'py>(
        &mut self,
        py: Python<'py>,
        method: &str,
        now: SimTime,
        invoke: impl FnOnce(&Self, Python<'py>) -> PyResult<Bound<'py, PyAny>>,
    ) {
        self.conn.put(
            py,
            self.cwnd.as_f64(),
            self.ssthresh.as_f64(),
            now.0,
            now.as_secs_f64(),
        );
        self.calls += 1;
        if let Err(err) = invoke(self, py) {
            let message = format!("{}: {}", self.place(method, now), describe(py, &err));
            fail(message, Some(err));
        }
        match self.conn.cwnd(py) {
            Read::Unchanged => {}
            Read::Set(cwnd) if cwnd >= MIN_CWND_SEGMENTS && cwnd.is_finite() => {
                self.cwnd = Window::from_f64(cwnd);
            }
            Read::Set(cwnd) => fail(
                format!(
                    "{}: conn.cwnd = {}; a window is a finite number of segments, at least {MIN_CWND_SEGMENTS}",
                    self.place(method, now),
                    py_float(cwnd)
                ),
                None,
            ),
            Read::Invalid(err) => self.not_a_number(py, method, now, "conn.cwnd", err),
        }
        match self.conn.ssthresh(py) {
            Read::Unchanged => {}
            Read::Set(ssthresh) if ssthresh >= 0.0 => self.ssthresh = Window::from_f64(ssthresh),
            Read::Set(ssthresh) => fail(
                format!(
                    "{}: conn.ssthresh = {}; a threshold is a number of segments, at least 0",
                    self.place(method, now),
                    py_float(ssthresh)
                ),
                None,
            ),
            Read::Invalid(err) => self.not_a_number(py, method, now, "conn.ssthresh", err),
        }
        match self.conn.pacing_rate(py) {
            None => {}
            Some(Ok(None)) => self.pacing = None,
            Some(Ok(Some(bps))) if !(bps > 0.0 && bps.is_finite()) => fail(
                format!(
                    "{}: conn.pacing_rate_bps = {}; a rate is a positive number of bits per second, or None",
                    self.place(method, now),
                    py_float(bps)
                ),
                None,
            ),
            Some(Ok(Some(_))) if !self.paces => fail(
                format!(
                    "{}: conn.pacing_rate_bps is set but the flow does not pace; set options.pacing = true",
                    self.place(method, now)
                ),
                None,
            ),
            Some(Ok(Some(bps))) => self.pacing = Some(BitsPerSec(bps as u64)),
            Some(Err(err)) => self.not_a_number(py, method, now, "conn.pacing_rate_bps", err),
        }
        if self.traced.is_some() {
            self.record(py, method, now);
        }
    }

    /// Ends the run: `field` was set to something that is not a number (`err`), or deleted.
    fn not_a_number(
        &self,
        py: Python<'_>,
        method: &str,
        now: SimTime,
        field: &str,
        err: Option<PyErr>,
    ) -> ! {
        let why = match &err {
            Some(err) => format!("is not a number: {}", describe(py, err)),
            None => "was deleted".to_string(),
        };
        fail(format!("{}: {field} {why}", self.place(method, now)), err)
    }

    /// Records the `cc` trace after a call of `method`.
    fn record(&mut self, py: Python<'_>, method: &str, now: SimTime) {
        let Some(traced) = &mut self.traced else {
            return;
        };
        match traced.record(py, &self.object, self.flow, now) {
            Ok(()) => {}
            Err(TraceError::Unreadable(name, err)) => {
                let message = format!(
                    "{}: traced attribute {name} cannot be read: {}",
                    self.place(method, now),
                    describe(py, &err)
                );
                fail(message, Some(err))
            }
            Err(TraceError::NotANumber(name, shown)) => fail(
                format!(
                    "{}: traced attribute {name} is {shown}; a traced value is a number or None",
                    self.place(method, now)
                ),
                None,
            ),
        }
    }

    /// Calls `hook(conn)` if the class overrides it.
    #[inline]
    fn call_conn(&mut self, method: &str, now: SimTime, hook: fn(&Hooks) -> &Option<Py<PyAny>>) {
        if hook(&self.hooks).is_some() {
            self.call(attached(), method, now, |c, py| {
                let hook = hook(&c.hooks).as_ref().expect("checked");
                hook.bind(py).call1(c.conn_args.bind(py))
            });
        }
    }

    /// Calls `hook(conn, *values)` if the class overrides it.
    fn call_values<V>(
        &mut self,
        method: &str,
        now: SimTime,
        hook: fn(&Hooks) -> &Option<Py<PyAny>>,
        values: V,
    ) where
        V: for<'py> FnOnce(Python<'py>, &Py<PyAny>) -> PyResult<Bound<'py, PyTuple>>,
    {
        if hook(&self.hooks).is_some() {
            self.call(attached(), method, now, |c, py| {
                let hook = hook(&c.hooks).as_ref().expect("checked");
                hook.bind(py).call1(values(py, c.conn.object())?)
            });
        }
    }

    /// Calls `hook(conn, ack)` for `sample` if the class overrides it.
    #[inline]
    fn call_ack(
        &mut self,
        method: &str,
        sample: &AckSample,
        hook: fn(&Hooks) -> &Option<Py<PyAny>>,
    ) {
        if hook(&self.hooks).is_some() {
            let py = attached();
            self.ack.put(py, sample, self.min_rtt, self.srtt);
            self.call(py, method, sample.now, |c, py| {
                let hook = hook(&c.hooks).as_ref().expect("checked");
                hook.bind(py).call1(c.ack_args.bind(py))
            });
        }
    }

    /// Keeps the last smoothed RTT and the smallest RTT, for the ACKs that carry none.
    #[inline]
    fn note_rtts(&mut self, sample: &AckSample) {
        if sample.srtt.is_some() {
            self.srtt = sample.srtt;
        }
        self.min_rtt = match (sample.min_rtt, sample.rtt, self.min_rtt) {
            (Some(m), _, _) => Some(m),
            (None, Some(r), Some(m)) => Some(r.min(m)),
            (None, Some(r), None) => Some(r),
            (None, None, m) => m,
        };
    }
}

impl CongestionControl for PyController {
    fn cwnd(&self) -> Window {
        self.cwnd
    }
    fn ssthresh(&self) -> Window {
        self.ssthresh
    }
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        self.pacing
    }
    fn set_cwnd(&mut self, cwnd: Window) {
        // As the built-ins: loss recovery never takes the window below one segment.
        self.cwnd = cwnd.max(Window::segments(1));
    }
    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.max(Window::segments(MIN_SSTHRESH_SEGMENTS));
    }
    fn on_ack_sample(&mut self, sample: &AckSample) {
        self.note_rtts(sample);
        self.call_ack("on_ack_sample", sample, |h| &h.on_ack_sample);
    }
    fn on_ack(&mut self, sample: &AckSample) {
        if sample.rate.is_none() {
            // Outside the linux recovery no on_ack_sample came first.
            self.note_rtts(sample);
        }
        self.call_ack("on_ack", sample, |h| &h.on_ack);
    }
    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        if self.hooks.on_congestion.is_some() {
            let py = attached();
            self.event.put(py, event, window);
            self.call(py, "on_congestion", now, |c, py| {
                let hook = c.hooks.on_congestion.as_ref().expect("checked");
                hook.bind(py).call1(c.event_args.bind(py))
            });
        }
    }
    fn undo_cwnd(&mut self, now: SimTime) -> Window {
        self.call_conn("on_undo", now, |h| &h.on_undo);
        self.cwnd
    }
    /// The events, each to the hook of its name.
    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        match event {
            CcEvent::Sent { seq, retransmit } => self.call_values(
                "on_sent",
                now,
                |h| &h.on_sent,
                |py, conn| (conn.clone_ref(py), seq, retransmit).into_pyobject(py),
            ),
            CcEvent::DupAck => self.call_conn("on_dup_ack", now, |h| &h.on_dup_ack),
            CcEvent::RecoveryEnd => self.call_conn("on_recovery_end", now, |h| &h.on_recovery_end),
            CcEvent::TxStart { idle } => self.call_values(
                "on_tx_start",
                now,
                |h| &h.on_tx_start,
                |py, conn| (conn.clone_ref(py), idle.as_secs_f64()).into_pyobject(py),
            ),
            CcEvent::SynAck { rtt } => self.call_values(
                "on_syn_ack",
                now,
                |h| &h.on_syn_ack,
                |py, conn| (conn.clone_ref(py), rtt.as_secs_f64()).into_pyobject(py),
            ),
            // Only for controllers that set the window themselves, which Python's do not.
            CcEvent::SegmentLost { .. } | CcEvent::LossProbeRecovery { .. } => {}
        }
    }
}

/// What the Python side says of one flow's controller: its class, the hooks the class
/// overrides and the attributes it traces.
pub struct ControllerClass {
    class: Py<PyAny>,
    hooks: Vec<String>,
    trace: Vec<String>,
}

impl<'a, 'py> FromPyObject<'a, 'py> for ControllerClass {
    type Error = PyErr;
    fn extract(ob: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let (class, hooks, trace): (Bound<'py, PyAny>, Vec<String>, Vec<String>) = ob.extract()?;
        Ok(ControllerClass {
            class: class.unbind(),
            hooks,
            trace,
        })
    }
}

/// Builds the Python controllers of a run from the classes the Python side resolved.
pub struct PyFactory<'py> {
    py: Python<'py>,
    classes: HashMap<u32, ControllerClass>,
    /// The run's `cc` trace, when it was asked for.
    pub trace: Option<Arc<Mutex<CcTrace>>>,
    /// Calls into Python so far, all controllers together.
    pub calls: Arc<AtomicU64>,
}

impl<'py> PyFactory<'py> {
    /// A factory for `classes` (by flow index); `trace`: record the `cc` trace.
    pub fn new(py: Python<'py>, classes: HashMap<u32, ControllerClass>, trace: bool) -> Self {
        let trace = trace.then(|| {
            // The columns in flow order, decided before any controller exists.
            let mut t = CcTrace::default();
            let mut flows: Vec<_> = classes.iter().collect();
            flows.sort_by_key(|(flow, _)| **flow);
            for (_, c) in flows {
                for name in &c.trace {
                    t.column(name);
                }
            }
            Arc::new(Mutex::new(t))
        });
        PyFactory {
            py,
            classes,
            trace,
            calls: Arc::default(),
        }
    }

    /// Checks that every flow with a Python controller has its class, before the run.
    pub fn check(&self, scenario: &Scenario) -> Result<(), String> {
        for (i, flow) in scenario.flows.iter().enumerate() {
            if let Some(c) = flow.custom_cc() {
                if !self.classes.contains_key(&(i as u32)) {
                    return Err(format!(
                        "flow[{i}].variant: no class was given for {:?}",
                        c.reference
                    ));
                }
            }
        }
        Ok(())
    }

    /// The object (`Class(**arguments)`) and the reused objects of one flow.
    fn build_controller(&mut self, init: &CustomInit<'_>) -> PyResult<PyController> {
        let py = self.py;
        let spec = self
            .classes
            .get(&init.flow)
            .expect("checked before the run: every Python flow has its class");
        let class = spec.class.bind(py);
        // As renolab.cc.load.class_name(): a local class without its function.
        let class_name = class
            .getattr(intern!(py, "__qualname__"))
            .and_then(|n| n.extract::<String>())
            .map(|n| {
                n.rsplit(".<locals>.")
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .unwrap_or_else(|_| "controller".into());
        let kwargs = PyDict::new(py);
        let loads = py
            .import(intern!(py, "json"))?
            .getattr(intern!(py, "loads"))?;
        for (key, value) in init.args {
            kwargs.set_item(key, loads.call1((value.to_string(),))?)?;
        }
        let object = match class.call((), Some(&kwargs)) {
            Ok(o) => o,
            Err(err) => {
                let message = format!(
                    "{class_name}.__init__ at t = {} s: {}",
                    init.start,
                    describe(py, &err)
                );
                fail(message, Some(err))
            }
        };
        let mut hooks = Hooks::default();
        for name in &spec.hooks {
            if let Some(slot) = hooks.slot(name) {
                *slot = Some(object.getattr(name.as_str())?.unbind());
            }
        }
        let cwnd = Window::segments(init.initial_window.max(1));
        let ssthresh = Window::segments(init.initial_ssthresh.max(MIN_SSTHRESH_SEGMENTS));
        let conn = Conn::new(
            py,
            init.flow_name,
            init.profile,
            init.mss,
            cwnd.as_f64(),
            ssthresh.as_f64(),
        )?;
        let ack = AckObject::new(py, init.mss)?;
        let event = EventObject::new(py)?;
        let conn_args = PyTuple::new(py, [conn.object()])?.unbind();
        let ack_args = PyTuple::new(py, [conn.object(), ack.object()])?.unbind();
        let event_args = PyTuple::new(py, [conn.object(), event.object()])?.unbind();
        let traced = match &self.trace {
            Some(trace) if !spec.trace.is_empty() => Some(Traced::new(py, &spec.trace, trace)),
            _ => None,
        };
        Ok(PyController {
            cwnd,
            ssthresh,
            pacing: None,
            paces: init.pacing,
            srtt: None,
            min_rtt: None,
            flow: init.flow,
            class: class_name,
            object: object.unbind(),
            conn,
            ack,
            event,
            conn_args,
            ack_args,
            event_args,
            hooks,
            traced,
            calls: 0,
            run_calls: self.calls.clone(),
        })
    }
}

impl ControllerFactory for PyFactory<'_> {
    fn build(&mut self, init: &CustomInit<'_>) -> Box<dyn CongestionControl + Send> {
        let py = self.py;
        let mut controller = match self.build_controller(init) {
            Ok(c) => c,
            Err(err) => {
                let message = format!(
                    "flow {}: the controller could not be set up: {}",
                    init.flow_name,
                    describe(py, &err)
                );
                fail(message, Some(err))
            }
        };
        if controller.hooks.on_start.is_some() {
            controller.call_conn("on_start", init.start, |h| &h.on_start);
        } else {
            controller.record(py, "on_start", init.start);
        }
        Box::new(controller)
    }
}

/// `merge_records` for the tests: the merged layout and records of two packed traces.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn _merge_trace_records(
    first_fields: Vec<(String, String)>,
    first: Vec<u8>,
    second_fields: Vec<(String, String)>,
    second: Vec<u8>,
) -> (Vec<(String, String)>, Vec<u8>) {
    merge_records((&first_fields, &first), (&second_fields, &second))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    objects::register(m)?;
    // For the tests only: an attribute, not in __all__ (nor the stub).
    m.setattr(
        "_merge_trace_records",
        wrap_pyfunction!(_merge_trace_records, m)?,
    )?;
    m.add("CC_HOOKS", HOOKS.to_vec())
}
