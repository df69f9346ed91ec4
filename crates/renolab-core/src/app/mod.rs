//! Applications that generate traffic. Bulk transfer over TCP is the sender's
//! [`crate::tcp::Transfer`]; constant-bit-rate over UDP is [`cbr::CbrSource`].

pub mod cbr;

pub use cbr::{CbrConfig, CbrSink, CbrSource};
