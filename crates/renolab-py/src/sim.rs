//! Running a scenario from Python: releases the GIL, returns plain columns.
//!
//! Per-flow and per-link tables come back as dicts of lists (a few rows); trace series come
//! back as little-endian byte buffers that Python wraps with `numpy.frombuffer`, so no numpy
//! or arrow crate is compiled here.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use renolab_core::sim::{run as run_scenario, RunError, RunOutput};

use crate::errors::{catch_panic, ScenarioError, SimulationError};
use crate::scenario::parse;

fn le_bytes<'py, T: Copy>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> Vec<u8>,
) -> Bound<'py, PyBytes> {
    let mut buf = Vec::with_capacity(std::mem::size_of_val(values));
    for &v in values {
        buf.extend_from_slice(&to_le(v));
    }
    PyBytes::new(py, &buf)
}

fn to_python<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let flows = PyDict::new(py);
    let f = &out.flows;
    flows.set_item("flow", f.iter().map(|r| r.flow.clone()).collect::<Vec<_>>())?;
    flows.set_item(
        "variant",
        f.iter().map(|r| r.variant.name()).collect::<Vec<_>>(),
    )?;
    flows.set_item("src", f.iter().map(|r| r.src.clone()).collect::<Vec<_>>())?;
    flows.set_item("dst", f.iter().map(|r| r.dst.clone()).collect::<Vec<_>>())?;
    flows.set_item(
        "bytes_delivered",
        f.iter().map(|r| r.bytes_delivered).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "completion_time_s",
        f.iter().map(|r| r.completion_time_s()).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "throughput_bps",
        f.iter().map(|r| r.throughput_bps()).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "retransmits",
        f.iter().map(|r| r.retransmits).collect::<Vec<_>>(),
    )?;
    flows.set_item("timeouts", f.iter().map(|r| r.timeouts).collect::<Vec<_>>())?;
    flows.set_item(
        "fast_retransmits",
        f.iter().map(|r| r.fast_retransmits).collect::<Vec<_>>(),
    )?;
    flows.set_item("drops", f.iter().map(|r| r.drops).collect::<Vec<_>>())?;
    flows.set_item(
        "data_drops",
        f.iter().map(|r| r.data_drops).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "ack_drops",
        f.iter().map(|r| r.ack_drops).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "segments_sent",
        f.iter().map(|r| r.segments_sent).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "segments_delivered",
        f.iter().map(|r| r.segments_delivered).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "first_send_s",
        f.iter()
            .map(|r| r.first_send.map(|t| t.as_secs_f64()))
            .collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "finish_s",
        f.iter()
            .map(|r| r.finish.map(|t| t.as_secs_f64()))
            .collect::<Vec<_>>(),
    )?;

    let links = PyDict::new(py);
    let l = &out.links;
    links.set_item("link", l.iter().map(|r| r.link.clone()).collect::<Vec<_>>())?;
    links.set_item("from", l.iter().map(|r| r.from.clone()).collect::<Vec<_>>())?;
    links.set_item("to", l.iter().map(|r| r.to.clone()).collect::<Vec<_>>())?;
    links.set_item(
        "packets_sent",
        l.iter().map(|r| r.packets_sent).collect::<Vec<_>>(),
    )?;
    links.set_item(
        "bytes_sent",
        l.iter().map(|r| r.bytes_sent).collect::<Vec<_>>(),
    )?;
    links.set_item(
        "queue_drops",
        l.iter().map(|r| r.queue_drops).collect::<Vec<_>>(),
    )?;
    links.set_item(
        "loss_drops",
        l.iter().map(|r| r.loss_drops).collect::<Vec<_>>(),
    )?;
    links.set_item(
        "utilisation",
        l.iter().map(|r| r.utilisation).collect::<Vec<_>>(),
    )?;
    links.set_item(
        "max_queue",
        l.iter().map(|r| r.max_queue).collect::<Vec<_>>(),
    )?;

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
    if let Some(c) = &out.cwnd {
        let t = PyDict::new(py);
        t.set_item(
            "time_ns",
            le_bytes(py, &c.time_ns, |v| v.to_le_bytes().to_vec()),
        )?;
        t.set_item("flow", le_bytes(py, &c.flow, |v| v.to_le_bytes().to_vec()))?;
        t.set_item("cwnd", le_bytes(py, &c.cwnd, |v| v.to_le_bytes().to_vec()))?;
        t.set_item(
            "ssthresh",
            le_bytes(py, &c.ssthresh, |v| v.to_le_bytes().to_vec()),
        )?;
        traces.set_item("cwnd", t)?;
    }
    if let Some(q) = &out.seq {
        let t = PyDict::new(py);
        t.set_item(
            "time_ns",
            le_bytes(py, &q.time_ns, |v| v.to_le_bytes().to_vec()),
        )?;
        t.set_item("flow", le_bytes(py, &q.flow, |v| v.to_le_bytes().to_vec()))?;
        t.set_item("event", le_bytes(py, &q.event, |v| vec![v]))?;
        t.set_item("seq", le_bytes(py, &q.seq, |v| v.to_le_bytes().to_vec()))?;
        traces.set_item("seq", t)?;
    }

    let result = PyDict::new(py);
    result.set_item("flows", flows)?;
    result.set_item("links", links)?;
    result.set_item("summary", summary)?;
    result.set_item("traces", traces)?;
    Ok(result)
}

/// Runs a scenario (JSON text). `traces` names the series to record (e.g. `["cwnd"]`);
/// `check_invariants` audits conservation after every event (slow; for tests).
#[pyfunction]
#[pyo3(signature = (scenario_json, traces = Vec::new(), check_invariants = false))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    traces: Vec<String>,
    check_invariants: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let scenario = parse(scenario_json)?;
    let out = py.detach(|| {
        catch_panic("run", || {
            run_scenario(&scenario, &traces, check_invariants).map_err(|e| match e {
                RunError::BadTrace(_) => ScenarioError::new_err(e.to_string()),
                RunError::Invariant(_) => {
                    SimulationError::new_err(format!("{e} (seed {})", scenario.seed))
                }
            })
        })
    })?;
    to_python(py, &out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)
}
