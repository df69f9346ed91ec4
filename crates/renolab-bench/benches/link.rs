//! A link hop: what one packet costs crossing one link direction in steady state: a slot
//! in the packet slab, the output queue, the transmitter (serialisation time, counters) and
//! the propagation pipe, up to its arrival at the far end.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use renolab_core::net::link::TxSeqs;
use renolab_core::net::LinkDir;
use renolab_core::packet::sack::SackBlocks;
use renolab_core::packet::{Packet, PacketKind, PacketPool};
use renolab_core::queue::{DropTail, Queue, QueueLimit, Queued};
use renolab_core::time::{SimDuration, SimTime};
use renolab_core::units::BitsPerSec;

/// Event numbers matter only to the scheduler, which this bench leaves out.
const SEQS: TxSeqs = TxSeqs { arrival: 0, end: 1 };

fn data_packet(seq: u32) -> Packet {
    Packet {
        flow: 0,
        kind: PacketKind::Data,
        seq,
        size: 1500,
        dst: 1,
        retransmit: false,
        sent_at: SimTime::ZERO,
        sack: SackBlocks::EMPTY,
        ecn: renolab_core::packet::Ecn::NONE,
    }
}

fn link(limit: u32) -> LinkDir {
    LinkDir::new(
        "bottleneck".to_string(),
        0,
        1,
        BitsPerSec(1_000_000_000),
        SimDuration::from_millis(8),
        Queue::DropTail(DropTail::new(QueueLimit::Packets(limit), true)),
        Vec::new(),
        None,
    )
}

/// One packet in, one packet out, with `backlog` packets waiting in the queue and the pipe
/// holding a BDP's worth in flight: insert into the slab, enqueue, dequeue the head when
/// the transmitter frees, start its transmission, pop the pipe's head at its arrival and
/// free its slot.
fn hop(c: &mut Criterion) {
    let mut group = c.benchmark_group("link/hop");
    group.throughput(Throughput::Elements(1));
    for backlog in [0u32, 1000] {
        group.bench_with_input(
            BenchmarkId::from_parameter(backlog),
            &backlog,
            |b, &backlog| {
                let mut dir = link(1667);
                let mut pool = PacketPool::new();
                let mut on_drop = |_id, _cause| {};
                let mut now = SimTime::ZERO;
                let mut seq = 0u32;
                // Fill the pipe (8 ms at 1 Gb/s: 667 packets) and the queue.
                for _ in 0..667 {
                    let id = pool.insert(data_packet(seq));
                    seq += 1;
                    dir.start_tx(now, id, 1500, SEQS);
                    now = dir.busy_until;
                }
                for _ in 0..backlog {
                    let id = pool.insert(data_packet(seq));
                    seq += 1;
                    let _ = dir
                        .queue
                        .enqueue(now, Queued::new(id, 1500, 0), true, &mut on_drop);
                }
                b.iter(|| {
                    let id = pool.insert(data_packet(seq));
                    seq = seq.wrapping_add(1);
                    if dir
                        .queue
                        .enqueue(now, Queued::new(id, 1500, 0), true, &mut on_drop)
                        .is_err()
                    {
                        pool.remove(id);
                    }
                    if let Some(head) = dir.queue.dequeue(now, &mut on_drop).map(|d| d.id) {
                        let size = pool.get(head).size;
                        black_box(dir.start_tx(now, head, size, SEQS));
                    }
                    now = dir.busy_until;
                    // The pipe holds a BDP: one packet reaches the far end per packet sent.
                    if let Some(arrived) = dir.pipe.pop_front() {
                        black_box(arrived.arrival);
                        black_box(pool.remove(arrived.id));
                    }
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, hop);
criterion_main!(benches);
