//! A shared wireless medium with the 802.11 DCF (IEEE 802.11-2020 §10.3), at the level that
//! changes what TCP sees: contention, link-layer retries, the data rate, and the delay they
//! add.
//!
//! A [`Medium`] is one collision domain: every station hears every other, and any station
//! reaches any other in one hop (frames between two stations of an infrastructure BSS are
//! not relayed through the access point). Propagation takes no time (the slot time covers
//! it). Each station has an interface queue (drop-tail, the frame being sent counted, as
//! ns-3's `WifiMacQueue`) and a MAC that sends one frame at a time:
//!
//! 1. **Contention.** A frame that reaches an idle station whose backoff is zero goes on the
//!    air once the medium has been idle for DIFS (or EIFS) since it was last busy
//!    (10.3.4.2). Otherwise the station counts down a backoff of slots drawn uniformly from
//!    [0, CW] (10.3.3), one per idle slot after its deferral, frozen while the medium is
//!    busy (10.3.4.3). Stations whose backoffs end in the same slot transmit together: a
//!    collision. After every exchange the sender draws a new backoff even with nothing to
//!    send (post-backoff), so back-to-back frames always contend.
//! 2. **Exchange.** DATA, then after SIFS the receiver's Ack (10.3.2.11); with `rts_threshold`
//!    set, frames longer than it are preceded by RTS and CTS, each after SIFS. The frame's
//!    receiver judges each frame addressed to it with its loss models (bit errors on the
//!    frame's bits, Gilbert-Elliott, ...): a corrupted data frame gets no Ack, a corrupted
//!    Ack or CTS fails the exchange at the sender.
//! 3. **After.** Stations defer DIFS after the medium goes idle; EIFS instead after a frame
//!    they received with errors (10.3.2.3.7: the colliding frames' hearers, the receiver of
//!    a corrupted frame); a sender whose response did not come waits out its response
//!    timeout (SIFS + slot + aRxPHYStartDelay) and then DIFS; stations that set their NAV
//!    from a frame defer to its end (10.3.2.4), resetting an RTS's NAV when no CTS started
//!    in time.
//! 4. **Retries.** A failed attempt doubles CW (plus one, up to CWmax) and increments the
//!    frame's short retry counter (frames up to the RTS threshold, and RTSs) or long one
//!    (longer frames); a CTS resets the short counter. At dot11ShortRetryLimit (7) or
//!    dot11LongRetryLimit (4) the frame is discarded and CW returns to CWmin (10.3.4.4).
//!    A packet delivered whose Ack was lost is sent again and acknowledged again, but the
//!    receiver passes it up only once (duplicate detection).
//!
//! Loss models judge only the frames a station is addressed by; every other station hears
//! a frame that did not collide intact (it sets its NAV from it).
//!
//! The medium is a sans-IO state machine, as TCP endpoints are: the network offers it
//! packets ([`Medium::offer`]), asks when its next step is due ([`Medium::poll_timeout`])
//! and runs that step ([`Medium::on_timeout`]); each step leaves what the network must do in
//! [`Medium::take_outcomes`] (deliver a packet at a node, drop one after the retry limit)
//! and, when tracing, what happened on the air. One event is pending per medium.

pub mod phy;
mod station;

pub use phy::{Modulation, Phy, Rate, Standard, STANDARDS};
pub use station::StationStats;

use crate::engine::TimerSlot;
use crate::loss::Loss;
use crate::packet::{Packet, PacketId, PacketPool};
use crate::queue::QueueLimit;
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};
use phy::{ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use station::{Frame, Station, Waiting};

/// The MAC's settings, shared by a medium's stations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacConfig {
    /// Rates and timing.
    pub phy: Phy,
    /// Frames whose MPDU is longer than this many bytes are sent after an RTS/CTS
    /// exchange (dot11RTSThreshold); `None`: never.
    pub rts_threshold: Option<u32>,
    /// dot11ShortRetryLimit: attempts of a frame up to the threshold, and of an RTS.
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a frame longer than the threshold.
    pub long_retry_limit: u32,
}

/// A station to build: its node, queue limit, receiver's loss models and backoff stream.
#[derive(Debug)]
pub struct StationSetup {
    /// The node it belongs to.
    pub node: u32,
    /// Its interface queue's limit (the frame being sent counts).
    pub limit: QueueLimit,
    /// Loss models judging the frames addressed to it.
    pub losses: Vec<Loss>,
    /// Its own random stream, for backoffs.
    pub rng: RngStream,
}

/// What a step asks the network to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Packet `id` reached station `to` intact: it leaves the medium at that station's node.
    Deliver {
        /// The packet.
        id: PacketId,
        /// Receiving station.
        to: u32,
    },
    /// Station `station` gave packet `id` up after the retry limit.
    RetryDrop {
        /// The packet.
        id: PacketId,
        /// Sending station.
        station: u32,
    },
}

/// Kinds of frames on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// A data frame carrying a packet.
    Data,
    /// An acknowledgement.
    Ack,
    /// Request to send.
    Rts,
    /// Clear to send.
    Cts,
}

/// A frame put on the air, as a capture would see it.
#[derive(Clone, Copy, Debug)]
pub struct AirFrame {
    /// When it starts.
    pub start: SimTime,
    /// What it is.
    pub kind: FrameKind,
    /// Transmitting station.
    pub from: u32,
    /// Station it is addressed to.
    pub to: u32,
    /// Its rate, bit/s.
    pub bps: u64,
    /// A retransmission (the Retry bit of its frame control).
    pub retry: bool,
    /// Sequence number (data frames).
    pub seq: u16,
    /// Its Duration field: the NAV it sets after its end, µs.
    pub nav_us: u64,
    /// The packet a data frame carries.
    pub packet: Option<Packet>,
}

/// What happened on a medium, for traces (collected only while tracing).
#[derive(Clone, Copy, Debug)]
pub enum AirTrace {
    /// Station `station` starts an attempt at sending packet `packet` (handle `uid`).
    Attempt {
        /// Sending station.
        station: u32,
        /// The packet.
        packet: Packet,
        /// Its handle.
        uid: u32,
        /// A retransmission.
        retry: bool,
    },
    /// Station `station`'s frame carrying `packet` arrived intact (the first time).
    Received {
        /// Sending station.
        station: u32,
        /// The packet.
        packet: Packet,
        /// Its handle.
        uid: u32,
    },
    /// Station `station`'s queue changed: `packets` wait behind the frame in service.
    Queue {
        /// The station.
        station: u32,
        /// Packets waiting.
        packets: u32,
        /// Their bytes.
        bytes: u64,
    },
    /// A frame starts on the air.
    Frame(AirFrame),
}

/// What the medium is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing on the air: stations defer and count down.
    Idle,
    /// Frames of several stations on the air (in `colliding`) until `end`.
    Collision { end: SimTime },
    /// `sender`'s RTS on the air until `end`.
    Rts { sender: u32, end: SimTime },
    /// The CTS answering `sender`'s RTS until `end`.
    Cts { sender: u32, end: SimTime },
    /// `sender`'s data frame until `end`.
    Data { sender: u32, end: SimTime },
    /// The Ack to `sender`'s data frame until `end`.
    Ack { sender: u32, end: SimTime },
}

/// A shared medium and its stations.
#[derive(Debug)]
pub struct Medium {
    /// Its name in the scenario.
    pub name: String,
    mac: MacConfig,
    stations: Vec<Station>,
    phase: Phase,
    /// Stations whose frames collide, each with the end of its own frame.
    colliding: Vec<(u32, SimTime)>,
    /// End of the NAV the RTS of the exchange in progress set (its whole exchange).
    rts_nav_end: SimTime,
    outcomes: Vec<Outcome>,
    tracing: bool,
    trace: Vec<AirTrace>,
    /// The medium's one pending event, lazily cancelled.
    pub timer: TimerSlot,
}

impl Medium {
    /// A medium named `name` with `stations`, all idle, every backoff at zero.
    pub fn new(name: String, mac: MacConfig, stations: Vec<StationSetup>) -> Self {
        let stations = stations
            .into_iter()
            .map(|s| Station::new(s.node, s.limit, s.losses, s.rng, mac.phy.cw_min))
            .collect();
        Medium {
            name,
            mac,
            stations,
            phase: Phase::Idle,
            colliding: Vec::new(),
            rts_nav_end: SimTime::ZERO,
            outcomes: Vec::new(),
            tracing: false,
            trace: Vec::new(),
            timer: TimerSlot::default(),
        }
    }

    /// The MAC's settings.
    pub fn mac(&self) -> &MacConfig {
        &self.mac
    }

    /// Records what happens on the air from now on ([`Medium::take_trace`]).
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }

    /// Number of stations.
    pub fn len(&self) -> usize {
        self.stations.len()
    }

    /// True for a medium without stations (a scenario never builds one).
    pub fn is_empty(&self) -> bool {
        self.stations.is_empty()
    }

    /// The node of station `station`.
    pub fn node(&self, station: u32) -> u32 {
        self.stations[station as usize].node
    }

    /// The counters of station `station`.
    pub fn stats(&self, station: u32) -> &StationStats {
        &self.stations[station as usize].stats
    }

    /// The packets station `station` holds: waiting, and the frame it is sending while its
    /// packet has not been delivered.
    pub fn packets(&self, station: u32) -> impl Iterator<Item = PacketId> + '_ {
        let s = &self.stations[station as usize];
        s.head
            .and_then(|f| f.id)
            .into_iter()
            .chain(s.waiting.iter().map(|w| w.id))
    }

    /// The outcomes of the last steps, taken out (give the vector back with
    /// [`Medium::give_back_outcomes`] to keep its capacity).
    pub fn take_outcomes(&mut self) -> Vec<Outcome> {
        std::mem::take(&mut self.outcomes)
    }

    /// Returns the (drained) vector [`Medium::take_outcomes`] took.
    pub fn give_back_outcomes(&mut self, mut outcomes: Vec<Outcome>) {
        outcomes.clear();
        if self.outcomes.is_empty() {
            self.outcomes = outcomes;
        }
    }

    /// What happened on the air since the last call, while tracing.
    pub fn take_trace(&mut self) -> Vec<AirTrace> {
        std::mem::take(&mut self.trace)
    }

    /// Offers packet `id` (`packet`) to station `station` at `now`, for station `to`. False
    /// when the interface queue is full: the packet is refused (the caller drops it).
    pub fn offer(
        &mut self,
        now: SimTime,
        station: u32,
        id: PacketId,
        packet: &Packet,
        to: u32,
    ) -> bool {
        let slot = self.mac.phy.slot;
        let idle = self.phase == Phase::Idle;
        let s = &mut self.stations[station as usize];
        if !s.limit.fits(s.queued(), s.bytes, packet.size) {
            s.stats.queue_drops += 1;
            return false;
        }
        s.bytes += packet.size as u64;
        if s.head.is_some() {
            s.waiting.push_back(Waiting { id, to });
        } else {
            let frame = self.frame(station, id, packet, to);
            let s = &mut self.stations[station as usize];
            s.head = Some(frame);
            if idle {
                if s.remaining(now, slot) == 0 {
                    // 10.3.4.2: the medium is idle and the backoff is zero; send once it
                    // has been idle for DIFS (or EIFS) since it was last busy.
                    s.backoff = 0;
                    s.count_from = s.count_from.max(now);
                }
                // Otherwise the post-backoff still counting down sends the frame.
            } else if s.backoff == 0 {
                // The medium is busy: back off (10.3.4.2).
                s.draw_backoff();
            }
        }
        let s = &mut self.stations[station as usize];
        s.note_queue();
        self.trace_queue(station);
        true
    }

    /// When the next step is due: a contention won, or the end of the frame on the air.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self.phase {
            Phase::Idle => {
                let slot = self.mac.phy.slot;
                self.stations
                    .iter()
                    .filter(|s| s.head.is_some())
                    .map(|s| s.backoff_ends(slot))
                    .min()
            }
            Phase::Collision { end }
            | Phase::Rts { end, .. }
            | Phase::Cts { end, .. }
            | Phase::Data { end, .. }
            | Phase::Ack { end, .. } => Some(end),
        }
    }

    /// Runs the step due at `now` ([`Medium::poll_timeout`]); `pool` holds the packets
    /// that wait in the stations' queues.
    pub fn on_timeout(&mut self, now: SimTime, pool: &PacketPool) {
        debug_assert_eq!(self.poll_timeout(), Some(now));
        match self.phase {
            Phase::Idle => self.contend(now),
            Phase::Collision { .. } => self.end_collision(now, pool),
            Phase::Rts { sender, .. } => self.end_rts(now, sender, pool),
            Phase::Cts { sender, .. } => self.end_cts(now, sender, pool),
            Phase::Data { sender, .. } => self.end_data(now, sender, pool),
            Phase::Ack { sender, .. } => self.end_ack(now, sender, pool),
        }
    }

    /// A new frame for `packet`, from `station` to `to`.
    fn frame(&mut self, station: u32, id: PacketId, packet: &Packet, to: u32) -> Frame {
        let s = &mut self.stations[station as usize];
        let seq = s.next_seq;
        s.next_seq = (s.next_seq + 1) % 4096; // 12-bit sequence numbers (9.2.4.4.2)
        Frame {
            packet: *packet,
            id: Some(id),
            uid: id.0,
            to,
            mpdu: packet.size + DATA_OVERHEAD_BYTES,
            air: self.mac.phy.data(packet.size),
            short_retries: 0,
            long_retries: 0,
            attempts: 0,
            seq,
        }
    }

    /// True when `frame` goes after an RTS/CTS exchange, and counts its failures on the
    /// long retry counter.
    fn is_long(&self, frame: &Frame) -> bool {
        self.mac.rts_threshold.is_some_and(|t| frame.mpdu > t)
    }

    /// The NAV a data frame sets: until the end of its Ack.
    fn data_nav(&self) -> SimDuration {
        self.mac.phy.sifs + self.mac.phy.ack
    }

    /// Contention ends at `now`: the stations whose backoffs end now transmit, the others
    /// freeze theirs.
    fn contend(&mut self, now: SimTime) {
        let slot = self.mac.phy.slot;
        self.colliding.clear();
        for (i, s) in self.stations.iter_mut().enumerate() {
            if s.head.is_some() && s.backoff_ends(slot) == now {
                self.colliding.push((i as u32, now));
                continue;
            }
            s.backoff = s.remaining(now, slot);
            if s.head.is_some() && s.backoff == 0 {
                // It waited for DIFS to send at once, and the medium turned busy first:
                // now it must back off (10.3.4.2).
                s.draw_backoff();
            }
        }
        if let [(sender, _)] = self.colliding[..] {
            self.start_attempt(now, sender, false);
            return;
        }
        let mut end = now;
        for k in 0..self.colliding.len() {
            let sender = self.colliding[k].0;
            let own_end = self.start_attempt(now, sender, true);
            self.colliding[k].1 = own_end;
            end = end.max(own_end);
        }
        self.phase = Phase::Collision { end };
    }

    /// `sender` starts an attempt at `now` (an RTS, or its data frame); returns when its
    /// frame ends. In a collision the phase is set by the caller.
    fn start_attempt(&mut self, now: SimTime, sender: u32, collision: bool) -> SimTime {
        let phy = self.mac.phy;
        let mut frame = self.stations[sender as usize]
            .head
            .expect("a contender has a frame");
        frame.attempts += 1;
        let retry = frame.attempts > 1;
        let uses_rts = self.is_long(&frame);
        let data_nav = self.data_nav();
        let s = &mut self.stations[sender as usize];
        s.head = Some(frame);
        s.stats.retries += u64::from(retry);
        s.stats.collisions += u64::from(collision);
        let (kind, air, nav, bps) = if uses_rts {
            s.stats.rts_sent += 1;
            // The RTS reserves CTS, data and Ack, each after SIFS.
            let nav = phy.sifs + phy.cts + phy.sifs + frame.air + data_nav;
            (FrameKind::Rts, phy.rts, nav, phy.basic_rate.bps)
        } else {
            s.stats.frames_sent += 1;
            (FrameKind::Data, frame.air, data_nav, phy.data_rate.bps)
        };
        s.stats.airtime_ns += air.as_nanos();
        let end = now + air;
        if uses_rts {
            self.rts_nav_end = end + nav;
        }
        if !collision {
            self.phase = if uses_rts {
                Phase::Rts { sender, end }
            } else {
                Phase::Data { sender, end }
            };
        }
        if self.tracing {
            self.trace.push(AirTrace::Attempt {
                station: sender,
                packet: frame.packet,
                uid: frame.uid,
                retry,
            });
            self.trace_frame(now, kind, sender, frame.to, bps, retry, nav, &frame);
        }
        end
    }

    /// The colliding frames have ended at `now`: every hearer defers EIFS, each sender
    /// waits out its response timeout, and every sender's attempt has failed.
    fn end_collision(&mut self, now: SimTime, pool: &PacketPool) {
        let phy = self.mac.phy;
        for s in &mut self.stations {
            s.count_from = now + phy.eifs;
        }
        for k in 0..self.colliding.len() {
            let (sender, own_end) = self.colliding[k];
            // An RTS and a frame up to the threshold fail on the short counter.
            self.stations[sender as usize].count_from =
                (own_end + phy.response_timeout).max(now) + phy.difs;
            self.fail(sender, false, pool);
        }
        self.phase = Phase::Idle;
    }

    /// `sender`'s RTS ended at `now`: its receiver answers with a CTS, or heard it
    /// corrupted and stays silent.
    fn end_rts(&mut self, now: SimTime, sender: u32, pool: &PacketPool) {
        let phy = self.mac.phy;
        let frame = self.stations[sender as usize]
            .head
            .expect("sender has a frame");
        let to = frame.to;
        if self.stations[to as usize].corrupts(now, RTS_BYTES, None) {
            // The others set their NAV from the RTS and reset it when no CTS starts
            // within 2 SIFS + CTS + aRxPHYStartDelay + 2 slots (10.3.2.4).
            let reset = now + phy.sifs + phy.response_timeout + phy.cts + phy.slot;
            self.defer_all(reset + phy.difs);
            self.stations[to as usize].count_from = now + phy.eifs;
            self.stations[sender as usize].count_from = now + phy.response_timeout + phy.difs;
            self.fail(sender, false, pool);
            self.phase = Phase::Idle;
            return;
        }
        let start = now + phy.sifs;
        self.stations[to as usize].stats.airtime_ns += phy.cts.as_nanos();
        if self.tracing {
            let nav = SimDuration(self.rts_nav_end.as_nanos() - (start + phy.cts).as_nanos());
            let bps = phy.basic_rate.bps;
            self.trace_frame(start, FrameKind::Cts, to, sender, bps, false, nav, &frame);
        }
        self.phase = Phase::Cts {
            sender,
            end: start + phy.cts,
        };
    }

    /// The CTS to `sender` ended at `now`: the data frame follows after SIFS, unless the
    /// CTS arrived corrupted.
    fn end_cts(&mut self, now: SimTime, sender: u32, pool: &PacketPool) {
        let phy = self.mac.phy;
        let mut frame = self.stations[sender as usize]
            .head
            .expect("sender has a frame");
        let to = frame.to;
        if self.stations[sender as usize].corrupts(now, CTS_BYTES, None) {
            // The others keep the RTS's NAV: a CTS did start.
            self.defer_all(self.rts_nav_end + phy.difs);
            self.stations[to as usize].count_from = now + phy.difs;
            self.stations[sender as usize].count_from = now + phy.eifs;
            self.fail(sender, false, pool);
            self.phase = Phase::Idle;
            return;
        }
        // 10.3.4.4: the short retry counter is reset when a CTS answers the RTS.
        frame.short_retries = 0;
        let start = now + phy.sifs;
        let s = &mut self.stations[sender as usize];
        s.head = Some(frame);
        s.stats.frames_sent += 1;
        s.stats.airtime_ns += frame.air.as_nanos();
        if self.tracing {
            let (bps, nav, retry) = (phy.data_rate.bps, self.data_nav(), frame.attempts > 1);
            self.trace_frame(start, FrameKind::Data, sender, to, bps, retry, nav, &frame);
        }
        self.phase = Phase::Data {
            sender,
            end: start + frame.air,
        };
    }

    /// `sender`'s data frame ended at `now`: its receiver passes the packet up (once) and
    /// acknowledges it after SIFS, or heard it corrupted and stays silent.
    fn end_data(&mut self, now: SimTime, sender: u32, pool: &PacketPool) {
        let phy = self.mac.phy;
        let mut frame = self.stations[sender as usize]
            .head
            .expect("sender has a frame");
        let to = frame.to;
        if self.stations[to as usize].corrupts(now, frame.mpdu, Some(&frame.packet)) {
            let long = self.is_long(&frame);
            self.defer_all(now + self.data_nav() + phy.difs);
            self.stations[to as usize].count_from = now + phy.eifs;
            self.stations[sender as usize].count_from = now + phy.response_timeout + phy.difs;
            self.fail(sender, long, pool);
            self.phase = Phase::Idle;
            return;
        }
        if let Some(id) = frame.id.take() {
            self.outcomes.push(Outcome::Deliver { id, to });
            self.stations[to as usize].stats.frames_received += 1;
            self.stations[sender as usize].head = Some(frame);
            if self.tracing {
                self.trace.push(AirTrace::Received {
                    station: sender,
                    packet: frame.packet,
                    uid: frame.uid,
                });
            }
        }
        let start = now + phy.sifs;
        self.stations[to as usize].stats.airtime_ns += phy.ack.as_nanos();
        if self.tracing {
            let bps = phy.basic_rate.bps;
            let zero = SimDuration::ZERO;
            self.trace_frame(start, FrameKind::Ack, to, sender, bps, false, zero, &frame);
        }
        self.phase = Phase::Ack {
            sender,
            end: start + phy.ack,
        };
    }

    /// The Ack to `sender` ended at `now`: the frame is done, or the Ack arrived corrupted
    /// and the attempt failed.
    fn end_ack(&mut self, now: SimTime, sender: u32, pool: &PacketPool) {
        let phy = self.mac.phy;
        self.defer_all(now + phy.difs);
        self.phase = Phase::Idle;
        let frame = self.stations[sender as usize]
            .head
            .expect("sender has a frame");
        if self.stations[sender as usize].corrupts(now, ACK_BYTES, None) {
            let long = self.is_long(&frame);
            self.stations[sender as usize].count_from = now + phy.eifs;
            self.fail(sender, long, pool);
            return;
        }
        // Success: CW back to CWmin (10.3.3), the next frame, a post-backoff.
        let s = &mut self.stations[sender as usize];
        s.cw = phy.cw_min;
        self.finish_frame(sender, pool);
    }

    /// Every station defers until `until` before counting down.
    fn defer_all(&mut self, until: SimTime) {
        for s in &mut self.stations {
            s.count_from = until;
        }
    }

    /// `sender`'s attempt failed: a retry counter grows; at its limit the frame is given
    /// up, else CW doubles and a new backoff is drawn.
    fn fail(&mut self, sender: u32, long: bool, pool: &PacketPool) {
        let (short_limit, long_limit) = (self.mac.short_retry_limit, self.mac.long_retry_limit);
        let cw_min = self.mac.phy.cw_min;
        let next_cw = self.mac.phy.next_cw(self.stations[sender as usize].cw);
        let s = &mut self.stations[sender as usize];
        let frame = s.head.as_mut().expect("sender has a frame");
        if long {
            frame.long_retries += 1;
        } else {
            frame.short_retries += 1;
        }
        if frame.short_retries < short_limit && frame.long_retries < long_limit {
            s.cw = next_cw;
            s.draw_backoff();
            return;
        }
        s.stats.retry_drops += 1;
        if let Some(id) = frame.id {
            self.outcomes.push(Outcome::RetryDrop {
                id,
                station: sender,
            });
        }
        s.cw = cw_min;
        self.finish_frame(sender, pool);
    }

    /// `sender` is done with its frame (sent or given up): the next packet waiting becomes
    /// its frame, and it draws a backoff.
    fn finish_frame(&mut self, sender: u32, pool: &PacketPool) {
        let s = &mut self.stations[sender as usize];
        let done = s.head.take().expect("sender has a frame");
        s.bytes -= done.packet.size as u64;
        s.draw_backoff();
        if let Some(next) = s.waiting.pop_front() {
            let packet = *pool.get(next.id);
            let frame = self.frame(sender, next.id, &packet, next.to);
            self.stations[sender as usize].head = Some(frame);
        }
        self.trace_queue(sender);
    }

    fn trace_queue(&mut self, station: u32) {
        if !self.tracing {
            return;
        }
        let s = &self.stations[station as usize];
        let waiting_bytes = s.bytes - s.head.map_or(0, |f| f.packet.size as u64);
        self.trace.push(AirTrace::Queue {
            station,
            packets: s.waiting.len() as u32,
            bytes: waiting_bytes,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn trace_frame(
        &mut self,
        start: SimTime,
        kind: FrameKind,
        from: u32,
        to: u32,
        bps: u64,
        retry: bool,
        nav: SimDuration,
        frame: &Frame,
    ) {
        self.trace.push(AirTrace::Frame(AirFrame {
            start,
            kind,
            from,
            to,
            bps,
            retry,
            seq: frame.seq,
            nav_us: nav.as_nanos().div_ceil(1000),
            packet: (kind == FrameKind::Data).then_some(frame.packet),
        }));
    }
}

#[cfg(test)]
mod tests;
