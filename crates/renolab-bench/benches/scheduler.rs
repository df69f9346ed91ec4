//! The event scheduler: one pop and one push in steady state, on heaps of the sizes a run
//! has (O(links + flows) entries: a few for one flow, thousands for large dumbbells).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use renolab_core::engine::{Event, Scheduler};
use renolab_core::time::SimTime;

/// A scheduler holding `pending` events spread over the next 20 ms.
fn filled(pending: u32) -> Scheduler {
    let mut s = Scheduler::new();
    for i in 0..pending {
        let at = SimTime(1 + (i as u64 * 7_919) % 20_000_000);
        s.schedule(at, Event::Arrive { dir: i });
    }
    s
}

fn pop_push(c: &mut Criterion) {
    let mut group = c.benchmark_group("scheduler/pop_push");
    group.throughput(Throughput::Elements(1));
    for pending in [8u32, 64, 512, 4096] {
        group.bench_with_input(
            BenchmarkId::from_parameter(pending),
            &pending,
            |b, &pending| {
                let mut s = filled(pending);
                let mut k: u64 = 0;
                b.iter(|| {
                    // Pop the earliest event and schedule its successor a little later, as a
                    // link direction's TxEnd / Arrive pair does.
                    let (now, event) = s.pop().expect("never empty");
                    k = k.wrapping_add(1);
                    let delay = 12_000 + (k * 104_729) % 8_000_000;
                    s.schedule(SimTime(now.0 + delay), black_box(event));
                });
            },
        );
    }
    group.finish();
}

fn schedule_only(c: &mut Criterion) {
    c.bench_function("scheduler/schedule_then_drain_64", |b| {
        b.iter(|| {
            let mut s = Scheduler::new();
            for i in 0..64u32 {
                s.schedule(SimTime((i as u64 * 7_919) % 1_000), Event::TxEnd { dir: i });
            }
            while let Some(e) = s.pop() {
                black_box(e);
            }
        });
    });
}

criterion_group!(benches, pop_push, schedule_only);
criterion_main!(benches);
