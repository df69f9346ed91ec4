//! criterion micro-benchmarks of renolab-core's hot paths; run them with
//! `cargo bench -p renolab-bench` (or `-- <filter>`, e.g. `-- cc/`).
//!
//! - `benches/scheduler.rs`: one pop and one push on an event heap of 8 to 4096 entries;
//! - `benches/queue.rs`: an enqueue and a dequeue on a DropTail queue with a standing backlog;
//! - `benches/link.rs`: a packet's hop over one link direction (pool, queue, transmitter, pipe);
//! - `benches/cc.rs`: an ACK through each congestion controller, hook alone and through the
//!   whole sender (ACK in, segment out).
//!
//! This library holds the fixtures the benches share.

use renolab_core::tcp::cc::{Cc, NewReno, Reno, Vegas, VegasConfig};
use renolab_core::tcp::recovery::{NewRenoConfig, RecoveryKind};
use renolab_core::tcp::rtt::RtoConfig;
use renolab_core::tcp::{Dialect, SenderConfig, TcpSender, Transfer};
use renolab_core::time::SimDuration;

/// The variants benchmarked: name, congestion control and loss recovery.
pub const VARIANTS: [&str; 5] = ["tahoe", "reno", "newreno", "sack", "vegas"];

/// Congestion control and recovery of `variant` (one of [`VARIANTS`]), in congestion
/// avoidance at a window of `window` segments.
pub fn controller(variant: &str, window: u32) -> (Cc, RecoveryKind) {
    // ssthresh below the window: congestion avoidance, the steady state of a long flow.
    let ssthresh = window / 2;
    match variant {
        "tahoe" => (
            Cc::Reno(Reno::new(window, ssthresh, false)),
            RecoveryKind::Tahoe,
        ),
        "reno" => (
            Cc::Reno(Reno::new(window, ssthresh, false)),
            RecoveryKind::Reno,
        ),
        "newreno" => (
            Cc::NewReno(NewReno::new(window, ssthresh, false, false)),
            RecoveryKind::NewReno(NewRenoConfig::default()),
        ),
        "sack" => (
            Cc::Reno(Reno::new(window, ssthresh, false)),
            RecoveryKind::Rfc6675,
        ),
        "vegas" => (
            Cc::Vegas(Vegas::new(window, ssthresh, VegasConfig::default())),
            RecoveryKind::Reno,
        ),
        other => panic!("unknown variant {other}"),
    }
}

/// An unlimited-transfer sender of `variant` whose receiver window caps the flight at
/// `window` segments, so that in steady state each ACK releases one new segment.
pub fn sender(variant: &str, window: u32) -> TcpSender {
    let (cc, recovery) = controller(variant, window);
    let config = SenderConfig {
        header_bytes: 40,
        initial_window: window,
        initial_ssthresh: window / 2,
        receiver_window: window,
        dupack_threshold: 3,
        rto: RtoConfig {
            initial: SimDuration::from_secs(1),
            min: SimDuration::from_millis(200),
            max: SimDuration::from_secs(60),
            granularity: SimDuration::ZERO,
        },
        handshake: false,
        dialect: Dialect::Rfc,
        recovery,
        limited_transmit: true,
        clock_phase: None,
        pacing: false,
        ecn: false,
        accecn: false,
        gso: renolab_core::tcp::gso::Gso::OFF,
    };
    let transfer = Transfer {
        mss: 1460,
        bytes: None,
    };
    TcpSender::new(config, transfer, cc, 0)
}
