//! ns-2.35's `Agent/TCP/Sack1` (Fall & Floyd 1996, "Simulation-based comparisons of Tahoe,
//! Reno and SACK TCP"): the SACK recovery the studies ran. It keeps a running estimate of
//! the segments in flight (`pipe_`): what was outstanding at the loss minus the duplicates
//! that had arrived, one less per further duplicate, two less per partial ACK (the
//! retransmission and one more left), one more per segment sent. While `pipe` is below
//! cwnd it retransmits the holes in order, each once, then sends new data.

use super::{ClassicState, LossRecovery, Selection};
use crate::tcp::cc::CongestionControl;
use crate::time::SimTime;

/// Sack1's recovery state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Sack {
    /// ns-2's `pipe_`: its running estimate of segments in flight during recovery.
    pub pipe: i64,
}

impl<C: CongestionControl> LossRecovery<C> for Ns2Sack {
    fn uses_sack(&self) -> bool {
        true
    }

    /// Sack1 counts only the duplicates that bring new SACK information.
    fn counts_dup_ack(&self, fresh_sacks: u32) -> bool {
        fresh_sacks > 0
    }

    /// Sack1's fast retransmit: the hole first, `pipe` from what is outstanding.
    fn on_enter(&mut self, s: &mut ClassicState, _cc: &mut C) {
        s.scoreboard.begin_recovery(s.snd_una());
        s.retransmit(s.snd_una());
        // What is outstanding minus the duplicates that left.
        self.pipe = (s.snd_max() - s.snd_una()) as i64 - s.config().dupack_threshold as i64;
        s.begin_episode();
    }

    /// A duplicate ACK during recovery: one segment left the network.
    fn on_dup_ack(&mut self, s: &mut ClassicState, _cc: &mut C, _now: SimTime) -> bool {
        if !s.in_fast_recovery() {
            return false;
        }
        self.pipe -= 1;
        true
    }

    /// A partial ACK: the retransmission and one more segment left. The timer restarts.
    fn on_partial_ack(&mut self, _s: &mut ClassicState, _cc: &mut C, _acked: u32, _n: u32) -> bool {
        self.pipe -= 2;
        true
    }

    /// The scoreboard is cleared after a timeout, as ns-2 does.
    fn on_timeout(&mut self, s: &mut ClassicState) {
        s.scoreboard.clear(s.snd_una());
    }

    /// While `pipe` < cwnd: the next hole not yet retransmitted, else new data.
    fn select(&mut self, s: &mut ClassicState, cwnd: u32) -> Selection {
        if !s.in_fast_recovery() {
            return Selection::ByWindow;
        }
        if self.pipe >= cwnd as i64 {
            return Selection::Nothing;
        }
        let seq = match s.scoreboard.next_unretransmitted_hole(s.snd_una()) {
            Some(hole) => hole,
            None if s.conn.new_data_allowed() => s.conn.take_new_segment(),
            None => return Selection::Nothing,
        };
        self.pipe += 1;
        Selection::Segment(seq)
    }
}
