//! The scenario file's unit parser for Python: the one parser of rates, durations and sizes.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use renolab_core::units;

use crate::errors::catch_panic;

/// A rate such as `"10Mbps"` or `"50MBps"` (bytes) in bits per second; `ValueError` saying what
/// is allowed otherwise (or both meanings of an ambiguous `"50mbps"`).
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<u64> {
    catch_panic("parse_rate", || {
        units::parse_rate(text)
            .map(|r| r.0)
            .map_err(PyValueError::new_err)
    })
}

/// A duration such as `"48ms"` in nanoseconds (rounded to the nearest); `ValueError` otherwise.
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<u64> {
    catch_panic("parse_duration", || {
        units::parse_duration_ns(text).map_err(PyValueError::new_err)
    })
}

/// A size such as `"8MiB"` or `"1500B"` in bytes; `ValueError` otherwise.
#[pyfunction]
fn parse_bytes(text: &str) -> PyResult<u64> {
    catch_panic("parse_bytes", || {
        units::parse_bytes(text).map_err(PyValueError::new_err)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)
}
