//! TCP Tahoe (Jacobson 1988): fast retransmit, then slow start from one segment; no fast
//! recovery. The sender resends from the hole on (go-back-N, `Recovery::GoBackN`).
//!
//! Its window arithmetic is Reno's, except that a loss detected by duplicate ACKs is answered
//! as a timeout is: ssthresh = W/2, cwnd = 1 (ns-2 tcp.cc dupack_action():
//! slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE)).

use super::{CongestionControl, Reno};
use crate::tcp::window::Window;
use crate::time::SimTime;

/// Tahoe's window state.
#[derive(Clone, Debug)]
pub struct Tahoe(Reno);

impl Tahoe {
    /// A Tahoe controller with the given initial window and threshold (segments).
    pub fn new(initial_window: u32, initial_ssthresh: u32) -> Self {
        Tahoe(Reno::new(initial_window, initial_ssthresh, false))
    }
}

impl CongestionControl for Tahoe {
    fn cwnd(&self) -> Window {
        self.0.cwnd()
    }

    fn ssthresh(&self) -> Window {
        self.0.ssthresh()
    }

    fn on_ack(&mut self, now: SimTime, ack: u32, acked: u32) {
        self.0.on_ack(now, ack, acked);
    }

    fn on_fast_retransmit(&mut self, now: SimTime, window: Window) {
        self.0.on_timeout(now, window);
    }

    fn on_timeout(&mut self, now: SimTime, window: Window) {
        self.0.on_timeout(now, window);
    }

    /// Tahoe has no fast recovery, hence no partial window deflation.
    fn deflate(&mut self, _segments: u32) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_retransmit_restarts_slow_start_from_one_segment() {
        let mut t = Tahoe::new(16, 1000);
        t.on_fast_retransmit(SimTime::ZERO, Window::segments(16));
        assert_eq!(t.cwnd(), Window::segments(1));
        assert_eq!(t.ssthresh(), Window::segments(8));
        t.on_ack(SimTime::ZERO, 1, 1);
        assert_eq!(t.cwnd(), Window::segments(2), "slow start again");
    }
}
