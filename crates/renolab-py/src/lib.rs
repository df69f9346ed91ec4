//! `renolab._core`: the Python face of renolab-core. This file only registers what the other
//! modules define; each binding module mirrors one core module.

use pyo3::prelude::*;

mod cc;
mod emu;
mod errors;
mod json_text;
mod memory;
mod scenario;
mod sim;
mod trace;
mod units;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", renolab_core::VERSION)?;
    errors::install_panic_hook();
    errors::register(m)?;
    json_text::register(m)?;
    memory::register(m)?;
    cc::register(m)?;
    scenario::register(m)?;
    sim::register(m)?;
    emu::register(m)?;
    trace::register(m)?;
    units::register(m)?;
    Ok(())
}
