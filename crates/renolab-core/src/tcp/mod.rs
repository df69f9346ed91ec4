//! TCP endpoints, packet-based like ns-2's one-way agents: sequence numbers count segments
//! of `mss` payload bytes, and a configurable header size is added on the wire.
//!
//! - [`sender`]: one type per dialect ([`sender::ClassicSender`], ns-2's agent and the
//!   RFCs'; [`sender::LinuxSender`], a Linux socket), chosen once when the flow is built;
//! - [`recovery`]: the classic sender's loss recoveries behind [`recovery::LossRecovery`];
//! - [`cc`]: the congestion controllers, one file each, and their registry;
//! - [`receiver`]: one receiver type per dialect;
//! - the parts they share: [`rtt`], [`scoreboard`], [`rate`], [`pacing`], [`gso`], [`minmax`],
//!   [`window`], [`seqset`], [`ecn`], [`config`].

pub mod accecn;
pub mod cc;
pub mod config;
pub mod ecn;
pub mod gso;
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
mod accecn_tests;
#[cfg(test)]
mod ecn_tests;

pub use config::{Dialect, ReceiverConfig, SenderConfig, Transfer};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
pub use window::Window;
