//! BBR's path model, updated on every ACK (Linux `bbr_update_model()`): the bandwidth
//! filter and round counting, the ACK-aggregation estimate, ProbeBW's gain cycle, the
//! full-pipe check that ends Startup, Drain's exit, the min-RTT filter and ProbeRTT.

use super::config::{BBR_SCALE, BBR_UNIT, BW_UNIT};
use super::{Bbr, Mode};
use crate::tcp::cc::AckSample;
use crate::time::{SimDuration, SimTime};

/// Linux `bbr_ack_epoch_acked_reset_thresh`: an ACK epoch this long (segments) restarts.
const ACK_EPOCH_ACKED_RESET: u32 = 1 << 20;

/// Whole microseconds from `earlier` to `later` (Linux `tcp_stamp_us_delta()`).
fn micros(later: SimTime, earlier: SimTime) -> u64 {
    later.saturating_since(earlier).as_nanos() / 1000
}

impl Bbr {
    /// Linux `bbr_update_model()`, in the kernel's order.
    pub(super) fn update_model(&mut self, sample: &AckSample) {
        self.update_bw(sample);
        self.update_ack_aggregation(sample);
        self.update_cycle_phase(sample);
        self.check_full_bw_reached(sample);
        self.check_drain(sample);
        self.update_min_rtt(sample);
        self.update_gains();
    }

    /// Linux `bbr_update_bw()`: count packet-timed rounds and feed the max-bandwidth filter
    /// with `delivered / interval`, application-limited samples only when they raise it.
    fn update_bw(&mut self, sample: &AckSample) {
        self.round_start = false;
        let Some(rs) = sample.rate else {
            return; // not a valid observation
        };
        let interval_us = rs.interval.as_nanos() / 1000;
        if interval_us == 0 {
            return;
        }
        // A round ends when a segment sent after the round began is delivered.
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = sample.conn.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(sample.conn.newly_lost, rs.app_limited);
        let bw = rs.delivered as u64 * BW_UNIT / interval_us;
        self.last_sample = Some(bw);
        // An application-limited sample says what the application did, not the path: it
        // may only raise the estimate.
        if !rs.app_limited || bw >= self.max_bw() {
            self.bw.update(self.config.bw_rtts as u64, self.rtt_cnt, bw);
        }
    }

    /// Linux `bbr_update_ack_aggregation()`: the largest excess of data (S)ACKed over what
    /// the estimated bandwidth explains, over the last 5-10 rounds.
    fn update_ack_aggregation(&mut self, sample: &AckSample) {
        let acked = sample.conn.newly_delivered;
        let valid = sample.rate.is_some_and(|r| r.interval.as_nanos() >= 1000);
        if self.config.extra_acked_gain == 0 || acked == 0 || !valid {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= self.config.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        // What the estimated bandwidth delivers over the epoch.
        let epoch_us = micros(sample.conn.delivered_time, self.ack_epoch_stamp);
        let mut expected = (self.bw() as u128 * epoch_us as u128 / BW_UNIT as u128) as u64;
        // Restart the epoch when ACKs come slower than that, or it grew very old.
        if self.ack_epoch_acked as u64 <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_ACKED_RESET
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = sample.conn.delivered_time;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xfffff);
        let extra = (self.ack_epoch_acked as u64 - expected.min(self.ack_epoch_acked as u64))
            .min(self.cwnd as u64) as u32;
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        // The kernel keeps the excess in 16 bits.
        *slot = (*slot).max(extra.min(u16::MAX as u32));
    }

    /// Linux `bbr_is_next_cycle_phase()`: a phase lasts a min RTT; probing (gain > 1)
    /// persists until the flight reaches its target or a loss, draining (gain < 1) ends as
    /// soon as the flight is down to one BDP.
    fn is_next_cycle_phase(&self, sample: &AckSample) -> bool {
        let full_length =
            micros(sample.conn.delivered_time, self.cycle_stamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return full_length;
        }
        let inflight = self.packets_in_net_at_edt(sample.now, sample.conn.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return full_length
                && (sample.conn.newly_lost > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// Linux `bbr_update_cycle_phase()`.
    fn update_cycle_phase(&mut self, sample: &AckSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(sample) {
            self.advance_cycle_phase();
        }
    }

    /// Linux `bbr_check_full_bw_reached()`: the pipe is full after `full_bw_cnt` rounds
    /// (not application-limited) in which the estimate grew by less than `full_bw_thresh`.
    fn check_full_bw_reached(&mut self, sample: &AckSample) {
        let app_limited = sample.rate.is_some_and(|r| r.app_limited);
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        let threshold =
            ((self.full_bw as u128 * self.config.full_bw_thresh as u128) >> BBR_SCALE) as u64;
        if self.max_bw() >= threshold {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.config.full_bw_cnt;
    }

    /// Linux `bbr_check_drain()`: Startup's end starts Drain (and sets ssthresh to the
    /// estimated BDP); Drain ends once the flight is down to it.
    fn check_drain(&mut self, sample: &AckSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(sample.now, sample.in_flight)
                <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    /// Linux `bbr_update_min_rtt()`: the min-RTT filter, and ProbeRTT: when the estimate is
    /// `min_rtt_win_sec` old, hold the flight at `cwnd_min_target` for `probe_rtt_mode_ms`
    /// and a round trip.
    fn update_min_rtt(&mut self, sample: &AckSample) {
        let now = sample.now;
        let window = SimDuration::from_secs(self.config.min_rtt_win_sec as u64);
        let expired = now > self.min_rtt_stamp + window;
        if let Some(rtt) = sample.rtt {
            let rtt_us = (rtt.as_nanos() / 1000).min(u32::MAX as u64 - 1) as u32;
            if rtt_us <= self.min_rtt_us || expired {
                self.min_rtt_us = rtt_us;
                self.min_rtt_stamp = now;
            }
        }
        if self.config.probe_rtt_mode_ms > 0
            && expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt; // dip, drain the queue
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples of this mode say nothing about the path's bandwidth.
            self.marked_app_limited = true;
            if self.probe_rtt_done.is_none() && sample.in_flight <= self.config.cwnd_min_target {
                let hold = SimDuration::from_millis(self.config.probe_rtt_mode_ms as u64);
                self.probe_rtt_done = Some(now + hold);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = sample.conn.delivered;
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
}
