//! The TCP receiver: cumulative ACKs and optional delayed ACKs, as a sans-IO state machine.
//!
//! The engine calls [`TcpReceiver::on_segment`] for each arriving data segment and
//! [`TcpReceiver::on_timeout`] when [`TcpReceiver::poll_timeout`] has passed, then drains
//! [`TcpReceiver::poll_transmit`] for the ACK to send. `now` never decreases.
//!
//! Two receivers, chosen once by the flow's dialect, share what holds the data
//! (`Reassembly`: the next segment expected, the segments held out of order, what the
//! application got) and the ECN echo ([`super::ecn::EcnEcho`]), and differ in when they
//! acknowledge:
//! - [`ClassicReceiver`]: RFC 5681 §4.2 (an ACK for at least every second full in-order
//!   segment and within `delack_timeout` of the first unacknowledged one; an immediate ACK
//!   for an out-of-order segment and for one that fills all or part of a gap), or ns-2's
//!   sinks where they differ;
//! - [`LinuxReceiver`]: a Linux host's rules (quick ACKs, an adaptive delayed-ACK timeout,
//!   SACK compression), in `linux.rs` with their policy state in [`LinuxAcks`].

mod classic;
mod linux;
mod linux_acks;

pub use classic::ClassicReceiver;
pub use linux::LinuxReceiver;
pub use linux_acks::{AckNow, LinuxAcks};

use super::config::{Dialect, ReceiverConfig, Transfer};
use super::ecn::{EchoChange, EchoMode, EcnEcho};
use super::seqset::SeqSet;
use crate::packet::sack::SackBlocks;
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
    /// The TCP ECN flags it carries: ECE, or AccECN's ACE field (RFC 9768 §3.2.2).
    pub flags: Ecn,
    /// Nothing more is due: polling again before the next event would return `None`, so
    /// the caller need not (the ACK of the data, which goes after a SYN-ACK or held ACK).
    pub last: bool,
}

impl AckOut {
    /// The SYN-ACK, with `flags` (AccECN's answer), of a connection whose receiver expects
    /// `rcv_nxt`.
    #[inline]
    fn syn_ack(rcv_nxt: u32, flags: Ecn) -> Self {
        AckOut {
            ack: rcv_nxt,
            sack: SackBlocks::EMPTY,
            syn: true,
            ece: false,
            flags,
            last: false,
        }
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
    /// Data segments that arrived marked Congestion Experienced.
    pub ce_received: u64,
}

/// What became of an arriving segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// Already received (below `rcv_nxt`, or held out of order).
    Duplicate,
    /// Beyond a gap: held out of order.
    OutOfOrder,
    /// The next segment expected: delivered, with any held segments it made contiguous.
    InOrder {
        /// Segments were held out of order when it arrived: it filled all or part of a gap.
        filled_gap: bool,
    },
}

/// The data a receiver holds: the next segment expected, the segments that arrived out of
/// order, and what the application got.
#[derive(Clone, Debug)]
struct Reassembly {
    transfer: Transfer,
    /// Next segment expected in order (the cumulative ACK).
    rcv_nxt: u32,
    out_of_order: SeqSet,
    stats: ReceiverStats,
}

impl Reassembly {
    fn new(transfer: Transfer) -> Self {
        Reassembly {
            transfer,
            rcv_nxt: 0,
            out_of_order: SeqSet::default(),
            stats: ReceiverStats::default(),
        }
    }

    /// True for a segment past the end of a finite transfer: nothing to deliver (no sender
    /// sends it; a hostile one would otherwise move `rcv_nxt` past the end, and the transfer
    /// would never count as finished).
    #[inline(always)]
    fn past_the_end(&self, seq: u32) -> bool {
        self.transfer.segments().is_some_and(|n| seq >= n)
    }

    /// Segment `seq` arrived at `now` (not past the end): keep it, and deliver what is now
    /// in order.
    #[inline(always)]
    fn receive(&mut self, now: SimTime, seq: u32) -> Arrival {
        if seq == self.rcv_nxt && self.out_of_order.is_empty() {
            // The common case: the next segment, nothing held to make contiguous.
            self.deliver(seq);
            self.note_if_finished(now);
            return Arrival::InOrder { filled_gap: false };
        }
        if seq < self.rcv_nxt || (seq > self.rcv_nxt && !self.out_of_order.insert(seq)) {
            return Arrival::Duplicate;
        }
        if seq > self.rcv_nxt {
            return Arrival::OutOfOrder;
        }
        let filled_gap = !self.out_of_order.is_empty();
        self.deliver(seq);
        while self.out_of_order.remove(self.rcv_nxt) {
            self.deliver(self.rcv_nxt);
        }
        self.note_if_finished(now);
        Arrival::InOrder { filled_gap }
    }

    /// The transfer is complete once `rcv_nxt` reaches its end (at `now`, the first time).
    #[inline(always)]
    fn note_if_finished(&mut self, now: SimTime) {
        if self.transfer.segments() == Some(self.rcv_nxt) {
            self.stats.finished_at.get_or_insert(now);
        }
    }

    #[inline(always)]
    fn deliver(&mut self, seq: u32) {
        self.stats.bytes_delivered += self.transfer.payload(seq) as u64;
        self.rcv_nxt = seq + 1;
    }

    /// SACK blocks around `segments` (each names the block it lies in), in that order; none
    /// unless the receiver does SACK.
    #[inline]
    fn sack_blocks(&self, sack: bool, segments: impl Iterator<Item = u32>) -> SackBlocks {
        let mut blocks = SackBlocks::EMPTY;
        if sack {
            for seq in segments {
                if let Some((start, end)) = self.out_of_order.run_around(seq) {
                    blocks.push(start, end);
                }
            }
        }
        blocks
    }
}

/// What a receiver owes the sender besides the data: the ACKs due and the ECN echo they
/// carry.
#[derive(Clone, Debug)]
struct Owed {
    /// A SYN arrived and awaits its SYN-ACK.
    syn_ack: bool,
    /// An ACK to send before the one now due: DCTCP's ACK of the segments before a change
    /// of CE state, or Linux's held ACK before a SACK block is forgotten.
    flush: Option<AckOut>,
    /// An ACK of the data received is due now.
    ack: bool,
    /// `rcv_nxt` when the last ACK left (Linux `rcv_wup`).
    rcv_wup: u32,
    /// What it echoes of the segments' ECN marks.
    ecn: EcnEcho,
}

impl Owed {
    fn new(config: &ReceiverConfig) -> Self {
        Owed {
            syn_ack: false,
            flush: None,
            ack: false,
            rcv_wup: 0,
            ecn: EcnEcho::new(config.ecn),
        }
    }

    /// An ACK of everything up to `rcv_nxt` leaves.
    #[inline]
    fn ack_sent(&mut self, data: &mut Reassembly) {
        self.rcv_wup = data.rcv_nxt;
        data.stats.acks_sent += 1;
    }
}

/// What the two receivers share: how ECN marks and owed ACKs are handled, around the
/// hooks where their ACK policies differ.
trait Acknowledge {
    fn config(&self) -> &ReceiverConfig;
    fn data(&self) -> &Reassembly;
    fn parts(&mut self) -> (&mut Reassembly, &mut Owed);
    /// Receives a data segment (no ECN involved).
    fn on_segment(&mut self, now: SimTime, seq: u32);
    /// The SACK blocks of an ACK sent now.
    fn sack_blocks(&self) -> SackBlocks;
    /// An ACK of everything received so far leaves: the delayed-ACK state restarts.
    fn ack_sent(&mut self);
    /// After a segment whose ECN bits `ecn` moved the echo by `change`.
    fn after_echo(&mut self, _change: EchoChange, _ecn: Ecn) {}

    /// A data segment with ECN bits `ecn`: the echo moves (RFC 3168 §6.1.3, or DCTCP's RFC
    /// 8257 §3.2), then the segment is received.
    #[inline(always)]
    fn on_segment_ecn(&mut self, now: SimTime, seq: u32, ecn: Ecn) {
        let (data, owed) = self.parts();
        if ecn.is_ce() {
            data.stats.ce_received += 1;
        }
        if owed.ecn.mode == EchoMode::Off {
            self.on_segment(now, seq);
            return;
        }
        let change = owed.ecn.on_segment(ecn);
        let ack_pending = data.rcv_nxt > owed.rcv_wup;
        if let (Some(old), true) = (change.flush_with, ack_pending) {
            // Linux dctcp_ece_ack_update(): a delayed ACK is pending; send it now for the
            // segments before this one, with the state they had.
            let flush = AckOut {
                ack: self.data().rcv_nxt,
                sack: self.sack_blocks(),
                syn: false,
                ece: old,
                flags: Ecn::NONE.with_ece(old),
                last: false,
            };
            self.parts().1.flush = Some(flush);
            self.ack_sent();
        }
        self.on_segment(now, seq);
        if change.ack_now {
            self.parts().1.ack = true;
        }
        self.after_echo(change, ecn);
    }

    /// The ACK to send now, if one is due: the SYN-ACK, then a held ACK, then the ACK of
    /// the data.
    #[inline(always)]
    fn poll_transmit(&mut self, _now: SimTime) -> Option<AckOut> {
        let (data, owed) = self.parts();
        if owed.syn_ack {
            owed.syn_ack = false;
            return Some(AckOut::syn_ack(data.rcv_nxt, owed.ecn.syn_ack_bits()));
        }
        // Tested before it is taken: `take()` alone copies the whole `Option<AckOut>` out
        // and back on every call, though a held ACK is rare.
        if owed.flush.is_some() {
            return owed.flush.take();
        }
        if !owed.ack {
            return None;
        }
        owed.ack = false;
        self.ack_sent();
        let sack = self.sack_blocks();
        let (data, owed) = self.parts();
        let ece = owed.ecn.ece();
        // The SYN-ACK and a held ACK went first: nothing is left to poll for. (The second
        // poll it saves cost 16 instructions a data segment on the reference dumbbell,
        // callgrind.)
        Some(AckOut {
            ack: data.rcv_nxt,
            sack,
            syn: false,
            ece,
            flags: owed.ecn.ack_bits(ece),
            last: true,
        })
    }
}

/// A TCP receiver of either dialect (chosen once, when the flow is built).
// The classic receiver inline (no pointer chase per segment on the common path), the Linux
// one boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum TcpReceiver {
    /// RFC 5681 or ns-2's sinks.
    Classic(ClassicReceiver),
    /// A Linux host (boxed: its ACK policy carries more state, and the classic receiver
    /// stays small).
    Linux(Box<LinuxReceiver>),
}

macro_rules! either {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            TcpReceiver::Classic($r) => $e,
            TcpReceiver::Linux($r) => $e,
        }
    };
}

impl TcpReceiver {
    /// A receiver expecting segment 0 of `transfer`, of the dialect `config` names.
    pub fn new(config: ReceiverConfig, transfer: Transfer) -> Self {
        match config.dialect {
            Dialect::Linux => TcpReceiver::Linux(Box::new(LinuxReceiver::new(config, transfer))),
            Dialect::Rfc | Dialect::Ns2 => {
                TcpReceiver::Classic(ClassicReceiver::new(config, transfer))
            }
        }
    }

    /// Next segment expected in order (the cumulative ACK it sends).
    pub fn rcv_nxt(&self) -> u32 {
        either!(self, r => r.data().rcv_nxt)
    }

    /// Counters.
    #[inline(always)]
    pub fn stats(&self) -> &ReceiverStats {
        either!(self, r => &r.data().stats)
    }

    /// Segments held out of order.
    pub fn out_of_order(&self) -> &SeqSet {
        either!(self, r => &r.data().out_of_order)
    }

    /// A SYN arrived: answer it (again, if it is a retransmission).
    pub fn on_syn(&mut self, now: SimTime) {
        either!(self, r => r.on_syn(now))
    }

    /// A SYN carrying the ECN bits `ecn` arrived: the Linux receiver negotiates Accurate
    /// ECN on it (RFC 9768 §3.1), then answers.
    pub fn on_syn_ecn(&mut self, now: SimTime, ecn: Ecn) {
        if let TcpReceiver::Linux(r) = self {
            r.owed.ecn.on_syn(ecn);
        }
        self.on_syn(now);
    }

    /// CE-marked packets the AccECN counter counted (0 without AccECN).
    pub fn ce_counted(&self) -> u32 {
        match self {
            TcpReceiver::Linux(r) => r.owed.ecn.ce_counted(),
            TcpReceiver::Classic(_) => 0,
        }
    }

    /// Processes an arriving data segment carrying the ECN bits `ecn`: the echo state moves
    /// (RFC 3168 §6.1.3, or DCTCP's RFC 8257 §3.2), then the segment is received.
    #[inline(always)]
    pub fn on_segment_ecn(&mut self, now: SimTime, seq: u32, ecn: Ecn) {
        either!(self, r => r.on_segment_ecn(now, seq, ecn))
    }

    /// Processes an arriving data segment.
    pub fn on_segment(&mut self, now: SimTime, seq: u32) {
        either!(self, r => r.on_segment(now, seq))
    }

    /// The delayed-ACK (or SACK-compression) timer expired (call when
    /// `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        either!(self, r => r.on_timeout(now))
    }

    /// The ACK to send now, if one is due (call again: a held ACK may go first).
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<AckOut> {
        either!(self, r => r.poll_transmit(now))
    }

    /// When the receiver next needs [`TcpReceiver::on_timeout`].
    #[inline(always)]
    pub fn poll_timeout(&self) -> Option<SimTime> {
        either!(self, r => r.poll_timeout())
    }

    /// Size on the wire of an ACK carrying `sack_blocks` blocks: ns-2 adds 8 bytes per block
    /// (`tcp-sink.cc`); a real option takes 2 + 8n bytes padded to 4, the same to within 4
    /// (Linux, beside timestamps: NOP, NOP, kind, length, then the blocks: 4 + 8n).
    #[inline(always)]
    pub fn ack_size(&self, sack_blocks: usize) -> u32 {
        let config = either!(self, r => r.config());
        let option = if sack_blocks > 0 {
            config.sack_option_bytes
        } else {
            0
        };
        config.ack_bytes + option + 8 * sack_blocks as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ecn::EchoMode;
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
    fn the_ack_of_the_data_is_marked_last_and_nothing_follows_it() {
        let mut r = receiver(false);
        r.on_syn(t(0));
        r.on_segment(t(0), 0);
        let acks: Vec<(bool, bool)> = std::iter::from_fn(|| r.poll_transmit(t(0)))
            .map(|a| (a.syn, a.last))
            .collect();
        assert_eq!(acks, vec![(true, false), (false, true)]);
        r.on_segment(t(1), 2);
        assert!(r.poll_transmit(t(1)).unwrap().last, "a duplicate too");
        assert_eq!(r.poll_transmit(t(1)), None);
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
