//! The TCP sender, of every variant, recovery and dialect, fed arbitrary ACK sequences
//! (duplicates, old and future ACKs, SACK blocks anywhere, SYN-ACKs, timeouts, the
//! application stopping): cwnd >= 1 and ssthresh >= 2 segments after every call, it sends
//! only segments of the transfer, never runs away in `poll_transmit`, and keeps its timer
//! in the future.
#![no_main]

use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use renolab_core::packet::sack::SackBlocks;
use renolab_core::tcp::sender::SegmentKind;
use renolab_core::time::SimTime;
use renolab_fuzz::{check_sender, later, sack_blocks, step, ArbSender, ArbTransfer};

#[derive(Debug, Arbitrary)]
enum Op {
    /// A cumulative ACK `delta` segments above (or below) snd_una, with SACK blocks above it.
    Ack {
        delta: i8,
        sack: Vec<(u8, u8)>,
    },
    /// A duplicate of the last ACK, with SACK blocks.
    Dup {
        sack: Vec<(u8, u8)>,
    },
    /// An ACK of any number.
    AnyAck(u32),
    SynAck,
    /// Time passes; the retransmission timer fires if it is due.
    Wait,
    /// The application stops offering data.
    Stop,
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let transfer = ArbTransfer::arbitrary(u)?.transfer();
    let Some(mut s) = ArbSender::arbitrary(u)?.sender(transfer) else {
        return Ok(()); // options a scenario would refuse
    };
    let mut now = SimTime::ZERO;
    s.start(now);
    while !u.is_empty() {
        let op = Op::arbitrary(u)?;
        match op {
            Op::Ack { delta, sack } => {
                let ack = (s.snd_una() as i64 + delta as i64).clamp(0, u32::MAX as i64) as u32;
                s.on_ack(now, ack, &sack_blocks(ack.saturating_add(1), &sack));
            }
            Op::Dup { sack } => {
                let ack = s.snd_una();
                s.on_ack(now, ack, &sack_blocks(ack.saturating_add(1), &sack));
            }
            Op::AnyAck(ack) => s.on_ack(now, ack, &SackBlocks::EMPTY),
            Op::SynAck => s.on_syn_ack(now),
            Op::Wait => {
                now = later(now, step(u)?);
                if matches!(s.poll_timeout(), Some(t) if t <= now) {
                    s.on_timeout(now);
                }
            }
            Op::Stop => s.stop_offering(),
        }
        check_sender(&s);
        let mut sent = 0u32;
        let mut snd_max = s.snd_max();
        while let Some(tx) = s.poll_transmit(now) {
            sent += 1;
            assert!(sent <= 100_000, "poll_transmit does not stop");
            if let Some(n) = transfer.segments() {
                assert!(tx.seq < n, "segment {} of a {n}-segment transfer", tx.seq);
            }
            if tx.retransmit {
                assert!(
                    tx.kind == SegmentKind::Syn || tx.seq < snd_max,
                    "a retransmission of segment {}, never sent (snd_max {snd_max})",
                    tx.seq
                );
            } else if tx.kind == SegmentKind::Data {
                assert_eq!(tx.seq, snd_max, "a new segment out of order");
            }
            snd_max = s.snd_max();
            check_sender(&s);
        }
        if let Some(t) = s.poll_timeout() {
            assert!(t >= now, "timer set in the past");
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
