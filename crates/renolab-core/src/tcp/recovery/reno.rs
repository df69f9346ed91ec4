//! Reno's fast recovery (RFC 5681 §3.2): retransmit the lost segment, then inflate the
//! window by one segment for each duplicate ACK (each means a segment left the network);
//! the first ACK of new data ends recovery, partial or not, and takes the inflation back.

use super::SenderState;
use crate::tcp::cc::{AckSample, Cc, CongestionControl};

/// Reno's recovery state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenoRecovery {
    /// Window inflation in segments (ns-2's `dupwnd_`).
    pub dupwnd: u32,
}

impl RenoRecovery {
    /// RFC 5681 §3.2 steps 2-3: retransmit at once, inflate by the duplicates that arrived.
    pub(crate) fn on_enter(&mut self, s: &mut SenderState) {
        self.dupwnd = s.config.dupack_threshold;
        s.retransmit_next = Some(s.snd_una);
        s.phase = crate::tcp::sender::Phase::FastRecovery {
            recover: s.snd_max,
            partial_acks: 0,
        };
    }

    /// RFC 5681 §3.2 step 4: each further duplicate means a segment left the network.
    pub(crate) fn on_dup_ack(&mut self) {
        self.dupwnd += 1;
    }

    /// RFC 5681 §3.2 step 6: deflate. ns-2's Reno and NewReno leave recovery through
    /// newack() + opencwnd(), which opens the window once more on the same ACK.
    pub(crate) fn on_exit(&mut self, cc: &mut Cc, sample: &AckSample, ns2: bool) {
        self.dupwnd = 0;
        if ns2 {
            cc.on_ack(sample);
        }
    }
}
