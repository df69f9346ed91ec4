//! TCP Reno's window arithmetic (RFC 5681): slow start, congestion avoidance, halving on
//! loss. Fast recovery's window inflation is the sender's (`Recovery::Reno`); SACK uses
//! the same arithmetic with the scoreboard instead of inflation.

use super::{halved_ssthresh, open_window, CongestionControl};
use crate::tcp::window::Window;
use crate::time::SimTime;

/// Reno's window state.
#[derive(Clone, Debug)]
pub struct Reno {
    cwnd: Window,
    ssthresh: Window,
    /// Keep the fraction of W/2 in cwnd after a fast retransmit (ns-2 `precisionReduce_`);
    /// otherwise cwnd = ssthresh (RFC 5681 §3.2 step 3).
    keep_fraction: bool,
}

impl Reno {
    /// A Reno controller with the given initial window and threshold (segments);
    /// `keep_fraction` as ns-2's `precisionReduce_`.
    pub fn new(initial_window: u32, initial_ssthresh: u32, keep_fraction: bool) -> Self {
        Reno {
            cwnd: Window::segments(initial_window.max(1)),
            ssthresh: Window::segments(initial_ssthresh.max(2)),
            keep_fraction,
        }
    }

    /// Lowers the threshold to `ssthresh` if that is below the current one (Hoe's estimate).
    pub fn cap_ssthresh(&mut self, ssthresh: u32) {
        self.ssthresh = self.ssthresh.min(Window::segments(ssthresh.max(2)));
    }
}

impl CongestionControl for Reno {
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
        // RFC 5681 §3.2 steps 2-3 (ns-2 slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)); the
        // "+3 segments" inflation is added by the sender's recovery.
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = if self.keep_fraction {
            window.half().max(Window::segments(1))
        } else {
            self.ssthresh
        };
    }

    fn on_timeout(&mut self, _now: SimTime, window: Window) {
        // RFC 5681 §3.1 eq. 4 and "Loss Window" = 1 segment.
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = Window::segments(1);
    }

    fn deflate(&mut self, segments: u32) {
        self.cwnd = self.cwnd.minus(segments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime::ZERO;

    #[test]
    fn slow_start_adds_one_segment_per_ack() {
        let mut r = Reno::new(2, 100, false);
        r.on_ack(T, 1, 1);
        r.on_ack(T, 2, 1);
        assert_eq!(r.cwnd(), Window::segments(4));
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut r = Reno::new(10, 10, false);
        for i in 0..11 {
            r.on_ack(T, i, 1);
        }
        assert_eq!(r.cwnd().whole(), 11);
    }

    #[test]
    fn fast_retransmit_halves_the_window() {
        let mut r = Reno::new(20, 1000, false);
        r.on_fast_retransmit(T, Window::segments(20));
        assert_eq!(r.ssthresh(), Window::segments(10));
        assert_eq!(r.cwnd(), Window::segments(10));
        // ns-2 keeps the fraction: 41 -> 20.5, ssthresh 20.
        let mut ns2 = Reno::new(41, 1000, true);
        ns2.on_fast_retransmit(T, Window::segments(41));
        assert_eq!(
            (ns2.cwnd().as_f64(), ns2.ssthresh()),
            (20.5, Window::segments(20))
        );
    }

    #[test]
    fn timeout_collapses_to_one_segment_and_ssthresh_never_below_two() {
        let mut r = Reno::new(20, 1000, false);
        r.on_timeout(T, Window::segments(3));
        assert_eq!(r.cwnd(), Window::segments(1));
        assert_eq!(r.ssthresh(), Window::segments(2));
    }
}
