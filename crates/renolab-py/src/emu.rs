//! Emulation from Python (`renolab-emu`): the same tables as `run`, plus what only the
//! kernel knows. Builds on every platform; off Linux `emulate` raises `EmulationError`
//! (kind `"unsupported"`) after the same checks of the scenario.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use renolab_core::time::SimDuration;
use renolab_core::trace::TraceRequest;
use renolab_emu::{EmuError, Emulation, LatenessSummary, Request};

use crate::errors::{catch_unwind, EmulationError, ScenarioError};
use crate::sim::to_python;

fn emulation_error(py: Python<'_>, kind: &str, message: String) -> PyErr {
    let err = EmulationError::new_err(message);
    let _ = err.value(py).setattr("kind", kind);
    err
}

fn to_pyerr(py: Python<'_>, e: EmuError) -> PyErr {
    match e {
        EmuError::Input(m) => ScenarioError::new_err(m),
        EmuError::Unsupported(m) => emulation_error(py, "unsupported", m),
        EmuError::Failed(m) => emulation_error(py, "failed", m),
    }
}

/// The plan's checks alone (names, variants): raises `ScenarioError` for a scenario the
/// emulator refuses; returns the notes (what it would change) otherwise. Creates nothing.
#[pyfunction]
fn emulate_check(scenario_json: &str) -> PyResult<Vec<String>> {
    renolab_emu::plan_json(scenario_json)
        .map(|p| p.notes)
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// The scenario normalised as the emulator reads it (defaults explicit, variants as
/// written): what `Result` needs for its derived columns.
#[pyfunction]
fn emulate_normalise(scenario_json: &str) -> PyResult<String> {
    renolab_emu::plan_json(scenario_json)
        .map(|p| p.normalised().to_string())
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Why this machine cannot emulate, or None.
#[pyfunction]
fn emulation_unsupported() -> Option<String> {
    renolab_emu::unsupported_reason()
}

/// The kernel's congestion controls (empty off Linux).
#[pyfunction]
fn kernel_congestion_controls() -> Vec<String> {
    renolab_emu::kernel_congestion_controls()
}

fn extend<'py>(py: Python<'py>, e: &Emulation) -> PyResult<Bound<'py, PyDict>> {
    let result = to_python(py, &e.output)?;
    // The flow columns only the kernel fills in, over the simulator's placeholders.
    let flows = result
        .get_item("flows")?
        .expect("flows")
        .cast_into::<PyDict>()?;
    let k = &e.flows;
    flows.set_item(
        "variant",
        k.iter().map(|f| f.variant.clone()).collect::<Vec<_>>(),
    )?;
    flows.set_item("timeouts", k.iter().map(|f| f.timeouts).collect::<Vec<_>>())?;
    flows.set_item(
        "fast_retransmits",
        k.iter().map(|_| None::<u64>).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "kernel_cc",
        k.iter().map(|f| f.congestion.clone()).collect::<Vec<_>>(),
    )?;
    flows.set_item("kernel_sack", k.iter().map(|f| f.sack).collect::<Vec<_>>())?;
    flows.set_item(
        "handshake_rtt_s",
        k.iter()
            .map(|f| f.handshake_rtt_us.map(|us| us * 1e-6))
            .collect::<Vec<_>>(),
    )?;
    let summary = result
        .get_item("summary")?
        .expect("summary")
        .cast_into::<PyDict>()?;
    let r = &e.report;
    let em = PyDict::new(py);
    em.set_item("lateness", lateness_dict(py, &r.lateness)?)?;
    em.set_item("host_timer", lateness_dict(py, &r.host_timer)?)?;
    em.set_item("kernel_release", &r.kernel_release)?;
    em.set_item("congestion_available", r.congestion_available.clone())?;
    let hosts = PyList::empty(py);
    for h in &r.hosts {
        let d = PyDict::new(py);
        d.set_item("node", &h.node)?;
        d.set_item("netns", &h.netns)?;
        d.set_item("device", &h.device)?;
        d.set_item("ip", &h.ip)?;
        let sysctls = PyDict::new(py);
        for (key, value) in &h.sysctls {
            sysctls.set_item(key, value)?;
        }
        d.set_item("sysctls", sysctls)?;
        d.set_item("tun_tx_dropped", h.tun_tx_dropped)?;
        if let Some(o) = h.offloads {
            let offloads = PyDict::new(py);
            offloads.set_item("tso", o.tso)?;
            offloads.set_item("gso", o.gso)?;
            offloads.set_item("gro", o.gro)?;
            d.set_item("offloads", offloads)?;
        }
        hosts.append(d)?;
    }
    em.set_item("hosts", hosts)?;
    let kflows = PyList::empty(py);
    for (row, f) in e.output.flows.iter().zip(&e.flows) {
        let d = PyDict::new(py);
        d.set_item("flow", &row.flow)?;
        d.set_item("variant", &f.variant)?;
        d.set_item("congestion", &f.congestion)?;
        d.set_item("sack", f.sack)?;
        d.set_item("handshake_rtt_us", f.handshake_rtt_us)?;
        d.set_item("established_s", f.established_s)?;
        d.set_item("error", &f.error)?;
        if let Some(i) = &f.tcp_info {
            let t = PyDict::new(py);
            t.set_item("ca_state", i.ca_state)?;
            t.set_item("rtt_us", i.rtt_us)?;
            t.set_item("rttvar_us", i.rttvar_us)?;
            t.set_item("rto_us", i.rto_us)?;
            t.set_item("snd_mss", i.snd_mss)?;
            t.set_item("snd_cwnd", i.snd_cwnd)?;
            t.set_item("snd_ssthresh", i.snd_ssthresh)?;
            t.set_item("total_retrans", i.total_retrans)?;
            t.set_item("bytes_acked", i.bytes_acked)?;
            t.set_item("bytes_retrans", i.bytes_retrans)?;
            t.set_item("min_rtt_us", i.min_rtt_us)?;
            t.set_item("delivery_rate", i.delivery_rate)?;
            t.set_item("total_rto", i.total_rto)?;
            t.set_item("total_rto_recoveries", i.total_rto_recoveries)?;
            d.set_item("tcp_info", t)?;
        }
        kflows.append(d)?;
    }
    em.set_item("flows", kflows)?;
    em.set_item("mtu", r.mtu)?;
    em.set_item("notes", r.notes.clone())?;
    em.set_item("stale_namespaces_removed", r.stale_removed.clone())?;
    em.set_item("ingress_packets", r.ingress_packets)?;
    em.set_item("stray_packets", r.stray_packets)?;
    em.set_item("oversize_packets", r.oversize_packets)?;
    em.set_item("write_errors", r.write_errors)?;
    em.set_item("driver_busy_max", r.driver_busy_max)?;
    em.set_item("spin_suspended_s", r.spin_suspended_s)?;
    em.set_item("tcp_info_interval_us", r.tcp_info_interval_us)?;
    em.set_item("spin_us", r.spin_us)?;
    em.set_item("cpu", r.cpu)?;
    em.set_item("realtime", r.realtime)?;
    em.set_item("setup_run_teardown_s", r.setup_and_teardown_s)?;
    summary.set_item("emulation", em)?;
    Ok(result)
}

/// Emulates a scenario (JSON text) with real kernel TCP endpoints (Linux, root): returns
/// the same dict as `run`, with `summary["emulation"]` (timing quality, kernel settings,
/// per-flow `TCP_INFO`). Ctrl-C (any exception a signal handler raises) stops it and
/// removes everything it created; what it collected up to then is returned, stop reason
/// `"interrupted"`, as `run` does.
#[pyfunction]
#[pyo3(signature = (scenario_json, traces = Vec::new(), trace_dir = None, pcap_dir = None, trace_memory_limit = None, tcp_info_interval_us = 2000, spin_us = 20, cpu = None, realtime = true))]
#[allow(clippy::too_many_arguments)]
fn emulate<'py>(
    py: Python<'py>,
    scenario_json: String,
    traces: Vec<String>,
    trace_dir: Option<PathBuf>,
    pcap_dir: Option<PathBuf>,
    trace_memory_limit: Option<u64>,
    tcp_info_interval_us: u64,
    spin_us: u64,
    cpu: Option<usize>,
    realtime: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let request = Request {
        traces: TraceRequest {
            names: traces,
            dir: trace_dir,
            pcap_dir,
            memory_limit: trace_memory_limit,
        },
        tcp_info_interval: SimDuration::from_micros(tcp_info_interval_us),
        spin: SimDuration::from_micros(spin_us),
        cpu,
        realtime,
    };
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    let worker_cancel = cancel.clone();
    let worker = std::thread::spawn(move || {
        catch_unwind(|| renolab_emu::emulate(&scenario_json, &request, &worker_cancel))
    });
    // Wait without the GIL, checking for Ctrl-C every 50 ms: on an interrupt the worker
    // stops, removes its namespaces and returns what it collected.
    let mut interrupt = None;
    while !worker.is_finished() {
        py.detach(|| std::thread::sleep(Duration::from_millis(50)));
        if let Err(e) = py.check_signals() {
            cancel.store(true, Ordering::Relaxed);
            interrupt = Some(e);
            break;
        }
    }
    let outcome = py
        .detach(|| worker.join())
        .map_err(|_| emulation_error(py, "failed", "the emulation thread died".into()))?;
    if let Some(e) = interrupt {
        // A KeyboardInterrupt becomes the result's stop reason; any other exception a
        // signal handler raised goes on.
        let keep = e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py)
            && matches!(outcome, Ok(Ok(_)));
        if !keep {
            return Err(e);
        }
    }
    match outcome {
        Ok(Ok(e)) => extend(py, &e),
        Ok(Err(e)) => Err(to_pyerr(py, e)),
        Err(panic) => Err(emulation_error(
            py,
            "failed",
            format!("internal error in emulate: {panic} (please report it)"),
        )),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emulate_check, m)?)?;
    m.add_function(wrap_pyfunction!(emulate_normalise, m)?)?;
    m.add_function(wrap_pyfunction!(emulation_unsupported, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_congestion_controls, m)?)
}

/// `count`, `median_us`, `p99_us`, `max_us`, `mean_us` of a lateness histogram.
fn lateness_dict<'py>(py: Python<'py>, l: &LatenessSummary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("count", l.count)?;
    d.set_item("median_us", l.median_us)?;
    d.set_item("p99_us", l.p99_us)?;
    d.set_item("max_us", l.max_us)?;
    d.set_item("mean_us", l.mean_us)?;
    Ok(d)
}
