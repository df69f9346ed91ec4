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

create_exception!(
    _core,
    EmulationError,
    PyRuntimeError,
    "An emulation that could not run here (kind \"unsupported\") or failed (kind \"failed\")."
);

/// `message` with its long values cut (`renolab_core::scenario::shorten`): what every error
/// line of the command line goes through, so that a value from a file never makes a line
/// longer than about two thousand characters.
#[pyfunction]
fn shorten_message(message: &str) -> String {
    renolab_core::scenario::shorten(message)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shorten_message, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("EmulationError", m.py().get_type::<EmulationError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}

/// A panic caught at the boundary: its message and where it happened.
pub struct Panic(pub String);

impl std::fmt::Display for Panic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

thread_local! {
    /// Where the last panic on this thread happened, recorded by the hook for the message.
    static PANIC_LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the panic hook of this extension (it has its own copy of `std`, so nothing else
/// in the Python process is affected): a panic is reported through the exception, with its
/// location, instead of being printed to stderr. With `RUST_BACKTRACE` set the default hook
/// also runs, for debugging.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        PANIC_LOCATION.with(|p| *p.borrow_mut() = at);
        if std::env::var_os("RUST_BACKTRACE").is_some() {
            default(info);
        }
    }));
}

/// Runs `work`, catching a panic instead of unwinding into Python.
pub fn catch_unwind<R>(work: impl FnOnce() -> R) -> Result<R, Panic> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(Panic::from_payload)
}

impl Panic {
    /// The panic that unwound with `payload`: its message and where it happened.
    pub fn from_payload(payload: Box<dyn std::any::Any + Send>) -> Self {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        match PANIC_LOCATION.with(|p| p.borrow_mut().take()) {
            Some(at) => Panic(format!("{msg} (at {at})")),
            None => Panic(msg),
        }
    }
}

/// Runs `work`, turning a panic into a `SimulationError` instead of unwinding into Python.
pub fn catch_panic<R>(what: &str, work: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    catch_unwind(work).unwrap_or_else(|p| {
        Err(SimulationError::new_err(format!(
            "internal error in {what}: {p} (please report it)"
        )))
    })
}

/// The master seed a scenario (JSON text) runs with: its `simulation.seed`, else the
/// default 1; `None` when the text is not a JSON object.
pub fn seed_of(scenario_json: &str) -> Option<u64> {
    let doc: serde_json::Value = serde_json::from_str(scenario_json).ok()?;
    match doc.get("simulation").and_then(|s| s.get("seed")) {
        None => doc.is_object().then_some(1),
        Some(v) => v.as_u64(),
    }
}

/// A `SimulationError` carrying what reproduces it: attributes `kind` (`"panic"`,
/// `"invariant"`, `"trace"`), `seed` (or `None`) and `scenario` (the JSON text run).
pub fn simulation_error(py: Python<'_>, kind: &str, message: String, scenario_json: &str) -> PyErr {
    let err = SimulationError::new_err(message);
    let value = err.value(py);
    // Setting an attribute on a fresh exception cannot fail in practice; if it did, the
    // message still carries the seed.
    let _ = value.setattr("kind", kind);
    let _ = value.setattr("seed", seed_of(scenario_json));
    let _ = value.setattr("scenario", scenario_json);
    err
}

/// The `SimulationError` for a panic in `what` while handling `scenario_json`: the message
/// says where and gives the seed; the attributes hold the scenario.
pub fn panic_error(py: Python<'_>, what: &str, panic: Panic, scenario_json: &str) -> PyErr {
    let seed = seed_of(scenario_json).map_or("unknown".to_string(), |s| s.to_string());
    simulation_error(
        py,
        "panic",
        format!(
            "internal error in {what}: {panic}; seed {seed}; please report it with the scenario"
        ),
        scenario_json,
    )
}

/// Panics when the environment variable `RENOLAB_TEST_PANIC` names `what` (or is `1`), so
/// tests can check that a panic reaches Python as a `SimulationError`. Only this binding
/// reads it; the core knows nothing of it.
pub fn test_panic_hook(what: &str) {
    if let Some(v) = std::env::var_os("RENOLAB_TEST_PANIC") {
        if v == what || (v == "1" && what == "run") {
            panic!("deliberate panic in {what}: RENOLAB_TEST_PANIC is set");
        }
    }
}
