//! Output queues of link directions.
//!
//! A queue holds the packets *waiting* for the wire; the packet being serialised has left it.
//! `Queue` is a closed enum so the per-packet path dispatches with a `match`, not a vtable.
//!
//! Every queue discipline is a pure state machine: it never sees the scheduler, takes the
//! current time as an argument, and draws randomness only from the [`RngStream`] handed to
//! its constructor. The engine offers *every* packet to [`Queue::enqueue`], including one
//! that reaches an idle link (which it then takes straight back with [`Queue::dequeue`]):
//! ns-2's `Queue::recv()` does the same, and RED's average must see those arrivals.
//!
//! ECN (RFC 3168): a queue configured to mark (RED and CoDel with `ecn`, DropTail with an
//! `ecn_threshold`) sets Congestion Experienced on an ECN-capable packet where it would
//! otherwise have dropped it (or, DropTail, where the step threshold says so). The decision
//! belongs to the queue; the caller applies the mark to the packet: an arrival marked at
//! enqueue comes back as [`Admit::Marked`], a packet marked at dequeue as
//! [`Dequeued::marked`]. Packets that are not ECN-capable are dropped as before.
//!
//! Drops are reported in two ways. The arrival's own fate is the return value of
//! `enqueue`; packets that were already waiting and are pushed out (FQ-CoDel's fat-flow
//! drop) or dropped at the head when dequeuing (CoDel) go through the `on_drop` callback,
//! and the caller frees them.
//!
//! [`RngStream`]: crate::rng::RngStream

mod codel;
mod droptail;
mod dualpi2;
mod fifo;
mod fq_codel;
mod red;

pub use codel::{CoDel, CoDelConfig};
pub use droptail::{DropTail, QueueLimit};
pub use dualpi2::{
    DualPi2, DualPi2Config, DualQueueStats, EcnMask, StepThresh, SubQueue, SubQueueState,
    SUB_QUEUE_NAMES,
};
pub use fifo::Fifo;
pub use fq_codel::{FqCoDel, FqCoDelConfig};
pub use red::{QWeight, Red, RedConfig};

use crate::packet::{Codepoint, PacketId};
use crate::time::SimTime;

/// What a queue stores for each waiting packet (a copy of the few fields it needs, so that
/// disciplines never touch the packet pool).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Queued {
    /// Handle of the packet in the pool.
    pub id: PacketId,
    /// Size on the wire, in bytes.
    pub size: u32,
    /// Index of the flow the packet belongs to (FQ-CoDel hashes it).
    pub flow: u32,
    /// When the packet entered the queue; set by the queue itself on enqueue (CoDel's
    /// sojourn time is measured from it), whatever the caller put there.
    pub enqueued_at: SimTime,
    /// The packet's ECN codepoint on arrival: a marking queue may mark an ECN-capable
    /// packet (ECT(0), ECT(1) or CE) instead of dropping it, and DualPI2 classifies by it.
    pub ecn: Codepoint,
    /// The discipline's own bits for this packet, as the kernel keeps a qdisc's in the
    /// skb's control block (DualPI2: whether the step threshold applies to it).
    pub(crate) cb: u8,
}

impl Queued {
    /// The queue entry of packet `id` of `size` bytes (on the wire) belonging to `flow`.
    pub fn new(id: PacketId, size: u32, flow: u32) -> Self {
        Queued {
            id,
            size,
            flow,
            enqueued_at: SimTime::ZERO,
            ecn: Codepoint::NotEct,
            cb: 0,
        }
    }

    /// The same entry carrying codepoint `ecn`.
    pub fn with_ecn(mut self, ecn: Codepoint) -> Self {
        self.ecn = ecn;
        self
    }

    /// The same entry, ECN-capable (ECT(0)) if `ect`.
    pub fn with_ect(self, ect: bool) -> Self {
        self.with_ecn(if ect {
            Codepoint::Ect0
        } else {
            Codepoint::NotEct
        })
    }

    /// The packet is ECN-capable: a marking queue may mark it instead of dropping it.
    #[inline]
    pub fn ect(&self) -> bool {
        self.ecn.is_ect()
    }
}

/// What became of an arrival the queue accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Queued as it came.
    Queued,
    /// Queued with Congestion Experienced: the caller sets CE on the packet (RFC 3168 §5).
    Marked,
}

/// The packet a queue hands to the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dequeued {
    /// Handle of the packet in the pool.
    pub id: PacketId,
    /// Size on the wire, in bytes.
    pub size: u32,
    /// The queue marked it Congestion Experienced as it left (CoDel's and FQ-CoDel's ECN,
    /// RFC 8289 §5, RFC 8290 §4.1): the caller sets CE on the packet.
    pub marked: bool,
    /// When it entered the queue: its sojourn time is the dequeue time less this.
    pub enqueued_at: SimTime,
}

impl Dequeued {
    /// The packet of queue entry `pkt`, marked Congestion Experienced if `marked`.
    pub fn of(pkt: Queued, marked: bool) -> Self {
        Dequeued {
            id: pkt.id,
            size: pkt.size,
            marked,
            enqueued_at: pkt.enqueued_at,
        }
    }
}

/// Why a queue dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDrop {
    /// The queue was full (tail drop, RED's hard limit, FQ-CoDel's fat-flow drop).
    Overflow,
    /// RED dropped the arrival: a probabilistic ("unforced") drop, or a forced drop because
    /// the average queue was above the maximum threshold.
    EarlyDrop,
    /// CoDel dropped a packet at the head of the queue, when dequeuing.
    AqmDrop,
}

/// An output queue.
#[derive(Debug, Clone)]
pub enum Queue {
    /// First-in first-out with a hard limit.
    DropTail(DropTail),
    /// Random Early Detection (Floyd & Jacobson 1993), as ns-2.35's `queue/red.cc`.
    Red(Red),
    /// Controlled Delay (RFC 8289).
    CoDel(CoDel),
    /// Flow-queue CoDel (RFC 8290).
    FqCoDel(FqCoDel),
    /// The coupled dual queue of L4S (RFC 9332), as Linux's `sch_dualpi2`.
    DualPi2(DualPi2),
}

impl Queue {
    /// Offers packet `pkt` at `now`; `Err` means the arrival itself was dropped and the
    /// caller drops it, `Ok(Admit::Marked)` that it was queued and must carry CE. Packets that were already waiting and are pushed out to make room
    /// are reported through `on_drop` (only FQ-CoDel does this).
    ///
    /// `transmitting`: whether the link is serialising a packet right now. RED uses it to
    /// tell an idle link (whose average decays, ns-2 `REDQueue::enque()`) from a busy one.
    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        pkt: Queued,
        transmitting: bool,
        on_drop: &mut impl FnMut(PacketId, QueueDrop),
    ) -> Result<Admit, QueueDrop> {
        match self {
            Queue::DropTail(q) => q.enqueue(now, pkt, transmitting),
            Queue::Red(q) => q.enqueue(now, pkt, transmitting),
            Queue::CoDel(q) => q.enqueue(now, pkt),
            Queue::FqCoDel(q) => q.enqueue(now, pkt, on_drop),
            Queue::DualPi2(q) => q.enqueue(now, pkt),
        }
    }

    /// The head packet to transmit at `now`, if any. AQMs that drop at dequeue (CoDel,
    /// FQ-CoDel) call `on_drop(id, QueueDrop::AqmDrop)` for each packet they discard on the
    /// way; `None` then means that every waiting packet was dropped. With ECN they mark
    /// an ECN-capable head instead of dropping it ([`Dequeued::marked`]).
    #[inline]
    pub fn dequeue(
        &mut self,
        now: SimTime,
        on_drop: &mut impl FnMut(PacketId, QueueDrop),
    ) -> Option<Dequeued> {
        match self {
            Queue::DropTail(q) => q.dequeue().map(|p| Dequeued::of(p, false)),
            Queue::Red(q) => q.dequeue(now).map(|p| Dequeued::of(p, false)),
            Queue::CoDel(q) => q.dequeue(now, on_drop),
            Queue::FqCoDel(q) => q.dequeue(now, on_drop),
            Queue::DualPi2(q) => q.dequeue(now, on_drop),
        }
    }

    /// The engine may send an arrival of fewer bytes than this straight onto an idle wire
    /// when nothing waits, without passing it through the queue (0: no arrival): the queue
    /// would accept it and keeps no state about arrivals (RED does: its average decays over
    /// idle time, so it must see every arrival, as ns-2's `Queue::recv()` shows it). Fixed
    /// for the queue's life, so that a link direction works it out once.
    pub fn bypass_below(&self) -> u64 {
        match self {
            // An empty queue is below any ECN threshold (at least 1), so nothing to mark.
            Queue::DropTail(q) => q.accepts_alone_below(),
            // DualPI2 stamps every arrival for its controller and counts it.
            Queue::Red(_) | Queue::CoDel(_) | Queue::FqCoDel(_) | Queue::DualPi2(_) => 0,
        }
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Queue::DropTail(q) => q.fifo().len(),
            Queue::Red(q) => q.fifo().len(),
            Queue::CoDel(q) => q.fifo().len(),
            Queue::FqCoDel(q) => q.len(),
            Queue::DualPi2(q) => q.len(),
        }
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.fifo().bytes(),
            Queue::Red(q) => q.fifo().bytes(),
            Queue::CoDel(q) => q.fifo().bytes(),
            Queue::FqCoDel(q) => q.bytes(),
            Queue::DualPi2(q) => q.bytes(),
        }
    }

    /// RED's average queue size in packets (its EWMA, `ave_` in ns-2, divided by the mean
    /// packet size when RED counts bytes); NaN for the disciplines without one.
    pub fn average_packets(&self) -> f64 {
        match self {
            Queue::Red(q) => q.avg_packets(),
            Queue::DropTail(_) | Queue::CoDel(_) | Queue::FqCoDel(_) | Queue::DualPi2(_) => {
                f64::NAN
            }
        }
    }

    /// The discipline's own marking probability for the `queue` trace: DualPI2's base
    /// probability p'; NaN for the others.
    pub fn probability(&self) -> f64 {
        match self {
            Queue::DualPi2(q) => q.base_prob() as f64 / dualpi2::MAX_PROB as f64,
            _ => f64::NAN,
        }
    }

    /// DualPI2's two queues (L, then classic), for the `queue` trace; `None` for the
    /// single-queue disciplines.
    pub fn sub_queues(&self) -> Option<[SubQueueState; 2]> {
        match self {
            Queue::DualPi2(q) => Some(q.sub_queues()),
            _ => None,
        }
    }

    /// DualPI2's per-queue counters; zero for the single-queue disciplines.
    pub fn dual_stats(&self) -> DualQueueStats {
        match self {
            Queue::DualPi2(q) => q.stats(),
            _ => DualQueueStats::default(),
        }
    }

    /// True when no packet waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packet a FIFO discipline hands on next (`None` for the others, whose next
    /// packet is decided at dequeue, and when empty).
    #[inline]
    pub fn head_id(&self) -> Option<PacketId> {
        match self {
            Queue::DropTail(q) => q.fifo().head().map(|p| p.id),
            Queue::Red(q) => q.fifo().head().map(|p| p.id),
            Queue::CoDel(q) => q.fifo().head().map(|p| p.id),
            Queue::FqCoDel(_) | Queue::DualPi2(_) => None,
        }
    }

    /// Handles of the waiting packets (for audits and traces): head first for the FIFO
    /// disciplines, flow queue by flow queue for FQ-CoDel, the L queue then the classic
    /// queue for DualPI2.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        let (fifo, second) = match self {
            Queue::DropTail(q) => (Some(q.fifo()), None),
            Queue::Red(q) => (Some(q.fifo()), None),
            Queue::CoDel(q) => (Some(q.fifo()), None),
            Queue::FqCoDel(_) => (None, None),
            Queue::DualPi2(q) => (Some(q.l_queue()), Some(q.c_queue())),
        };
        let flows = match self {
            Queue::FqCoDel(q) => Some(q.iter()),
            _ => None,
        };
        let fifos = fifo.into_iter().chain(second).flat_map(Fifo::iter);
        fifos.chain(flows.into_iter().flatten())
    }
}
