//! BBRv3's congestion signals (Linux `bbr_update_congestion_signals()` and what feeds it):
//! packet-timed rounds, the bandwidth sample and the max-bandwidth filter, the rate and
//! volume delivered in the last round, the loss and ECN rounds, the ECN alpha, the
//! ACK-aggregation estimate, and the lower bounds `bw_lo`/`inflight_lo` that loss and ECN cut
//! outside bandwidth probing.

use super::{Bbr3, V3Rate, BBR_SCALE, BW_UNBOUNDED, UNBOUNDED};
use crate::tcp::cc::bbr::{BBR_UNIT, BW_UNIT};
use crate::tcp::cc::AckSample;
use crate::time::SimTime;

/// Whole microseconds from `earlier` to `later` (Linux `tcp_stamp_us_delta()`).
pub(super) fn micros(later: SimTime, earlier: SimTime) -> u64 {
    later.saturating_since(earlier).as_nanos() / 1000
}

/// The interval of the ACK's rate sample in whole microseconds, if it is valid (Linux
/// `rs->interval_us > 0`).
fn interval_us(sample: &AckSample) -> Option<u64> {
    sample
        .rate
        .map(|r| r.interval.as_nanos() / 1000)
        .filter(|&us| us > 0)
}

/// Linux `bbr_calculate_bw_sample()` (v3 rounds up, so that low rates can grow): the ACK's
/// delivery rate, `BW_UNIT`s, if its sample is valid.
pub(super) fn bw_sample(sample: &AckSample) -> Option<u64> {
    let us = interval_us(sample)?;
    let delivered = sample.rate?.delivered as u64;
    Some((delivered * BW_UNIT).div_ceil(us))
}

impl Bbr3 {
    /// The sample's `rs->prior_delivered` as Linux counts (with the SYN).
    fn prior_delivered(&self, sample: &AckSample) -> Option<u64> {
        sample
            .rate
            .map(|r| r.prior_delivered + self.syn_delivered as u64)
    }

    /// Linux `bbr_update_round_start()`: a round ends when a segment sent after it began
    /// is delivered.
    pub(super) fn update_round_start(&mut self, sample: &AckSample) {
        self.round_start = false;
        if interval_us(sample).is_none() {
            return;
        }
        if self
            .prior_delivered(sample)
            .is_some_and(|p| p >= self.next_rtt_delivered)
        {
            self.next_rtt_delivered = self.delivered();
            self.round_start = true;
        }
    }

    /// Linux `bbr_can_use_ecn()`: ECN negotiated on a route whose marks come from a
    /// shallow-threshold AQM.
    fn can_use_ecn(&self) -> bool {
        self.ecn_ok && self.config.ecn_low
    }

    /// Linux `bbr_update_ecn_alpha()`, once per round: the EWMA of the fraction of the
    /// round's deliveries that were CE-marked (as DCTCP's alpha, gain 1/16), and Startup's
    /// exit on ECN.
    pub(super) fn update_ecn_alpha(&mut self, v3: &V3Rate) {
        let c = self.config;
        if !self.ecn_eligible
            && self.can_use_ecn()
            && c.ecn_factor > 0
            && (c.ecn_max_rtt_us == 0 || self.min_rtt_us <= c.ecn_max_rtt_us)
        {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return;
        }
        let delivered = self.delivered().saturating_sub(self.alpha_last_delivered);
        let delivered_ce = v3
            .conn_delivered_ce
            .saturating_sub(self.alpha_last_delivered_ce);
        if delivered == 0 {
            return;
        }
        let ce_ratio = ((delivered_ce << BBR_SCALE) / delivered) as u32;
        let gain = c.ecn_alpha_gain;
        let alpha = (((BBR_UNIT - gain) as u64 * self.ecn_alpha as u64) >> BBR_SCALE)
            + ((gain as u64 * ce_ratio as u64) >> BBR_SCALE);
        self.ecn_alpha = alpha.min(BBR_UNIT as u64) as u32;
        self.alpha_last_delivered = self.delivered();
        self.alpha_last_delivered_ce = v3.conn_delivered_ce;
        self.check_ecn_too_high_in_startup(ce_ratio);
    }

    /// Linux `bbr_update_latest_delivery_signals()`: the max rate and volume delivered in
    /// this loss round, and whether a loss round starts.
    pub(super) fn update_latest_delivery_signals(
        &mut self,
        sample: &AckSample,
        v3: &V3Rate,
        sample_bw: u64,
    ) {
        self.loss_round_start = false;
        if interval_us(sample).is_none() || sample.conn.newly_delivered == 0 {
            return; // not a valid observation
        }
        self.bw_latest = self.bw_latest.max(sample_bw);
        self.inflight_latest = self.inflight_latest.max(v3.delivered);
        if self
            .prior_delivered(sample)
            .is_some_and(|p| p >= self.loss_round_delivered)
        {
            self.loss_round_delivered = self.delivered();
            self.loss_round_start = true;
        }
    }

    /// Linux `bbr_advance_latest_delivery_signals()`: a loss round starts over from this
    /// ACK's sample.
    pub(super) fn advance_latest_delivery_signals(
        &mut self,
        _sample: &AckSample,
        v3: &V3Rate,
        sample_bw: u64,
    ) {
        if self.loss_round_start {
            self.bw_latest = sample_bw;
            self.inflight_latest = v3.delivered;
        }
    }

    /// Linux `bbr_update_congestion_signals()`: the max-bandwidth filter takes the sample
    /// (an application-limited one only if it raises it); once per loss round, the lower
    /// bounds adapt to the round's loss and ECN.
    pub(super) fn update_congestion_signals(
        &mut self,
        sample: &AckSample,
        v3: &V3Rate,
        sample_bw: u64,
    ) {
        if interval_us(sample).is_none() || sample.conn.newly_delivered == 0 {
            return; // not a valid observation
        }
        if !v3.app_limited || sample_bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(sample_bw);
        }
        self.loss_in_round |= sample.conn.newly_lost > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// Linux `bbr_advance_max_bw_filter()`: at the end of a probe's feedback, the current
    /// cycle's max becomes the previous one (if it has any sample).
    pub(super) fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0 {
            return; // no samples in this window: remember the old one
        }
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0;
    }

    /// Linux `bbr_ecn_cut()`: `1 - ecn_factor x alpha`, in 1/256.
    fn ecn_cut(&self) -> u32 {
        BBR_UNIT - ((self.ecn_alpha * self.config.ecn_factor) >> BBR_SCALE)
    }

    /// Linux `bbr_init_lower_bounds()`: the lower bounds start from the max bandwidth and
    /// the window.
    fn init_lower_bounds(&mut self, init_bw: bool) {
        if init_bw && self.bw_lo == BW_UNBOUNDED {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == UNBOUNDED {
            self.inflight_lo = self.cwnd;
        }
    }

    /// Linux `bbr_adapt_lower_bounds()`: outside bandwidth probing, a round with ECN marks
    /// cuts `inflight_lo` to `1 - ecn_factor x alpha` of itself, one with losses cuts
    /// `bw_lo` and `inflight_lo` to `1 - beta` of themselves, but not below what the round
    /// delivered.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() {
            return; // probing must push the flight up
        }
        let mut ecn_inflight_lo = UNBOUNDED;
        if self.ecn_in_round && self.config.ecn_factor > 0 {
            self.init_lower_bounds(false);
            ecn_inflight_lo =
                ((self.inflight_lo as u64 * self.ecn_cut() as u64) >> BBR_SCALE) as u32;
        }
        if self.loss_in_round {
            self.init_lower_bounds(true);
            let loss_cut = (BBR_UNIT - self.config.beta) as u128;
            let bw_lo = ((self.bw_lo as u128 * loss_cut) >> BBR_SCALE) as u64;
            self.bw_lo = self.bw_latest.max(bw_lo);
            let inflight_lo = ((self.inflight_lo as u64 * loss_cut as u64) >> BBR_SCALE) as u32;
            self.inflight_lo = self.inflight_latest.max(inflight_lo);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(1);
    }

    /// Linux `bbr_reset_lower_bounds()`: no short-term bounds (to probe).
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = BW_UNBOUNDED;
        self.inflight_lo = UNBOUNDED;
    }

    /// Linux `bbr_reset_congestion_signals()`: after probing, the signals start afresh.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// Linux `bbr_note_loss()`: this round has a loss; the first loss of a round restarts
    /// the loss round at `delivered`, so that it spans the whole round trip of loss.
    pub(super) fn note_loss(&mut self, delivered: u64) {
        if !self.loss_in_round {
            self.loss_round_delivered = delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// Linux `bbr_is_inflight_too_high()`'s loss test: more than `loss_thresh` of the
    /// flight `tx_in_flight` was lost.
    pub(super) fn is_loss_too_high(&self, lost: u32, tx_in_flight: u32) -> bool {
        lost > 0
            && tx_in_flight > 0
            && lost as u64 > (tx_in_flight as u64 * self.config.loss_thresh as u64) >> BBR_SCALE
    }

    /// Linux `bbr_is_inflight_too_high()`: the sample's loss rate or (ECN-eligible) CE
    /// fraction says the flight is too high.
    pub(super) fn is_inflight_too_high(&self, v3: &V3Rate) -> bool {
        if self.is_loss_too_high(v3.lost, v3.tx_in_flight) {
            return true;
        }
        let ecn_thresh = self.config.ecn_thresh as u64;
        v3.delivered_ce > 0
            && v3.delivered > 0
            && self.ecn_eligible
            && ecn_thresh > 0
            && v3.delivered_ce as u64 > (v3.delivered as u64 * ecn_thresh) >> BBR_SCALE
    }
}
