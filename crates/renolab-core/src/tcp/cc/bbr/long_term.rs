//! Long-term ("LT") bandwidth sampling (Linux `bbr_lt_bw_sampling()`): token-bucket
//! policers are common (Flach et al., "An Internet-Wide Analysis of Traffic Policing",
//! SIGCOMM 2016). BBR estimates it is policed when two consecutive sampling intervals of
//! 4-16 round trips, each ending in a loss, show a high loss rate (over 20 %) and a
//! consistent delivery rate (within 1/8 or 4 kbit/s); it then paces at their mean rate for
//! 48 round trips instead of probing.

use super::config::{BBR_SCALE, BBR_UNIT, BW_UNIT};
use super::{Bbr, Mode};

/// The long-term sampler's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LongTerm {
    /// Sampling is under way (it starts at the first loss).
    pub is_sampling: bool,
    /// Rounds in the current interval (or since BBR began using `bw`).
    pub rtt_cnt: u32,
    /// BBR uses `bw` as its estimate: it thinks it is policed.
    pub use_bw: bool,
    /// The long-term delivery rate, `BW_UNIT`s.
    pub bw: u64,
    /// The interval's start: delivered count, time in whole ms, lost count.
    pub last_delivered: u64,
    pub last_stamp_ms: u64,
    pub last_lost: u64,
}

impl Bbr {
    /// Linux `bbr_reset_lt_bw_sampling_interval()`.
    fn reset_lt_interval(&mut self) {
        let lt = &mut self.long_term;
        lt.last_stamp_ms = self.conn.delivered_time.as_nanos() / 1_000_000;
        lt.last_delivered = self.conn.delivered;
        lt.last_lost = self.conn.lost;
        lt.rtt_cnt = 0;
    }

    /// Linux `bbr_reset_lt_bw_sampling()`.
    pub(super) fn reset_lt_sampling(&mut self) {
        self.long_term.bw = 0;
        self.long_term.use_bw = false;
        self.long_term.is_sampling = false;
        self.reset_lt_interval();
    }

    /// Linux `bbr_lt_bw_interval_done()`: an interval measured `bw`; if it agrees with the
    /// previous one, BBR is policed at their mean.
    fn lt_interval_done(&mut self, bw: u64) {
        let lt_bw = self.long_term.bw;
        if lt_bw > 0 {
            let diff = bw.abs_diff(lt_bw);
            let close = diff as u128 * BBR_UNIT as u128
                <= self.config.lt_bw_ratio as u128 * lt_bw as u128
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= self.config.lt_bw_diff as u64;
            if close {
                let lt = &mut self.long_term;
                lt.bw = (bw + lt_bw) >> 1;
                lt.use_bw = true;
                lt.rtt_cnt = 0;
                self.pacing_gain = BBR_UNIT; // try to avoid drops
                return;
            }
        }
        self.long_term.bw = bw;
        self.reset_lt_interval();
    }

    /// Linux `bbr_lt_bw_sampling()` for an ACK (or a timeout) that marked `losses`
    /// segments lost, its sample application-limited or not.
    pub(super) fn lt_sampling(&mut self, losses: u32, app_limited: bool) {
        if self.long_term.use_bw {
            // Policed: after lt_bw_max_rtts rounds of ProbeBW, probe again.
            if self.mode == Mode::ProbeBw && self.round_start {
                self.long_term.rtt_cnt += 1;
                if self.long_term.rtt_cnt >= self.config.lt_bw_max_rtts {
                    self.reset_lt_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start at the first loss, once the policer's bucket is empty.
        if !self.long_term.is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval();
            self.long_term.is_sampling = true;
        }
        // Running out of data would underestimate the rate.
        if app_limited {
            self.reset_lt_sampling();
            return;
        }
        if self.round_start {
            self.long_term.rtt_cnt += 1;
        }
        let min_rtts = self.config.lt_intvl_min_rtts;
        if self.long_term.rtt_cnt < min_rtts {
            return;
        }
        if self.long_term.rtt_cnt > 4 * min_rtts {
            self.reset_lt_sampling(); // too long an interval
            return;
        }
        // The interval ends at a loss, when the policer's tokens are gone.
        if losses == 0 {
            return;
        }
        let lost = self.conn.lost - self.long_term.last_lost.min(self.conn.lost);
        let delivered =
            self.conn.delivered - self.long_term.last_delivered.min(self.conn.delivered);
        if delivered == 0
            || ((lost as u128) << BBR_SCALE)
                < self.config.lt_loss_thresh as u128 * delivered as u128
        {
            return; // not lossy enough to be a policer
        }
        let now_ms = self.conn.delivered_time.as_nanos() / 1_000_000;
        let t = now_ms as i64 - self.long_term.last_stamp_ms as i64;
        if t < 1 {
            return; // less than a millisecond: wait
        }
        if t as u64 >= u32::MAX as u64 / 1000 {
            self.reset_lt_sampling();
            return;
        }
        let bw = delivered * BW_UNIT / (t as u64 * 1000);
        self.lt_interval_done(bw);
    }
}
