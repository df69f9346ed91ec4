//! TCP Reno (RFC 5681): slow start, congestion avoidance, fast retransmit, fast recovery.

use super::{halved_ssthresh, CongestionControl};
use crate::tcp::window::Window;
use crate::time::SimTime;

/// Reno's window state.
#[derive(Clone, Debug)]
pub struct Reno {
    cwnd: Window,
    ssthresh: Window,
}

impl Reno {
    /// A Reno controller with the given initial window and threshold (segments).
    pub fn new(initial_window: u32, initial_ssthresh: u32) -> Self {
        Reno {
            cwnd: Window::segments(initial_window.max(1)),
            ssthresh: Window::segments(initial_ssthresh.max(2)),
        }
    }
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> Window {
        self.cwnd
    }

    fn ssthresh(&self) -> Window {
        self.ssthresh
    }

    fn on_ack(&mut self, _now: SimTime, _acked: u32) {
        if self.cwnd < self.ssthresh {
            // RFC 5681 §3.1: slow start, one segment per ACK (as ns-2; no ABC).
            self.cwnd = self.cwnd.plus(1);
        } else {
            // RFC 5681 §3.1 eq. 3: congestion avoidance, about one segment per RTT.
            self.cwnd = self.cwnd.plus_reciprocal();
        }
    }

    fn on_fast_retransmit(&mut self, _now: SimTime, flight: u32, dupack_threshold: u32) -> bool {
        // RFC 5681 §3.2 steps 2-3: halve, then inflate by the segments that left the network.
        self.ssthresh = halved_ssthresh(flight);
        self.cwnd = self.ssthresh.plus(dupack_threshold);
        true
    }

    fn on_dup_ack_in_recovery(&mut self) {
        // RFC 5681 §3.2 step 4: each further duplicate ACK means a segment left the network.
        self.cwnd = self.cwnd.plus(1);
    }

    fn on_recovery_exit(&mut self) {
        // RFC 5681 §3.2 step 6: deflate the window.
        self.cwnd = self.ssthresh;
    }

    fn on_timeout(&mut self, flight: u32) {
        // RFC 5681 §3.1 eq. 4 and "Loss Window" = 1 segment.
        self.ssthresh = halved_ssthresh(flight);
        self.cwnd = Window::segments(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime::ZERO;

    #[test]
    fn slow_start_adds_one_segment_per_ack() {
        let mut r = Reno::new(2, 100);
        r.on_ack(T, 1);
        r.on_ack(T, 1);
        assert_eq!(r.cwnd(), Window::segments(4));
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut r = Reno::new(10, 10);
        for _ in 0..11 {
            r.on_ack(T, 1);
        }
        assert_eq!(r.cwnd().whole(), 11);
    }

    #[test]
    fn fast_retransmit_halves_the_flight_and_inflates_by_three() {
        let mut r = Reno::new(20, 1000);
        assert!(r.on_fast_retransmit(T, 20, 3));
        assert_eq!(r.ssthresh(), Window::segments(10));
        assert_eq!(r.cwnd(), Window::segments(13));
        r.on_dup_ack_in_recovery();
        assert_eq!(r.cwnd(), Window::segments(14));
        r.on_recovery_exit();
        assert_eq!(r.cwnd(), Window::segments(10));
    }

    #[test]
    fn timeout_collapses_to_one_segment_and_ssthresh_never_below_two() {
        let mut r = Reno::new(20, 1000);
        r.on_timeout(3);
        assert_eq!(r.cwnd(), Window::segments(1));
        assert_eq!(r.ssthresh(), Window::segments(2));
    }
}
