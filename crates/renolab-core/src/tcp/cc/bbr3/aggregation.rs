//! BBR's ACK-aggregation estimate (Linux `bbr_update_ack_aggregation()` and
//! `bbr_ack_aggregation_cwnd()`): the largest recent excess of data (S)ACKed over what the
//! estimated bandwidth explains, kept over two windows of round trips, which the window then
//! allows for so that sending goes on through the silences between aggregated ACKs.

use crate::tcp::cc::bbr::BW_UNIT;
use crate::time::SimTime;

/// Linux `bbr_ack_epoch_acked_reset_thresh`: an ACK epoch this long (segments) restarts.
const ACK_EPOCH_ACKED_RESET: u32 = 1 << 20;

/// The estimate's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckAggregation {
    /// Start of the sampling epoch (`ack_epoch_mstamp`).
    epoch_stamp: SimTime,
    /// Segments (S)ACKed in the epoch, 20 bits (`ack_epoch_acked`).
    epoch_acked: u32,
    /// The max excess of the current and the previous window, segments (`extra_acked[2]`).
    extra_acked: [u32; 2],
    /// Rounds in the current window, 5 bits (`extra_acked_win_rtts`).
    win_rtts: u32,
    /// The current window's slot (`extra_acked_win_idx`).
    win_idx: usize,
}

impl AckAggregation {
    /// A new epoch starts at `now` (connection start, restart after idle).
    pub fn restart_epoch(&mut self, now: SimTime) {
        self.epoch_stamp = now;
        self.epoch_acked = 0;
    }

    /// The largest excess of the last one or two windows, segments (`bbr_extra_acked()`).
    pub fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// An ACK (S)ACKed `acked` segments, the connection's delivered count last growing at
    /// `delivered_time`, with bandwidth estimate `bw` (`BW_UNIT`s) and window `cwnd`; a
    /// window lasts `window_rtts` rounds, counted on `round_start`.
    pub fn update(
        &mut self,
        round_start: bool,
        window_rtts: u32,
        acked: u32,
        delivered_time: SimTime,
        bw: u64,
        cwnd: u32,
    ) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1f);
            if self.win_rtts >= window_rtts {
                self.win_rtts = 0;
                self.win_idx ^= 1;
                self.extra_acked[self.win_idx] = 0;
            }
        }
        // What the estimated bandwidth delivers over the epoch.
        let epoch_us = delivered_time.saturating_since(self.epoch_stamp).as_nanos() / 1000;
        let mut expected = (bw as u128 * epoch_us as u128 / BW_UNIT as u128) as u64;
        // Restart the epoch when ACKs come slower than that, or it grew very old.
        if self.epoch_acked as u64 <= expected || self.epoch_acked + acked >= ACK_EPOCH_ACKED_RESET
        {
            self.restart_epoch(delivered_time);
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(0xfffff);
        let extra = (self.epoch_acked as u64 - expected.min(self.epoch_acked as u64))
            .min(cwnd as u64) as u32;
        let slot = &mut self.extra_acked[self.win_idx];
        // The kernel keeps the excess in 16 bits.
        *slot = (*slot).max(extra.min(u16::MAX as u32));
    }

    /// Linux `bbr_ack_aggregation_cwnd()`: `gain` (1/256) times the excess, at most `max_us`
    /// of data at `bw`.
    pub fn cwnd(&self, gain: u32, bw: u64, max_us: u32) -> u32 {
        if gain == 0 {
            return 0;
        }
        let max_aggr = bw as u128 * max_us as u128 / BW_UNIT as u128;
        let aggr = (gain as u128 * self.extra_acked() as u128) >> 8;
        aggr.min(max_aggr) as u32
    }
}
