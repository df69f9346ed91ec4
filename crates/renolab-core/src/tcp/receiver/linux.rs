//! The receiver of a Linux 6.x host: `tcp_data_queue()` keeps the segment, then
//! `__tcp_ack_snd_check()` decides whether the ACK goes now or waits for the delayed-ACK or
//! SACK-compression timer. The rules and their state are [`LinuxAcks`]'s
//! ([`super::linux_acks`]); this type applies them to the data.

use super::linux_acks::{AckNow, LinuxAcks};
use super::{AckOut, Acknowledge, Arrival, Owed, Reassembly};
use crate::packet::sack::SackBlocks;
use crate::packet::Ecn;
use crate::tcp::config::{ReceiverConfig, Transfer};
use crate::tcp::ecn::{EchoChange, EchoMode};
use crate::time::SimTime;

/// A receiver acknowledging as a Linux host does.
#[derive(Clone, Debug)]
pub struct LinuxReceiver {
    config: ReceiverConfig,
    data: Reassembly,
    pub(super) owed: Owed,
    /// The ACK policy's state.
    acks: LinuxAcks,
}

impl LinuxReceiver {
    /// A receiver expecting segment 0 of `transfer`.
    pub fn new(config: ReceiverConfig, transfer: Transfer) -> Self {
        LinuxReceiver {
            config,
            data: Reassembly::new(transfer),
            owed: Owed::new(&config),
            acks: LinuxAcks::default(),
        }
    }

    /// A SYN arrived: answer it (again, if it is a retransmission); the receiver times its
    /// RTT from the SYN-ACK to the first data.
    pub fn on_syn(&mut self, now: SimTime) {
        self.owed.syn_ack = true;
        self.acks.syn_ack_sent = Some(now);
    }

    /// Processes an arriving data segment carrying the ECN bits `ecn`.
    #[inline(always)]
    pub fn on_segment_ecn(&mut self, now: SimTime, seq: u32, ecn: Ecn) {
        Acknowledge::on_segment_ecn(self, now, seq, ecn);
    }

    /// Processes an arriving data segment (Linux `tcp_data_queue()` then
    /// `__tcp_ack_snd_check()`).
    pub fn on_segment(&mut self, now: SimTime, seq: u32) {
        self.data.stats.segments_received += 1;
        if self.data.past_the_end(seq) {
            self.owed.ack = true; // acknowledge where we are
            return;
        }
        let mut emptied_queue = false;
        match self.data.receive(now, seq) {
            Arrival::Duplicate => {
                // Quick ACKs again, this one at once.
                self.acks.on_duplicate();
                self.owed.ack = true;
                return;
            }
            Arrival::OutOfOrder => self.on_out_of_order(seq),
            Arrival::InOrder { filled_gap } => {
                emptied_queue = filled_gap && self.data.out_of_order.is_empty();
                self.acks.on_in_order_data(now);
            }
        }
        let d = &self.data;
        let mss = d.transfer.mss;
        self.acks.grow_window(mss);
        let unacked_bytes =
            d.transfer.bytes_before(d.rcv_nxt) - d.transfer.bytes_before(self.owed.rcv_wup);
        let decision = self.acks.decide(
            now,
            unacked_bytes > mss as u64,
            emptied_queue,
            !d.out_of_order.is_empty(),
            d.rcv_nxt,
        );
        if decision == AckNow::Yes {
            self.owed.ack = true;
        }
    }

    /// Segment `seq` is held out of order: its block becomes the first reported
    /// (`tcp_sack_new_ofo_skb()`), after the held ACK if that block would push another out.
    fn on_out_of_order(&mut self, seq: u32) {
        let set = &self.data.out_of_order;
        let block = set.run_around(seq);
        if self
            .acks
            .flush_before_forgetting(|other| set.run_around(other) == block)
        {
            let ece = self.owed.ecn.ece();
            self.owed.flush = Some(AckOut {
                ack: self.data.rcv_nxt,
                sack: self.sack_blocks(),
                syn: false,
                ece,
                flags: self.owed.ecn.ack_bits(ece),
                last: false,
            });
            self.ack_sent();
        }
        let set = &self.data.out_of_order;
        self.acks
            .note_block(seq, |other| set.run_around(other) == block);
    }

    /// The delayed-ACK or SACK-compression timer expired (call when `poll_timeout() <=
    /// now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        if matches!(self.acks.delack_deadline, Some(d) if d <= now) {
            self.acks.on_delack_timeout();
            self.owed.ack = true;
        }
        if matches!(self.acks.compress_deadline, Some(d) if d <= now) {
            self.owed.ack = true;
        }
    }

    /// The ACK to send now, if one is due (call again: a held ACK may go first).
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<AckOut> {
        Acknowledge::poll_transmit(self, now)
    }

    /// The earlier of the delayed-ACK and SACK-compression timers.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.acks.deadline()
    }
}

impl Acknowledge for LinuxReceiver {
    fn config(&self) -> &ReceiverConfig {
        &self.config
    }
    fn data(&self) -> &Reassembly {
        &self.data
    }
    fn parts(&mut self) -> (&mut Reassembly, &mut Owed) {
        (&mut self.data, &mut self.owed)
    }
    fn on_segment(&mut self, now: SimTime, seq: u32) {
        LinuxReceiver::on_segment(self, now, seq);
    }

    /// The blocks the receiver remembers, most recently changed first.
    fn sack_blocks(&self) -> SackBlocks {
        self.data.sack_blocks(self.config.sack, self.acks.blocks())
    }

    fn ack_sent(&mut self) {
        self.acks.on_ack_sent();
        self.owed.ack_sent(&mut self.data);
    }

    fn after_echo(&mut self, change: EchoChange, ecn: Ecn) {
        if change.first_ce {
            self.acks.on_first_ce();
        }
        if ecn.cwr() && self.owed.ecn.mode == EchoMode::Rfc3168 {
            // tcp_ecn_accept_cwr(): the sender's cwnd may be tiny, ACK at once.
            self.owed.ack = true;
        }
    }
}
