//! A sender and a receiver joined by a channel the fuzzer controls: it delivers, drops,
//! duplicates and reorders segments and ACKs at will. Whatever it did, the receiver must
//! hold exactly the in-order prefix, and once the channel turns perfect a finite transfer
//! must complete.
#![no_main]

use std::collections::VecDeque;

use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use renolab_core::packet::sack::SackBlocks;
use renolab_core::tcp::sender::SegmentKind;
use renolab_core::tcp::{TcpReceiver, TcpSender};
use renolab_core::time::{SimDuration, SimTime};
use renolab_fuzz::{
    check_ack, check_receiver, check_sender, later, step, ArbReceiver, ArbSender, ArbTransfer,
};

#[derive(Debug, Clone, Copy)]
enum Data {
    Syn,
    Segment(u32),
}

#[derive(Debug, Clone, Copy)]
struct Ack {
    ack: u32,
    sack: SackBlocks,
    syn: bool,
}

#[derive(Debug, Arbitrary)]
enum Op {
    DeliverData(u8),
    DropData(u8),
    DuplicateData(u8),
    DeliverAck(u8),
    DropAck(u8),
    Wait,
}

struct Net {
    now: SimTime,
    data: VecDeque<Data>,
    acks: VecDeque<Ack>,
}

impl Net {
    fn pump(&mut self, s: &mut TcpSender, r: &mut TcpReceiver) {
        let mut n = 0;
        while let Some(tx) = s.poll_transmit(self.now) {
            n += 1;
            assert!(n <= 100_000, "poll_transmit does not stop");
            self.data.push_back(match tx.kind {
                SegmentKind::Syn => Data::Syn,
                SegmentKind::Data => Data::Segment(tx.seq),
            });
        }
        while let Some(a) = r.poll_transmit(self.now) {
            check_ack(r, a.ack, &a.sack);
            self.acks.push_back(Ack {
                ack: a.ack,
                sack: a.sack,
                syn: a.syn,
            });
        }
    }

    fn deliver_data(&mut self, i: usize, s: &mut TcpSender, r: &mut TcpReceiver) {
        let Some(d) = self.data.remove(i) else { return };
        let before = r.rcv_nxt();
        match d {
            Data::Syn => r.on_syn(self.now),
            Data::Segment(seq) => r.on_segment(self.now, seq),
        }
        check_receiver(r, s.transfer(), before);
    }

    fn deliver_ack(&mut self, i: usize, s: &mut TcpSender) {
        let Some(a) = self.acks.remove(i) else { return };
        if a.syn {
            s.on_syn_ack(self.now);
        } else {
            s.on_ack(self.now, a.ack, &a.sack);
        }
        check_sender(s);
    }

    /// Advances to the earlier timer and fires it.
    fn fire_timers(&mut self, s: &mut TcpSender, r: &mut TcpReceiver) -> bool {
        let next = [s.poll_timeout(), r.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next else { return false };
        self.now = self.now.max(t);
        if matches!(s.poll_timeout(), Some(t) if t <= self.now) {
            s.on_timeout(self.now);
        }
        if matches!(r.poll_timeout(), Some(t) if t <= self.now) {
            r.on_timeout(self.now);
        }
        check_sender(s);
        true
    }
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let transfer = ArbTransfer::arbitrary(u)?.transfer();
    let sender = ArbSender::arbitrary(u)?;
    let Some(mut s) = sender.sender(transfer) else {
        return Ok(()); // options a scenario would refuse
    };
    let mut r = ArbReceiver::arbitrary(u)?.receiver(transfer);
    let mut net = Net {
        now: SimTime::ZERO,
        data: VecDeque::new(),
        acks: VecDeque::new(),
    };
    s.start(net.now);
    net.pump(&mut s, &mut r);
    let pick = |i: u8, len: usize| if len == 0 { 0 } else { i as usize % len };
    while !u.is_empty() {
        match Op::arbitrary(u)? {
            Op::DeliverData(i) => net.deliver_data(pick(i, net.data.len()), &mut s, &mut r),
            Op::DropData(i) => {
                net.data.remove(pick(i, net.data.len()));
            }
            Op::DuplicateData(i) => {
                if let Some(&d) = net.data.get(pick(i, net.data.len())) {
                    net.data.push_back(d);
                }
            }
            Op::DeliverAck(i) => net.deliver_ack(pick(i, net.acks.len()), &mut s),
            Op::DropAck(i) => {
                net.acks.remove(pick(i, net.acks.len()));
            }
            Op::Wait => {
                net.now = later(net.now, step(u)?);
                if matches!(s.poll_timeout(), Some(t) if t <= net.now) {
                    s.on_timeout(net.now);
                }
                if matches!(r.poll_timeout(), Some(t) if t <= net.now) {
                    r.on_timeout(net.now);
                }
                check_sender(&s);
            }
        }
        net.pump(&mut s, &mut r);
    }
    // The channel turns perfect: in order, nothing lost, a millisecond per hop.
    let Some(segments) = transfer.segments() else {
        return Ok(());
    };
    for _ in 0..200_000 {
        if r.stats().finished_at.is_some() && s.is_complete() {
            return Ok(());
        }
        net.now = later(net.now, SimDuration::from_millis(1));
        if !net.data.is_empty() {
            net.deliver_data(0, &mut s, &mut r);
        } else if !net.acks.is_empty() {
            net.deliver_ack(0, &mut s);
        } else if !net.fire_timers(&mut s, &mut r) {
            panic!(
                "stuck: nothing in flight, no timer, {} of {segments} segments delivered, snd_una {} ({})",
                r.rcv_nxt(),
                s.snd_una(),
                sender.variant_name()
            );
        }
        net.pump(&mut s, &mut r);
    }
    panic!(
        "a loss-free channel did not complete the transfer: {} of {segments} segments delivered ({})",
        r.rcv_nxt(),
        sender.variant_name()
    );
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
