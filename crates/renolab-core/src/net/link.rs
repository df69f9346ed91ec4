//! One direction of a point-to-point link: an output queue, a transmitter of fixed rate, a
//! propagation pipe of fixed delay, and optionally loss models and extra per-packet latency.
//!
//! A packet arriving at an idle transmitter starts serialising at once; otherwise it waits
//! in the queue. Serialisation takes `size * 8 / rate`; the packet then propagates for
//! `delay` (plus any extra latency) and reaches the far end. Unless the extra latency may
//! reorder packets, arrivals keep the order of transmissions, so the pipe is a FIFO and the
//! direction needs at most one pending arrival event and one pending transmission-end event.

use std::collections::VecDeque;

use super::packet::PacketId;
use crate::loss::{ExtraLatency, Loss, LossCause};
use crate::queue::{Queue, QueueDrop};
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Counters of one link direction.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets that started serialisation.
    pub packets_sent: u64,
    /// Bytes that started serialisation.
    pub bytes_sent: u64,
    /// Packets refused because the queue was full.
    pub overflow_drops: u64,
    /// Packets dropped early by RED.
    pub early_drops: u64,
    /// Packets dropped at dequeue by CoDel / FQ-CoDel.
    pub aqm_drops: u64,
    /// Packets lost to bit errors.
    pub bit_error_drops: u64,
    /// Packets lost at random (uniform or Gilbert-Elliott).
    pub random_drops: u64,
    /// Packets dropped by a deterministic drop list.
    pub scripted_drops: u64,
    /// Time spent serialising, in nanoseconds (for utilisation).
    pub busy_ns: u64,
    /// Largest number of packets that waited at once.
    pub max_queue: u64,
}

impl LinkStats {
    /// Counts a queue drop by cause.
    pub fn count_queue_drop(&mut self, cause: QueueDrop) {
        match cause {
            QueueDrop::Overflow => self.overflow_drops += 1,
            QueueDrop::EarlyDrop => self.early_drops += 1,
            QueueDrop::AqmDrop => self.aqm_drops += 1,
        }
    }

    /// Counts a loss-model drop by cause.
    pub fn count_loss(&mut self, cause: LossCause) {
        match cause {
            LossCause::BitError => self.bit_error_drops += 1,
            LossCause::Random | LossCause::Burst => self.random_drops += 1,
            LossCause::Scripted => self.scripted_drops += 1,
        }
    }

    /// Drops of every kind.
    pub fn drops(&self) -> u64 {
        self.overflow_drops
            + self.early_drops
            + self.aqm_drops
            + self.bit_error_drops
            + self.random_drops
            + self.scripted_drops
    }
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
    pub losses: Vec<Loss>,
    /// Extra per-packet latency, if any.
    pub latency: Option<ExtraLatency>,
    /// End of the serialisation in progress (in the past when idle).
    pub busy_until: SimTime,
    /// True while a `TxEnd` event is pending for this direction.
    pub tx_end_pending: bool,
    /// The last packet size serialised and its time: a direction carries mostly one size
    /// (segments one way, ACKs the other), and this saves a 64-bit division per packet.
    tx_time_cache: (u32, u64),
    /// Packets on the wire or propagating, in order of arrival at the far end.
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
        losses: Vec<Loss>,
        latency: Option<ExtraLatency>,
    ) -> Self {
        LinkDir {
            name,
            from,
            to,
            rate,
            delay,
            queue,
            losses,
            latency,
            busy_until: SimTime::ZERO,
            tx_end_pending: false,
            tx_time_cache: (0, 0),
            pipe: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    /// True when the transmitter can start a packet at `now`.
    #[inline]
    pub fn idle_at(&self, now: SimTime) -> bool {
        now >= self.busy_until
    }

    /// Serialisation time of a packet of `size` bytes, in nanoseconds.
    #[inline]
    fn tx_time(&mut self, size: u32) -> u64 {
        if self.tx_time_cache.0 != size {
            self.tx_time_cache = (size, self.rate.tx_time_ns(size));
        }
        self.tx_time_cache.1
    }

    /// Starts serialising a packet of `size` bytes at `now`. Returns its arrival time at the
    /// far end when it is now the first packet of the pipe (the caller then schedules an
    /// arrival event), `None` otherwise.
    #[inline]
    pub fn start_tx(&mut self, now: SimTime, id: PacketId, size: u32) -> Option<SimTime> {
        debug_assert!(self.idle_at(now));
        let tx = self.tx_time(size);
        self.busy_until = SimTime(now.0 + tx);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        self.stats.busy_ns += tx;
        let earliest = self.busy_until + self.delay;
        let Some(latency) = &mut self.latency else {
            self.pipe.push_back((earliest, id));
            return (self.pipe.len() == 1).then_some(earliest);
        };
        if latency.allows_reordering() {
            let arrival = earliest + latency.draw();
            let at = self.pipe.partition_point(|&(t, _)| t <= arrival);
            self.pipe.insert(at, (arrival, id));
            (at == 0).then_some(arrival)
        } else {
            let last = self.pipe.back().map_or(SimTime::ZERO, |&(t, _)| t);
            let arrival = latency.arrival(earliest, last);
            self.pipe.push_back((arrival, id));
            (self.pipe.len() == 1).then_some(arrival)
        }
    }
}
