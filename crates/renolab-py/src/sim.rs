//! Running a scenario from Python: releases the GIL, returns plain columns.
//!
//! Per-flow and per-link tables come back as dicts of lists (a few rows); trace series come
//! back as little-endian byte buffers that Python wraps with `numpy.frombuffer`, so no numpy
//! or arrow crate is compiled here.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use renolab_core::sim::{run_with, RunError, RunOutput};
use renolab_core::tcp::cc::NoCustomControllers;
use renolab_core::time::SimTime;
use renolab_core::trace::{TraceData, TraceRequest, TRACES};

use renolab_core::Scenario;

use crate::cc::{
    is_interrupt, merge_records, CcTrace, ControllerClass, ControllerFailure, PyFactory,
};
use crate::errors::{
    catch_unwind, panic_error, seed_of, simulation_error, test_panic_hook, Panic, ScenarioError,
    SimulationError,
};
use crate::memory;

/// Sets column `name` of `table` from the rows of `rows`.
fn column<'py, R, V: IntoPyObject<'py>>(
    table: &Bound<'py, PyDict>,
    name: &str,
    rows: &[R],
    value: impl Fn(&R) -> V,
) -> PyResult<()>
where
    Vec<V>: IntoPyObject<'py>,
{
    table.set_item(name, rows.iter().map(value).collect::<Vec<V>>())
}

pub(crate) fn to_python<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let secs = |t: Option<renolab_core::time::SimTime>| t.map(|t| t.as_secs_f64());
    let flows = PyDict::new(py);
    let f = &out.flows[..];
    column(&flows, "flow", f, |r| r.flow.clone())?;
    column(&flows, "variant", f, |r| r.variant)?;
    column(&flows, "src", f, |r| r.src.clone())?;
    column(&flows, "dst", f, |r| r.dst.clone())?;
    column(&flows, "bytes_delivered", f, |r| r.bytes_delivered)?;
    column(&flows, "completion_time_s", f, |r| r.completion_time_s())?;
    column(&flows, "throughput_bps", f, |r| r.throughput_bps())?;
    column(&flows, "retransmits", f, |r| r.retransmits)?;
    column(&flows, "timeouts", f, |r| r.timeouts)?;
    column(&flows, "fast_retransmits", f, |r| r.fast_retransmits)?;
    column(&flows, "drops", f, |r| r.drops)?;
    column(&flows, "data_drops", f, |r| r.data_drops)?;
    column(&flows, "ack_drops", f, |r| r.ack_drops)?;
    column(&flows, "segments_sent", f, |r| r.segments_sent)?;
    column(&flows, "segments_delivered", f, |r| r.segments_delivered)?;
    column(&flows, "first_send_s", f, |r| secs(r.first_send))?;
    column(&flows, "finish_s", f, |r| secs(r.finish))?;
    column(&flows, "mean_latency_s", f, |r| r.mean_latency_s)?;
    column(&flows, "ecn_marks", f, |r| r.ecn_marks)?;
    column(&flows, "cwnd_reductions", f, |r| r.cwnd_reductions)?;
    column(&flows, "latency_p50_s", f, |r| r.latency_p50_s)?;
    column(&flows, "latency_p99_s", f, |r| r.latency_p99_s)?;
    column(&flows, "jitter_s", f, |r| r.jitter_s)?;
    column(&flows, "mean_rtt_s", f, |r| r.mean_rtt_s)?;
    column(&flows, "rtt_p50_s", f, |r| r.rtt_p50_s)?;
    column(&flows, "rtt_p99_s", f, |r| r.rtt_p99_s)?;
    column(&flows, "mean_queue_delay_s", f, |r| r.mean_queue_delay_s)?;
    column(&flows, "size_bytes", f, |r| r.size_bytes)?;
    column(&flows, "fct_s", f, |r| r.fct_s())?;
    column(&flows, "ideal_fct_s", f, |r| r.ideal_fct_s())?;
    column(&flows, "slowdown", f, |r| r.slowdown())?;

    let links = PyDict::new(py);
    let l = &out.links[..];
    column(&links, "link", l, |r| r.link.clone())?;
    column(&links, "from", l, |r| r.from.clone())?;
    column(&links, "to", l, |r| r.to.clone())?;
    column(&links, "packets_sent", l, |r| r.packets_sent)?;
    column(&links, "bytes_sent", l, |r| r.bytes_sent)?;
    column(&links, "queue_drops", l, |r| r.queue_drops)?;
    column(&links, "loss_drops", l, |r| r.loss_drops)?;
    column(&links, "overflow_drops", l, |r| r.stats.overflow_drops)?;
    column(&links, "early_drops", l, |r| r.stats.early_drops)?;
    column(&links, "aqm_drops", l, |r| r.stats.aqm_drops)?;
    column(&links, "bit_error_drops", l, |r| r.stats.bit_error_drops)?;
    column(&links, "random_drops", l, |r| r.stats.random_drops)?;
    column(&links, "scripted_drops", l, |r| r.stats.scripted_drops)?;
    column(&links, "utilisation", l, |r| r.utilisation)?;
    column(&links, "max_queue", l, |r| r.max_queue)?;
    column(&links, "marks", l, |r| r.stats.marks)?;
    column(&links, "l_packets", l, |r| r.dual.l_packets)?;
    column(&links, "l_marks", l, |r| r.dual.l_marks)?;
    column(&links, "l_step_marks", l, |r| r.dual.l_step_marks)?;
    column(&links, "l_drops", l, |r| r.dual.l_drops)?;
    column(&links, "c_packets", l, |r| r.dual.c_packets)?;
    column(&links, "c_marks", l, |r| r.dual.c_marks)?;
    column(&links, "c_drops", l, |r| r.dual.c_drops)?;
    column(&links, "mean_queue_delay_s", l, |r| r.mean_queue_delay_s)?;
    column(&links, "queue_delay_p50_s", l, |r| r.queue_delay_p50_s)?;
    column(&links, "queue_delay_p99_s", l, |r| r.queue_delay_p99_s)?;
    column(&links, "mean_queue_packets", l, |r| r.mean_queue_packets)?;
    column(&links, "outage_drops", l, |r| r.stats.outage_drops)?;

    let stations = PyDict::new(py);
    let st = &out.stations[..];
    if !st.is_empty() {
        column(&stations, "station", st, |r| r.station.clone())?;
        column(&stations, "medium", st, |r| r.medium.clone())?;
        column(&stations, "node", st, |r| r.node.clone())?;
        column(&stations, "frames_sent", st, |r| r.stats.frames_sent)?;
        column(&stations, "retries", st, |r| r.stats.retries)?;
        column(&stations, "collisions", st, |r| r.stats.collisions)?;
        column(&stations, "retry_drops", st, |r| r.stats.retry_drops)?;
        column(&stations, "queue_drops", st, |r| r.stats.queue_drops)?;
        column(&stations, "rts_sent", st, |r| r.stats.rts_sent)?;
        column(&stations, "frame_errors", st, |r| r.stats.frame_errors)?;
        column(&stations, "frames_received", st, |r| {
            r.stats.frames_received
        })?;
        column(&stations, "airtime_s", st, |r| {
            r.stats.airtime_ns as f64 * 1e-9
        })?;
        column(&stations, "airtime_share", st, |r| r.airtime_share)?;
        column(&stations, "max_queue", st, |r| r.stats.max_queue)?;
    }

    let s = &out.summary;
    let summary = PyDict::new(py);
    summary.set_item("seed", s.seed)?;
    summary.set_item("events", s.events)?;
    summary.set_item("sim_time_s", s.sim_time.as_secs_f64())?;
    summary.set_item("stop_reason", s.stop_reason.name())?;
    summary.set_item("core_wall_time_s", s.core_wall_time_s)?;
    summary.set_item("packets_delivered", s.packets_delivered)?;
    summary.set_item("peak_packets", s.peak_packets)?;
    summary.set_item("peak_flows", s.peak_flows)?;

    // The traces that stopped early (a full disk, a limit): where and why.
    let failures = PyDict::new(py);
    let failure = |name: &str, truncated_at: SimTime, error: &str| -> PyResult<()> {
        let d = PyDict::new(py);
        d.set_item("truncated_at_s", truncated_at.as_secs_f64())?;
        d.set_item("error", error)?;
        failures.set_item(name, d)
    };
    for f in &out.trace_failures {
        failure(f.name, f.truncated_at, &f.error)?;
    }

    let traces = PyDict::new(py);
    for (name, fields, data) in &out.traces {
        let t = PyDict::new(py);
        t.set_item(
            "fields",
            fields.iter().map(|(n, d)| (*n, *d)).collect::<Vec<_>>(),
        )?;
        match data {
            TraceData::Bytes(b) => {
                // Handing a trace kept in memory to Python copies it: if that copy does not
                // fit, the trace is lost, not the run's other results.
                let bytes = PyBytes::new_with(py, b.len(), |dst| {
                    dst.copy_from_slice(b);
                    Ok(())
                });
                match bytes {
                    Ok(bytes) => t.set_item("data", bytes)?,
                    Err(_) => {
                        let error = format!(
                            "trace {name}: memory ran short handing its {} to Python",
                            memory::human(b.len() as u64)
                        );
                        failure(name, SimTime::ZERO, &error)?;
                        t.set_item("data", PyBytes::new(py, &[]))?;
                    }
                }
            }
            TraceData::File(p) => t.set_item("path", p.to_string_lossy().into_owned())?,
        }
        traces.set_item(*name, t)?;
    }

    let result = PyDict::new(py);
    result.set_item("trace_failures", failures)?;
    result.set_item("flows", flows)?;
    result.set_item("links", links)?;
    result.set_item("stations", stations)?;
    result.set_item("summary", summary)?;
    result.set_item("traces", traces)?;
    Ok(result)
}

/// Why `run` failed, short of a panic.
enum Failure {
    Scenario(renolab_core::ScenarioError),
    Run(RunError),
}

/// Wall-clock time between two looks at Python from inside a run (pending signals, the
/// progress callback): a Ctrl-C stops the run within this and the few milliseconds of
/// events until the next monitor call ([`renolab_core::sim::MONITOR_EVERY_EVENTS`]).
const LOOK_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// What the run loop's monitor does from the binding: every [`LOOK_EVERY`] it takes the GIL
/// back for a moment to run Python's signal handlers (the run holds the main thread, so a
/// Ctrl-C's `KeyboardInterrupt` would otherwise wait for the end of the run) and to call
/// `progress(sim_time_s, events)`. An exception from either stops the run; it is kept
/// for the caller.
struct Watch {
    progress: Option<Py<PyAny>>,
    last_look: std::time::Instant,
    error: Option<PyErr>,
    /// What the run's memory is watched against, if it can be measured here.
    memory: Option<memory::Guard>,
    /// Why the run was stopped for memory, if it was.
    memory_short: Option<String>,
}

impl Watch {
    fn check(&mut self, now: SimTime, events: u64) -> bool {
        if self.last_look.elapsed() < LOOK_EVERY {
            return true;
        }
        self.last_look = std::time::Instant::now();
        // Memory running short stops the run while its results can still be handed over
        // (past that, an allocation failure would abort the process with nothing written).
        if let Some(why) = self.memory.as_ref().and_then(memory::Guard::check) {
            self.memory_short = Some(why);
            return false;
        }
        let outcome = Python::attach(|py| {
            py.check_signals()?;
            if let Some(progress) = &self.progress {
                progress.call1(py, (now.as_secs_f64(), events))?;
            }
            Ok::<(), PyErr>(())
        });
        match outcome {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }
}

/// The name of the trace the Python controllers record themselves (see [`crate::cc`]).
pub const CC_TRACE: &str = "cc";

/// Runs a scenario (JSON text). `traces` names the series to record (e.g. `["cwnd"]`);
/// `trace_dir` streams them to files there instead of memory, else `trace_memory_limit`
/// (bytes) caps each in memory; `pcap_dir` writes one pcap file per link there;
/// `check_invariants` audits conservation after every event (slow; for tests);
/// `progress(sim_time_s, events)` is called about every 50 ms of a long run.
///
/// A Ctrl-C (`KeyboardInterrupt` from Python's signal handler) stops the run within about
/// 50 ms: the result of what ran is returned, its `summary["stop_reason"]` is
/// `"interrupted"`. Any other exception raised by a signal handler or by `progress` stops
/// the run too and is raised.
///
/// `controllers` gives, for each flow whose variant is a Python controller (by flow index),
/// `(class, hooks it overrides, attributes it traces)` (`renolab.cc`). A run with Python
/// controllers keeps the GIL throughout; any other releases it.
///
/// A trace that stops early (its disk full, its file too large, a limit) does not fail the
/// run: `result["trace_failures"]` says, per trace (and `"pcap"`), where it was cut
/// (`truncated_at_s`) and why (`error`). A run stopped because memory ran short returns its
/// results so far with `summary["stop_reason"]` `"memory"` and the reason in
/// `summary["memory_error"]`: it may add at most `simulation.max_memory` to the process's
/// memory, by default the smaller of 8 GiB and `memory_available` (bytes, what this machine
/// has; a scenario the estimate says would need more is refused before it starts), and it
/// stops if the process could allocate less than [`memory::RESERVE`] more.
///
/// A `SimulationError` from the engine (a panic, a broken invariant, a trace that could
/// not be created, a Python controller that failed) carries the attributes `kind`, `seed`
/// and `scenario`.
#[pyfunction]
#[pyo3(signature = (scenario_json, traces = Vec::new(), check_invariants = false, trace_dir = None, pcap_dir = None, trace_memory_limit = None, progress = None, controllers = None, memory_available = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    traces: Vec<String>,
    check_invariants: bool,
    trace_dir: Option<PathBuf>,
    pcap_dir: Option<PathBuf>,
    trace_memory_limit: Option<u64>,
    progress: Option<Py<PyAny>>,
    controllers: Option<HashMap<u32, ControllerClass>>,
    memory_available: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    check_trace_names(&traces)?;
    let cc_trace = traces.iter().any(|t| t == CC_TRACE);
    // The core records a `cc` trace of its own controllers if it has one; the Python
    // controllers' rows are merged into it after the run (add_cc_trace).
    let core_cc = TRACES.iter().any(|(name, _)| *name == CC_TRACE);
    let request = TraceRequest {
        names: traces
            .into_iter()
            .filter(|t| core_cc || t != CC_TRACE)
            .collect(),
        dir: trace_dir,
        pcap_dir,
        memory_limit: trace_memory_limit,
    };
    let mut watch = Watch {
        progress,
        last_look: std::time::Instant::now(),
        error: None,
        memory: None,
        memory_short: None,
    };
    let default_max_memory = !sets_max_memory(scenario_json);
    // The memory checks of a parsed scenario: refused if the estimate passes what this
    // machine has (when max_memory is left at its default), then watched while it runs.
    let check_memory = |scenario: &Scenario, watch: &mut Watch| -> Result<(), Failure> {
        let machine = memory_available.filter(|_| default_max_memory);
        if let Some(available) = machine {
            scenario
                .check_available_memory(available)
                .map_err(Failure::Scenario)?;
        }
        let (limit, name) = match machine {
            Some(available) if available < scenario.max_memory => (
                available,
                format!(
                    "the {} this machine had available when it started (simulation.max_memory's default here)",
                    memory::human(available)
                ),
            ),
            _ => (
                scenario.max_memory,
                format!("simulation.max_memory = {}", memory::human(scenario.max_memory)),
            ),
        };
        let in_memory = request.dir.is_none() && !request.names.is_empty();
        watch.memory = memory::Guard::new(limit, name, in_memory);
        Ok(())
    };
    let outcome = match controllers {
        // Python is called on every ACK: keep the GIL for the whole run.
        Some(classes) if !classes.is_empty() => {
            let mut factory = PyFactory::new(py, classes, cc_trace);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let scenario = Scenario::from_json_str(scenario_json).map_err(Failure::Scenario)?;
                factory
                    .check(&scenario)
                    .map_err(|m| Failure::Run(RunError::Controller(m)))?;
                check_memory(&scenario, &mut watch)?;
                test_panic_hook("run");
                let out = run_with(
                    &scenario,
                    &request,
                    check_invariants,
                    &mut factory,
                    &mut |now, events| watch.check(now, events),
                )
                .map_err(Failure::Run)?;
                let variants = scenario
                    .flows
                    .iter()
                    .map(|f| f.custom_cc().map(|c| c.reference.clone()))
                    .collect();
                Ok((out, variants))
            }));
            match outcome {
                Ok(r) => Ok(r.map(|(out, variants)| {
                    let python = PythonRun {
                        calls: factory.calls.load(std::sync::atomic::Ordering::Relaxed),
                        variants,
                    };
                    (out, factory.trace.take(), Some(python))
                })),
                // A Python controller failed: its exception, not a panic.
                Err(payload) => match payload.downcast::<ControllerFailure>() {
                    Ok(failure) => return Err(controller_error(py, *failure, scenario_json)),
                    Err(payload) => Err(Panic::from_payload(payload)),
                },
            }
        }
        _ => py
            .detach(|| {
                catch_unwind(|| {
                    let scenario =
                        Scenario::from_json_str(scenario_json).map_err(Failure::Scenario)?;
                    if let Some((i, reference)) = scenario
                        .flows
                        .iter()
                        .enumerate()
                        .find_map(|(i, f)| f.custom_cc().map(|c| (i, c.reference.clone())))
                    {
                        return Err(Failure::Run(RunError::Controller(format!(
                            "flow[{i}].variant: {reference:?} names a Python controller, but none was given for it"
                        ))));
                    }
                    check_memory(&scenario, &mut watch)?;
                    test_panic_hook("run");
                    run_with(
                        &scenario,
                        &request,
                        check_invariants,
                        &mut NoCustomControllers,
                        &mut |now, events| watch.check(now, events),
                    )
                    .map_err(Failure::Run)
                })
            })
            .map(|r| {
                // Without Python controllers the `cc` trace is the core's, if it has one.
                r.map(|out| (out, (cc_trace && !core_cc).then(Default::default), None))
            }),
    };
    if let Some(error) = watch.error {
        if !error.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return Err(error);
        }
    }
    let seed = scenario_seed(scenario_json);
    match outcome {
        Ok(Ok((out, cc, python))) => {
            let result = to_python(py, &out)?;
            if let Some(python) = python {
                python.add_to(&result)?;
            }
            if let Some(cc) = cc {
                add_cc_trace(py, &result, cc, request.dir.as_deref())?;
            }
            if let Some(why) = watch.memory_short {
                let summary = result
                    .get_item("summary")?
                    .expect("summary")
                    .cast_into::<PyDict>()?;
                summary.set_item("stop_reason", "memory")?;
                summary.set_item("memory_error", why)?;
            }
            Ok(result)
        }
        Ok(Err(Failure::Scenario(e))) => Err(ScenarioError::new_err(e.to_string())),
        Ok(Err(Failure::Run(e))) => Err(match e {
            RunError::BadTrace(_)
            | RunError::Limit(_)
            | RunError::Controller(_)
            | RunError::Output(_) => ScenarioError::new_err(e.to_string()),
            RunError::Trace(_) => simulation_error(py, "trace", e.to_string(), scenario_json),
            RunError::Invariant(_) => {
                simulation_error(py, "invariant", format!("{e} (seed {seed})"), scenario_json)
            }
        }),
        Err(panic) => Err(panic_error(py, "run", panic, scenario_json)),
    }
}

/// Refuses a trace name neither the core nor the Python controllers record, listing both's.
fn check_trace_names(traces: &[String]) -> PyResult<()> {
    let known = |name: &str| name == CC_TRACE || TRACES.iter().any(|(n, _)| *n == name);
    match traces.iter().find(|name| !known(name)) {
        None => Ok(()),
        Some(name) => {
            let mut allowed: Vec<&str> = TRACES.iter().map(|(n, _)| *n).collect();
            if !allowed.contains(&CC_TRACE) {
                allowed.push(CC_TRACE);
            }
            Err(ScenarioError::new_err(format!(
                "trace: unknown trace {name:?}; allowed: {}",
                allowed.join(", ")
            )))
        }
    }
}

/// The `SimulationError` (kind `"controller"`) for a Python controller that failed; a
/// Ctrl-C in the user's code stays a `KeyboardInterrupt`.
fn controller_error(py: Python<'_>, failure: ControllerFailure, scenario_json: &str) -> PyErr {
    let ControllerFailure { message, error } = failure;
    if let Some(err) = &error {
        if is_interrupt(py, err) {
            return err.clone_ref(py);
        }
    }
    let user_traceback = error.as_ref().and_then(|err| {
        let tb = err.traceback(py)?;
        let lines = py
            .import("traceback")
            .and_then(|m| m.call_method1("format_exception", (err.get_type(py), err.value(py), tb)))
            .ok()?;
        let parts: Vec<String> = lines.extract().ok()?;
        Some(parts.concat())
    });
    let exc = simulation_error(py, "controller", message, scenario_json);
    let _ = exc.value(py).setattr("user_traceback", user_traceback);
    if let Some(err) = error {
        exc.set_cause(py, Some(err));
    }
    exc
}

/// Adds the `cc` trace the Python controllers recorded to `result["traces"]`, merged into
/// the core's `cc` trace when the core recorded one (its controllers' rows), in a file of
/// `dir` when traces stream to files.
fn add_cc_trace(
    py: Python<'_>,
    result: &Bound<'_, PyDict>,
    trace: Arc<Mutex<CcTrace>>,
    dir: Option<&std::path::Path>,
) -> PyResult<()> {
    let trace = std::mem::take(&mut *trace.lock().unwrap_or_else(|p| p.into_inner()));
    let traces = result
        .get_item("traces")?
        .expect("traces")
        .cast_into::<PyDict>()?;
    let mut fields = trace.fields();
    let mut records = trace.into_records();
    if let Some(core) = traces.get_item(CC_TRACE)? {
        let core_fields: Vec<(String, String)> = core.get_item("fields")?.extract()?;
        let core_records: Vec<u8> = match core.get_item("path") {
            Ok(path) => std::fs::read(path.extract::<PathBuf>()?)
                .map_err(|e| SimulationError::new_err(format!("trace {CC_TRACE}: {e}")))?,
            Err(_) => core.get_item("data")?.extract()?,
        };
        (fields, records) = merge_records((&core_fields, &core_records), (&fields, &records));
    }
    let entry = PyDict::new(py);
    entry.set_item("fields", fields)?;
    match dir {
        Some(dir) => {
            use std::io::Write;
            let path = dir.join(format!(".{CC_TRACE}.bin"));
            let written = renolab_core::trace::create_fresh(&path).and_then(|mut f| {
                f.write_all(&records).inspect_err(|_| {
                    // Nothing of it kept: the disk space goes to the other files.
                    let _ = f.set_len(0);
                })
            });
            if let Err(e) = written {
                let failure = PyDict::new(py);
                let first = records
                    .get(..8)
                    .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
                failure.set_item("truncated_at_s", SimTime(first).as_secs_f64())?;
                failure.set_item(
                    "error",
                    format!("trace {CC_TRACE}: cannot write {}: {e}", path.display()),
                )?;
                result
                    .get_item("trace_failures")?
                    .expect("trace_failures")
                    .cast_into::<PyDict>()?
                    .set_item(CC_TRACE, failure)?;
            }
            entry.set_item("path", path.to_string_lossy().into_owned())?;
        }
        None => entry.set_item("data", PyBytes::new(py, &records))?,
    }
    traces.set_item(CC_TRACE, entry)
}

/// What a run with Python controllers adds to the core's output.
struct PythonRun {
    /// Calls into Python, all controllers together.
    calls: u64,
    /// Each flow's Python controller as the scenario names it (`"python:module:Class"`).
    variants: Vec<Option<String>>,
}

impl PythonRun {
    /// `summary["python_controller_calls"]`, and the `variant` column naming a Python
    /// controller as the scenario does, not by the core's placeholder (`"python"`).
    fn add_to(self, result: &Bound<'_, PyDict>) -> PyResult<()> {
        let summary = result
            .get_item("summary")?
            .expect("summary")
            .cast_into::<PyDict>()?;
        summary.set_item("python_controller_calls", self.calls)?;
        let flows = result
            .get_item("flows")?
            .expect("flows")
            .cast_into::<PyDict>()?;
        let variants: Vec<String> = flows.get_item("variant")?.expect("variant").extract()?;
        let named: Vec<String> = variants
            .into_iter()
            .zip(self.variants)
            .map(|(core, python)| python.unwrap_or(core))
            .collect();
        flows.set_item("variant", named)
    }
}

/// True if the scenario (JSON text) sets `simulation.max_memory` itself.
fn sets_max_memory(scenario_json: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(scenario_json)
        .ok()
        .and_then(|doc| {
            doc.get("simulation")?
                .get("max_memory")
                .map(|v| !v.is_null())
        })
        .unwrap_or(false)
}

/// Rough sizes in bytes of what a run of the scenario (JSON text) writes: each trace in
/// `traces` as the core records it, and `"pcap"`, the pcap files (see
/// `Estimate::trace_bytes`, `Estimate::pcap_bytes`). For checking free disk space before a
/// run; the estimates err low.
#[pyfunction]
fn estimate_output_bytes(
    py: Python<'_>,
    scenario_json: &str,
    traces: Vec<String>,
) -> PyResult<HashMap<String, u64>> {
    catch_unwind(|| {
        let scenario = crate::scenario::parse(scenario_json)?;
        let est = scenario.estimate();
        let mut out: HashMap<String, u64> = traces
            .into_iter()
            .filter_map(|name| Some((name.clone(), est.trace_bytes(&name)?)))
            .collect();
        out.insert("pcap".to_string(), est.pcap_bytes());
        Ok(out)
    })
    .unwrap_or_else(|p| Err(panic_error(py, "estimate_output_bytes", p, scenario_json)))
}

fn scenario_seed(scenario_json: &str) -> String {
    seed_of(scenario_json).map_or("unknown".to_string(), |s| s.to_string())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_output_bytes, m)?)
}
