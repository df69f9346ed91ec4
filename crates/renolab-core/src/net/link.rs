//! One direction of a point-to-point link: an output queue, a transmitter of fixed rate, and
//! a propagation pipe of fixed delay.
//!
//! A packet arriving at an idle transmitter starts serialising at once; otherwise it waits
//! in the queue. Serialisation takes `size * 8 / rate`; the packet then propagates for
//! `delay` and reaches the far end at `tx_start + tx_time + delay`. Because the delay is
//! constant, packets reach the far end in the order they were sent, so the pipe is a FIFO
//! and the direction needs at most one pending arrival event and one pending
//! transmission-end event at any time.

use std::collections::VecDeque;

use super::packet::PacketId;
use crate::loss::LossModel;
use crate::queue::Queue;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Counters of one link direction.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinkStats {
    /// Packets that started serialisation.
    pub packets_sent: u64,
    /// Bytes that started serialisation.
    pub bytes_sent: u64,
    /// Packets refused by the queue.
    pub queue_drops: u64,
    /// Packets dropped by loss models at the far end.
    pub loss_drops: u64,
    /// Time spent serialising, in nanoseconds (for utilisation).
    pub busy_ns: u64,
    /// Largest number of packets that waited at once.
    pub max_queue: u64,
}

/// One direction of a link.
#[derive(Debug)]
pub struct LinkDir {
    /// Human-readable name, `"<link>"` forward or `"<link>/rev"` backward.
    pub name: String,
    /// Node the direction leaves from.
    pub from: u32,
    /// Node it arrives at.
    pub to: u32,
    /// Transmission rate.
    pub rate: BitsPerSec,
    /// Propagation delay.
    pub delay: SimDuration,
    /// Output queue.
    pub queue: Queue,
    /// Loss models judged at the far end, in order.
    pub losses: Vec<LossModel>,
    /// End of the serialisation in progress (in the past when idle).
    pub busy_until: SimTime,
    /// True while a `TxEnd` event is pending for this direction.
    pub tx_end_pending: bool,
    /// Packets on the wire or propagating, with their arrival time at the far end.
    pub pipe: VecDeque<(SimTime, PacketId)>,
    /// Counters.
    pub stats: LinkStats,
}

impl LinkDir {
    /// A direction with an empty queue and an idle transmitter.
    pub fn new(
        name: String,
        from: u32,
        to: u32,
        rate: BitsPerSec,
        delay: SimDuration,
        queue: Queue,
        losses: Vec<LossModel>,
    ) -> Self {
        LinkDir {
            name,
            from,
            to,
            rate,
            delay,
            queue,
            losses,
            busy_until: SimTime::ZERO,
            tx_end_pending: false,
            pipe: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    /// True when the transmitter can start a packet at `now`.
    #[inline]
    pub fn idle_at(&self, now: SimTime) -> bool {
        now >= self.busy_until
    }

    /// Starts serialising a packet of `size` bytes at `now`. Returns its arrival time at the
    /// far end and whether the pipe was empty (then the caller schedules an arrival event).
    #[inline]
    pub fn start_tx(&mut self, now: SimTime, id: PacketId, size: u32) -> (SimTime, bool) {
        debug_assert!(self.idle_at(now));
        let tx = self.rate.tx_time_ns(size);
        self.busy_until = SimTime(now.0 + tx);
        let arrival = self.busy_until + self.delay;
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back((arrival, id));
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        self.stats.busy_ns += tx;
        (arrival, was_empty)
    }
}
