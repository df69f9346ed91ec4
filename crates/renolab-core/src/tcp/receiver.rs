//! The TCP receiver: cumulative ACKs and optional delayed ACKs, as a sans-IO state machine.
//!
//! The engine calls [`TcpReceiver::on_segment`] for each arriving data segment and
//! [`TcpReceiver::on_timeout`] when [`TcpReceiver::poll_timeout`] has passed, then drains
//! [`TcpReceiver::poll_transmit`] for the ACK to send. `now` never decreases.
//!
//! Delayed ACKs follow RFC 5681 §4.2: an ACK for at least every second full in-order segment
//! and within `delack_timeout` of the first unacknowledged one; an immediate ACK for an
//! out-of-order segment (a duplicate ACK) and for a segment that fills all or part of a gap.

use std::collections::VecDeque;

use super::config::{ReceiverConfig, Transfer};
use crate::time::SimTime;

/// Set of received segment numbers above the cumulative point, as a sliding bitmap.
/// Reuses its words as the window slides, so steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SeqSet {
    words: VecDeque<u64>,
    /// Segment number of bit 0 of `words[0]` divided by 64.
    first_word: u32,
    len: u32,
}

impl SeqSet {
    /// Adds `seq`; returns false if it was already present.
    pub fn insert(&mut self, seq: u32) -> bool {
        let w = seq / 64;
        if self.words.is_empty() {
            self.first_word = w;
        }
        if w < self.first_word {
            for _ in w..self.first_word {
                self.words.push_front(0);
            }
            self.first_word = w;
        }
        let i = (w - self.first_word) as usize;
        if i >= self.words.len() {
            self.words.resize(i + 1, 0);
        }
        let bit = 1u64 << (seq % 64);
        let fresh = self.words[i] & bit == 0;
        self.words[i] |= bit;
        self.len += fresh as u32;
        fresh
    }

    /// Removes `seq`; returns whether it was present. Drops leading empty words.
    pub fn remove(&mut self, seq: u32) -> bool {
        let w = seq / 64;
        if w < self.first_word || (w - self.first_word) as usize >= self.words.len() {
            return false;
        }
        let i = (w - self.first_word) as usize;
        let bit = 1u64 << (seq % 64);
        let present = self.words[i] & bit != 0;
        self.words[i] &= !bit;
        self.len -= present as u32;
        while self.words.front() == Some(&0) {
            self.words.pop_front();
            self.first_word += 1;
        }
        present
    }

    /// True when `seq` is in the set.
    pub fn contains(&self, seq: u32) -> bool {
        let w = seq / 64;
        w >= self.first_word
            && self
                .words
                .get((w - self.first_word) as usize)
                .is_some_and(|x| x & (1 << (seq % 64)) != 0)
    }

    /// Number of segments in the set.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Counters of a receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments that arrived, duplicates included.
    pub segments_received: u64,
    /// Bytes handed to the application, each exactly once and in order.
    pub bytes_delivered: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// When the last segment of a finite transfer became deliverable.
    pub finished_at: Option<SimTime>,
}

/// A TCP receiver.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    config: ReceiverConfig,
    transfer: Transfer,
    /// Next segment expected in order.
    rcv_nxt: u32,
    out_of_order: SeqSet,
    /// In-order segments received since the last ACK.
    unacked: u32,
    ack_due: bool,
    delack_deadline: Option<SimTime>,
    stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver expecting segment 0 of `transfer`.
    pub fn new(config: ReceiverConfig, transfer: Transfer) -> Self {
        TcpReceiver {
            config,
            transfer,
            rcv_nxt: 0,
            out_of_order: SeqSet::default(),
            unacked: 0,
            ack_due: false,
            delack_deadline: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Next segment expected in order (the cumulative ACK it sends).
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// Segments held out of order.
    pub fn out_of_order(&self) -> &SeqSet {
        &self.out_of_order
    }

    fn deliver(&mut self, seq: u32) {
        self.stats.bytes_delivered += self.transfer.payload(seq) as u64;
        self.rcv_nxt = seq + 1;
    }

    /// Processes an arriving data segment.
    pub fn on_segment(&mut self, now: SimTime, seq: u32) {
        self.stats.segments_received += 1;
        if seq < self.rcv_nxt || (seq > self.rcv_nxt && !self.out_of_order.insert(seq)) {
            // A duplicate: acknowledge at once so the sender learns where we are.
            self.ack_due = true;
            return;
        }
        if seq > self.rcv_nxt {
            // Out of order: immediate (duplicate) ACK, RFC 5681 §4.2.
            self.ack_due = true;
            return;
        }
        let filled_gap = !self.out_of_order.is_empty();
        self.deliver(seq);
        while self.out_of_order.remove(self.rcv_nxt) {
            self.deliver(self.rcv_nxt);
        }
        if self.transfer.segments() == Some(self.rcv_nxt) {
            self.stats.finished_at.get_or_insert(now);
        }
        self.unacked += 1;
        if filled_gap || !self.config.delayed_ack || self.unacked >= self.config.ack_every {
            self.ack_due = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.config.delack_timeout);
        }
    }

    /// The delayed-ACK timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            self.ack_due = true;
        }
    }

    /// The cumulative ACK to send now, if one is due.
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<u32> {
        if !self.ack_due {
            return None;
        }
        self.ack_due = false;
        self.unacked = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        Some(self.rcv_nxt)
    }

    /// When the receiver next needs [`TcpReceiver::on_timeout`].
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// Size of an ACK on the wire.
    pub fn ack_size(&self) -> u32 {
        self.config.ack_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn receiver(delayed: bool) -> TcpReceiver {
        let config = ReceiverConfig {
            delayed_ack: delayed,
            ack_every: 2,
            delack_timeout: SimDuration::from_millis(200),
            ack_bytes: 40,
        };
        TcpReceiver::new(
            config,
            Transfer {
                mss: 1000,
                bytes: Some(10_000),
            },
        )
    }

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    #[test]
    fn without_delayed_ack_every_segment_is_acked() {
        let mut r = receiver(false);
        r.on_segment(t(0), 0);
        assert_eq!(r.poll_transmit(t(0)), Some(1));
        assert_eq!(r.poll_transmit(t(0)), None);
    }

    #[test]
    fn out_of_order_segments_get_duplicate_acks_and_the_gap_filler_acks_all() {
        let mut r = receiver(true);
        r.on_segment(t(0), 0);
        r.on_segment(t(0), 1);
        assert_eq!(r.poll_transmit(t(0)), Some(2));
        r.on_segment(t(1), 3);
        assert_eq!(r.poll_transmit(t(1)), Some(2), "dup ack at once");
        r.on_segment(t(2), 4);
        assert_eq!(r.poll_transmit(t(2)), Some(2));
        r.on_segment(t(3), 2);
        assert_eq!(
            r.poll_transmit(t(3)),
            Some(5),
            "gap filled: immediate cumulative ACK"
        );
        assert_eq!(r.stats().bytes_delivered, 5000);
    }

    #[test]
    fn a_lone_in_order_segment_is_acked_when_the_delack_timer_fires() {
        let mut r = receiver(true);
        r.on_segment(t(0), 0);
        assert_eq!(r.poll_transmit(t(0)), None);
        assert_eq!(r.poll_timeout(), Some(t(200)));
        r.on_timeout(t(200));
        assert_eq!(r.poll_transmit(t(200)), Some(1));
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn duplicates_are_delivered_once() {
        let mut r = receiver(false);
        for seq in [0, 0, 2, 2, 1, 1] {
            r.on_segment(t(0), seq);
        }
        assert_eq!(r.stats().bytes_delivered, 3000);
        assert_eq!(r.rcv_nxt(), 3);
    }

    #[test]
    fn seq_set_slides_without_losing_members() {
        let mut s = SeqSet::default();
        assert!(s.insert(200));
        assert!(s.insert(5));
        assert!(!s.insert(5));
        assert!(s.contains(200) && s.contains(5) && !s.contains(6));
        assert!(s.remove(5));
        assert!(s.contains(200));
        assert_eq!(s.len(), 1);
        assert!(s.remove(200));
        assert!(s.is_empty());
    }
}
