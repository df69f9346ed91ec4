//! Running a scenario from Python: releases the GIL, returns plain columns.
//!
//! Per-flow and per-link tables come back as dicts of lists (a few rows); trace series come
//! back as little-endian byte buffers that Python wraps with `numpy.frombuffer`, so no numpy
//! or arrow crate is compiled here.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;

use renolab_core::sim::{run_monitored, RunError, RunOutput};
use renolab_core::time::SimTime;
use renolab_core::trace::{TraceData, TraceRequest};

use renolab_core::Scenario;

use crate::errors::{
    catch_unwind, panic_error, seed_of, simulation_error, test_panic_hook, ScenarioError,
};

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

    let traces = PyDict::new(py);
    for (name, fields, data) in &out.traces {
        let t = PyDict::new(py);
        t.set_item(
            "fields",
            fields.iter().map(|(n, d)| (*n, *d)).collect::<Vec<_>>(),
        )?;
        match data {
            TraceData::Bytes(b) => t.set_item("data", PyBytes::new(py, b))?,
            TraceData::File(p) => t.set_item("path", p.to_string_lossy().into_owned())?,
        }
        traces.set_item(*name, t)?;
    }

    let result = PyDict::new(py);
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
}

impl Watch {
    fn check(&mut self, now: SimTime, events: u64) -> bool {
        if self.last_look.elapsed() < LOOK_EVERY {
            return true;
        }
        self.last_look = std::time::Instant::now();
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
/// A `SimulationError` from the engine (a panic, a broken invariant, a trace that could
/// not be written) carries the attributes `kind`, `seed` and `scenario`.
#[pyfunction]
#[pyo3(signature = (scenario_json, traces = Vec::new(), check_invariants = false, trace_dir = None, pcap_dir = None, trace_memory_limit = None, progress = None))]
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
) -> PyResult<Bound<'py, PyDict>> {
    let request = TraceRequest {
        names: traces,
        dir: trace_dir,
        pcap_dir,
        memory_limit: trace_memory_limit,
    };
    let mut watch = Watch {
        progress,
        last_look: std::time::Instant::now(),
        error: None,
    };
    let outcome = py.detach(|| {
        catch_unwind(|| {
            let scenario = Scenario::from_json_str(scenario_json).map_err(Failure::Scenario)?;
            test_panic_hook("run");
            run_monitored(&scenario, &request, check_invariants, &mut |now, events| {
                watch.check(now, events)
            })
            .map_err(Failure::Run)
        })
    });
    if let Some(error) = watch.error {
        if !error.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return Err(error);
        }
    }
    let seed = scenario_seed(scenario_json);
    match outcome {
        Ok(Ok(out)) => to_python(py, &out),
        Ok(Err(Failure::Scenario(e))) => Err(ScenarioError::new_err(e.to_string())),
        Ok(Err(Failure::Run(e))) => Err(match e {
            RunError::BadTrace(_) | RunError::Limit(_) => ScenarioError::new_err(e.to_string()),
            RunError::Trace(_) => simulation_error(py, "trace", e.to_string(), scenario_json),
            RunError::Invariant(_) => {
                simulation_error(py, "invariant", format!("{e} (seed {seed})"), scenario_json)
            }
        }),
        Err(panic) => Err(panic_error(py, "run", panic, scenario_json)),
    }
}

fn scenario_seed(scenario_json: &str) -> String {
    seed_of(scenario_json).map_or("unknown".to_string(), |s| s.to_string())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)
}
