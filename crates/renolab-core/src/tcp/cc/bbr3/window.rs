//! BBRv3's pacing rate and congestion window: Linux `bbr_set_pacing_rate()`, the BDP and its
//! quantization budget, `bbr_set_cwnd()` and the bound v3 puts on it
//! (`bbr_bound_cwnd_for_inflight_model()`), and the gains of each mode (`bbr_update_gains()`).

use super::*;
use crate::tcp::gso::{DEFAULT_MIN_TSO_SEGS, GSO_MAX_BYTES};

impl Bbr3 {
    // ----- pacing -------------------------------------------------------------------------

    /// Linux `bbr_rate_bytes_per_sec()` (v3: at least 1 byte per second).
    pub(super) fn rate_bytes_per_sec(&self, rate: u64, gain: u32, margin: u32) -> u64 {
        arith::rate_bytes_per_sec(rate, self.mss, gain, margin).max(1)
    }

    /// Linux `bbr_bw_to_pacing_rate()`.
    pub(super) fn bw_to_pacing_rate(&self, bw: u64, gain: u32) -> u64 {
        self.rate_bytes_per_sec(bw, gain, self.config.pacing_margin_percent)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt()`: Startup's gain times cwnd / srtt (a nominal
    /// 1 ms before any RTT sample).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, srtt: Option<SimDuration>) {
        let rtt_us = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                (s.as_nanos() / 1000).max(1)
            }
            None => 1000,
        };
        let bw = self.cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.bw_to_pacing_rate(bw, self.config.startup_pacing_gain);
    }

    /// Linux `bbr_set_pacing_rate()`: before the pipe is full, the rate only grows.
    pub(super) fn set_pacing_rate(&mut self, bw: u64, gain: u32, srtt: Option<SimDuration>) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Linux `bbr_tso_segs_goal()` (v3's `bbr_tso_segs_generic()` at the legacy GSO size):
    /// a burst of 1/1024 s at the pacing rate, plus 64 KB halved per 512 us of min RTT, in
    /// segments, at least two.
    pub(super) fn tso_segs_goal(&self) -> u32 {
        let mut bytes = self.pacing_rate >> self.pacing_shift;
        if self.config.tso_rtt_shift > 0 {
            let r = self.min_rtt_us >> self.config.tso_rtt_shift;
            if r < u32::BITS {
                bytes += GSO_LEGACY_MAX_SIZE >> r;
            }
        }
        let bytes = bytes.min(GSO_MAX_BYTES);
        ((bytes / self.mss as u64) as u32).max(DEFAULT_MIN_TSO_SEGS)
    }

    // ----- the window ---------------------------------------------------------------------

    /// Linux `bbr_bdp()`: `ceil(bw x min_rtt x gain)`, segments (the initial window before
    /// any RTT sample).
    pub(super) fn bdp(&self, bw: u64, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return self.init_cwnd;
        }
        arith::bdp(bw, self.min_rtt_us, gain)
    }

    /// Linux `bbr_quantization_budget()` (v3): room for three TSO bursts and at least the
    /// minimum window, and 2 more segments in ProbeBW_UP so that small BDPs still probe.
    pub(super) fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd
            .max(3 * self.tso_segs_goal())
            .max(self.config.cwnd_min_target);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd = cwnd.saturating_add(2);
        }
        cwnd
    }

    /// Linux `bbr_inflight()`: the flight BBR aims at for `bw` and `gain`.
    pub(super) fn inflight(&self, bw: u64, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Linux `bbr_target_inflight()`: the BDP, unless congestion cut cwnd below it.
    pub(super) fn target_inflight(&self) -> u32 {
        self.inflight(self.bw(), BBR_UNIT).min(self.cwnd)
    }

    /// Linux `bbr_packets_in_net_at_edt()`: of `inflight_now`, what will still be in the
    /// network when the next segment may leave.
    pub(super) fn packets_in_net_at_edt(&self, now: SimTime, inflight_now: u32) -> u32 {
        let edt = self.conn.next_send.max(now);
        let interval_us = edt.saturating_since(now).as_nanos() / 1000;
        let interval_delivered = arith::delivered_in(self.bw(), interval_us);
        let mut at_edt = inflight_now as u64;
        if self.pacing_gain > BBR_UNIT {
            at_edt += self.tso_segs_goal() as u64; // the segment leaving at the EDT
        }
        at_edt.saturating_sub(interval_delivered) as u32
    }

    /// Linux `bbr_ack_aggregation_cwnd()` (v3: also before the pipe is full).
    pub(super) fn ack_aggregation_cwnd(&self) -> u32 {
        let c = &self.config;
        self.aggregation
            .cwnd(c.extra_acked_gain, self.bw(), c.extra_acked_max_us)
    }

    /// Linux `bbr_update_ack_aggregation()` (v3: a window of one round before the pipe is
    /// full).
    pub(super) fn update_ack_aggregation(&mut self, sample: &AckSample) {
        let acked = sample.conn.newly_delivered;
        let valid = sample.rate.is_some_and(|r| r.interval.as_nanos() >= 1000);
        if self.config.extra_acked_gain == 0 || acked == 0 || !valid {
            return;
        }
        let window = if self.full_bw_reached {
            self.config.extra_acked_win_rtts
        } else {
            1
        };
        let (bw, cwnd) = (self.bw(), self.cwnd);
        let time = sample.conn.delivered_time;
        self.aggregation
            .update(self.round_start, window, acked, time, bw, cwnd);
    }

    /// Linux `bbr_probe_rtt_cwnd()`: half the BDP, at least the minimum window.
    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        self.bdp(self.bw(), self.config.probe_rtt_cwnd_gain)
            .max(self.config.cwnd_min_target)
    }

    /// Linux `bbr_save_cwnd()`: the last good window, before recovery or ProbeRTT cut it.
    pub(super) fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// Linux `bbr_set_cwnd()` (v3: no packet conservation in recovery): slow-start towards
    /// `gain x BDP` plus allowances until the pipe is full, then snap down to it.
    pub(super) fn set_cwnd(&mut self, acked: u32, bw: u64, gain: u32) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let mut target = self.bdp(bw, gain);
            target = target.saturating_add(self.ack_aggregation_cwnd());
            target = self.quantization_budget(target);
            self.try_fast_path = false;
            if self.full_bw_reached {
                cwnd = cwnd.saturating_add(acked);
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd = cwnd.saturating_add(acked);
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(self.config.cwnd_min_target);
        }
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            // Drain the queue and measure the path's RTT.
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// Linux `bbr_inflight_with_headroom()`: `inflight_hi` less 15 % headroom for other
    /// flows, at least the minimum window.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == UNBOUNDED {
            return UNBOUNDED;
        }
        let headroom = ((self.inflight_hi as u64 * self.config.inflight_headroom as u64)
            >> BBR_SCALE)
            .max(1) as u32;
        self.inflight_hi
            .saturating_sub(headroom)
            .max(self.config.cwnd_min_target)
    }

    /// Linux `bbr_bound_cwnd_for_inflight_model()`: probing phases stay below
    /// `inflight_hi`, cruising and ProbeRTT below it less headroom, and everything below
    /// `inflight_lo`.
    pub(super) fn bound_cwnd_for_inflight_model(&mut self) {
        let mut cap = UNBOUNDED;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBw {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(self.config.cwnd_min_target);
        self.cwnd = self.cwnd.min(cap);
    }

    /// Linux `bbr_update_gains()`.
    pub(super) fn update_gains(&mut self) {
        let c = &self.config;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (c.startup_pacing_gain, c.startup_cwnd_gain),
            Mode::Drain => (c.drain_gain, c.startup_cwnd_gain),
            Mode::ProbeBw => {
                let probe = if self.phase == Phase::Up {
                    BBR_UNIT * c.bw_probe_cwnd_gain / 4
                } else {
                    0
                };
                (PACING_GAIN[self.phase as usize], c.cwnd_gain + probe)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }
}
