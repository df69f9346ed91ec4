//! Congestion control: one small trait, one file per variant, one closed enum for dispatch.
//!
//! The sender ([`crate::tcp::sender`]) owns the shared machinery — duplicate-ACK counting,
//! the retransmission timer, Karn's rule, fast-recovery bookkeeping and the SACK
//! scoreboard — and calls these hooks with events it has already classified. A variant only
//! decides how `cwnd` and `ssthresh` move. How the sender recovers from a loss (go-back-N,
//! Reno, NewReno partial ACKs, SACK) is the second axis, [`crate::tcp::sender::Recovery`].

mod newreno;
mod reno;
mod tahoe;
mod vegas;

pub use newreno::{Careful, NewReno, NewRenoConfig, TimerReset};
pub use reno::Reno;
pub use tahoe::Tahoe;
pub use vegas::{Vegas, VegasConfig};

use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// The hooks a congestion-control variant implements. Windows are in segments.
pub trait CongestionControl {
    /// Current congestion window (without fast-recovery inflation).
    fn cwnd(&self) -> Window;
    /// Current slow-start threshold.
    fn ssthresh(&self) -> Window;
    /// Segment `seq` left at `now` (a retransmission if `retransmit`).
    fn on_sent(&mut self, _now: SimTime, _seq: u32, _retransmit: bool) {}
    /// An ACK for new data (`ack` is the next segment expected, `acked` the number newly
    /// acknowledged) arrived outside loss recovery.
    fn on_ack(&mut self, now: SimTime, ack: u32, acked: u32);
    /// Loss inferred from duplicate ACKs. `window` is what the threshold halves: the flight
    /// size (RFC 5681) or ns-2's `windowd()` = min(cwnd + inflation, receiver window).
    fn on_fast_retransmit(&mut self, now: SimTime, window: Window);
    /// The retransmission timer expired at `now`; `window` as for
    /// [`Self::on_fast_retransmit`].
    fn on_timeout(&mut self, now: SimTime, window: Window);
    /// Partial window deflation (RFC 6582 §3.2 step 5): take `segments` off the window,
    /// never below one segment.
    fn deflate(&mut self, segments: u32);
    /// The SYN-ACK arrived, `rtt` after the first SYN left.
    fn on_syn_ack(&mut self, _now: SimTime, _rtt: SimDuration) {}
}

/// RFC 5681 §3.1 eq. 4 (and ns-2's `slowdown(CLOSE_SSTHRESH_HALF)`): half the window, in
/// whole segments, at least two.
pub fn halved_ssthresh(window: Window) -> Window {
    Window::segments((window.half().whole()).max(2))
}

/// Slow start below ssthresh (one segment per ACK, as ns-2's `opencwnd()` and RFC 5681
/// without ABC), congestion avoidance above (about one segment per window of ACKs).
pub fn open_window(cwnd: Window, ssthresh: Window) -> Window {
    if cwnd < ssthresh {
        cwnd.plus(1)
    } else {
        cwnd.plus_reciprocal()
    }
}

/// The variants, stored inline in each sender; every method is a `match`, no vtable.
#[derive(Clone, Debug)]
pub enum Cc {
    /// Tahoe: slow start after every loss.
    Tahoe(Tahoe),
    /// Reno (also the window arithmetic of SACK).
    Reno(Reno),
    /// NewReno, with Hoe's start-up threshold estimate.
    NewReno(NewReno),
    /// Vegas.
    Vegas(Vegas),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::Tahoe($c) => $e,
            Cc::Reno($c) => $e,
            Cc::NewReno($c) => $e,
            Cc::Vegas($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn cwnd(&self) -> Window {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> Window {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn on_sent(&mut self, now: SimTime, seq: u32, retransmit: bool) {
        dispatch!(self, c => c.on_sent(now, seq, retransmit))
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: u32, acked: u32) {
        dispatch!(self, c => c.on_ack(now, ack, acked))
    }
    fn on_fast_retransmit(&mut self, now: SimTime, window: Window) {
        dispatch!(self, c => c.on_fast_retransmit(now, window))
    }
    fn on_timeout(&mut self, now: SimTime, window: Window) {
        dispatch!(self, c => c.on_timeout(now, window))
    }
    fn deflate(&mut self, segments: u32) {
        dispatch!(self, c => c.deflate(segments))
    }
    fn on_syn_ack(&mut self, now: SimTime, rtt: SimDuration) {
        dispatch!(self, c => c.on_syn_ack(now, rtt))
    }
}
