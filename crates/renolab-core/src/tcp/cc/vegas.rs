//! TCP Vegas (Brakmo & Peterson, 1994/1995), as ns-2.35's `Agent/TCP/Vegas` runs it.
//!
//! Once per RTT Vegas compares the rate it expects with the window it has (cwnd / BaseRTT)
//! against the rate it gets (cwnd / average RTT of the last round); the difference, in
//! segments, is its estimate of its own backlog at the bottleneck:
//! `diff = cwnd * (1 - BaseRTT / RTT)`.
//! - Congestion avoidance: grow by one segment if `diff < alpha`, shrink by one if
//!   `diff > beta`, else hold.
//! - Modified slow start: double the window only every other RTT, and leave slow start
//!   when `diff > gamma`.
//! - Loss: a fine-grained per-segment timeout lets the sender retransmit on the first
//!   duplicate ACK ([`Vegas::segment_expired`]); a fast retransmit cuts the window by a
//!   quarter rather than a half.

use std::collections::VecDeque;

use super::{halved_ssthresh, CongestionControl};
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// Vegas's thresholds in segments (ns-2 `v_alpha_`, `v_beta_`, `v_gamma_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VegasConfig {
    /// Grow when fewer than this many segments are queued.
    pub alpha: u32,
    /// Shrink when more than this many segments are queued.
    pub beta: u32,
    /// Leave slow start when more than this many segments are queued.
    pub gamma: u32,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 1,
            beta: 3,
            gamma: 1,
        }
    }
}

/// Vegas's state.
#[derive(Clone, Debug)]
pub struct Vegas {
    config: VegasConfig,
    cwnd: Window,
    ssthresh: Window,
    /// Smallest RTT seen: the propagation and serialisation delay with empty queues.
    base_rtt: Option<SimDuration>,
    /// The current round ends when an ACK covers this segment.
    round_end: u32,
    rtt_sum: u64,
    rtt_count: u64,
    /// Slow start grows only in every other round.
    grow_this_round: bool,
    /// Send time and "was retransmitted" of segments `first_seq ..`.
    sent: VecDeque<(SimTime, bool)>,
    first_seq: u32,
    /// Fine-grained smoothed RTT and deviation (ns), for the early retransmission.
    srtt: u64,
    rttvar: u64,
    /// Segment sent at the last window decrease: one decrease per loss window.
    decreased_at: u32,
    /// New ACKs after a retransmission still to be checked for expired segments (ns-2
    /// `v_worried_`).
    worried: u32,
}

impl Vegas {
    /// A Vegas controller.
    pub fn new(initial_window: u32, initial_ssthresh: u32, config: VegasConfig) -> Self {
        Vegas {
            config,
            cwnd: Window::segments(initial_window.max(1)),
            ssthresh: Window::segments(initial_ssthresh.max(2)),
            base_rtt: None,
            round_end: 0,
            rtt_sum: 0,
            rtt_count: 0,
            // The first ACK ends round 0 and toggles this on: slow start grows in round 1.
            grow_this_round: false,
            sent: VecDeque::new(),
            first_seq: 0,
            srtt: 0,
            rttvar: 0,
            decreased_at: 0,
            worried: 0,
        }
    }

    /// Smallest RTT observed.
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt
    }

    fn next_seq(&self) -> u32 {
        self.first_seq + self.sent.len() as u32
    }

    /// True if segment `seq` has been out longer than the fine-grained timeout
    /// (srtt + 4 rttvar): Vegas then retransmits on the first duplicate ACK.
    pub fn segment_expired(&self, now: SimTime, seq: u32) -> bool {
        if self.srtt == 0 || seq < self.first_seq {
            return false;
        }
        match self.sent.get((seq - self.first_seq) as usize) {
            Some(&(at, _)) => now.saturating_since(at).as_nanos() > self.srtt + 4 * self.rttvar,
            None => false,
        }
    }

    /// On the first two new ACKs after a retransmission: true if segment `seq` (the one
    /// after the new cumulative ACK) has outlived its fine-grained timeout and should be
    /// retransmitted at once (ns-2 tcp-vegas.cc, `v_worried_`).
    pub fn worried_and_expired(&mut self, now: SimTime, seq: u32) -> bool {
        if self.worried == 0 {
            return false;
        }
        self.worried -= 1;
        let expired = self.segment_expired(now, seq);
        if !expired {
            self.worried = 0;
        }
        expired
    }

    fn on_rtt_sample(&mut self, rtt: SimDuration) {
        let r = rtt.as_nanos().max(1);
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.rtt_sum += r;
        self.rtt_count += 1;
        if self.srtt == 0 {
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            self.rttvar = (3 * self.rttvar + self.srtt.abs_diff(r)) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
    }

    /// The end of a round: compare expected and actual rates.
    fn end_round(&mut self) {
        if let (Some(base), true) = (self.base_rtt, self.rtt_count > 0) {
            let rtt = (self.rtt_sum / self.rtt_count).max(1) as f64;
            let base = base.as_nanos() as f64;
            // (expected - actual) * BaseRTT, in segments.
            let diff = self.cwnd.as_f64() * (1.0 - base / rtt);
            if self.cwnd < self.ssthresh {
                if diff > self.config.gamma as f64 {
                    // Leave slow start: give back the last round's overshoot (1/8).
                    let cut = (self.cwnd.whole() / 8).max(1);
                    self.cwnd = self.cwnd.minus(cut).max(Window::segments(2));
                    self.ssthresh = Window::segments(2);
                } else {
                    self.grow_this_round = !self.grow_this_round;
                }
            } else if diff < self.config.alpha as f64 {
                self.cwnd = self.cwnd.plus(1);
            } else if diff > self.config.beta as f64 {
                self.cwnd = self.cwnd.minus(1).max(Window::segments(2));
            }
        }
        self.round_end = self.next_seq();
        self.rtt_sum = 0;
        self.rtt_count = 0;
    }
}

impl CongestionControl for Vegas {
    fn cwnd(&self) -> Window {
        self.cwnd
    }

    fn ssthresh(&self) -> Window {
        self.ssthresh
    }

    fn on_sent(&mut self, now: SimTime, seq: u32, retransmit: bool) {
        if seq >= self.next_seq() {
            while self.next_seq() < seq {
                self.sent.push_back((now, true)); // never sent: no sample from it
            }
            self.sent.push_back((now, retransmit));
        } else if seq >= self.first_seq {
            self.sent[(seq - self.first_seq) as usize] = (now, true);
        }
    }

    fn on_ack(&mut self, now: SimTime, ack: u32, _acked: u32) {
        let mut newest = None;
        while self.first_seq < ack {
            match self.sent.pop_front() {
                Some(entry) => newest = Some(entry),
                None => break,
            }
            self.first_seq += 1;
        }
        self.first_seq = self.first_seq.max(ack);
        if let Some((at, false)) = newest {
            self.on_rtt_sample(now.saturating_since(at));
        }
        if ack > self.round_end {
            self.end_round();
        }
        if self.cwnd < self.ssthresh {
            if self.grow_this_round {
                self.cwnd = self.cwnd.plus(1);
            }
        }
    }

    fn on_fast_retransmit(&mut self, _now: SimTime, _window: Window) {
        self.worried = 2.min(self.next_seq().saturating_sub(self.first_seq));
        // One decrease per window of data: only if the lost segment was sent after the
        // last decrease (Brakmo & Peterson §3.1).
        if self.first_seq >= self.decreased_at {
            let quarter = self.cwnd.whole() / 4;
            self.cwnd = self.cwnd.minus(quarter).max(Window::segments(2));
            self.ssthresh = Window::segments(self.cwnd.whole().max(2));
            self.decreased_at = self.next_seq();
        }
    }

    fn on_timeout(&mut self, window: Window) {
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = Window::segments(1);
        // The next ACK starts a growing round of the new slow start.
        self.grow_this_round = false;
        self.decreased_at = self.next_seq();
        self.round_end = self.first_seq;
        self.rtt_sum = 0;
        self.rtt_count = 0;
    }

    fn deflate(&mut self, segments: u32) {
        self.cwnd = self.cwnd.minus(segments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    /// Sends a window at `t`, ACKs it one by one `rtt_ms` later.
    fn round(v: &mut Vegas, t: u64, rtt_ms: u64) -> u64 {
        let start = v.next_seq();
        let n = v.cwnd().whole();
        for i in 0..n {
            v.on_sent(ms(t), start + i, false);
        }
        for i in 0..n {
            v.on_ack(ms(t + rtt_ms), start + i + 1, 1);
        }
        t + rtt_ms
    }

    #[test]
    fn congestion_avoidance_grows_when_nothing_is_queued_and_shrinks_when_much_is() {
        let mut v = Vegas::new(10, 2, VegasConfig::default());
        let mut t = 0;
        t = round(&mut v, t, 100); // base RTT 100 ms
        let w = v.cwnd().whole();
        t = round(&mut v, t, 100); // no queueing: diff = 0 < alpha
        assert_eq!(v.cwnd().whole(), w + 1);
        let w = v.cwnd().whole();
        round(&mut v, t, 200); // RTT doubled: diff = w/2 > beta
        round(&mut v, t + 200, 200);
        assert!(v.cwnd().whole() < w + 1, "{} vs {w}", v.cwnd());
    }

    #[test]
    fn slow_start_doubles_only_every_other_round() {
        let mut v = Vegas::new(2, 1000, VegasConfig::default());
        let mut t = 0;
        let mut sizes = vec![v.cwnd().whole()];
        for _ in 0..4 {
            t = round(&mut v, t, 100);
            sizes.push(v.cwnd().whole());
        }
        assert_eq!(sizes, vec![2, 4, 4, 8, 8]);
    }

    #[test]
    fn a_segment_older_than_the_fine_timeout_is_expired() {
        let mut v = Vegas::new(2, 1000, VegasConfig::default());
        v.on_sent(ms(0), 0, false);
        v.on_sent(ms(0), 1, false);
        v.on_ack(ms(100), 1, 1);
        v.on_sent(ms(100), 2, false);
        assert!(!v.segment_expired(ms(150), 1));
        assert!(v.segment_expired(ms(400), 1));
    }
}
