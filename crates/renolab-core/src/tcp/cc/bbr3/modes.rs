//! BBRv3's modes around ProbeBW: Startup and its exits (the bandwidth plateau, too much loss,
//! too many CE marks), Drain, and the min-RTT filters with ProbeRTT.

use super::{AckPhase, Bbr3, Mode, V3Rate, BBR_UNIT};
use crate::tcp::cc::AckSample;
use crate::tcp::cc::CaState;
use crate::time::{SimDuration, SimTime};

impl Bbr3 {
    /// Linux `bbr_reset_full_bw()`: the plateau search starts over.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// Linux `bbr_handle_queue_too_high_in_startup()`: Startup ends, `inflight_hi` at the
    /// estimated BDP or what the last round delivered, whichever is more.
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        let bdp = self.inflight(self.max_bw(), BBR_UNIT);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// Linux `bbr_check_ecn_too_high_in_startup()`: Startup ends after `full_ecn_cnt`
    /// rounds in a row with a CE fraction (`ce_ratio`, 1/256) of at least `ecn_thresh`.
    pub(super) fn check_ecn_too_high_in_startup(&mut self, ce_ratio: u32) {
        let c = self.config;
        if self.full_bw_reached || !self.ecn_eligible || c.full_ecn_cnt == 0 || c.ecn_thresh == 0 {
            return;
        }
        if ce_ratio >= c.ecn_thresh {
            // The kernel's counter is 2 bits wide.
            self.startup_ecn_rounds = (self.startup_ecn_rounds + 1) & 3;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= c.full_ecn_cnt {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// Linux `bbr_check_loss_too_high_in_startup()`: at the end of a round of fast recovery
    /// in Startup with at least `full_loss_cnt` ACKs reporting losses and a loss rate above
    /// `loss_thresh`, Startup ends.
    pub(super) fn check_loss_too_high_in_startup(&mut self, sample: &AckSample, v3: &V3Rate) {
        if self.full_bw_reached {
            return;
        }
        if sample.conn.newly_lost > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1; // saturating, 4 bits
        }
        if self.config.full_loss_cnt > 0
            && self.loss_round_start
            && sample.conn.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.config.full_loss_cnt
            && self.is_inflight_too_high(v3)
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// Linux `bbr_check_full_bw_reached()` (v3): a sample 25 % above the reference restarts
    /// the count; `full_bw_cnt` rounds without one mean the pipe is full (also in ProbeBW_UP,
    /// where the plateau ends the probe).
    pub(super) fn check_full_bw_reached(&mut self, v3: &V3Rate, sample_bw: u64) {
        if self.full_bw_now || v3.app_limited {
            return;
        }
        let threshold = ((self.full_bw as u128 * self.config.full_bw_thresh as u128) >> 8) as u64;
        if sample_bw >= threshold {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= self.config.full_bw_cnt;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// Linux `bbr_check_drain()` (v3): the full pipe ends Startup (ssthresh, for monitoring,
    /// becomes the BDP; the congestion signals restart); Drain ends once the flight is down
    /// to the BDP, in ProbeBW_DOWN.
    pub(super) fn check_drain(&mut self, sample: &AckSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(sample.now, sample.in_flight)
                <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down();
        }
    }

    /// Linux `bbr_update_min_rtt()` (v3): two min-RTT filters, `probe_rtt_win_ms` (5 s)
    /// which schedules ProbeRTT and `min_rtt_win_sec` (10 s) which the model uses; ProbeRTT
    /// holds cwnd at half the BDP for `probe_rtt_mode_ms` and a round trip.
    pub(super) fn update_min_rtt(&mut self, sample: &AckSample) {
        let now = sample.now;
        let probe_window = SimDuration::from_millis(self.config.probe_rtt_win_ms as u64);
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + probe_window;
        if let Some(rtt) = sample.rtt {
            let rtt_us = (rtt.as_nanos() / 1000).min(u32::MAX as u64 - 1) as u32;
            if rtt_us < self.probe_rtt_min_us || probe_rtt_expired {
                self.probe_rtt_min_us = rtt_us;
                self.probe_rtt_min_stamp = now;
            }
        }
        let window = SimDuration::from_secs(self.config.min_rtt_win_sec as u64);
        let min_rtt_expired = now > self.min_rtt_stamp + window;
        if self.probe_rtt_min_us <= self.min_rtt_us || min_rtt_expired {
            self.min_rtt_us = self.probe_rtt_min_us;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if self.config.probe_rtt_mode_ms > 0
            && probe_rtt_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt; // dip, drain the queue
            self.save_cwnd();
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = self.delivered();
        }
        if self.mode == Mode::ProbeRtt {
            // Samples of this mode say nothing about the path's bandwidth.
            self.marked_app_limited = true;
            if self.probe_rtt_done.is_none() && sample.in_flight <= self.probe_rtt_cwnd() {
                let hold = SimDuration::from_millis(self.config.probe_rtt_mode_ms as u64);
                self.probe_rtt_done = Some(now + hold);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered();
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now);
                }
            }
        }
        // An idle restart ends with the first ACK that delivers data.
        if sample.conn.newly_delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// Linux `bbr_check_probe_rtt_done()`: ProbeRTT's time is up: the next one is due
    /// `probe_rtt_win_ms` from now; restore the window and return to Startup or ProbeBW.
    pub(super) fn check_probe_rtt_done(&mut self, now: SimTime) {
        match self.probe_rtt_done {
            Some(done) if now > done => {}
            _ => return,
        }
        self.probe_rtt_min_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt();
    }

    /// Linux `bbr_exit_probe_rtt()`: the lower bounds reset; to ProbeBW (cruising, as the
    /// flight is below the BDP, with a new wait before the next probe) if the pipe was
    /// found full, else back to Startup.
    fn exit_probe_rtt(&mut self) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down();
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
}
