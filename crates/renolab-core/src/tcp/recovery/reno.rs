//! Reno's fast recovery (RFC 5681 §3.2): retransmit the lost segment, then inflate the
//! window by one segment for each duplicate ACK (each means a segment left the network);
//! the first ACK of new data ends recovery, partial or not, and takes the inflation back.

use super::{deflate_on_exit, retransmit_and_inflate, ClassicState, LossRecovery};
use crate::tcp::cc::{AckSample, CongestionControl};
use crate::time::SimTime;

/// Reno's recovery state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenoRecovery {
    /// Window inflation in segments (ns-2's `dupwnd_`).
    pub dupwnd: u32,
}

impl<C: CongestionControl> LossRecovery<C> for RenoRecovery {
    fn selects_by_window(&self) -> bool {
        true
    }

    fn inflation(&self) -> u32 {
        self.dupwnd
    }

    /// The first ACK of new data ends recovery, partial or not.
    fn exits_on(&self, _ack: u32, _recover: u32) -> bool {
        true
    }

    /// RFC 5681 §3.2 steps 2-3: retransmit at once, inflate by the duplicates that arrived.
    fn on_enter(&mut self, s: &mut ClassicState, _cc: &mut C) {
        self.dupwnd = retransmit_and_inflate(s);
    }

    /// RFC 5681 §3.2 step 4: each further duplicate means a segment left the network.
    fn on_dup_ack(&mut self, s: &mut ClassicState, _cc: &mut C, _now: SimTime) -> bool {
        if !s.in_fast_recovery() {
            return false;
        }
        self.dupwnd += 1;
        true
    }

    /// RFC 5681 §3.2 step 6: deflate.
    fn on_exit(&mut self, s: &ClassicState, cc: &mut C, sample: &AckSample) {
        deflate_on_exit(&mut self.dupwnd, s, cc, sample);
    }

    fn on_timeout(&mut self, _s: &mut ClassicState) {
        self.dupwnd = 0;
    }
}
