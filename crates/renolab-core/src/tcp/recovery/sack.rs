//! ns-2.35's `Agent/TCP/Sack1` (Fall & Floyd 1996, "Simulation-based comparisons of Tahoe,
//! Reno and SACK TCP"): the SACK recovery the studies ran. It keeps a running estimate of
//! the segments in flight (`pipe_`): what was outstanding at the loss minus the duplicates
//! that had arrived, one less per further duplicate, two less per partial ACK (the
//! retransmission and one more left), one more per segment sent. While `pipe` is below
//! cwnd it retransmits the holes in order, each once, then sends new data.

use super::{new_data_allowed, take_new_segment, Selection, SenderState};
use crate::tcp::sender::Phase;

/// Sack1's recovery state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Sack {
    /// ns-2's `pipe_`: its running estimate of segments in flight during recovery.
    pub pipe: i64,
}

impl Ns2Sack {
    /// Sack1's fast retransmit: the hole first, `pipe` from what is outstanding.
    pub(crate) fn on_enter(&mut self, s: &mut SenderState) {
        s.scoreboard.begin_recovery(s.snd_una);
        s.retransmit_next = Some(s.snd_una);
        // What is outstanding minus the duplicates that left.
        self.pipe = (s.snd_max - s.snd_una) as i64 - s.config.dupack_threshold as i64;
        s.phase = Phase::FastRecovery {
            recover: s.snd_max,
            partial_acks: 0,
        };
    }

    /// A duplicate ACK during recovery: one segment left the network.
    pub(crate) fn on_dup_ack(&mut self) {
        self.pipe -= 1;
    }

    /// A partial ACK: the retransmission and one more segment left. The timer restarts.
    pub(crate) fn on_partial_ack(&mut self) -> bool {
        self.pipe -= 2;
        true
    }

    /// While `pipe` < cwnd: the next hole not yet retransmitted, else new data.
    pub(crate) fn select(&mut self, s: &mut SenderState, cwnd: u32) -> Selection {
        if self.pipe >= cwnd as i64 {
            return Selection::Nothing;
        }
        let seq = match s.scoreboard.next_unretransmitted_hole(s.snd_una) {
            Some(hole) => hole,
            None if new_data_allowed(s) => take_new_segment(s),
            None => return Selection::Nothing,
        };
        self.pipe += 1;
        Selection::Segment(seq)
    }
}
