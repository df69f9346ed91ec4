//! The receiver of the RFCs and of ns-2's sinks: delayed ACKs per RFC 5681 §4.2 (an ACK for
//! at least every `ack_every` full in-order segments and within `delack_timeout` of the first
//! unacknowledged one; an immediate ACK for an out-of-order segment, a duplicate ACK, and for
//! a segment that fills all or part of a gap), SACK blocks per RFC 2018 §4, and ns-2's
//! `TCPSink`/`DelAckSink` where they differ (segment 0 acknowledged at once; a duplicate of
//! the highest in-order segment held like a new one).

use super::{Acknowledge, Arrival, Owed, Reassembly};
use crate::packet::sack::{SackBlocks, MAX_SACK_BLOCKS};
use crate::packet::Ecn;
use crate::tcp::config::{Dialect, ReceiverConfig, Transfer};
use crate::time::SimTime;

/// A receiver acknowledging as RFC 5681 (or ns-2's sinks).
#[derive(Clone, Debug)]
pub struct ClassicReceiver {
    config: ReceiverConfig,
    data: Reassembly,
    owed: Owed,
    /// Most recent out-of-order arrivals, newest first: each names the block it landed in,
    /// for the SACK option's ordering (RFC 2018 §4).
    recent: [u32; MAX_SACK_BLOCKS],
    recent_len: usize,
    /// In-order segments received since the last ACK.
    unacked: u32,
    delack_deadline: Option<SimTime>,
}

impl ClassicReceiver {
    /// A receiver expecting segment 0 of `transfer`.
    pub fn new(config: ReceiverConfig, transfer: Transfer) -> Self {
        ClassicReceiver {
            config,
            data: Reassembly::new(transfer),
            owed: Owed::new(&config),
            recent: [0; MAX_SACK_BLOCKS],
            recent_len: 0,
            unacked: 0,
            delack_deadline: None,
        }
    }

    /// A SYN arrived: answer it (again, if it is a retransmission).
    pub fn on_syn(&mut self, _now: SimTime) {
        self.owed.syn_ack = true;
    }

    /// Processes an arriving data segment carrying the ECN bits `ecn`.
    #[inline(always)]
    pub fn on_segment_ecn(&mut self, now: SimTime, seq: u32, ecn: Ecn) {
        Acknowledge::on_segment_ecn(self, now, seq, ecn);
    }

    /// Processes an arriving data segment.
    #[inline]
    pub fn on_segment(&mut self, now: SimTime, seq: u32) {
        let d = &mut self.data;
        d.stats.segments_received += 1;
        if d.past_the_end(seq) {
            self.owed.ack = true; // acknowledge where we are
            return;
        }
        let ns2 = self.config.dialect == Dialect::Ns2;
        if ns2
            && self.config.delayed_ack
            && seq + 1 == d.rcv_nxt
            && d.out_of_order.is_empty()
            && self.delack_deadline.is_none()
        {
            // ns-2 DelAckSink::recv(): a duplicate of the highest in-order segment is held
            // like a new one when no delayed ACK is pending.
            self.delack_deadline = Some(now + self.config.delack_timeout);
            return;
        }
        let filled_gap = match d.receive(now, seq) {
            Arrival::Duplicate => {
                // Acknowledge at once so the sender learns where we are.
                self.owed.ack = true;
                return;
            }
            Arrival::OutOfOrder => {
                // An immediate (duplicate) ACK, RFC 5681 §4.2.
                self.note_recent(seq);
                self.owed.ack = true;
                return;
            }
            Arrival::InOrder { filled_gap } => filled_gap,
        };
        self.unacked += 1;
        // ns-2 DelAckSink also ACKs segment 0 at once (SYN_immediate_ack_).
        let first = seq == 0 && ns2;
        if filled_gap || first || !self.config.delayed_ack || self.unacked >= self.config.ack_every
        {
            self.owed.ack = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.config.delack_timeout);
        }
    }

    #[inline]
    fn note_recent(&mut self, seq: u32) {
        let n = self.recent_len.min(MAX_SACK_BLOCKS - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.recent_len = n + 1;
    }

    /// The delayed-ACK timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            self.owed.ack = true;
        }
    }

    /// The ACK to send now, if one is due (call again: a held ACK may go first).
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<crate::tcp::receiver::AckOut> {
        Acknowledge::poll_transmit(self, now)
    }

    /// When the delayed-ACK timer expires, if it runs.
    #[inline]
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }
}

impl Acknowledge for ClassicReceiver {
    #[inline]
    fn config(&self) -> &ReceiverConfig {
        &self.config
    }
    #[inline]
    fn data(&self) -> &Reassembly {
        &self.data
    }
    #[inline]
    fn parts(&mut self) -> (&mut Reassembly, &mut Owed) {
        (&mut self.data, &mut self.owed)
    }
    fn on_segment(&mut self, now: SimTime, seq: u32) {
        ClassicReceiver::on_segment(self, now, seq);
    }

    /// RFC 2018 §4: the block holding the latest out-of-order arrival first, then the
    /// blocks of earlier arrivals not yet covered.
    #[inline]
    fn sack_blocks(&self) -> SackBlocks {
        let recent = self.recent[..self.recent_len].iter().copied();
        self.data.sack_blocks(self.config.sack, recent)
    }

    #[inline]
    fn ack_sent(&mut self) {
        self.unacked = 0;
        self.delack_deadline = None;
        self.owed.ack_sent(&mut self.data);
    }
}
