//! The sender's record of each segment between `snd_una` and `snd_max`, as Linux keeps its
//! retransmission queue (`tcp_rtx_queue` with the `TCPCB_*` flags of `tcp_skb_cb`): whether
//! the receiver SACKed it, whether it is deemed lost, whether a retransmission of it is in
//! flight, when it was last sent, and the delivery-rate snapshot taken then.
//!
//! Counters kept as segments change state give Linux's `tcp_packets_in_flight()` in
//! constant time: `packets_out - (sacked_out + lost_out) + retrans_out`. A second, intrusive
//! list orders the segments neither SACKed nor lost-and-unrepaired by the time they were last
//! sent (Linux's `tsorted_sent_queue`): RACK (RFC 8985) walks it from the oldest and stops at
//! the first segment sent after the most recently delivered one.
//!
//! Records live in a ring that grows to the largest flight and is then reused: no allocation
//! per segment once the window has been reached.

use std::collections::VecDeque;

use crate::tcp::rate::TxSnapshot;
use crate::time::SimTime;

/// The end of the time-ordered list.
const NIL: u32 = u32::MAX;

/// The receiver reported the segment in a SACK block (`TCPCB_SACKED_ACKED`).
const SACKED: u8 = 1;
/// The segment is deemed lost (`TCPCB_LOST`).
const LOST: u8 = 2;
/// A retransmission of it is in flight (`TCPCB_SACKED_RETRANS`).
const RETRANS_IN_FLIGHT: u8 = 4;
/// It was retransmitted at least once (`TCPCB_EVER_RETRANS`).
const EVER_RETRANS: u8 = 8;

/// What the sender remembers of one outstanding segment.
#[derive(Clone, Copy, Debug)]
pub struct SegmentRecord {
    /// When the segment was last (re)transmitted.
    pub xmit_time: SimTime,
    /// The connection's delivery state when it was last sent.
    pub tx: TxSnapshot,
    flags: u8,
    /// Neighbours in the time-ordered list (segment numbers, or [`NIL`]).
    prev: u32,
    next: u32,
    /// The segment is in the time-ordered list.
    listed: bool,
}

impl SegmentRecord {
    /// The receiver SACKed it.
    pub fn is_sacked(&self) -> bool {
        self.flags & SACKED != 0
    }
    /// It is deemed lost.
    pub fn is_lost(&self) -> bool {
        self.flags & LOST != 0
    }
    /// A retransmission of it is in flight.
    pub fn retrans_in_flight(&self) -> bool {
        self.flags & RETRANS_IN_FLIGHT != 0
    }
    /// It was ever retransmitted (its ACK gives no unambiguous RTT: Karn).
    pub fn ever_retransmitted(&self) -> bool {
        self.flags & EVER_RETRANS != 0
    }
}

/// The outstanding segments and their counters.
#[derive(Clone, Debug, Default)]
pub struct Segments {
    /// Segment number of `ring[0]` (the sender's `snd_una`).
    base: u32,
    ring: VecDeque<SegmentRecord>,
    head: u32,
    tail: u32,
    /// Segments SACKed (Linux `sacked_out`).
    pub sacked_out: u32,
    /// Segments deemed lost (Linux `lost_out`).
    pub lost_out: u32,
    /// Retransmissions in flight (Linux `retrans_out`).
    pub retrans_out: u32,
    /// Lost segments not retransmitted since they were deemed lost.
    lost_unrepaired: u32,
    /// No lost, unrepaired segment lies below this one.
    lost_hint: u32,
    /// One past the highest SACKed segment (Linux's "forward-most ACK", `tcp_highest_sack_seq`).
    pub fack: u32,
    /// Segments marked lost so far, a lost retransmission counting again (Linux `tp->lost`).
    pub lost: u64,
}

impl Segments {
    /// Segments sent and not cumulatively acknowledged (Linux `packets_out`).
    pub fn packets_out(&self) -> u32 {
        self.ring.len() as u32
    }

    /// Linux `tcp_packets_in_flight()`: segments believed to be in the network.
    pub fn in_flight(&self) -> u32 {
        (self.packets_out() + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// The record of segment `seq`, if outstanding.
    pub fn get(&self, seq: u32) -> Option<&SegmentRecord> {
        self.ring.get(seq.checked_sub(self.base)? as usize)
    }

    fn slot(&mut self, seq: u32) -> &mut SegmentRecord {
        &mut self.ring[(seq - self.base) as usize]
    }

    fn unlink(&mut self, seq: u32) {
        let r = *self.slot(seq);
        if !r.listed {
            return;
        }
        match r.prev {
            NIL => self.head = r.next,
            p => self.slot(p).next = r.next,
        }
        match r.next {
            NIL => self.tail = r.prev,
            n => self.slot(n).prev = r.prev,
        }
        let s = self.slot(seq);
        (s.prev, s.next, s.listed) = (NIL, NIL, false);
    }

    fn push_tail(&mut self, seq: u32) {
        let tail = self.tail;
        {
            let s = self.slot(seq);
            (s.prev, s.next, s.listed) = (tail, NIL, true);
        }
        match tail {
            NIL => self.head = seq,
            t => self.slot(t).next = seq,
        }
        self.tail = seq;
    }

    /// Segment `seq` leaves at `now` carrying snapshot `tx`: a new segment (the next after
    /// the highest sent) or a retransmission.
    pub fn on_sent(&mut self, seq: u32, now: SimTime, tx: TxSnapshot) {
        if self.ring.is_empty() {
            self.base = seq;
            self.head = NIL;
            self.tail = NIL;
        }
        let index = seq.wrapping_sub(self.base) as usize;
        if index == self.ring.len() {
            self.ring.push_back(SegmentRecord {
                xmit_time: now,
                tx,
                flags: 0,
                prev: NIL,
                next: NIL,
                listed: false,
            });
        } else {
            let r = *self.slot(seq);
            if r.is_sacked() {
                return; // nothing to resend (a probe of a SACKed tail)
            }
            self.unlink(seq);
            let s = self.slot(seq);
            s.xmit_time = now;
            s.tx = tx;
            s.flags |= EVER_RETRANS;
            if r.is_lost() {
                // Linux tcp_retransmit_skb(): a lost segment's repair is in flight.
                if !r.retrans_in_flight() {
                    s.flags |= RETRANS_IN_FLIGHT;
                    self.retrans_out += 1;
                    self.lost_unrepaired -= 1;
                }
            }
        }
        self.push_tail(seq);
    }

    /// Cumulative ACK of everything below `ack`: calls `delivered(seq, record)` for each
    /// segment it removes, oldest first.
    pub fn on_cumulative_ack(&mut self, ack: u32, mut delivered: impl FnMut(u32, &SegmentRecord)) {
        while !self.ring.is_empty() && self.base < ack {
            let seq = self.base;
            self.unlink(seq);
            let r = self.ring.pop_front().expect("not empty");
            if r.is_sacked() {
                self.sacked_out -= 1;
            }
            if r.is_lost() {
                self.lost_out -= 1;
                if !r.retrans_in_flight() {
                    self.lost_unrepaired -= 1;
                }
            }
            if r.retrans_in_flight() {
                self.retrans_out -= 1;
            }
            delivered(seq, &r);
            self.base += 1;
        }
        if self.ring.is_empty() {
            self.base = ack;
            self.fack = self.fack.max(ack);
        }
        self.lost_hint = self.lost_hint.max(self.base);
    }

    /// SACK of segments `start..end`: calls `delivered(seq, record)` for each newly SACKed
    /// one. Returns how many were newly SACKed.
    pub fn on_sack(
        &mut self,
        start: u32,
        end: u32,
        mut delivered: impl FnMut(u32, &SegmentRecord),
    ) -> u32 {
        let mut fresh = 0;
        let end = end.min(self.base + self.packets_out());
        for seq in start.max(self.base)..end {
            let r = *self.slot(seq);
            if r.is_sacked() {
                continue;
            }
            self.unlink(seq);
            if r.is_lost() {
                self.lost_out -= 1;
                if !r.retrans_in_flight() {
                    self.lost_unrepaired -= 1;
                }
            }
            if r.retrans_in_flight() {
                self.retrans_out -= 1;
            }
            let s = self.slot(seq);
            s.flags = (s.flags | SACKED) & !(LOST | RETRANS_IN_FLIGHT);
            self.sacked_out += 1;
            fresh += 1;
            self.fack = self.fack.max(seq + 1);
            delivered(seq, &r);
        }
        fresh
    }

    /// Deems segment `seq` lost (Linux `tcp_mark_skb_lost()`); a retransmission of it that
    /// was in flight is lost too. Returns false if it was already lost and unrepaired, or
    /// SACKed.
    pub fn mark_lost(&mut self, seq: u32) -> bool {
        let r = *self.slot(seq);
        if r.is_sacked() || (r.is_lost() && !r.retrans_in_flight()) {
            return false;
        }
        self.unlink(seq);
        let s = self.slot(seq);
        s.flags = (s.flags | LOST) & !RETRANS_IN_FLIGHT;
        if r.retrans_in_flight() {
            self.retrans_out -= 1;
        } else {
            self.lost_out += 1;
        }
        self.lost_unrepaired += 1;
        self.lost += 1;
        self.lost_hint = self.lost_hint.min(seq);
        true
    }

    /// The oldest segment deemed lost and not retransmitted since (what Linux's
    /// `tcp_xmit_retransmit_queue()` sends next).
    pub fn next_lost(&mut self) -> Option<u32> {
        if self.lost_unrepaired == 0 {
            return None;
        }
        let end = self.base + self.packets_out();
        let mut seq = self.lost_hint.max(self.base);
        while seq < end {
            let r = self.slot(seq);
            if r.is_lost() && !r.retrans_in_flight() {
                self.lost_hint = seq;
                return Some(seq);
            }
            seq += 1;
        }
        self.lost_hint = end;
        None
    }

    /// The segments neither SACKed nor lost-and-unrepaired, oldest transmission first:
    /// `(seq, record)`.
    pub fn by_send_time(&self) -> BySendTime<'_> {
        BySendTime {
            segs: self,
            at: self.head,
        }
    }

    /// Forgets every SACK (the receiver reneged).
    pub fn forget_sacks(&mut self) {
        let base = self.base;
        for i in 0..self.ring.len() {
            let seq = base + i as u32;
            if self.ring[i].is_sacked() {
                self.ring[i].flags &= !SACKED;
                self.push_tail(seq);
            }
        }
        self.sacked_out = 0;
        self.fack = base;
    }
}

/// Iterator of [`Segments::by_send_time`].
pub struct BySendTime<'a> {
    segs: &'a Segments,
    at: u32,
}

impl Iterator for BySendTime<'_> {
    type Item = (u32, SegmentRecord);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at == NIL {
            return None;
        }
        let seq = self.at;
        let r = *self.segs.get(seq)?;
        self.at = r.next;
        Some((seq, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    fn sent(n: u32) -> Segments {
        let mut s = Segments::default();
        for seq in 0..n {
            s.on_sent(seq, t(seq as u64), TxSnapshot::default());
        }
        s
    }

    fn order(s: &Segments) -> Vec<u32> {
        s.by_send_time().map(|(seq, _)| seq).collect()
    }

    #[test]
    fn in_flight_follows_sacks_losses_and_retransmissions() {
        let mut s = sent(10);
        assert_eq!((s.packets_out(), s.in_flight()), (10, 10));
        assert_eq!(s.on_sack(3, 6, |_, _| {}), 3);
        assert_eq!(s.in_flight(), 7);
        assert!(s.mark_lost(0) && s.mark_lost(1));
        assert_eq!(s.in_flight(), 5);
        assert_eq!(s.next_lost(), Some(0));
        s.on_sent(0, t(20), TxSnapshot::default());
        assert_eq!((s.in_flight(), s.retrans_out), (6, 1));
        assert_eq!(s.next_lost(), Some(1));
        // The repair of 0 is lost again: 0 needs another retransmission.
        assert!(s.mark_lost(0));
        assert_eq!(
            (s.in_flight(), s.retrans_out, s.next_lost()),
            (5, 0, Some(0))
        );
    }

    #[test]
    fn the_time_ordered_list_skips_sacked_and_lost_and_takes_retransmissions_to_the_end() {
        let mut s = sent(5);
        s.on_sack(2, 3, |_, _| {});
        s.mark_lost(0);
        assert_eq!(order(&s), vec![1, 3, 4]);
        s.on_sent(0, t(10), TxSnapshot::default());
        assert_eq!(order(&s), vec![1, 3, 4, 0]);
    }

    #[test]
    fn a_cumulative_ack_delivers_in_order_and_clears_the_counters() {
        let mut s = sent(6);
        s.on_sack(4, 6, |_, _| {});
        s.mark_lost(1);
        let mut got = vec![];
        s.on_cumulative_ack(6, |seq, r| got.push((seq, r.is_sacked())));
        assert_eq!(got.len(), 6);
        assert_eq!(got[4], (4, true));
        assert_eq!(
            (s.sacked_out, s.lost_out, s.retrans_out, s.in_flight()),
            (0, 0, 0, 0)
        );
        assert_eq!(s.next_lost(), None);
        // Sending resumes at 6.
        s.on_sent(6, t(30), TxSnapshot::default());
        assert_eq!((s.packets_out(), order(&s)), (1, vec![6]));
    }

    #[test]
    fn a_second_sack_of_the_same_segment_counts_nothing() {
        let mut s = sent(4);
        assert_eq!(s.on_sack(1, 3, |_, _| {}), 2);
        assert_eq!(s.on_sack(0, 4, |_, _| {}), 2);
        assert_eq!((s.sacked_out, s.fack), (4, 4));
    }
}
