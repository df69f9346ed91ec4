//! The trace tables for Python: each trace's record layout and the names of its codes, so
//! that the Python decoder reads them from the core instead of keeping copies.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use renolab_core::trace::{CODED_COLUMNS, TRACES};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // TRACE_FIELDS: {trace: [(field, numpy dtype), ...]}, in record order.
    let fields = PyDict::new(py);
    for (name, layout) in TRACES.iter() {
        fields.set_item(*name, layout.to_vec())?;
    }
    // The `cc` trace of Python controllers (crate::cc): these two columns, then one f64 per
    // value the controllers trace, as each run reports its layout.
    if !fields.contains(crate::sim::CC_TRACE)? {
        fields.set_item(
            crate::sim::CC_TRACE,
            vec![("time_ns", "<u8"), ("flow", "<u4")],
        )?;
    }
    m.add("TRACE_FIELDS", fields)?;
    // TRACE_CODES: {trace: {column: [name of code 0, name of code 1, ...]}}.
    let codes = PyDict::new(py);
    for (trace, column, names) in CODED_COLUMNS.iter() {
        let columns = match codes.get_item(*trace)? {
            Some(existing) => existing.cast_into::<PyDict>()?,
            None => {
                let new = PyDict::new(py);
                codes.set_item(*trace, &new)?;
                new
            }
        };
        columns.set_item(*column, names.to_vec())?;
    }
    m.add("TRACE_CODES", codes)
}
