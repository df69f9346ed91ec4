//! DropTail: an enqueue and a dequeue on a queue with a standing backlog (a bottleneck in
//! steady state), directly and through the `Queue` enum the engine dispatches on; and the
//! drop of an arrival at a full queue.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use renolab_core::packet::PacketId;
use renolab_core::queue::{DropTail, Queue, QueueLimit, Queued};
use renolab_core::time::SimTime;

const LIMIT: u32 = 1667;

fn backlogged(backlog: u32, counts_transmitting: bool) -> DropTail {
    let mut q = DropTail::new(QueueLimit::Packets(LIMIT), counts_transmitting);
    for i in 0..backlog {
        q.enqueue(SimTime::ZERO, Queued::new(PacketId(i), 1500, 0), true)
            .expect("below the limit");
    }
    q
}

fn enqueue_dequeue(c: &mut Criterion) {
    let mut group = c.benchmark_group("queue/droptail_enqueue_dequeue");
    group.throughput(Throughput::Elements(1));
    for backlog in [1u32, 100, 1000] {
        group.bench_with_input(
            BenchmarkId::new("direct", backlog),
            &backlog,
            |b, &backlog| {
                let mut q = backlogged(backlog, true);
                let mut now = SimTime::ZERO;
                let mut id = backlog;
                b.iter(|| {
                    now.0 += 12_000;
                    id = id.wrapping_add(1);
                    let _ = q.enqueue(now, black_box(Queued::new(PacketId(id), 1500, 0)), true);
                    black_box(q.dequeue())
                });
            },
        );
        group.bench_with_input(
            BenchmarkId::new("enum", backlog),
            &backlog,
            |b, &backlog| {
                let mut q = Queue::DropTail(backlogged(backlog, true));
                let mut now = SimTime::ZERO;
                let mut id = backlog;
                let mut on_drop = |_id: PacketId, _cause| {};
                b.iter(|| {
                    now.0 += 12_000;
                    id = id.wrapping_add(1);
                    let _ = q.enqueue(
                        now,
                        black_box(Queued::new(PacketId(id), 1500, 0)),
                        true,
                        &mut on_drop,
                    );
                    black_box(q.dequeue(now, &mut on_drop))
                });
            },
        );
    }
    group.finish();
}

fn overflow(c: &mut Criterion) {
    c.bench_function("queue/droptail_overflow_drop", |b| {
        let mut q = backlogged(LIMIT - 1, true);
        let mut id = LIMIT;
        b.iter(|| {
            id = id.wrapping_add(1);
            black_box(q.enqueue(
                SimTime::ZERO,
                black_box(Queued::new(PacketId(id), 1500, 0)),
                true,
            ))
        });
    });
}

criterion_group!(benches, enqueue_dequeue, overflow);
criterion_main!(benches);
