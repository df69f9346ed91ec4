//! TCP Reno's window arithmetic (RFC 5681): slow start, congestion avoidance, halving on
//! loss. Fast recovery's window inflation belongs to loss recovery
//! ([`crate::tcp::recovery`]); SACK uses the same arithmetic with a scoreboard instead.
//!
//! Two ways of growing the window are in use, and they differ on the wire as soon as ACKs
//! are delayed:
//! - per ACK ([`Growth::PerAck`]), as ns-2's `opencwnd()` and RFC 5681 without Appropriate
//!   Byte Counting: one segment per ACK in slow start, 1/cwnd per ACK above ssthresh;
//! - per segment acknowledged ([`Growth::Linux`]), as Linux's `tcp_reno_cong_avoid()`:
//!   slow start adds the segments acknowledged but stops at ssthresh (`tcp_slow_start()`),
//!   and congestion avoidance counts acknowledged segments in `snd_cwnd_cnt`, adding a
//!   whole segment each time the count reaches cwnd (`tcp_cong_avoid_ai()`), only while the
//!   sender is cwnd-limited (`tcp_is_cwnd_limited()`).

use serde_json::Value;

use super::declare::ALL_PROFILES;
use super::{
    halved_ssthresh, AckSample, BuildContext, Cc, Congestion, CongestionControl, Declaration,
    Declared, DefaultRecovery, OptionError, OptionReader, RecoveryRule,
};
use crate::tcp::config::Dialect;
use crate::tcp::window::Window;
use crate::time::SimTime;

/// How the window grows on an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// One segment per ACK in slow start, 1/cwnd per ACK above (ns-2, RFC 5681 §3.1 without
    /// ABC).
    PerAck,
    /// Linux `net/ipv4/tcp_cong.c`: by segments acknowledged, whole segments, only while
    /// cwnd-limited.
    Linux,
}

/// Linux's congestion-avoidance counter (`tcp_cong_avoid_ai()` in `net/ipv4/tcp_cong.c`):
/// `count` acknowledged segments toward the next whole-segment increase of a window of `w`.
/// Returns the new window. Shared by Reno and CUBIC under the Linux growth rule.
pub fn linux_cong_avoid_ai(cwnd: u32, count: &mut u32, w: u32, acked: u32) -> u32 {
    let w = w.max(1);
    let mut cwnd = cwnd;
    // "If credits accumulated at a higher w, apply them gently now."
    if *count >= w {
        *count = 0;
        cwnd += 1;
    }
    *count += acked;
    if *count >= w {
        let delta = *count / w;
        *count -= delta * w;
        cwnd += delta;
    }
    cwnd
}

/// Linux's `tcp_slow_start()`: add the segments acknowledged, but not past ssthresh; returns
/// the new window and the acknowledged segments left over for congestion avoidance.
pub fn linux_slow_start(cwnd: u32, ssthresh: u32, acked: u32) -> (u32, u32) {
    let grown = cwnd.saturating_add(acked).min(ssthresh);
    let used = grown.saturating_sub(cwnd);
    (grown.max(cwnd), acked - used.min(acked))
}

/// Reno's window state.
#[derive(Clone, Debug)]
pub struct Reno {
    cwnd: Window,
    ssthresh: Window,
    /// Keep the fraction of W/2 in cwnd after a fast retransmit (ns-2 `precisionReduce_`);
    /// otherwise cwnd = ssthresh (RFC 5681 §3.2 step 3).
    keep_fraction: bool,
    growth: Growth,
    /// Linux `snd_cwnd_cnt`: acknowledged segments toward the next increase.
    ca_count: u32,
    /// The window before the last reduction (Linux `prior_cwnd`), for undo.
    prior_cwnd: Window,
}

impl Reno {
    /// A Reno controller with the given initial window and threshold (segments);
    /// `keep_fraction` as ns-2's `precisionReduce_`; growth per ACK.
    pub fn new(initial_window: u32, initial_ssthresh: u32, keep_fraction: bool) -> Self {
        Reno {
            cwnd: Window::segments(initial_window.max(1)),
            ssthresh: Window::segments(initial_ssthresh.max(2)),
            keep_fraction,
            growth: Growth::PerAck,
            ca_count: 0,
            prior_cwnd: Window::segments(initial_window.max(1)),
        }
    }

    /// The same controller growing by the given rule.
    pub fn with_growth(mut self, growth: Growth) -> Self {
        self.growth = growth;
        self
    }

    /// Lowers the threshold to `ssthresh` if that is below the current one (Hoe's estimate).
    pub fn cap_ssthresh(&mut self, ssthresh: u32) {
        self.ssthresh = self.ssthresh.min(Window::segments(ssthresh.max(2)));
    }

    /// Linux's `tcp_reno_cong_avoid()`.
    fn linux_cong_avoid(&mut self, sample: &AckSample) {
        if !sample.cwnd_limited {
            return;
        }
        let mut cwnd = self.cwnd.whole();
        let mut acked = sample.acked + sample.sacked;
        if self.cwnd < self.ssthresh {
            (cwnd, acked) = linux_slow_start(cwnd, self.ssthresh.whole(), acked);
        }
        if acked > 0 && Window::segments(cwnd) >= self.ssthresh {
            cwnd = linux_cong_avoid_ai(cwnd, &mut self.ca_count, cwnd, acked);
        }
        self.cwnd = Window::segments(cwnd);
    }
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> Window {
        self.cwnd
    }

    fn ssthresh(&self) -> Window {
        self.ssthresh
    }

    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd.max(Window::segments(1));
    }

    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.max(Window::segments(2));
    }

    fn on_ack(&mut self, sample: &AckSample) {
        match self.growth {
            Growth::PerAck => self.cwnd = open_window(self.cwnd, self.ssthresh),
            Growth::Linux => self.linux_cong_avoid(sample),
        }
    }

    fn on_congestion(&mut self, _now: SimTime, event: Congestion, window: Window) {
        self.prior_cwnd = self.cwnd;
        // RFC 5681 §3.1 eq. 4; Linux tcp_reno_ssthresh(): max(cwnd >> 1, 2).
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = match event {
            // RFC 5681 §3.1: "Loss Window" = 1 segment.
            Congestion::Timeout => {
                self.ca_count = 0;
                Window::segments(1)
            }
            // RFC 5681 §3.2 steps 2-3 (ns-2 slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)),
            // RFC 3168 §6.1.2 for ECN; the "+3 segments" inflation is loss recovery's.
            _ if self.keep_fraction => window.half().max(Window::segments(1)),
            _ => self.ssthresh,
        };
    }

    fn undo_cwnd(&mut self, _now: SimTime) -> Window {
        // Linux tcp_reno_undo_cwnd(): max(cwnd, prior_cwnd).
        self.cwnd.max(self.prior_cwnd)
    }
}

/// Reno's window arithmetic for a flow: its initial window and threshold, ns-2's kept
/// fraction of W/2 after a fast retransmit (`precisionReduce_`) under the ns-2 dialect,
/// Linux's growth by segments acknowledged (`tcp_reno_cong_avoid()`) under Linux's.
pub(super) fn for_flow(flow: &BuildContext<'_>) -> Reno {
    let keep_fraction = flow.dialect == Dialect::Ns2;
    let growth = match flow.dialect {
        Dialect::Linux => Growth::Linux,
        Dialect::Rfc | Dialect::Ns2 => Growth::PerAck,
    };
    Reno::new(flow.initial_window, flow.initial_ssthresh, keep_fraction).with_growth(growth)
}

/// `variant = "reno"`: no options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenoConfig;

impl Declared for RenoConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "reno",
        summary: "Reno's window arithmetic (RFC 5681): slow start, congestion avoidance, \
                  halving on loss",
        options: &[],
        trace: &[],
        modes: &[],
        profiles: ALL_PROFILES,
        recovery: RecoveryRule::any(DefaultRecovery::Reno),
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(_: &dyn OptionReader) -> Result<Self, OptionError> {
        Ok(RenoConfig)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        Cc::Reno(for_flow(flow))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime::ZERO;

    fn ack(r: &mut Reno, acked: u32) {
        r.on_ack(&AckSample::new(T, 0, acked));
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack() {
        let mut r = Reno::new(2, 100, false);
        ack(&mut r, 1);
        ack(&mut r, 1);
        assert_eq!(r.cwnd(), Window::segments(4));
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut r = Reno::new(10, 10, false);
        for _ in 0..11 {
            ack(&mut r, 1);
        }
        assert_eq!(r.cwnd().whole(), 11);
    }

    #[test]
    fn fast_retransmit_halves_the_window() {
        let mut r = Reno::new(20, 1000, false);
        r.on_congestion(T, Congestion::FastRetransmit, Window::segments(20));
        assert_eq!(r.ssthresh(), Window::segments(10));
        assert_eq!(r.cwnd(), Window::segments(10));
        // ns-2 keeps the fraction: 41 -> 20.5, ssthresh 20.
        let mut ns2 = Reno::new(41, 1000, true);
        ns2.on_congestion(T, Congestion::FastRetransmit, Window::segments(41));
        assert_eq!(
            (ns2.cwnd().as_f64(), ns2.ssthresh()),
            (20.5, Window::segments(20))
        );
    }

    #[test]
    fn timeout_collapses_to_one_segment_and_ssthresh_never_below_two() {
        let mut r = Reno::new(20, 1000, false);
        r.on_congestion(T, Congestion::Timeout, Window::segments(3));
        assert_eq!(r.cwnd(), Window::segments(1));
        assert_eq!(r.ssthresh(), Window::segments(2));
    }

    #[test]
    fn an_ecn_echo_halves_like_a_loss() {
        let mut r = Reno::new(20, 1000, false);
        r.on_congestion(T, Congestion::Ecn, Window::segments(20));
        assert_eq!(
            (r.cwnd(), r.ssthresh()),
            (Window::segments(10), Window::segments(10))
        );
    }

    #[test]
    fn linux_slow_start_counts_segments_and_stops_at_ssthresh() {
        let mut r = Reno::new(10, 13, false).with_growth(Growth::Linux);
        ack(&mut r, 2); // delayed ACK of two segments: +2
        assert_eq!(r.cwnd(), Window::segments(12));
        // 12 + 4 would pass ssthresh 13: slow start stops at 13 and the other 3 segments
        // go to the congestion-avoidance counter.
        ack(&mut r, 4);
        assert_eq!(r.cwnd(), Window::segments(13));
        assert_eq!(r.ca_count, 3);
    }

    #[test]
    fn linux_congestion_avoidance_adds_a_segment_per_window_of_acked_segments() {
        let mut r = Reno::new(10, 10, false).with_growth(Growth::Linux);
        for _ in 0..4 {
            ack(&mut r, 2);
        }
        assert_eq!(r.cwnd(), Window::segments(10), "8 of 10 counted");
        ack(&mut r, 2);
        assert_eq!((r.cwnd(), r.ca_count), (Window::segments(11), 0));
    }

    #[test]
    fn linux_growth_waits_while_not_cwnd_limited() {
        let mut r = Reno::new(10, 100, false).with_growth(Growth::Linux);
        let mut idle = AckSample::new(T, 0, 5);
        idle.cwnd_limited = false;
        r.on_ack(&idle);
        assert_eq!(r.cwnd(), Window::segments(10));
    }

    #[test]
    fn undo_restores_the_window_before_the_reduction() {
        let mut r = Reno::new(20, 1000, false);
        r.on_congestion(T, Congestion::FastRetransmit, Window::segments(20));
        assert_eq!(r.undo_cwnd(T), Window::segments(20));
    }

    #[test]
    fn linux_helpers_follow_tcp_cong_c() {
        assert_eq!(linux_slow_start(10, 100, 3), (13, 0));
        assert_eq!(linux_slow_start(10, 11, 3), (11, 2));
        let mut cnt = 0;
        assert_eq!(linux_cong_avoid_ai(10, &mut cnt, 10, 25), 12);
        assert_eq!(cnt, 5);
        // Credits accumulated at a larger w are applied gently: one segment.
        let mut cnt = 30;
        assert_eq!(linux_cong_avoid_ai(10, &mut cnt, 10, 1), 11);
        assert_eq!(cnt, 1);
    }
}
