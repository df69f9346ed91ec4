//! FQ-CoDel, the flow-queue CoDel scheduler and AQM (RFC 8290), following the reference
//! implementation the RFC describes (Linux `net/sched/sch_fq_codel.c`).
//!
//! - Classification (RFC 8290 §4.1.1): the packet's flow id, mixed with a perturbation drawn
//!   once from the queue's random stream, is hashed onto one of `flows` queues (Linux's
//!   `reciprocal_scale` of the hash). Distinct flows can therefore share a queue, as in
//!   Linux; [`FqCoDel::bucket_of`] tells which.
//! - Scheduling (§4.2): deficit round robin with a byte `quantum` over two lists. A queue
//!   that becomes active joins the *new* list with a full quantum; new queues are served
//!   before old ones. A queue whose deficit is exhausted gets another quantum and moves to
//!   the tail of the old list. A new queue found empty moves to the old list when there are
//!   old queues (so a sparse flow cannot starve them by coming back as new at once),
//!   otherwise it becomes inactive; an old queue found empty becomes inactive.
//! - AQM (§4.3): each queue runs its own CoDel state. As in Linux, the "backlog at most one
//!   MTU" test of CoDel looks at the whole scheduler's backlog, not the flow's.
//! - Overload (§4.1): when an arrival exceeds the limit, packets are dropped from the head
//!   of the queue with the largest byte backlog: Linux drops up to `drop_batch` packets,
//!   stopping once half of that backlog is gone, and adds the number dropped to that
//!   queue's CoDel `count`.

use std::collections::VecDeque;

use super::codel::{CodelParams, CodelVars};
use super::{Admit, Dequeued, QueueDrop, QueueLimit, Queued};
use crate::packet::PacketId;
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// Parameters of an FQ-CoDel queue (defaults: Linux `fq_codel_init()`, RFC 8290 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqCoDelConfig {
    /// Number of flow queues (default 1024).
    pub flows: u32,
    /// DRR quantum, in bytes (default 1514, an Ethernet MTU with its header).
    pub quantum: u32,
    /// Limit on the whole scheduler (default 10240 packets).
    pub limit: QueueLimit,
    /// Most packets dropped from the fattest queue per overload (default 64).
    pub drop_batch: u32,
    /// CoDel target sojourn time (default 5 ms).
    pub target: SimDuration,
    /// CoDel interval (default 100 ms).
    pub interval: SimDuration,
    /// CoDel's maximum packet size, in bytes (default 1514).
    pub mtu: u32,
    /// CoDel marks ECN-capable packets instead of dropping them (RFC 8290 §4.1; default
    /// false here, where Linux's `fq_codel` defaults to true: renolab's defaults never
    /// change what an existing scenario does). Overload drops stay drops.
    pub ecn: bool,
}

impl Default for FqCoDelConfig {
    fn default() -> Self {
        FqCoDelConfig {
            flows: 1024,
            quantum: 1514,
            limit: QueueLimit::Packets(10240),
            drop_batch: 64,
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            mtu: 1514,
            ecn: false,
        }
    }
}

impl FqCoDelConfig {
    /// Checks the values FQ-CoDel relies on; the message names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("flows", self.flows),
            ("quantum", self.quantum),
            ("drop_batch", self.drop_batch),
        ] {
            if v == 0 {
                return Err(format!("{name} must be positive"));
            }
        }
        if self.interval.as_nanos() == 0 {
            return Err("interval must be positive".into());
        }
        Ok(())
    }
}

/// Which scheduling list a flow queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum List {
    #[default]
    Inactive,
    New,
    Old,
}

/// One flow queue.
#[derive(Clone, Debug, Default)]
struct Bucket {
    fifo: VecDeque<Queued>,
    /// Bytes waiting in this queue.
    bytes: u64,
    /// DRR deficit, in bytes (may go negative by up to a packet).
    deficit: i64,
    list: List,
    codel: CodelVars,
}

/// An FQ-CoDel queue.
#[derive(Debug, Clone)]
pub struct FqCoDel {
    config: FqCoDelConfig,
    params: CodelParams,
    perturbation: u64,
    buckets: Vec<Bucket>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
}

/// SplitMix64's finaliser: a fixed, well-mixing 64-bit hash.
fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCoDel {
    /// An empty FQ-CoDel queue; `rng` provides the hash perturbation (one draw, here).
    /// `config` must pass [`FqCoDelConfig::validate`] (zero flows are taken as one).
    pub fn new(config: FqCoDelConfig, mut rng: RngStream) -> Self {
        debug_assert_eq!(config.validate(), Ok(()));
        let flows = config.flows.max(1);
        FqCoDel {
            params: CodelParams {
                target: config.target,
                interval: config.interval,
                mtu: config.mtu,
                ecn: config.ecn,
            },
            perturbation: rng.next_u64(),
            buckets: vec![Bucket::default(); flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            config: FqCoDelConfig { flows, ..config },
        }
    }

    /// The index of the flow queue packets of `flow` go to.
    pub fn bucket_of(&self, flow: u32) -> usize {
        // Linux fq_codel_hash(): reciprocal_scale(hash, flows_cnt), i.e. the top bits of
        // hash * flows.
        let h = mix64(flow as u64 ^ self.perturbation) >> 32;
        ((h * self.config.flows as u64) >> 32) as usize
    }

    /// Offers `pkt` at `now`. Over the limit, packets are dropped from the head of the
    /// fattest flow queue: those already waiting go to `on_drop` as `Overflow`; if the
    /// arrival itself is among them, `Err(Overflow)` is returned.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Queued,
        on_drop: &mut impl FnMut(PacketId, QueueDrop),
    ) -> Result<Admit, QueueDrop> {
        let fits = self.config.limit.fits(self.len, self.bytes, pkt.size);
        let idx = self.bucket_of(pkt.flow);
        pkt.enqueued_at = now;
        let b = &mut self.buckets[idx];
        b.fifo.push_back(pkt);
        b.bytes += pkt.size as u64;
        if b.list == List::Inactive {
            // RFC 8290 §4.1.1 / fq_codel_enqueue(): a newly active queue joins the new list
            // with a full quantum.
            b.list = List::New;
            b.deficit = self.config.quantum as i64;
            self.new_flows.push_back(idx as u32);
        }
        self.len += 1;
        self.bytes += pkt.size as u64;
        if fits {
            return Ok(Admit::Queued);
        }
        let mut arrival_dropped = false;
        self.drop_from_fattest(&mut |victim: Queued| {
            if victim.id == pkt.id {
                arrival_dropped = true;
            } else {
                on_drop(victim.id, QueueDrop::Overflow);
            }
        });
        if arrival_dropped {
            Err(QueueDrop::Overflow)
        } else {
            Ok(Admit::Queued)
        }
    }

    /// Linux `fq_codel_drop()`: head-drops half the backlog of the queue with the most
    /// bytes, at most `drop_batch` packets and at least one.
    fn drop_from_fattest(&mut self, drop: &mut impl FnMut(Queued)) {
        let mut fattest = 0;
        let mut max_backlog = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            if b.bytes > max_backlog {
                max_backlog = b.bytes;
                fattest = i;
            }
        }
        let threshold = max_backlog / 2;
        let b = &mut self.buckets[fattest];
        let (mut dropped, mut dropped_bytes) = (0u32, 0u64);
        while let Some(victim) = b.fifo.pop_front() {
            b.bytes -= victim.size as u64;
            self.bytes -= victim.size as u64;
            self.len -= 1;
            dropped += 1;
            dropped_bytes += victim.size as u64;
            drop(victim);
            if dropped >= self.config.drop_batch || dropped_bytes >= threshold {
                break;
            }
        }
        // "Tell codel to increase its signal strength also."
        b.codel.count = b.codel.count.saturating_add(dropped);
    }

    /// The packet to send at `now`, chosen by DRR over the new then the old flow queues;
    /// packets CoDel drops on the way go to `on_drop` as `AqmDrop`.
    pub fn dequeue(
        &mut self,
        now: SimTime,
        on_drop: &mut impl FnMut(PacketId, QueueDrop),
    ) -> Option<Dequeued> {
        let quantum = self.config.quantum as i64;
        loop {
            // fq_codel_dequeue(): new flows first, then old ones.
            let (from_new, idx) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i as usize),
                (None, Some(&i)) => (false, i as usize),
                (None, None) => return None,
            };
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            let b = &mut self.buckets[idx];
            if b.deficit <= 0 {
                // Deficit spent: a new quantum and a place at the tail of the old list.
                b.deficit += quantum;
                b.list = List::Old;
                list.pop_front();
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let (fifo, flow_bytes, total, len) =
                (&mut b.fifo, &mut b.bytes, &mut self.bytes, &mut self.len);
            let mut pop = || {
                let head = fifo.pop_front()?;
                *flow_bytes -= head.size as u64;
                *total -= head.size as u64;
                *len -= 1;
                Some((head, *total))
            };
            let mut drop = |p: Queued| on_drop(p.id, QueueDrop::AqmDrop);
            match b.codel.dequeue(&self.params, now, &mut pop, &mut drop) {
                Some((pkt, marked)) => {
                    b.deficit -= pkt.size as i64;
                    return Some(Dequeued::of(pkt, marked));
                }
                None => {
                    // Empty queue: "force a pass through old_flows to prevent starvation".
                    list.pop_front();
                    if from_new && !self.old_flows.is_empty() {
                        b.list = List::Old;
                        self.old_flows.push_back(idx as u32);
                    } else {
                        b.list = List::Inactive;
                    }
                }
            }
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no packet waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes waiting in the flow queue of `flow`.
    pub fn flow_backlog(&self, flow: u32) -> u64 {
        self.buckets[self.bucket_of(flow)].bytes
    }

    /// Waiting packets, flow queue by flow queue, each head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.buckets
            .iter()
            .flat_map(|b| b.fifo.iter().map(|p| p.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fq(config: FqCoDelConfig) -> FqCoDel {
        FqCoDel::new(config, RngStream::derive(5, "fq-codel-test"))
    }

    fn pkt(id: u32, size: u32, flow: u32) -> Queued {
        Queued::new(PacketId(id), size, flow)
    }

    fn no_drop(_: PacketId, _: QueueDrop) {
        panic!("unexpected drop");
    }

    #[test]
    fn the_test_flows_hash_to_distinct_queues() {
        let q = fq(FqCoDelConfig::default());
        let buckets: Vec<usize> = (1..=3).map(|f| q.bucket_of(f)).collect();
        assert!(buckets[0] != buckets[1] && buckets[1] != buckets[2] && buckets[0] != buckets[2]);
        assert!(buckets.iter().all(|&b| b < 1024));
    }

    #[test]
    fn a_sparse_flow_is_dequeued_before_a_greedy_backlog() {
        // 10 Mb/s: a 1500-byte packet every 1.2 ms. The greedy flow 1 keeps 200 packets
        // queued; the sparse flow 2 sends a 100-byte packet every 50 ms, starting once the
        // greedy flow has used its first quantum and left the new list.
        let mut q = fq(FqCoDelConfig::default());
        let tx = 1_200_000u64;
        let mut id = 0;
        for _ in 0..200 {
            q.enqueue(SimTime::ZERO, pkt(id, 1500, 1), &mut no_drop)
                .unwrap();
            id += 1;
        }
        let mut sparse_sent_at = Vec::new();
        let mut waits = Vec::new();
        for k in 0..5_000u64 {
            let now = SimTime(k * tx);
            if k % 42 == 10 {
                sparse_sent_at.push((id, now));
                q.enqueue(now, pkt(id, 100, 2), &mut no_drop).unwrap();
                id += 1;
            }
            let mut sink = |_: PacketId, _: QueueDrop| {};
            let got = q.dequeue(now, &mut sink).unwrap().id;
            if let Some(&(_, at)) = sparse_sent_at.iter().find(|(i, _)| PacketId(*i) == got) {
                waits.push(now.0 - at.0);
            }
            q.enqueue(now, pkt(id, 1500, 1), &mut no_drop).unwrap();
            id += 1;
        }
        assert_eq!(waits.len(), sparse_sent_at.len());
        assert!(
            waits.iter().all(|&w| w == 0),
            "sparse packets waited: {waits:?}"
        );
    }

    #[test]
    fn two_greedy_flows_share_bytes_within_one_quantum() {
        // 1500-byte packets against 300-byte packets; time stands still, so CoDel never
        // drops and the DRR alone decides.
        let mut q = fq(FqCoDelConfig::default());
        let mut id = 0;
        for _ in 0..400 {
            q.enqueue(SimTime::ZERO, pkt(id, 1500, 1), &mut no_drop)
                .unwrap();
            q.enqueue(SimTime::ZERO, pkt(id + 1, 300, 2), &mut no_drop)
                .unwrap();
            q.enqueue(SimTime::ZERO, pkt(id + 2, 300, 2), &mut no_drop)
                .unwrap();
            q.enqueue(SimTime::ZERO, pkt(id + 3, 300, 2), &mut no_drop)
                .unwrap();
            q.enqueue(SimTime::ZERO, pkt(id + 4, 300, 2), &mut no_drop)
                .unwrap();
            q.enqueue(SimTime::ZERO, pkt(id + 5, 300, 2), &mut no_drop)
                .unwrap();
            id += 6;
        }
        let size = |i: u32| if i % 6 == 0 { 1500 } else { 300 };
        let (mut big, mut small) = (0i64, 0i64);
        for _ in 0..1000 {
            let got = q.dequeue(SimTime::ZERO, &mut no_drop).unwrap().id;
            if got.0 % 6 == 0 {
                big += size(got.0) as i64;
            } else {
                small += size(got.0) as i64;
            }
            // Each flow is within a quantum of the other (plus the packet in progress).
            assert!((big - small).abs() <= 1514 + 1500, "{big} vs {small}");
        }
        assert!((big - small).abs() <= 1514, "{big} vs {small}");
    }

    #[test]
    fn overload_drops_half_the_fattest_flows_backlog_from_its_head() {
        let mut q = fq(FqCoDelConfig {
            limit: QueueLimit::Packets(10),
            ..FqCoDelConfig::default()
        });
        for id in 0..9 {
            q.enqueue(SimTime::ZERO, pkt(id, 1500, 1), &mut no_drop)
                .unwrap();
        }
        q.enqueue(SimTime::ZERO, pkt(9, 100, 2), &mut no_drop)
            .unwrap();
        // The 11th packet overflows: flow 1 holds 13500 bytes, so heads are dropped until
        // 6750 bytes are gone (5 packets); the arrival of flow 2 is kept.
        let mut dropped = Vec::new();
        let r = q.enqueue(SimTime::ZERO, pkt(10, 100, 2), &mut |id, why| {
            assert_eq!(why, QueueDrop::Overflow);
            dropped.push(id.0);
        });
        assert_eq!(r, Ok(Admit::Queued));
        assert_eq!(dropped, vec![0, 1, 2, 3, 4]);
        assert_eq!(q.len(), 6);
        assert_eq!(q.flow_backlog(1), 4 * 1500);
        assert_eq!(q.bytes(), 4 * 1500 + 200);
    }

    #[test]
    fn an_arrival_that_makes_its_own_flow_the_fattest_can_be_the_victim() {
        let mut q = fq(FqCoDelConfig {
            limit: QueueLimit::Packets(2),
            ..FqCoDelConfig::default()
        });
        q.enqueue(SimTime::ZERO, pkt(0, 100, 1), &mut no_drop)
            .unwrap();
        q.enqueue(SimTime::ZERO, pkt(1, 100, 2), &mut no_drop)
            .unwrap();
        assert_eq!(
            q.enqueue(SimTime::ZERO, pkt(2, 1500, 3), &mut no_drop),
            Err(QueueDrop::Overflow)
        );
        assert_eq!(q.len(), 2);
        assert_eq!(q.iter().count(), 2);
        // The emptied queue of flow 3 is skipped when dequeuing.
        let mut out = Vec::new();
        while let Some(id) = q.dequeue(SimTime::ZERO, &mut no_drop).map(|d| d.id) {
            out.push(id.0);
        }
        assert_eq!(out, vec![0, 1]);
    }

    #[test]
    fn a_standing_queue_in_one_flow_gets_codel_drops() {
        let mut q = fq(FqCoDelConfig::default());
        let tick = 100_000u64;
        let mut id = 0;
        for _ in 0..100 {
            q.enqueue(SimTime::ZERO, pkt(id, 1250, 1), &mut no_drop)
                .unwrap();
            id += 1;
        }
        let mut drops = 0;
        for k in 1..5_000u64 {
            let now = SimTime(k * tick);
            q.dequeue(now, &mut |_, why| {
                assert_eq!(why, QueueDrop::AqmDrop);
                drops += 1;
            });
            q.enqueue(now, pkt(id, 1250, 1), &mut no_drop).unwrap();
            id += 1;
        }
        // First drop at 105 ms, then 100/sqrt(k) ms apart: about 8 drops by 500 ms.
        assert!((5..=12).contains(&drops), "{drops}");
    }
}
