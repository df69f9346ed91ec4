//! TCP endpoints, packet-based like ns-2's one-way agents: sequence numbers count segments
//! of `mss` payload bytes, and a configurable header size is added on the wire.

pub mod cc;
pub mod config;
pub mod ecn;
pub mod minmax;
pub mod pacing;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod seqset;
pub mod window;

#[cfg(test)]
mod ecn_tests;

pub use config::{Dialect, ReceiverConfig, SenderConfig, Transfer};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
pub use window::Window;
