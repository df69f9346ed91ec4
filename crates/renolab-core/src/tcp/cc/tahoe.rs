//! TCP Tahoe (Jacobson 1988): fast retransmit, then slow start from one segment; no fast
//! recovery. The sender resends from the hole on (go-back-N, `Recovery::GoBackN`).

use super::{halved_ssthresh, open_window, CongestionControl};
use crate::tcp::window::Window;
use crate::time::SimTime;

/// Tahoe's window state.
#[derive(Clone, Debug)]
pub struct Tahoe {
    cwnd: Window,
    ssthresh: Window,
}

impl Tahoe {
    /// A Tahoe controller with the given initial window and threshold (segments).
    pub fn new(initial_window: u32, initial_ssthresh: u32) -> Self {
        Tahoe {
            cwnd: Window::segments(initial_window.max(1)),
            ssthresh: Window::segments(initial_ssthresh.max(2)),
        }
    }
}

impl CongestionControl for Tahoe {
    fn cwnd(&self) -> Window {
        self.cwnd
    }

    fn ssthresh(&self) -> Window {
        self.ssthresh
    }

    fn on_ack(&mut self, _now: SimTime, _ack: u32, _acked: u32) {
        self.cwnd = open_window(self.cwnd, self.ssthresh);
    }

    fn on_fast_retransmit(&mut self, _now: SimTime, window: Window) {
        // ns-2 tcp.cc dupack_action(): slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE).
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = Window::segments(1);
    }

    fn on_timeout(&mut self, window: Window) {
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = Window::segments(1);
    }

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
