//! # renolab-emu
//!
//! Real Linux TCP endpoints whose packets cross renolab's links, queues and loss models in
//! real time: the same scenario file drives either the simulator's endpoints
//! (`renolab run`) or the kernel's (`renolab emulate`).
//!
//! How it works, bottom up:
//!
//! - [`plan`] decides, before anything is created, what the emulation is: every node a TCP
//!   flow starts or ends at becomes a network namespace (`renolab-<pid>-<node>`) with a TUN
//!   device (`rl-<node>`); each flow's variant becomes a kernel congestion control; hostile
//!   names are refused here, on every platform.
//! - [`wire`] reads the headers of the kernels' datagrams: flow, packet kind and segment
//!   number, as the simulator's loss models and traces know them.
//! - `linux` (Linux only) creates the namespaces, devices and sockets, then runs two threads
//!   with no capabilities left: the driver, which carries every datagram across the
//!   scenario's links with the core's [`renolab_core::net::LinkDir`] on the wall clock, and
//!   the applications, which connect, send, receive and sample `TCP_INFO` ([`tcp_info`]).
//! - [`lateness`] measures how late the driver hands packets to the kernels.
//!
//! [`emulate`] runs a scenario and returns the same [`RunOutput`] as the simulator, plus
//! what only an emulation knows ([`KernelFlow`], [`Report`]).

#![warn(missing_docs)]

pub mod lateness;
pub mod plan;
pub mod tcp_info;
pub mod wire;

#[cfg(target_os = "linux")]
mod linux;

use std::sync::atomic::AtomicBool;

use renolab_core::sim::RunOutput;
use renolab_core::time::SimDuration;
use renolab_core::trace::TraceRequest;

pub use lateness::LatenessSummary;
pub use plan::{Plan, PlanError};
pub use tcp_info::TcpInfo;

/// How to run an emulation.
#[derive(Clone, Debug)]
pub struct Request {
    /// Traces to record (`cwnd` and `rtt` come from `TCP_INFO`; `seq`, `queue`, `drops`,
    /// `hops` from the driver), and where; `pcap_dir` gets one pcap file per link with the
    /// real datagrams.
    pub traces: TraceRequest,
    /// How often each sender's `TCP_INFO` is sampled.
    pub tcp_info_interval: SimDuration,
    /// The driver spins instead of sleeping when its next event is this close (default
    /// 20 us: long enough to absorb a sleep's wake-up latency, short enough that a
    /// real-time driver stays far from the kernel's 95 % real-time CPU limit, whose
    /// throttling stalls it for 50 ms; docs/emulation.md has the measurements).
    pub spin: SimDuration,
    /// Pin the driver thread to this CPU.
    pub cpu: Option<usize>,
    /// Run the driver thread at real-time priority (`SCHED_FIFO`, the default) instead of
    /// nice -20: on a busy machine a fair-share thread wakes milliseconds late.
    pub realtime: bool,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            traces: TraceRequest::default(),
            tcp_info_interval: SimDuration::from_millis(2),
            spin: SimDuration::from_micros(20),
            cpu: None,
            realtime: true,
        }
    }
}

/// Why an emulation did not run or did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// The scenario cannot be emulated (a name, a variant the kernel lacks, a trace name):
    /// nothing was created.
    Input(String),
    /// This machine cannot emulate (not Linux, not root, no TUN device): nothing was created.
    Unsupported(String),
    /// Setting up or running failed; everything created was removed. (A cancelled
    /// emulation is not an error: it returns what it collected, stop reason `interrupted`.)
    Failed(String),
}

impl std::fmt::Display for EmuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmuError::Input(m) | EmuError::Unsupported(m) | EmuError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EmuError {}

/// What the kernel did for one flow, beyond the simulator's columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelFlow {
    /// The variant the scenario asked for (`"cbr"` for a constant-bit-rate flow).
    pub variant: String,
    /// The kernel congestion control that ran it.
    pub congestion: Option<String>,
    /// SACK negotiated.
    pub sack: Option<bool>,
    /// Retransmission timeouts (`tcpi_total_rto`, Linux 6.7 and later).
    pub timeouts: Option<u64>,
    /// The sender's RTT right after the handshake, microseconds.
    pub handshake_rtt_us: Option<f64>,
    /// When the connection was established, seconds.
    pub established_s: Option<f64>,
    /// The sender's last `TCP_INFO`.
    pub tcp_info: Option<TcpInfo>,
    /// Why the connection failed, if it did.
    pub error: Option<String>,
}

/// One namespace and the kernel settings in force in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostReport {
    /// Node name.
    pub node: String,
    /// Namespace name.
    pub netns: String,
    /// TUN device name.
    pub device: String,
    /// IPv4 address.
    pub ip: String,
    /// Sysctls read inside the namespace after set-up, `(key, value)`.
    pub sysctls: Vec<(String, String)>,
    /// Datagrams the kernel dropped in the TUN device before the emulator read them
    /// (expected 0), if `ip` could tell.
    pub tun_tx_dropped: Option<u64>,
    /// The TUN device's offloads after set-up (what `renolab emulate` set: GSO as the
    /// flows sent from this host ask, `ethtool -K`).
    pub offloads: Option<Offloads>,
}

/// Segmentation and receive offloads of a device, as `ethtool -k` shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offloads {
    /// `tcp-segmentation-offload` (the device segments; never on for a TUN device without
    /// `TUNSETOFFLOAD`).
    pub tso: bool,
    /// `generic-segmentation-offload`: the stack builds super-packets of several segments
    /// and segments them in software just before the driver (`NETIF_F_SOFT_FEATURES`: on
    /// for every device unless switched off).
    pub gso: bool,
    /// `generic-receive-offload` (a TUN device without NAPI never coalesces).
    pub gro: bool,
}

/// How the emulation went.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Lateness of deliveries into the namespaces against their schedule.
    pub lateness: LatenessSummary,
    /// How late a probe thread of the lowest real-time priority woke up, once a millisecond
    /// through the run: the machine's own timing (zero wake-ups when the probe could not
    /// get its priority).
    pub host_timer: LatenessSummary,
    /// `uname -r`.
    pub kernel_release: String,
    /// `net.ipv4.tcp_available_congestion_control`.
    pub congestion_available: Vec<String>,
    /// The namespaces and their settings.
    pub hosts: Vec<HostReport>,
    /// MTU of the TUN devices.
    pub mtu: u32,
    /// What the emulator changed or could not honour.
    pub notes: Vec<String>,
    /// Stale namespaces of killed runs removed at start.
    pub stale_removed: Vec<String>,
    /// Datagrams read from the kernels.
    pub ingress_packets: u64,
    /// Datagrams that belonged to no flow (ICMP, ...) or could not be routed.
    pub stray_packets: u64,
    /// Datagrams over the MTU (none expected: offloads are off).
    pub oversize_packets: u64,
    /// Deliveries a kernel refused.
    pub write_errors: u64,
    /// Largest fraction of a 100 ms window the driver did not sleep.
    pub driver_busy_max: f64,
    /// Seconds during which the driver did not spin because it was too busy (it stays
    /// below the kernel's real-time limit, whose throttling would stall it for 50 ms).
    pub spin_suspended_s: f64,
    /// `TCP_INFO` sampling interval, microseconds.
    pub tcp_info_interval_us: f64,
    /// Spin window, microseconds.
    pub spin_us: f64,
    /// CPU the driver was pinned to.
    pub cpu: Option<usize>,
    /// The driver ran at real-time priority.
    pub realtime: bool,
    /// Wall-clock seconds from the first namespace created to the last removed.
    pub setup_and_teardown_s: f64,
}

/// An emulation's results.
#[derive(Clone, Debug)]
pub struct Emulation {
    /// Per flow, per link direction and summary, as the simulator reports them. Flow rows'
    /// `variant` is `"kernel"` (see [`KernelFlow::variant`]) and their `fast_retransmits`
    /// 0: the kernel does not count them per connection.
    pub output: RunOutput,
    /// Per flow, what the kernel did.
    pub flows: Vec<KernelFlow>,
    /// How the emulation went.
    pub report: Report,
}

/// Reads `text` (JSON) and plans its emulation for this process: the checks every platform
/// makes before creating anything.
pub fn plan_json(text: &str) -> Result<Plan, EmuError> {
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| EmuError::Input(format!("not valid JSON: {e}")))?;
    plan::plan(&doc, std::process::id()).map_err(|e| EmuError::Input(e.0))
}

/// Emulates the scenario `text` (JSON), stopping early when `cancel` is set.
pub fn emulate(text: &str, request: &Request, cancel: &AtomicBool) -> Result<Emulation, EmuError> {
    let plan = plan_json(text)?;
    run_plan(&plan, request, cancel)
}

#[cfg(target_os = "linux")]
fn run_plan(plan: &Plan, request: &Request, cancel: &AtomicBool) -> Result<Emulation, EmuError> {
    linux::run(plan, request, cancel)
}

#[cfg(not(target_os = "linux"))]
fn run_plan(_: &Plan, _: &Request, _: &AtomicBool) -> Result<Emulation, EmuError> {
    Err(EmuError::Unsupported(
        "renolab emulate needs Linux (network namespaces and TUN devices); this is another system"
            .to_string(),
    ))
}

/// Why this machine cannot emulate, or `None` when it can (Linux, root or the capabilities
/// CAP_NET_ADMIN and CAP_SYS_ADMIN, `/dev/net/tun`, iproute2).
pub fn unsupported_reason() -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        linux::unsupported_reason()
    }
    #[cfg(not(target_os = "linux"))]
    {
        Some("renolab emulate needs Linux (network namespaces and TUN devices)".to_string())
    }
}

/// The kernel's congestion controls (`tcp_available_congestion_control`), empty off Linux.
pub fn kernel_congestion_controls() -> Vec<String> {
    #[cfg(target_os = "linux")]
    {
        linux::available_congestion_controls()
    }
    #[cfg(not(target_os = "linux"))]
    {
        Vec::new()
    }
}
