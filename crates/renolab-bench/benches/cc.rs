//! An ACK through each congestion controller, in congestion avoidance:
//! - `cc/on_ack/<variant>`: the variant's hook alone (how cwnd moves);
//! - `cc/sender_ack/<variant>`: the whole sender: a cumulative ACK for one segment in,
//!   `poll_transmit` until it has nothing more (one new segment), `poll_timeout`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use renolab_bench::{controller, sender, VARIANTS};
use renolab_core::packet::sack::SackBlocks;
use renolab_core::tcp::cc::{AckSample, CcEvent, CongestionControl};
use renolab_core::time::SimTime;

/// Flight size in steady state (the receiver window caps it).
const WINDOW: u32 = 1000;
/// ACK spacing at 1 Gb/s with 1500-byte packets.
const SPACING_NS: u64 = 12_000;

fn on_ack(c: &mut Criterion) {
    let mut group = c.benchmark_group("cc/on_ack");
    group.throughput(Throughput::Elements(1));
    for variant in VARIANTS {
        group.bench_with_input(
            BenchmarkId::from_parameter(variant),
            &variant,
            |b, &variant| {
                let (mut cc, _) = controller(variant, WINDOW);
                let mut now = SimTime::ZERO;
                let mut ack = 0u32;
                for seq in 0..WINDOW {
                    cc.on_event(
                        now,
                        CcEvent::Sent {
                            seq,
                            retransmit: false,
                        },
                    );
                }
                b.iter(|| {
                    now.0 += SPACING_NS;
                    ack = ack.wrapping_add(1);
                    cc.on_ack(&AckSample::new(now, black_box(ack), 1));
                    // Keep Vegas's per-segment send times as long as a real flight.
                    let seq = ack.wrapping_add(WINDOW - 1);
                    cc.on_event(
                        now,
                        CcEvent::Sent {
                            seq,
                            retransmit: false,
                        },
                    );
                    black_box(cc.cwnd())
                });
            },
        );
    }
    group.finish();
}

fn sender_ack(c: &mut Criterion) {
    let mut group = c.benchmark_group("cc/sender_ack");
    group.throughput(Throughput::Elements(1));
    for variant in VARIANTS {
        group.bench_with_input(
            BenchmarkId::from_parameter(variant),
            &variant,
            |b, &variant| {
                let mut s = sender(variant, WINDOW);
                let mut now = SimTime::ZERO;
                s.start(now);
                while s.poll_transmit(now).is_some() {}
                let sack = SackBlocks::EMPTY;
                b.iter(|| {
                    now.0 += SPACING_NS;
                    let ack = s.snd_una() + 1;
                    s.on_ack(now, black_box(ack), &sack);
                    let mut sent = 0u32;
                    while let Some(t) = s.poll_transmit(now) {
                        sent += 1;
                        black_box(t);
                    }
                    black_box((sent, s.poll_timeout()))
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, on_ack, sender_ack);
criterion_main!(benches);
