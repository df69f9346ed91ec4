//! RFC 6675's conservative SACK-based loss recovery: `pipe` recomputed from the scoreboard
//! on every decision (§4 SetPipe, with IsLost), and the segment to send chosen by NextSeg:
//! lost holes first, then new data, then holes not yet known lost.

use super::{ClassicState, LossRecovery, Selection};
use crate::tcp::cc::CongestionControl;

/// RFC 6675 recovery: all its state is the scoreboard's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc6675;

impl<C: CongestionControl> LossRecovery<C> for Rfc6675 {
    fn uses_sack(&self) -> bool {
        true
    }

    /// RFC 6675 §5 "IsLost(HighACK + 1)": enough SACKed above the first hole.
    fn sack_says_lost(&self, s: &ClassicState, seq: u32) -> bool {
        s.scoreboard.is_lost(seq, s.config().dupack_threshold)
    }

    /// RFC 6675 §5 steps (4.1)-(4.4): RecoveryPoint = HighData, retransmit the first hole.
    fn on_enter(&mut self, s: &mut ClassicState, _cc: &mut C) {
        s.scoreboard.begin_recovery(s.snd_una());
        s.retransmit(s.snd_una());
        s.begin_episode();
    }

    /// RFC 6675 §5.1: the scoreboard is cleared after a timeout (ns-2 does).
    fn on_timeout(&mut self, s: &mut ClassicState) {
        s.scoreboard.clear(s.snd_una());
    }

    /// RFC 6675 §5 step (C): send while cwnd - pipe >= 1 segment, choosing with NextSeg (§4).
    fn select(&mut self, s: &mut ClassicState, cwnd: u32) -> Selection {
        if !s.in_fast_recovery() {
            return Selection::ByWindow;
        }
        let dupthresh = s.config().dupack_threshold;
        let (una, max) = (s.snd_una(), s.snd_max());
        let pipe = s.scoreboard.pipe(una, max, dupthresh);
        if pipe >= cwnd {
            return Selection::Nothing;
        }
        // NextSeg rule 1: a lost hole.
        if let Some(hole) = s.scoreboard.next_retransmission(una, dupthresh, false) {
            return Selection::Segment(hole);
        }
        // Rule 2: new data.
        if s.conn.new_data_allowed() {
            return Selection::Segment(s.conn.take_new_segment());
        }
        // Rule 3: a hole not known lost.
        match s.scoreboard.next_retransmission(una, dupthresh, true) {
            Some(hole) => Selection::Segment(hole),
            None => Selection::Nothing,
        }
    }
}
