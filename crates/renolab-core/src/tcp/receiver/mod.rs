//! The TCP receiver: cumulative ACKs and optional delayed ACKs, as a sans-IO state machine.
//!
//! The engine calls [`TcpReceiver::on_segment`] for each arriving data segment and
//! [`TcpReceiver::on_timeout`] when [`TcpReceiver::poll_timeout`] has passed, then drains
//! [`TcpReceiver::poll_transmit`] for the ACK to send. `now` never decreases.
//!
//! Delayed ACKs follow RFC 5681 §4.2: an ACK for at least every second full in-order segment
//! and within `delack_timeout` of the first unacknowledged one; an immediate ACK for an
//! out-of-order segment (a duplicate ACK) and for a segment that fills all or part of a gap.

mod linux;

pub use linux::{AckNow, LinuxAcks};

use super::config::{Dialect, ReceiverConfig, Transfer};
use super::ecn::{EchoMode, EcnEcho};
use super::seqset::SeqSet;
use crate::packet::sack::{SackBlocks, MAX_SACK_BLOCKS};
use crate::packet::Ecn;
use crate::time::SimTime;

/// An ACK the receiver sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    /// Cumulative ACK: the next segment expected.
    pub ack: u32,
    /// SACK blocks (empty unless the receiver does SACK).
    pub sack: SackBlocks,
    /// True for the SYN-ACK answering a SYN.
    pub syn: bool,
    /// ECN-Echo (RFC 3168 §6.1.3; DCTCP's exact echo, RFC 8257 §3.2).
    pub ece: bool,
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
    /// Data segments that arrived marked Congestion Experienced.
    pub ce_received: u64,
}

/// A TCP receiver.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    config: ReceiverConfig,
    transfer: Transfer,
    /// Next segment expected in order.
    rcv_nxt: u32,
    out_of_order: SeqSet,
    /// Most recent out-of-order arrivals, newest first: each names the block it landed in,
    /// for the SACK option's ordering (RFC 2018 §4).
    recent: [u32; MAX_SACK_BLOCKS],
    recent_len: usize,
    /// In-order segments received since the last ACK.
    unacked: u32,
    ack_due: bool,
    /// A SYN arrived and awaits its SYN-ACK.
    syn_ack_due: bool,
    delack_deadline: Option<SimTime>,
    /// `rcv_nxt` when the last ACK left (Linux `rcv_wup`).
    rcv_wup: u32,
    /// The Linux dialect's ACK policy (boxed: the other dialects do without).
    linux: Option<Box<LinuxAcks>>,
    /// What it echoes of the segments' ECN marks.
    ecn: EcnEcho,
    /// DCTCP: an ACK of the segments before a change of CE state, to go before the ACK
    /// of the segment that changed it.
    flush: Option<AckOut>,
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
            recent: [0; MAX_SACK_BLOCKS],
            recent_len: 0,
            unacked: 0,
            ack_due: false,
            syn_ack_due: false,
            delack_deadline: None,
            rcv_wup: 0,
            linux: (config.dialect == Dialect::Linux).then(Box::default),
            ecn: EcnEcho::new(config.ecn),
            flush: None,
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

    /// A SYN arrived: answer it (again, if it is a retransmission).
    pub fn on_syn(&mut self, now: SimTime) {
        self.syn_ack_due = true;
        if let Some(l) = &mut self.linux {
            l.syn_ack_sent = Some(now);
        }
    }

    /// Processes an arriving data segment carrying the ECN bits `ecn`: the echo state moves
    /// (RFC 3168 §6.1.3, or DCTCP's RFC 8257 §3.2), then the segment is received.
    pub fn on_segment_ecn(&mut self, now: SimTime, seq: u32, ecn: Ecn) {
        if ecn.is_ce() {
            self.stats.ce_received += 1;
        }
        if self.ecn.mode == EchoMode::Off {
            self.on_segment(now, seq);
            return;
        }
        let change = self.ecn.on_segment(ecn);
        if let Some(old) = change.flush_with {
            if self.rcv_nxt > self.rcv_wup {
                // Linux dctcp_ece_ack_update(): a delayed ACK is pending; send it now for
                // the segments before this one, with the state they had.
                self.flush = Some(AckOut {
                    ack: self.rcv_nxt,
                    sack: self.sack_blocks(),
                    syn: false,
                    ece: old,
                });
                self.ack_sent();
            }
        }
        self.on_segment(now, seq);
        if change.ack_now {
            self.ack_due = true;
        }
        if let Some(l) = &mut self.linux {
            if change.first_ce {
                l.on_first_ce();
            }
            if ecn.cwr() && self.ecn.mode == EchoMode::Rfc3168 {
                // tcp_ecn_accept_cwr(): the sender's cwnd may be tiny, ACK at once.
                self.ack_due = true;
            }
        }
    }

    /// Processes an arriving data segment.
    pub fn on_segment(&mut self, now: SimTime, seq: u32) {
        self.stats.segments_received += 1;
        if self.transfer.segments().is_some_and(|n| seq >= n) {
            // Past the end of a finite transfer: nothing to deliver (no sender sends it; a
            // hostile one would otherwise move rcv_nxt past the end, and the transfer
            // would never count as finished). Acknowledge where we are.
            self.ack_due = true;
            return;
        }
        if self.linux.is_some() {
            self.on_segment_linux(now, seq);
            return;
        }
        if self.config.dialect == Dialect::Ns2
            && self.config.delayed_ack
            && seq + 1 == self.rcv_nxt
            && self.out_of_order.is_empty()
            && self.delack_deadline.is_none()
        {
            // ns-2 DelAckSink::recv(): a duplicate of the highest in-order segment is held
            // like a new one when no delayed ACK is pending.
            self.delack_deadline = Some(now + self.config.delack_timeout);
            return;
        }
        if seq < self.rcv_nxt || (seq > self.rcv_nxt && !self.out_of_order.insert(seq)) {
            // A duplicate: acknowledge at once so the sender learns where we are.
            self.ack_due = true;
            return;
        }
        if seq > self.rcv_nxt {
            // Out of order: immediate (duplicate) ACK, RFC 5681 §4.2.
            self.note_recent(seq);
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
        // ns-2 DelAckSink also ACKs segment 0 at once (SYN_immediate_ack_).
        let first = seq == 0 && self.config.dialect == Dialect::Ns2;
        if filled_gap || first || !self.config.delayed_ack || self.unacked >= self.config.ack_every
        {
            self.ack_due = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.config.delack_timeout);
        }
    }

    /// Linux's receive path (`tcp_data_queue()` then `__tcp_ack_snd_check()`).
    fn on_segment_linux(&mut self, now: SimTime, seq: u32) {
        let Some(mut l) = self.linux.take() else {
            return;
        };
        self.on_segment_linux_with(&mut l, now, seq);
        self.linux = Some(l);
    }

    fn on_segment_linux_with(&mut self, l: &mut LinuxAcks, now: SimTime, seq: u32) {
        if seq < self.rcv_nxt || (seq > self.rcv_nxt && !self.out_of_order.insert(seq)) {
            // A duplicate: quick ACKs again, this one at once.
            l.on_duplicate();
            self.ack_due = true;
            return;
        }
        let out_of_order = seq > self.rcv_nxt;
        let mut emptied_queue = false;
        if out_of_order {
            let block = self.out_of_order.run_around(seq);
            let set = &self.out_of_order;
            if l.flush_before_forgetting(|other| set.run_around(other) == block) {
                self.flush = Some(AckOut {
                    ack: self.rcv_nxt,
                    sack: self.linux_sack_blocks(l),
                    syn: false,
                    ece: self.ecn.ece(),
                });
                l.on_ack_sent();
                self.ack_sent_common();
            }
            let set = &self.out_of_order;
            l.note_block(seq, |other| set.run_around(other) == block);
        } else {
            let filled_gap = !self.out_of_order.is_empty();
            self.deliver(seq);
            while self.out_of_order.remove(self.rcv_nxt) {
                self.deliver(self.rcv_nxt);
            }
            if self.transfer.segments() == Some(self.rcv_nxt) {
                self.stats.finished_at.get_or_insert(now);
            }
            emptied_queue = filled_gap && self.out_of_order.is_empty();
            l.on_in_order_data(now);
        }
        l.grow_window(self.transfer.mss);
        let unacked_bytes =
            self.transfer.bytes_before(self.rcv_nxt) - self.transfer.bytes_before(self.rcv_wup);
        let decision = l.decide(
            now,
            unacked_bytes > self.transfer.mss as u64,
            emptied_queue,
            !self.out_of_order.is_empty(),
            self.rcv_nxt,
        );
        if decision == AckNow::Yes {
            self.ack_due = true;
        }
    }

    fn note_recent(&mut self, seq: u32) {
        let n = self.recent_len.min(MAX_SACK_BLOCKS - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.recent_len = n + 1;
    }

    /// SACK blocks for an ACK sent now (RFC 2018 §4): the block holding the latest
    /// out-of-order arrival first, then the blocks of earlier arrivals not yet covered.
    fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = SackBlocks::EMPTY;
        if let Some(l) = &self.linux {
            return self.linux_sack_blocks(l);
        }
        if self.config.sack {
            for &seq in &self.recent[..self.recent_len] {
                if let Some((start, end)) = self.out_of_order.run_around(seq) {
                    blocks.push(start, end);
                }
            }
        }
        blocks
    }

    /// The Linux receiver's blocks: those it remembers, most recently changed first.
    fn linux_sack_blocks(&self, l: &LinuxAcks) -> SackBlocks {
        let mut blocks = SackBlocks::EMPTY;
        if self.config.sack {
            for seq in l.blocks() {
                if let Some((start, end)) = self.out_of_order.run_around(seq) {
                    blocks.push(start, end);
                }
            }
        }
        blocks
    }

    /// The delayed-ACK timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        if let Some(l) = &mut self.linux {
            if matches!(l.delack_deadline, Some(d) if d <= now) {
                l.on_delack_timeout();
                self.ack_due = true;
            }
            if matches!(l.compress_deadline, Some(d) if d <= now) {
                self.ack_due = true;
            }
            return;
        }
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            self.ack_due = true;
        }
    }

    /// The ACK to send now, if one is due (call again: a held ACK may go first).
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<AckOut> {
        if self.syn_ack_due {
            self.syn_ack_due = false;
            return Some(AckOut {
                ack: self.rcv_nxt,
                sack: SackBlocks::EMPTY,
                syn: true,
                ece: false,
            });
        }
        if let Some(flush) = self.flush.take() {
            return Some(flush);
        }
        if !self.ack_due {
            return None;
        }
        self.ack_due = false;
        self.ack_sent();
        let sack = self.sack_blocks();
        Some(AckOut {
            ack: self.rcv_nxt,
            sack,
            syn: false,
            ece: self.ecn.ece(),
        })
    }

    /// An ACK of everything received so far leaves: the delayed-ACK state restarts.
    fn ack_sent(&mut self) {
        if let Some(l) = &mut self.linux {
            l.on_ack_sent();
        }
        self.ack_sent_common();
    }

    /// [`TcpReceiver::ack_sent`] but for the Linux ACK policy's state.
    fn ack_sent_common(&mut self) {
        self.unacked = 0;
        self.delack_deadline = None;
        self.rcv_wup = self.rcv_nxt;
        self.stats.acks_sent += 1;
    }

    /// When the receiver next needs [`TcpReceiver::on_timeout`].
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match &self.linux {
            Some(l) => l.deadline(),
            None => self.delack_deadline,
        }
    }

    /// Size on the wire of an ACK carrying `sack_blocks` blocks: ns-2 adds 8 bytes per block
    /// (`tcp-sink.cc`); a real option takes 2 + 8n bytes padded to 4, the same to within 4
    /// (Linux, beside timestamps: NOP, NOP, kind, length, then the blocks: 4 + 8n).
    pub fn ack_size(&self, sack_blocks: usize) -> u32 {
        let option = if sack_blocks > 0 {
            self.config.sack_option_bytes
        } else {
            0
        };
        self.config.ack_bytes + option + 8 * sack_blocks as u32
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
            sack_option_bytes: 0,
            sack: true,
            dialect: Dialect::Rfc,
            ecn: EchoMode::Off,
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
        assert_eq!(r.poll_transmit(t(0)).map(|a| a.ack), Some(1));
        assert_eq!(r.poll_transmit(t(0)), None);
    }

    #[test]
    fn out_of_order_segments_get_duplicate_acks_and_the_gap_filler_acks_all() {
        let mut r = receiver(true);
        r.on_segment(t(0), 0);
        r.on_segment(t(0), 1);
        assert_eq!(r.poll_transmit(t(0)).map(|a| a.ack), Some(2));
        r.on_segment(t(1), 3);
        let dup = r.poll_transmit(t(1)).unwrap();
        assert_eq!(dup.ack, 2, "dup ack at once");
        assert_eq!(dup.sack.iter().collect::<Vec<_>>(), vec![(3, 4)]);
        r.on_segment(t(2), 6);
        let dup = r.poll_transmit(t(2)).unwrap();
        assert_eq!(
            dup.sack.iter().collect::<Vec<_>>(),
            vec![(6, 7), (3, 4)],
            "newest first"
        );
        r.on_segment(t(2), 4);
        let dup = r.poll_transmit(t(2)).unwrap();
        assert_eq!(dup.sack.iter().collect::<Vec<_>>(), vec![(3, 5), (6, 7)]);
        r.on_segment(t(3), 2);
        let ack = r.poll_transmit(t(3)).unwrap();
        assert_eq!(ack.ack, 5, "gap filled: immediate cumulative ACK");
        assert_eq!(ack.sack.iter().collect::<Vec<_>>(), vec![(6, 7)]);
        assert_eq!(r.stats().bytes_delivered, 5000);
    }

    #[test]
    fn a_lone_in_order_segment_is_acked_when_the_delack_timer_fires() {
        let mut r = receiver(true);
        r.on_segment(t(0), 0);
        assert_eq!(r.poll_transmit(t(0)), None);
        assert_eq!(r.poll_timeout(), Some(t(200)));
        r.on_timeout(t(200));
        assert_eq!(r.poll_transmit(t(200)).map(|a| a.ack), Some(1));
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn a_segment_past_the_end_is_acknowledged_not_delivered() {
        let mut r = receiver(false);
        r.on_segment(t(0), 10);
        assert_eq!(
            r.poll_transmit(t(0)).map(|a| (a.ack, a.sack.len())),
            Some((0, 0))
        );
        for seq in 0..10 {
            r.on_segment(t(1), seq);
        }
        assert_eq!((r.rcv_nxt(), r.stats().finished_at), (10, Some(t(1))));
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
}
