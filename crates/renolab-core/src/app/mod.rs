//! Applications that generate traffic. Bulk transfer over TCP is the sender's
//! [`crate::tcp::Transfer`]; constant-bit-rate over UDP is [`cbr::CbrSource`]; flows that
//! arrive at random with random sizes are [`workload`]'s.

pub mod cbr;
pub mod workload;

pub use cbr::{CbrConfig, CbrSink, CbrSource};
pub use workload::{FlowSizes, PoissonArrivals, SizeCdf};
