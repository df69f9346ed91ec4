//! ProbeBW's cycle (Linux `bbr_update_cycle_phase()`): DOWN, CRUISE, REFILL, UP, and the
//! upper bounds of the model it probes (`bbr_adapt_upper_bounds()`): `inflight_hi` cut where
//! loss or ECN went too high, raised while probing finds it safe, and `bw_hi`, the max
//! bandwidth of the last one or two cycles.
//!
//! When to probe again is the coexistence question (draft-ietf-ccwg-bbr §4.3.3.5; the
//! kernel's comments on `bbr_bw_probe_max_rounds`): a Reno flow at our BDP probes once per
//! BDP round trips, so BBR waits at most that many rounds (at most 63, for a Reno flow of
//! 25 Mb/s at 30 ms), and at most 2-3 s of wall-clock time (random, for mixing), whichever
//! comes first.

use super::{AckPhase, Bbr3, Mode, Phase, V3Rate, BBR_SCALE, UNBOUNDED};
use crate::tcp::cc::bbr::BBR_UNIT;
use crate::tcp::cc::AckSample;
use crate::tcp::cc::CaState;

/// What a lost segment says about the flight it was part of (the rate sample Linux's
/// `bbr_skb_marked_lost()` builds).
#[derive(Clone, Copy, Debug)]
pub(super) struct LossSample {
    /// Segments in flight just after it was sent, it included.
    pub tx_in_flight: u32,
    /// Segments marked lost since it was sent, it included.
    pub lost: u32,
    /// It was sent application-limited.
    pub app_limited: bool,
}

impl Bbr3 {
    /// Linux `bbr_set_cycle_idx()`: a new phase needs new gains and a new window.
    fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
        self.try_fast_path = false;
    }

    /// Linux `bbr_pick_probe_wait()`: a random 0-1 rounds already counted towards the Reno
    /// bound, and a random 2-3 s wall-clock wait.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.random_below(self.config.bw_probe_rand_rounds);
        let extra = self.random_below(self.config.bw_probe_rand_us);
        self.probe_wait_us = self.config.bw_probe_base_us.saturating_add(extra);
    }

    /// Linux `bbr_raise_inflight_hi_slope()`: each round of UP doubles how fast
    /// `inflight_hi` grows (1, 2, 4, ... segments per window of ACKs).
    fn raise_inflight_hi_slope(&mut self) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds.min(31);
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd / growth_this_round).max(1);
    }

    /// Linux `bbr_probe_inflight_hi_upward()`: in UP without too much loss or ECN, while
    /// the window is used up to `inflight_hi`, raise it by one per `bw_probe_up_cnt`
    /// segments (S)ACKed.
    fn probe_inflight_hi_upward(&mut self, acked: u32, cwnd_limited: bool) {
        if !cwnd_limited || self.cwnd < self.inflight_hi {
            return; // not using inflight_hi, so do not grow it
        }
        self.bw_probe_up_acks = self.bw_probe_up_acks.saturating_add(acked);
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta);
            self.try_fast_path = false;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// Linux `bbr_inflight_hi_from_lost_skb()`: the flight at which the loss rate crossed
    /// `loss_thresh`, solving `(lost_prev + x) / (inflight_prev + x) = loss_thresh` for the
    /// part `x` of the lost segment's flight, rounded up.
    pub(super) fn inflight_hi_from_lost_segment(&self, rs: &LossSample) -> u32 {
        let Some(inflight_prev) = rs.tx_in_flight.checked_sub(1) else {
            return UNBOUNDED; // a segment never counted in flight
        };
        let Some(lost_prev) = rs.lost.checked_sub(1) else {
            return UNBOUNDED;
        };
        let loss_thresh = self.config.loss_thresh as u64;
        let loss_budget = (inflight_prev as u64 * loss_thresh).div_ceil(BBR_UNIT as u64);
        let lost_prefix = if lost_prev as u64 >= loss_budget {
            0 // the earlier losses crossed the threshold
        } else {
            ((loss_budget - lost_prev as u64) << BBR_SCALE) / (BBR_UNIT as u64 - loss_thresh)
        };
        (inflight_prev as u64 + lost_prefix).min(u32::MAX as u64) as u32
    }

    /// Linux `bbr_handle_inflight_too_high()`: loss or ECN went too high while probing:
    /// `inflight_hi` becomes the flight of the sample, at least `1 - beta` of the target
    /// (unless the sample was application-limited), and UP ends.
    pub(super) fn handle_inflight_too_high(&mut self, tx_in_flight: u32, app_limited: bool) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // react once per probe
        if !app_limited {
            let cut = BBR_UNIT - self.config.beta;
            let floor = ((self.target_inflight() as u64 * cut as u64) >> BBR_SCALE) as u32;
            self.inflight_hi = tx_in_flight.max(floor);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down();
        }
    }

    /// Linux `bbr_adapt_upper_bounds()`: follow the feedback of a probe; cut `inflight_hi`
    /// if the ACK says the probe went too high, else raise it to what proved safe. Returns
    /// true if it decided a phase change.
    fn adapt_upper_bounds(&mut self, sample: &AckSample, v3: &V3Rate) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The probe's samples are over: now is the best time to forget the previous
            // cycle's bandwidth.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !v3.app_limited {
                self.advance_max_bw_filter();
            }
            // The probe reached inflight_hi without loss or ECN: probe again, this time
            // holding at inflight_hi for a round before going beyond.
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(v3) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(v3.tx_in_flight, v3.app_limited);
            }
            return false;
        }
        if self.inflight_hi == UNBOUNDED {
            return false; // no excess-queue signal yet
        }
        // To survive random loss, take any higher level found safe, in any phase.
        self.inflight_hi = self.inflight_hi.max(v3.tx_in_flight);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.probe_inflight_hi_upward(sample.conn.newly_delivered, v3.cwnd_limited);
        }
        false
    }

    /// Linux `bbr_start_bw_probe_refill()`: REFILL, with the lower bounds reset; UP's
    /// slope will start at 2^`up_rounds`.
    fn start_bw_probe_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = self.delivered();
        self.set_phase(Phase::Refill);
    }

    /// Linux `bbr_start_bw_probe_up()`.
    fn start_bw_probe_up(&mut self, sample: &AckSample, sample_bw: u64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = self.delivered();
        self.cycle_stamp = sample.now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.set_phase(Phase::Up);
        self.raise_inflight_hi_slope();
    }

    /// Linux `bbr_start_bw_probe_down()`: a new cycle: signals reset, a new random wait.
    pub(super) fn start_bw_probe_down(&mut self) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = u32::MAX; // inflight_hi no longer grows
        self.pick_probe_wait();
        self.cycle_stamp = self.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = self.delivered();
        self.set_phase(Phase::Down);
    }

    /// Linux `bbr_start_bw_probe_cruise()`.
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != UNBOUNDED {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.set_phase(Phase::Cruise);
    }

    /// Linux `bbr_is_reno_coexistence_probe_time()`: a Reno flow with our BDP would have
    /// probed by now (at most `bw_probe_max_rounds`).
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let rounds = self.config.bw_probe_max_rounds.min(self.target_inflight());
        self.rounds_since_probe >= rounds
    }

    /// Linux `bbr_check_time_to_probe_bw()`: after a cycle with ECN marks but no loss, probe
    /// as soon as the marks stop; else when the wall-clock wait or the Reno bound is up.
    fn check_time_to_probe_bw(&mut self, sample: &AckSample) -> bool {
        if self.config.ecn_reprobe_gain > 0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && sample.conn.ca_state == CaState::Open
        {
            // Up's first round then raises inflight_hi by about inflight_hi x reprobe gain.
            let volume =
                (self.inflight_hi as u64 * self.config.ecn_reprobe_gain as u64) >> BBR_SCALE;
            // The kernel's ilog2(0) is -1, kept in a 5-bit field: 31.
            let n = volume.checked_ilog2().unwrap_or(31).min(31);
            self.start_bw_probe_refill(n);
            return true;
        }
        let waited =
            super::signals::micros(sample.now, self.cycle_stamp) > self.probe_wait_us as u64;
        if waited || self.is_reno_coexistence_probe_time() {
            self.start_bw_probe_refill(0);
            return true;
        }
        false
    }

    /// Linux `bbr_check_time_to_cruise()`: the flight is down to the BDP and leaves the
    /// headroom.
    fn check_time_to_cruise(&self, inflight: u32, bw: u64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// Linux `bbr_update_cycle_phase()`: once the pipe was full, adapt the upper bounds; in
    /// ProbeBW, move through the cycle.
    pub(super) fn update_cycle_phase(&mut self, sample: &AckSample, v3: &V3Rate, sample_bw: u64) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(sample, v3) {
            return;
        }
        if self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(sample.now, sample.conn.prior_in_flight);
        let bw = self.max_bw();
        match self.phase {
            // Use the pipe at the estimate; adapt to loss and ECN by slowing down.
            Phase::Cruise => {
                self.check_time_to_probe_bw(sample);
            }
            // After a round of refilling, the samples reflect it: probe up.
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(sample, sample_bw);
                }
            }
            // Probe until the flight reaches inflight_hi after a probe that went too high,
            // or the bandwidth stops growing while inflight_hi does not limit it (loss and
            // ECN end it in adapt_upper_bounds()).
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if v3.cwnd_limited && self.cwnd >= self.inflight_hi {
                    // inflight_hi limits the growth: not a plateau.
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true; // the pipe looks full
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down();
                }
            }
            // Drain what the probe queued, down to the BDP less headroom.
            Phase::Down => {
                if self.check_time_to_probe_bw(sample) {
                    return;
                }
                if self.check_time_to_cruise(inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }
}
