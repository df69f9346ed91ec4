//! The TCP receiver fed arbitrary segment sequences (duplicates, gaps, reordering, segments
//! past the end, SYNs, timer expiries): it must deliver each segment's bytes once and in
//! order, acknowledge `rcv_nxt`, and report only SACK blocks it holds.
#![no_main]

use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use renolab_core::time::SimTime;
use renolab_fuzz::{check_ack, check_receiver, later, step, ArbReceiver, ArbTransfer};

#[derive(Debug, Arbitrary)]
enum Op {
    /// A data segment `offset` above (or, if negative, below) the next one expected.
    Segment(i16),
    /// A segment far ahead (the out-of-order buffer is a bitmap from rcv_nxt to the highest
    /// segment held, so its size follows the sender's window; segment numbers billions
    /// apart are beyond what any sender sends and would only measure the allocator).
    Far(u16),
    Syn,
    /// Time passes; the delayed-ACK timer fires if it is due.
    Wait,
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let transfer = ArbTransfer::arbitrary(u)?.transfer();
    let mut r = ArbReceiver::arbitrary(u)?.receiver(transfer);
    let mut now = SimTime::ZERO;
    while !u.is_empty() {
        let before = r.rcv_nxt();
        match Op::arbitrary(u)? {
            Op::Segment(off) => {
                let seq = (before as i64 + off as i64).clamp(0, u32::MAX as i64 - 1) as u32;
                r.on_segment(now, seq);
            }
            Op::Far(off) => r.on_segment(now, before.saturating_add(off as u32).min(u32::MAX - 1)),
            Op::Syn => r.on_syn(now),
            Op::Wait => {
                now = later(now, step(u)?);
                if matches!(r.poll_timeout(), Some(t) if t <= now) {
                    r.on_timeout(now);
                }
            }
        }
        check_receiver(&r, transfer, before);
        let mut acks = 0;
        while let Some(ack) = r.poll_transmit(now) {
            check_ack(&r, ack.ack, &ack.sack);
            acks += 1;
            assert!(acks <= 2, "more than a SYN-ACK and an ACK for one event");
        }
        if let Some(t) = r.poll_timeout() {
            assert!(t >= now, "timer set in the past");
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
