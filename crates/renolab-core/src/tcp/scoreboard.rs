//! The SACK scoreboard (RFC 6675 §2-4): which outstanding segments the receiver has
//! reported, which the sender has retransmitted, and the derived `IsLost` and `pipe`.

use super::seqset::SeqSet;
use crate::packet::sack::SackBlocks;

/// SACK state of the segments in `[snd_una, snd_max)`.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: SeqSet,
    retransmitted: SeqSet,
    /// RFC 6675 HighRxt: one past the highest segment retransmitted in this recovery.
    high_rxt: u32,
}

impl Scoreboard {
    /// Records the cumulative ACK `ack` and the SACK blocks of an arriving ACK; returns how
    /// many segments were SACKed for the first time.
    pub fn on_ack(&mut self, ack: u32, blocks: &SackBlocks) -> u32 {
        let mut fresh = 0;
        for (start, end) in blocks.iter() {
            fresh += self.sacked.insert_range(start.max(ack), end);
        }
        self.sacked.clear_below(ack);
        self.retransmitted.clear_below(ack);
        self.high_rxt = self.high_rxt.max(ack);
        fresh
    }

    /// Forgets everything (after a timeout, RFC 6675 §5.1 allows clearing; ns-2 does).
    pub fn clear(&mut self, ack: u32) {
        self.sacked.clear_below(u32::MAX);
        self.retransmitted.clear_below(u32::MAX);
        self.high_rxt = ack;
    }

    /// Starts a recovery episode at `ack`.
    pub fn begin_recovery(&mut self, ack: u32) {
        self.high_rxt = ack;
    }

    /// True if the receiver reported `seq`.
    pub fn is_sacked(&self, seq: u32) -> bool {
        self.sacked.contains(seq)
    }

    /// RFC 6675 HighACK: one past the highest SACKed segment.
    pub fn high_sacked(&self) -> Option<u32> {
        self.sacked.max().map(|s| s + 1)
    }

    /// The lowest segment with at least `dupthresh` SACKed segments at or above it, counting
    /// itself: every unSACKed segment below it has `dupthresh` SACKed above, so is lost.
    fn loss_boundary(&self, dupthresh: u32) -> Option<u32> {
        self.sacked.nth_largest(dupthresh.max(1))
    }

    /// RFC 6675 IsLost: at least `dupthresh` segments above `seq` were SACKed.
    pub fn is_lost(&self, seq: u32, dupthresh: u32) -> bool {
        !self.is_sacked(seq) && self.loss_boundary(dupthresh).is_some_and(|b| seq < b)
    }

    /// Marks `seq` retransmitted.
    pub fn mark_retransmitted(&mut self, seq: u32) {
        self.retransmitted.insert(seq);
        self.high_rxt = self.high_rxt.max(seq + 1);
    }

    /// RFC 6675 SetPipe: segments in flight between `snd_una` and `snd_max`. The unSACKed
    /// segments below the loss boundary are lost and count nothing; those at or above it
    /// count once; each unSACKed retransmission counts once more. A word of the bitmaps at a
    /// time, not a segment at a time: this runs at every sending opportunity in recovery.
    pub fn pipe(&self, snd_una: u32, snd_max: u32, dupthresh: u32) -> u32 {
        let from = self
            .loss_boundary(dupthresh)
            .map_or(snd_una, |b| b.clamp(snd_una, snd_max));
        let none = SeqSet::default();
        let unsacked_unlost =
            (snd_max - from) - self.sacked.count_in_range_not_in(&none, from, snd_max);
        let retransmitted_unsacked =
            self.retransmitted
                .count_in_range_not_in(&self.sacked, snd_una, snd_max);
        unsacked_unlost + retransmitted_unsacked
    }

    /// RFC 6675 NextSeg rules 1 and 3: the first unSACKed segment above HighRxt and below
    /// HighACK that is lost (rule 1) or, failing that, any such segment when no new data
    /// can be sent (rule 3, `allow_unlost`). Lost segments all lie below the loss boundary,
    /// so the first unSACKed segment decides.
    pub fn next_retransmission(
        &self,
        snd_una: u32,
        dupthresh: u32,
        allow_unlost: bool,
    ) -> Option<u32> {
        let high = self.high_sacked()?;
        let first = self
            .sacked
            .next_absent_at_or_after(self.high_rxt.max(snd_una));
        if first >= high {
            return None;
        }
        let lost = self.loss_boundary(dupthresh).is_some_and(|b| first < b);
        (lost || allow_unlost).then_some(first)
    }

    /// ns-2 Sack1's `GetNextRetran`: the first segment above the cumulative ACK that is
    /// neither SACKed nor already retransmitted, below the highest SACKed segment.
    pub fn next_unretransmitted_hole(&self, snd_una: u32) -> Option<u32> {
        let high = self.high_sacked()?;
        let mut seq = snd_una;
        loop {
            seq = self.sacked.next_absent_at_or_after(seq);
            if seq >= high {
                return None;
            }
            if !self.retransmitted.contains(seq) {
                return Some(seq);
            }
            seq += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(list: &[(u32, u32)]) -> SackBlocks {
        let mut b = SackBlocks::EMPTY;
        for &(s, e) in list {
            b.push(s, e);
        }
        b
    }

    #[test]
    fn a_segment_is_lost_once_three_above_it_are_sacked() {
        let mut sb = Scoreboard::default();
        sb.on_ack(10, &blocks(&[(11, 13)]));
        assert!(!sb.is_lost(10, 3));
        sb.on_ack(10, &blocks(&[(11, 14)]));
        assert!(sb.is_lost(10, 3));
        assert_eq!(sb.high_sacked(), Some(14));
    }

    #[test]
    fn pipe_counts_unsacked_unlost_segments_and_retransmissions() {
        let mut sb = Scoreboard::default();
        // 10 lost, 11..14 SACKed, 14..20 outstanding.
        sb.on_ack(10, &blocks(&[(11, 14)]));
        assert_eq!(sb.pipe(10, 20, 3), 6);
        sb.begin_recovery(10);
        assert_eq!(sb.next_retransmission(10, 3, false), Some(10));
        sb.mark_retransmitted(10);
        assert_eq!(sb.pipe(10, 20, 3), 7);
        assert_eq!(sb.next_retransmission(10, 3, false), None);
    }

    #[test]
    fn the_cumulative_ack_clears_what_it_covers() {
        let mut sb = Scoreboard::default();
        sb.on_ack(10, &blocks(&[(12, 15)]));
        sb.on_ack(15, &SackBlocks::EMPTY);
        assert_eq!(sb.high_sacked(), None);
        assert_eq!(sb.pipe(15, 18, 3), 3);
    }
}
