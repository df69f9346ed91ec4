//! # renolab-core
//!
//! A packet-level network simulator for TCP congestion-control research, in pure Rust (the
//! Python package `renolab` wraps it through the `renolab-py` binding crate).
//!
//! A tour of the layers, bottom up:
//!
//! - [`time`] and [`units`]: integer nanoseconds, bits per second, byte counts, and the
//!   parsers for `"10Mbps"`-style quantities; [`schedule`]: values that change at given
//!   instants; [`histogram`], the fixed-size log-linear histogram behind every delay
//!   quantile a run reports; [`ring`], the first-in first-out ring that pipes and queues
//!   store their packets in.
//! - [`rng`]: one seeded random stream per component, derived from the scenario seed and the
//!   component's name.
//! - [`engine`]: the event scheduler, ordered by `(time, insertion order)`, holding
//!   O(links + media + flows) entries thanks to one pending event per link direction and
//!   per medium, and lazily cancelled endpoint timers.
//! - [`packet`]: packets (small `Copy` structs in a recycled slab) with their ECN bits and
//!   SACK blocks, and the header sizes they count.
//! - [`net`]: link directions (queue, transmitter, propagation pipe), shared 802.11 media
//!   ([`net::wifi`]: the DCF as a sans-IO state machine per medium, PHY timing per
//!   standard), static shortest-path routing; directions whose rate, delay or availability
//!   change during a run ([`net::dynamics`]), their rate scheduled or following a mahimahi
//!   trace ([`net::opportunities`]).
//! - [`queue`] and [`loss`]: what a link does to packets: queue disciplines, loss models.
//! - [`app`]: applications that are not TCP's own bulk transfer (constant bit rate over UDP).
//! - [`tcp`]: sans-IO TCP endpoints, one sender and one receiver type per dialect (ns-2's
//!   one-way agent and the RFCs' [`tcp::sender::ClassicSender`], with its loss recoveries
//!   behind [`tcp::recovery::LossRecovery`]; a Linux socket, [`tcp::sender::LinuxSender`]),
//!   sharing small parts (RTT estimators, SACK scoreboard, fixed-point windows, delivery-rate
//!   samples, pacing); and the congestion controllers, one file each, registered once under
//!   [`tcp::cc`] (their declarations feed the scenario parser, the traces and the docs).
//! - [`trace`]: typed trace events; the no-op tracer compiles away. pcap files of the
//!   traffic, one per link, and one per medium (802.11 with radiotap).
//! - [`scenario`]: the scenario schema (TOML/JSON), validated with field-path errors, and the
//!   limits estimated before a run. The layers above it never import it: [`sim`] turns it
//!   into runtime configurations (`tests/layers.rs` checks the layering).
//! - [`sim`]: the simulation. [`sim::Network`] carries packets through links and nodes for
//!   whatever [`sim::Driver`] owns it (the simulation's event loop; a real-time emulator
//!   could be another); the simulation adds the flows' endpoints, runs the event loop,
//!   audits invariants on request and collects results.

#![warn(missing_docs)]

pub mod app;
pub mod engine;
pub mod histogram;
pub mod loss;
pub mod net;
pub mod packet;
mod prefetch;
pub mod queue;
pub mod ring;
pub mod rng;
pub mod scenario;
pub mod schedule;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod units;

pub use scenario::{Scenario, ScenarioError};
pub use sim::{run, RunError, RunOutput};

/// The version of this crate, recorded in every run summary.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
