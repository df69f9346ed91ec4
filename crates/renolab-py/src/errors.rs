//! Exceptions raised by `renolab._core`, and the guard that turns a Rust panic into one.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot run; the message names the field."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "A run that failed inside the engine."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}

/// Runs `work`, turning a panic into a `SimulationError` instead of unwinding into Python.
pub fn catch_panic<R>(what: &str, work: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(SimulationError::new_err(format!(
                "internal error in {what}: {msg} (please report it with the scenario)"
            )))
        }
    }
}
