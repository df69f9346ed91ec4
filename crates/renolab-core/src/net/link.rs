//! One direction of a point-to-point link: an output queue, a transmitter of fixed rate, a
//! propagation pipe of fixed delay, and optionally loss models and extra per-packet latency.
//!
//! A packet arriving at an idle transmitter starts serialising at once; otherwise it waits
//! in the queue. Serialisation takes `size * 8 / rate`; the packet then propagates for
//! `delay` (plus any extra latency) and reaches the far end. Unless the extra latency may
//! reorder packets, arrivals keep the order of transmissions, so the pipe is a FIFO and the
//! direction needs at most one pending arrival event and one pending transmission-end event.

use super::pipe::{InFlight, Pipe};
use crate::histogram::LogHistogram;
use crate::loss::{ExtraLatency, Loss, LossCause};
use crate::packet::PacketId;
use crate::queue::{Queue, QueueDrop};
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Directions per link. Link `k`'s forward direction is numbered `2k`, its reverse `2k + 1`,
/// wherever directions are numbered (events, routes, traces).
pub const DIRS_PER_LINK: usize = 2;

/// The link of direction `dir`.
pub const fn link_of(dir: u32) -> u32 {
    dir / DIRS_PER_LINK as u32
}

/// True when direction `dir` is its link's forward direction.
pub const fn is_forward(dir: u32) -> bool {
    dir % DIRS_PER_LINK as u32 == 0
}

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
    /// Packets the queue marked Congestion Experienced (RFC 3168) instead of dropping.
    pub marks: u64,
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

/// How long packets waited in a direction's queue, and how many waited, over time.
///
/// The engine calls [`QueueOccupancy::advance`] before every queue operation that may
/// change the queue's length (an arrival, a dequeue and the drops made on the way), so the
/// length is constant between two calls and the integral of the length over time is exact.
#[derive(Debug, Clone, Default)]
pub struct QueueOccupancy {
    /// Sojourn times of the packets that left the queue for the wire, ns: from their
    /// arrival to the start of their transmission. Packets that found the wire idle and
    /// went straight onto it are not recorded here; they waited 0 (there are
    /// `packets_sent - sojourns.count()` of them).
    pub sojourns: LogHistogram,
    /// Integral of the queue's length over time up to `since`, packet-nanoseconds.
    packet_ns: u128,
    /// When the length was last accounted.
    since: SimTime,
}

impl QueueOccupancy {
    /// Accounts the queue's length `len` from the last call until `now`.
    #[inline(always)]
    pub fn advance(&mut self, now: SimTime, len: usize) {
        self.packet_ns += len as u128 * (now - self.since).0 as u128;
        self.since = now;
    }

    /// The time-average of the queue's length from 0 to `end`, packets, if the length is
    /// `len` now (since the last [`QueueOccupancy::advance`]).
    pub fn mean_packets(&self, end: SimTime, len: usize) -> f64 {
        if end.0 == 0 {
            return 0.0;
        }
        let tail = len as u128 * end.saturating_since(self.since).0 as u128;
        (self.packet_ns + tail) as f64 / end.0 as f64
    }
}

/// Scheduler insertion numbers reserved when a transmission starts, as ns-2's link does:
/// it schedules the packet's arrival at the far end, then the end of its transmission, the
/// moment it starts sending. Events scheduled later (the engine schedules only the pipe's
/// head arrival, and a transmission end only when packets wait) still break ties with
/// other same-time events in ns-2's order.
#[derive(Debug, Clone, Copy)]
pub struct TxSeqs {
    /// For the packet's arrival.
    pub arrival: u64,
    /// For the end of its transmission.
    pub end: u64,
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
    /// Packets on the wire or propagating, in order of arrival at the far end, each with
    /// its arrival time and the scheduler insertion number reserved for its arrival event.
    pub pipe: Pipe,
    /// Scheduler insertion number reserved for the end of the transmission in progress.
    pub tx_end_seq: u64,
    /// Counters.
    pub stats: LinkStats,
    /// Queueing delays and the queue's length over time.
    pub occupancy: QueueOccupancy,
}

impl LinkDir {
    /// A direction with an empty queue and an idle transmitter.
    // Every argument is one part of the direction, named at the call; a builder would only
    // restate them.
    #[allow(clippy::too_many_arguments)]
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
            pipe: Pipe::default(),
            tx_end_seq: 0,
            stats: LinkStats::default(),
            occupancy: QueueOccupancy::default(),
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

    /// Starts serialising a packet of `size` bytes at `now`. Returns its arrival time and
    /// event number at the far end when it is now the first packet of the pipe (the caller
    /// then schedules an arrival event), `None` otherwise.
    #[inline(always)]
    pub fn start_tx(
        &mut self,
        now: SimTime,
        id: PacketId,
        size: u32,
        seqs: TxSeqs,
    ) -> Option<(SimTime, u64)> {
        debug_assert!(self.idle_at(now));
        let tx = self.tx_time(size);
        self.busy_until = SimTime(now.0 + tx);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        self.stats.busy_ns += tx;
        self.tx_end_seq = seqs.end;
        let earliest = self.busy_until + self.delay;
        let flight = |arrival| InFlight {
            arrival,
            seq: seqs.arrival,
            id,
        };
        let Some(latency) = &mut self.latency else {
            self.pipe.push_back(flight(earliest));
            return (self.pipe.len() == 1).then_some((earliest, seqs.arrival));
        };
        if latency.allows_reordering() {
            let arrival = earliest + latency.draw();
            let at = self.pipe.insert_by_arrival(flight(arrival));
            (at == 0).then_some((arrival, seqs.arrival))
        } else {
            let last = self.pipe.back().map_or(SimTime::ZERO, |p| p.arrival);
            let arrival = latency.arrival(earliest, last);
            self.pipe.push_back(flight(arrival));
            (self.pipe.len() == 1).then_some((arrival, seqs.arrival))
        }
    }
}
