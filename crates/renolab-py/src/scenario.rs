//! Scenario validation for Python.

use pyo3::prelude::*;
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(python_controllers, m)?)?;
    m.add_function(wrap_pyfunction!(expand_topology, m)?)
}
