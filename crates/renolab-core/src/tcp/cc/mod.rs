//! Congestion control: one small trait, one file per variant, one closed enum for dispatch.
//!
//! The sender ([`crate::tcp::sender`]) owns the shared machinery — duplicate-ACK counting,
//! the retransmission timer, Karn's rule — and calls these hooks with events it has already
//! classified. A variant only decides how `cwnd` and `ssthresh` move.

mod reno;

pub use reno::Reno;

use crate::tcp::window::Window;
use crate::time::SimTime;

/// The hooks a congestion-control variant implements. Windows are in segments.
pub trait CongestionControl {
    /// Current congestion window.
    fn cwnd(&self) -> Window;
    /// Current slow-start threshold.
    fn ssthresh(&self) -> Window;
    /// An ACK acknowledged `acked` new segments outside loss recovery.
    fn on_ack(&mut self, now: SimTime, acked: u32);
    /// Loss inferred from duplicate ACKs; `flight` segments were outstanding.
    /// Returns true if the variant does fast recovery (the sender then counts further
    /// duplicate ACKs as recovery events) and false if it restarts slow start (Tahoe).
    fn on_fast_retransmit(&mut self, now: SimTime, flight: u32, dupack_threshold: u32) -> bool;
    /// A further duplicate ACK arrived during fast recovery.
    fn on_dup_ack_in_recovery(&mut self) {}
    /// Fast recovery ended with an ACK of new data.
    fn on_recovery_exit(&mut self) {}
    /// The retransmission timer expired with `flight` segments outstanding.
    fn on_timeout(&mut self, flight: u32);
}

/// RFC 5681 §3.1 eq. 4: ssthresh = max(FlightSize / 2, 2 * SMSS).
pub fn halved_ssthresh(flight: u32) -> Window {
    Window::segments((flight / 2).max(2))
}

/// The variants, stored inline in each sender; every method is a `match`, no vtable.
#[derive(Clone, Debug)]
pub enum Cc {
    /// TCP Reno, RFC 5681.
    Reno(Reno),
}

impl CongestionControl for Cc {
    #[inline]
    fn cwnd(&self) -> Window {
        match self {
            Cc::Reno(c) => c.cwnd(),
        }
    }
    #[inline]
    fn ssthresh(&self) -> Window {
        match self {
            Cc::Reno(c) => c.ssthresh(),
        }
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, acked: u32) {
        match self {
            Cc::Reno(c) => c.on_ack(now, acked),
        }
    }
    fn on_fast_retransmit(&mut self, now: SimTime, flight: u32, dupack_threshold: u32) -> bool {
        match self {
            Cc::Reno(c) => c.on_fast_retransmit(now, flight, dupack_threshold),
        }
    }
    #[inline]
    fn on_dup_ack_in_recovery(&mut self) {
        match self {
            Cc::Reno(c) => c.on_dup_ack_in_recovery(),
        }
    }
    fn on_recovery_exit(&mut self) {
        match self {
            Cc::Reno(c) => c.on_recovery_exit(),
        }
    }
    fn on_timeout(&mut self, flight: u32) {
        match self {
            Cc::Reno(c) => c.on_timeout(flight),
        }
    }
}
