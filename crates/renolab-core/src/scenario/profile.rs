//! Parameter profiles: coherent sets of defaults, selectable for the whole scenario
//! (`[simulation] profile = ...`) or per flow (`profile = ...` in `[[flow]]`). Any option set
//! explicitly wins over the profile.
//!
//! - `rfc`: the IETF defaults (RFC 5681, RFC 6298, RFC 6928).
//! - `ns2`: ns-2.35's one-way agents as `tcl/lib/ns-default.tcl` sets them.
//! - `opnet`: the TCP parameter table of subedi2008 (OPNET Modeler).

use crate::time::SimDuration;

/// Names of the profiles.
pub const PROFILES: &[&str] = &["rfc", "ns2", "opnet"];

/// The defaults a profile supplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Profile name.
    pub name: &'static str,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Initial window in segments; `None`: RFC 6928's min(10, max(2, 14600 / mss)).
    pub initial_window: Option<u32>,
    /// Initial ssthresh in segments; `None`: equal to the receiver window.
    pub initial_ssthresh: Option<u32>,
    /// Receiver window in segments; `None`: derived from `receive_buffer_bytes`.
    pub window: Option<u32>,
    /// Receive buffer in bytes, used when `window` is `None`.
    pub receive_buffer_bytes: u64,
    /// Duplicate-ACK threshold.
    pub dupack_threshold: u32,
    /// Initial RTO.
    pub initial_rto: SimDuration,
    /// Minimum RTO.
    pub min_rto: SimDuration,
    /// Maximum RTO.
    pub max_rto: SimDuration,
    /// RTT clock granularity.
    pub clock_granularity: SimDuration,
    /// SYN / SYN-ACK exchange before data.
    pub handshake: bool,
    /// Receiver delays ACKs.
    pub delayed_ack: bool,
    /// Delayed-ACK timer.
    pub delack_timeout: SimDuration,
    /// NewReno partial window deflation.
    pub partial_window_deflation: bool,
    /// DropTail's limit counts the packet being transmitted (ns-2's `drop-tail.cc`).
    pub queue_limit_counts_transmitting: bool,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
}

/// RFC defaults.
pub const RFC: Profile = Profile {
    name: "rfc",
    mss: 1460,
    initial_window: None,
    initial_ssthresh: Some(u32::MAX), // RFC 5681 §3.1: "arbitrarily high"
    window: Some(u32::MAX),
    receive_buffer_bytes: 0,
    dupack_threshold: 3,                    // RFC 5681 §3.2
    initial_rto: SimDuration::from_secs(1), // RFC 6298 §2.1
    min_rto: SimDuration::from_secs(1),     // RFC 6298 §2.4
    max_rto: SimDuration::from_secs(60),    // RFC 6298 §2.5
    clock_granularity: SimDuration::ZERO,
    handshake: false,
    delayed_ack: true, // RFC 5681 §4.2: SHOULD
    delack_timeout: SimDuration::from_millis(200),
    partial_window_deflation: true, // RFC 6582 §3.2 step 5
    queue_limit_counts_transmitting: false,
    limited_transmit: true, // RFC 5681 §3.2 step 1
};

/// ns-2.35 defaults (`ns-default.tcl`; see docs/ns2-behaviour.md).
pub const NS2: Profile = Profile {
    name: "ns2",
    mss: 1000,               // packetSize_
    initial_window: Some(2), // windowInit_
    initial_ssthresh: None,  // ssthresh_ starts at window_
    window: Some(20),        // window_
    receive_buffer_bytes: 0,
    dupack_threshold: 3,                             // numdupacks_
    initial_rto: SimDuration::from_secs(3),          // rtxcur_init_
    min_rto: SimDuration::from_millis(200),          // minrto_
    max_rto: SimDuration::from_secs(60),             // maxrto_
    clock_granularity: SimDuration::from_millis(10), // tcpTick_
    handshake: true,                                 // syn_
    delayed_ack: false,                              // plain TCPSink
    delack_timeout: SimDuration::from_millis(100),   // TCPSink/DelAck interval_
    partial_window_deflation: true,                  // partial_window_deflation_
    queue_limit_counts_transmitting: true,
    limited_transmit: true, // singledup_
};

/// subedi2008's OPNET parameters.
pub const OPNET: Profile = Profile {
    name: "opnet",
    mss: 1460,
    initial_window: Some(1),
    initial_ssthresh: None,
    window: None,
    receive_buffer_bytes: 65_535,
    dupack_threshold: 3,
    initial_rto: SimDuration::from_secs(1),
    min_rto: SimDuration::from_millis(500),
    max_rto: SimDuration::from_secs(64),
    clock_granularity: SimDuration::ZERO,
    handshake: false,
    delayed_ack: true, // "ACK every 2 segments"
    delack_timeout: SimDuration::from_millis(200),
    partial_window_deflation: true,
    queue_limit_counts_transmitting: false,
    limited_transmit: false,
};

/// The profile called `name` (already checked against [`PROFILES`]).
pub fn by_name(name: &str) -> Profile {
    match name {
        "ns2" => NS2,
        "opnet" => OPNET,
        _ => RFC,
    }
}
