//! Scenario validation for Python.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use renolab_core::Scenario;

use crate::errors::{catch_panic, catch_unwind, panic_error, test_panic_hook, ScenarioError};

/// Parses a scenario from JSON, mapping its error to `ScenarioError`.
pub fn parse(scenario_json: &str) -> PyResult<Scenario> {
    Scenario::from_json_str(scenario_json).map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Validates a scenario (JSON text) and returns it normalised, every default explicit.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    catch_unwind(|| {
        test_panic_hook("validate");
        Ok(parse(scenario_json)?.to_json().to_string())
    })
    .unwrap_or_else(|p| Err(panic_error(py, "validate", p, scenario_json)))
}

/// Expands `[[topology]]` tables (JSON: `{"topology": [...]}`) into the `[[link]]` tables they
/// stand for, returned as a JSON array.
#[pyfunction]
fn expand_topology(doc_json: &str) -> PyResult<String> {
    catch_panic("expand_topology", || {
        let doc: serde_json::Value = serde_json::from_str(doc_json)
            .map_err(|e| ScenarioError::new_err(format!("not valid JSON: {e}")))?;
        let root = renolab_core::scenario::reader::Table::new("", &doc)
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let (links, _) = renolab_core::scenario::topology::expand(&root)
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(serde_json::Value::Array(links).to_string())
    })
}

/// The flows whose variant is a Python controller: `(flow index, the variant as written,
/// its arguments as a JSON object)`, from the scenario (JSON text) as the core reads it.
#[pyfunction]
fn python_controllers(py: Python<'_>, scenario_json: &str) -> PyResult<Vec<(u32, String, String)>> {
    catch_unwind(|| {
        let scenario = parse(scenario_json)?;
        Ok(scenario
            .flows
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let c = f.custom_cc()?;
                Some((
                    i as u32,
                    c.reference.clone(),
                    serde_json::Value::Object(c.args.clone()).to_string(),
                ))
            })
            .collect())
    })
    .unwrap_or_else(|p| Err(panic_error(py, "python_controllers", p, scenario_json)))
}

/// The built-in controllers as their declarations describe them, for Python (the same
/// declarations the scenario parser, the docs and the traces read).
fn controllers(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for d in renolab_core::tcp::cc::CONTROLLERS {
        let options = PyList::empty(py);
        for o in d.options {
            let option = PyDict::new(py);
            option.set_item("name", o.name)?;
            option.set_item("takes", o.kind.describe())?;
            option.set_item("default", o.default)?;
            option.set_item("doc", o.doc)?;
            option.set_item("source", o.source)?;
            options.append(option)?;
        }
        let recovery = PyDict::new(py);
        for profile in renolab_core::scenario::PROFILES {
            recovery.set_item(*profile, d.recovery.default.under(profile))?;
        }
        let entry = PyDict::new(py);
        entry.set_item("name", d.name)?;
        entry.set_item("summary", d.summary)?;
        entry.set_item("options", options)?;
        entry.set_item("trace", d.trace.iter().map(|f| f.name).collect::<Vec<_>>())?;
        entry.set_item("profiles", d.profiles.to_vec())?;
        entry.set_item("default_recovery", recovery)?;
        list.append(entry)?;
    }
    Ok(list)
}

/// The mean rate, bit/s, of the mahimahi trace at `path` when MTU-sized packets fill its
/// every delivery opportunity (1500 bytes each); `ValueError` naming the file (and the line)
/// if it cannot be read.
#[pyfunction]
fn trace_rate(path: &str) -> PyResult<f64> {
    catch_panic("trace_rate", || {
        renolab_core::scenario::read_trace_file(path)
            .map(|t| t.mean_rate_bps())
            .map_err(pyo3::exceptions::PyValueError::new_err)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CONTROLLERS", controllers(m.py())?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(trace_rate, m)?)?;
    m.add_function(wrap_pyfunction!(python_controllers, m)?)?;
    m.add_function(wrap_pyfunction!(expand_topology, m)?)
}
