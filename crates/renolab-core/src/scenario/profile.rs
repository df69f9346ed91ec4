//! Parameter profiles: coherent sets of defaults, selectable for the whole scenario
//! (`[simulation] profile = ...`) or per flow (`profile = ...` in `[[flow]]`). Any option set
//! explicitly wins over the profile.
//!
//! - `rfc`: the IETF defaults (RFC 5681, RFC 6298, RFC 6928).
//! - `ns2`: ns-2.35's one-way agents as `tcl/lib/ns-default.tcl` sets them.
//! - `opnet`: the TCP parameter table of subedi2008 (OPNET Modeler).
//! - `linux`: a Linux 6.x host at its default sysctls (docs/variants/linux.md): what changes
//!   what a flow does on the wire.

use crate::tcp::Dialect;
use crate::time::SimDuration;

/// Names of the profiles.
pub const PROFILES: &[&str] = &["rfc", "ns2", "opnet", "linux"];

use crate::packet::headers::TCP_IP_HEADER_BYTES;

/// IPv4 and TCP headers with the timestamp option (RFC 7323: 10 bytes, padded to 12), as Linux sends
/// every segment.
pub const TCP_IP_TIMESTAMPS_HEADER_BYTES: u32 = 52;

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
    /// IP and TCP header bytes on every data segment.
    pub header_bytes: u32,
    /// Size of an ACK without SACK blocks.
    pub ack_bytes: u32,
    /// Bytes of a SACK option besides its blocks (see `ReceiverConfig::sack_option_bytes`).
    pub sack_option_bytes: u32,
    /// Which rules the endpoints follow where the RFCs, ns-2 and Linux differ.
    pub dialect: Dialect,
    /// RED counts bytes by default: its queue, thresholds and limit in `mean_pktsize`-byte
    /// units and its drop probability scaled by packet size (ns-2's `queue_in_bytes_` and
    /// `bytes_`, both true in ns-default.tcl). Elsewhere RED counts packets, as Floyd and
    /// Jacobson's RED does and RFC 7141 §2.1 recommends for the drop decision.
    pub red_counts_bytes: bool,
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
    header_bytes: TCP_IP_HEADER_BYTES,
    ack_bytes: TCP_IP_HEADER_BYTES,
    sack_option_bytes: 0,
    dialect: Dialect::Rfc,
    red_counts_bytes: false,
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
    limited_transmit: true,            // singledup_
    header_bytes: TCP_IP_HEADER_BYTES, // tcpip_base_hdr_size_
    ack_bytes: TCP_IP_HEADER_BYTES,
    sack_option_bytes: 0, // tcp-sink.cc adds 8 bytes per block
    dialect: Dialect::Ns2,
    red_counts_bytes: true, // queue_in_bytes_, bytes_
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
    header_bytes: TCP_IP_HEADER_BYTES,
    ack_bytes: TCP_IP_HEADER_BYTES,
    sack_option_bytes: 0,
    dialect: Dialect::Rfc,
    red_counts_bytes: false,
};

/// A Linux 6.x sender and receiver at their default sysctls (`net.ipv4.tcp_*`), as far as
/// they change what a flow does on the wire. Each value names the kernel constant or sysctl
/// it follows; docs/variants/linux.md lists the rules and what is left out.
pub const LINUX: Profile = Profile {
    name: "linux",
    // A 1500-byte MTU less 52 bytes of IP, TCP and timestamp headers.
    mss: 1448,
    initial_window: Some(10),         // TCP_INIT_CWND (RFC 6928)
    initial_ssthresh: Some(u32::MAX), // TCP_INFINITE_SSTHRESH
    // The receiver's window is set by the scenario (`window`), else unlimited: Linux's
    // autotuned buffers (tcp_rmem) grow with the connection.
    window: Some(u32::MAX),
    receive_buffer_bytes: 0,
    dupack_threshold: 3,                    // tcp_reordering
    initial_rto: SimDuration::from_secs(1), // TCP_TIMEOUT_INIT (RFC 6298)
    min_rto: SimDuration::from_millis(200), // TCP_RTO_MIN
    max_rto: SimDuration::from_secs(120),   // TCP_RTO_MAX
    clock_granularity: SimDuration::ZERO,   // microsecond RTT samples
    handshake: true,
    delayed_ack: true,
    delack_timeout: SimDuration::from_millis(40), // TCP_ATO_MIN (adaptive, see receiver)
    partial_window_deflation: true,
    queue_limit_counts_transmitting: false,
    // RACK counts SACKed segments out of the flight instead (RFC 8985 §5).
    limited_transmit: false,
    header_bytes: TCP_IP_TIMESTAMPS_HEADER_BYTES, // tcp_timestamps = 1
    ack_bytes: TCP_IP_TIMESTAMPS_HEADER_BYTES,
    sack_option_bytes: 4,
    dialect: Dialect::Linux,
    red_counts_bytes: false,
};

/// The profile called `name` (already checked against [`PROFILES`]).
pub fn by_name(name: &str) -> Profile {
    match name {
        "ns2" => NS2,
        "opnet" => OPNET,
        "linux" => LINUX,
        _ => RFC,
    }
}
