//! Scenario validation for Python.

use pyo3::prelude::*;
use renolab_core::Scenario;

use crate::errors::{catch_panic, ScenarioError};

/// Parses a scenario from JSON, mapping its error to `ScenarioError`.
pub fn parse(scenario_json: &str) -> PyResult<Scenario> {
    Scenario::from_json_str(scenario_json).map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Validates a scenario (JSON text) and returns it normalised, every default explicit.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<String> {
    catch_panic("validate", || {
        Ok(parse(scenario_json)?.to_json().to_string())
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)
}
