//! One direction of a point-to-point link: an output queue, a transmitter of fixed rate, a
//! propagation pipe of fixed delay, and optionally loss models and extra per-packet latency.
//!
//! A packet arriving at an idle transmitter starts serialising at once; otherwise it waits
//! in the queue. Serialisation takes `size * 8 / rate`; the packet then propagates for
//! `delay` (plus any extra latency) and reaches the far end. Unless the extra latency may
//! reorder packets, arrivals keep the order of transmissions, so the pipe is a FIFO and the
//! direction needs at most one pending arrival event and one pending transmission-end event.
//!
//! A direction whose rate, delay or availability changes during the run carries
//! [`LinkDynamics`] (see [`super::dynamics`]); the fixed one pays a test of that field per
//! transmission.

use super::dynamics::LinkDynamics;
use super::pipe::{InFlight, Pipe};
use crate::engine::FIRST_AT_INSTANT;
use crate::histogram::LogHistogram;
use crate::loss::{ExtraLatency, Loss, LossCause};
use crate::packet::PacketId;
use crate::queue::{Queue, QueueDrop};
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// A packet size no packet has: the serialisation-time cache of a varying direction holds it,
/// so that its every transmission misses the cache (see [`LinkDir::start_tx`]).
const NO_SIZE: u32 = u32::MAX;

/// [`LinkDir`] flag: a `TxEnd` event is pending.
const PENDING: u8 = 1;
/// [`LinkDir`] flag: the direction varies.
const VARYING: u8 = 2;
/// [`LinkDir`] flag: the direction adds extra per-packet latency (tested here, in the hot
/// cache line, rather than at the cold `latency` field's place).
const DELAYS: u8 = 4;

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
///
/// `repr(C)`: the counters every transmission adds to come first, in the same cache line
/// as the rest of what a hop touches in its [`LinkDir`]. Aligned to 16 bytes, so that the
/// first two are added to with one vector instruction straight on memory (unaligned, they
/// took a load more: +2.2 M instructions on the reference dumbbell, callgrind).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct LinkStats {
    /// Packets that started serialisation.
    pub packets_sent: u64,
    /// Bytes that started serialisation.
    pub bytes_sent: u64,
    /// Time spent serialising, in nanoseconds (for utilisation).
    pub busy_ns: u64,
    /// Largest number of packets that waited at once.
    pub max_queue: u64,
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
    /// Packets the queue marked Congestion Experienced (RFC 3168) instead of dropping.
    pub marks: u64,
    /// Packets lost because the link went down while they were on it (being serialised
    /// or propagating).
    pub outage_drops: u64,
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
            + self.outage_drops
    }
}

/// How long packets waited in a direction's queue, and how many waited, over time.
///
/// The engine calls [`QueueOccupancy::advance`] before every queue operation that may
/// change the queue's length (an arrival, a dequeue and the drops made on the way), so the
/// length is constant between two calls and the integral of the length over time is exact.
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct QueueOccupancy {
    /// Integral of the queue's length over time up to `since`, packet-nanoseconds.
    packet_ns: u128,
    /// When the length was last accounted.
    since: SimTime,
    /// Sojourn times of the packets that left the queue for the wire, ns: from their
    /// arrival to the start of their transmission. Packets that found the wire idle and
    /// went straight onto it are not recorded here; they waited 0 (there are
    /// `packets_sent - sojourns.count()` of them).
    pub sojourns: LogHistogram,
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
///
/// Laid out by hand (`repr(C)`), hot fields first, on a cache line of its own: what a hop
/// reads and writes (the transmitter's state, the pipe, the sending counters, the queue,
/// the queue's length integral) comes before what it never touches (name, rate, loss
/// models, dynamics). With the compiler's order (by alignment) a hop touched 6 or 7 of the
/// direction's 12 cache lines; now 3 or 4 of 11. At 1,000 flows (cachegrind, 10 Gb/s,
/// 0.6 s) the run's L1 data misses fell from 6.59 M to 6.35 M, at the same instructions.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct LinkDir {
    /// End of the serialisation in progress (in the past when idle).
    pub busy_until: SimTime,
    /// Scheduler insertion number reserved for the end of the transmission in progress.
    pub tx_end_seq: u64,
    /// The last packet size serialised and its time: a direction carries mostly one size
    /// (segments one way, ACKs the other), and this saves a 64-bit division per packet.
    tx_time_cache: (u32, u64),
    /// Propagation delay.
    pub delay: SimDuration,
    /// Node it arrives at.
    pub to: u32,
    /// [`PENDING`]: a `TxEnd` event is pending for this direction; [`VARYING`]: it has
    /// [`LinkDynamics`]; [`DELAYS`]: it has extra latency. One byte, so that "an idle
    /// transmitter may start an arrival at once" is one test on the fast path
    /// ([`LinkDir::may_start_at_once`]).
    flags: u8,
    /// Arrivals at the far end need judging: loss models, or outages that lose packets.
    judged: bool,
    /// An arrival of fewer bytes than this that finds the transmitter idle may go straight
    /// onto the wire ([`Queue::bypass_below`], read once: on the hot cache line, it spares
    /// every hop the queue's discipline test and its length).
    bypass_below: u64,
    /// Packets on the wire or propagating, in order of arrival at the far end, each with
    /// its arrival time and the scheduler insertion number reserved for its arrival event.
    pub pipe: Pipe,
    /// Counters (the sending ones first: every transmission adds to them).
    pub stats: LinkStats,
    /// Output queue.
    pub queue: Queue,
    /// Queueing delays and the queue's length over time.
    pub occupancy: QueueOccupancy,
    /// Loss models judged at the far end, in order.
    pub losses: Vec<Loss>,
    /// Extra per-packet latency, if any ([`DELAYS`] says whether there is). Boxed, so
    /// that a direction stays 704 bytes: at 768 indexing the directions took a shift more
    /// than the multiplication (+9 M instructions on the reference dumbbell, callgrind).
    latency: Option<Box<ExtraLatency>>,
    /// What changes during the run, if anything does.
    pub dynamics: Option<Box<LinkDynamics>>,
    /// Node the direction leaves from.
    pub from: u32,
    /// Transmission rate.
    pub rate: BitsPerSec,
    /// Human-readable name, `"<link>"` forward or `"<link>/rev"` backward.
    pub name: String,
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
        let judged = !losses.is_empty();
        LinkDir {
            bypass_below: queue.bypass_below(),
            name,
            from,
            to,
            rate,
            delay,
            queue,
            losses,
            busy_until: SimTime::ZERO,
            flags: if latency.is_some() { DELAYS } else { 0 },
            latency: latency.map(Box::new),
            tx_time_cache: (0, 0),
            pipe: Pipe::default(),
            tx_end_seq: 0,
            stats: LinkStats::default(),
            dynamics: None,
            judged,
            occupancy: QueueOccupancy::default(),
        }
    }

    /// This direction with a rate, delay or availability that changes as `dynamics` says.
    pub fn with_dynamics(mut self, dynamics: LinkDynamics) -> Self {
        self.judged |= !dynamics.outages.is_empty();
        self.tx_time_cache = (NO_SIZE, 0);
        self.flags |= VARYING;
        self.dynamics = Some(Box::new(dynamics));
        self
    }

    /// True while a `TxEnd` event is pending for this direction.
    #[inline(always)]
    pub fn tx_end_pending(&self) -> bool {
        self.flags & PENDING != 0
    }

    /// Records whether a `TxEnd` event is pending.
    #[inline(always)]
    pub fn set_tx_end_pending(&mut self, pending: bool) {
        if pending {
            self.flags |= PENDING;
        } else {
            self.flags &= !PENDING;
        }
    }

    /// True when the direction's rate, delay or availability varies ([`LinkDynamics`]).
    #[inline(always)]
    pub fn varies(&self) -> bool {
        self.flags & VARYING != 0
    }

    /// True when an arrival at an idle transmitter may start at once: no transmission end
    /// is pending and the direction is fixed (a varying one may have to wait).
    #[inline(always)]
    pub fn may_start_at_once(&self) -> bool {
        self.flags & (PENDING | VARYING) == 0
    }

    /// True when an arrival of `size` bytes that finds the transmitter idle (the caller has
    /// tested that) may go straight onto the wire, bypassing the queue: the direction is
    /// fixed, no transmission end is pending, and the queue would take it alone.
    ///
    /// The queue is empty then, untested: on a fixed direction packets wait only behind a
    /// transmission, and while any waits a transmission end is pending (the engine schedules
    /// one whenever it leaves a packet waiting, and each one dequeues a packet or finds the
    /// queue empty).
    #[inline(always)]
    pub fn may_bypass_queue(&self, size: u32) -> bool {
        let bypass = self.may_start_at_once() && (size as u64) < self.bypass_below;
        debug_assert!(
            !bypass || self.queue.is_empty(),
            "packets wait, none pending"
        );
        bypass
    }

    /// True when packets reaching the far end must be judged (loss models, outages) before
    /// they are delivered.
    #[inline(always)]
    pub fn judges_arrivals(&self) -> bool {
        self.judged
    }

    /// True when the link is down at `now` (an outage).
    #[inline]
    pub fn down_at(&self, now: SimTime) -> bool {
        self.dynamics
            .as_ref()
            .is_some_and(|d| d.outages.containing(now).is_some())
    }

    /// A varying direction whose transmitter is free at `now` but may not start yet (the
    /// link is down, or a trace's next delivery opportunity is later) is marked busy until
    /// it may; the end of that wait takes insertion number `reserve()` (a trace's
    /// opportunities come first at their instant instead). Returns whether the transmitter
    /// is busy at `now`.
    #[cold]
    #[inline(never)]
    pub fn hold(&mut self, now: SimTime, reserve: impl FnOnce() -> u64) -> bool {
        let Some(dynamics) = self.dynamics.as_deref_mut() else {
            return !self.idle_at(now);
        };
        if let Some(until) = dynamics.hold(now) {
            self.busy_until = until;
            self.tx_end_seq = if dynamics.is_trace() {
                FIRST_AT_INSTANT
            } else {
                reserve()
            };
        }
        !self.idle_at(now)
    }

    /// True when the transmitter can start a packet at `now`.
    #[inline]
    pub fn idle_at(&self, now: SimTime) -> bool {
        now >= self.busy_until
    }

    /// Serialisation time of a packet of `size` bytes, in nanoseconds, for a packet size
    /// that is not the cached one.
    #[inline(never)]
    fn refresh_tx_time(&mut self, size: u32) -> u64 {
        self.tx_time_cache = (size, self.rate.tx_time_ns(size));
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
        // A varying direction never caches a size (its cache holds NO_SIZE), so testing for
        // it costs a fixed one nothing on the common path.
        let tx = if self.tx_time_cache.0 == size {
            self.tx_time_cache.1
        } else if self.dynamics.is_some() {
            return self.start_varying_tx(now, id, size, seqs);
        } else {
            self.refresh_tx_time(size)
        };
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
        if self.flags & DELAYS == 0 {
            self.pipe.push_back(flight(earliest));
            return (self.pipe.len() == 1).then_some((earliest, seqs.arrival));
        }
        let latency = self
            .latency
            .as_deref_mut()
            .expect("a direction that delays");
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

    /// [`LinkDir::start_tx`] on a varying direction: the transmitter's [`LinkDynamics`]
    /// decides when the packet leaves and whether an outage loses it; a lost packet's arrival
    /// is the outage's start, where the far end drops it.
    #[cold]
    #[inline(never)]
    fn start_varying_tx(
        &mut self,
        now: SimTime,
        id: PacketId,
        size: u32,
        seqs: TxSeqs,
    ) -> Option<(SimTime, u64)> {
        let dynamics = self.dynamics.as_deref_mut().expect("a varying direction");
        let passage = dynamics.transmit(now, size);
        self.busy_until = passage.free_at;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        self.stats.busy_ns += passage.busy_ns;
        self.tx_end_seq = if dynamics.is_trace() {
            FIRST_AT_INSTANT
        } else {
            seqs.end
        };
        let last = self.pipe.back().map_or(SimTime::ZERO, |p| p.arrival);
        let reorders = self.latency.as_ref().is_some_and(|l| l.allows_reordering());
        let arrival = match passage.cut {
            Some(down) => down,
            None => {
                let earliest = dynamics
                    .earliest_arrival(passage.end, if reorders { SimTime::ZERO } else { last });
                let arrival = match self.latency.as_deref_mut() {
                    Some(latency) => latency.arrival(earliest, last),
                    None => earliest,
                };
                // Propagating when the link goes down: lost at that instant. (An outage
                // while it was being sent has cut it already.)
                match dynamics.outages.starting_in(passage.end, arrival) {
                    Some((down, _)) => down,
                    None => arrival,
                }
            }
        };
        let flight = InFlight {
            arrival,
            seq: seqs.arrival,
            id,
        };
        // As at the end of `start_tx`, written out again: a helper shared with it, even out
        // of line, cost the fixed directions' path 0.9 % (callgrind, reference dumbbell).
        if reorders {
            let at = self.pipe.insert_by_arrival(flight);
            (at == 0).then_some((arrival, seqs.arrival))
        } else {
            self.pipe.push_back(flight);
            (self.pipe.len() == 1).then_some((arrival, seqs.arrival))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn what_every_hop_touches_is_in_the_first_two_cache_lines() {
        let hot_end = [
            offset_of!(LinkDir, busy_until) + size_of::<SimTime>(),
            offset_of!(LinkDir, tx_end_seq) + size_of::<u64>(),
            offset_of!(LinkDir, flags) + 1,
            offset_of!(LinkDir, pipe) + size_of::<Pipe>(),
            offset_of!(LinkDir, stats) + offset_of!(LinkStats, max_queue) + size_of::<u64>(),
        ];
        assert!(hot_end.iter().all(|&end| end <= 128), "{hot_end:?}");
        assert_eq!(offset_of!(LinkDir, stats) % 16, 0);
        assert_eq!(size_of::<LinkDir>() % 64, 0);
    }
}
