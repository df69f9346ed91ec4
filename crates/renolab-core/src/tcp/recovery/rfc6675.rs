//! RFC 6675's conservative SACK-based loss recovery: `pipe` recomputed from the scoreboard
//! on every decision (§4 SetPipe, with IsLost), and the segment to send chosen by NextSeg:
//! lost holes first, then new data, then holes not yet known lost.

use super::{new_data_allowed, take_new_segment, Selection, SenderState};
use crate::tcp::sender::Phase;

/// RFC 6675 recovery: all its state is the scoreboard's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc6675;

impl Rfc6675 {
    /// RFC 6675 §5 steps (4.1)-(4.4): RecoveryPoint = HighData, retransmit the first hole.
    pub(crate) fn on_enter(&mut self, s: &mut SenderState) {
        s.scoreboard.begin_recovery(s.snd_una);
        s.retransmit_next = Some(s.snd_una);
        s.phase = Phase::FastRecovery {
            recover: s.snd_max,
            partial_acks: 0,
        };
    }

    /// RFC 6675 §5 step (C): send while cwnd - pipe >= 1 segment, choosing with NextSeg (§4).
    pub(crate) fn select(&mut self, s: &mut SenderState, cwnd: u32) -> Selection {
        let dupthresh = s.config.dupack_threshold;
        let pipe = s.scoreboard.pipe(s.snd_una, s.snd_max, dupthresh);
        if pipe >= cwnd {
            return Selection::Nothing;
        }
        // NextSeg rule 1: a lost hole.
        if let Some(hole) = s
            .scoreboard
            .next_retransmission(s.snd_una, dupthresh, false)
        {
            return Selection::Segment(hole);
        }
        // Rule 2: new data.
        if new_data_allowed(s) {
            return Selection::Segment(take_new_segment(s));
        }
        // Rule 3: a hole not known lost.
        match s.scoreboard.next_retransmission(s.snd_una, dupthresh, true) {
            Some(hole) => Selection::Segment(hole),
            None => Selection::Nothing,
        }
    }
}
