//! One station of a medium: its interface queue, the frame its MAC is sending, its DCF
//! state (contention window, backoff counter) and its receiver's loss models.

use std::collections::VecDeque;

use crate::loss::Loss;
use crate::packet::{Packet, PacketId};
use crate::queue::QueueLimit;
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// What one station did, counted by the medium.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StationStats {
    /// Data frames put on the air, retransmissions included.
    pub frames_sent: u64,
    /// Attempts after a frame's first (each starts with an RTS when RTS/CTS is on).
    pub retries: u64,
    /// Attempts that overlapped another station's on the air.
    pub collisions: u64,
    /// Frames given up after the retry limit.
    pub retry_drops: u64,
    /// Packets refused by the full interface queue.
    pub queue_drops: u64,
    /// RTS frames sent.
    pub rts_sent: u64,
    /// Frames addressed to this station that arrived with errors (data, Ack, RTS, CTS).
    pub frame_errors: u64,
    /// Data frames received intact and passed up (each packet once).
    pub frames_received: u64,
    /// Time spent transmitting (data, Ack, RTS, CTS frames), ns.
    pub airtime_ns: u64,
    /// Most packets in the interface queue at once (the frame being sent included).
    pub max_queue: u64,
    /// Backoff slots drawn, in total (for checking the DCF's timing).
    pub backoff_slots: u64,
}

/// A packet waiting behind the frame in service.
#[derive(Clone, Copy, Debug)]
pub(super) struct Waiting {
    pub id: PacketId,
    /// Station it goes to.
    pub to: u32,
}

/// The frame a station's MAC is sending: kept until it is acknowledged or given up, even
/// after its packet has been delivered (an Ack lost on the way back makes the sender send
/// it again; the receiver then acknowledges the duplicate and discards it).
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// A copy of the packet it carries, for loss models and traces.
    pub packet: Packet,
    /// The packet's handle while it is in the medium; `None` once delivered.
    pub id: Option<PacketId>,
    /// The handle it had, for traces (`uid`).
    pub uid: u32,
    /// Station it goes to.
    pub to: u32,
    /// MPDU bytes (packet plus MAC header, LLC/SNAP, FCS).
    pub mpdu: u32,
    /// Air time of the data frame.
    pub air: SimDuration,
    /// The short and long retry counters of 10.3.4.4.
    pub short_retries: u32,
    pub long_retries: u32,
    /// Attempts so far (each contention won for it).
    pub attempts: u32,
    /// Its 802.11 sequence number (for pcap; a retransmission repeats it).
    pub seq: u16,
}

/// One station.
#[derive(Debug)]
pub(super) struct Station {
    /// The node it belongs to.
    pub node: u32,
    pub limit: QueueLimit,
    pub waiting: VecDeque<Waiting>,
    /// Bytes of the packets waiting and of the frame in service.
    pub bytes: u64,
    pub head: Option<Frame>,
    /// The contention window, CW: backoffs are drawn from [0, CW].
    pub cw: u32,
    /// Backoff slots left: frozen while the medium is busy, counting down while it is
    /// idle from `count_from` on.
    pub backoff: u32,
    /// When the station's deferral after the last busy period ends (DIFS, EIFS or its own
    /// response timeout, or the NAV) and its backoff counts down from.
    pub count_from: SimTime,
    pub rng: RngStream,
    /// Loss models judging the frames this station receives.
    pub losses: Vec<Loss>,
    pub next_seq: u16,
    pub stats: StationStats,
}

impl Station {
    pub fn new(node: u32, limit: QueueLimit, losses: Vec<Loss>, rng: RngStream, cw: u32) -> Self {
        Station {
            node,
            limit,
            waiting: VecDeque::new(),
            bytes: 0,
            head: None,
            cw,
            backoff: 0,
            count_from: SimTime::ZERO,
            rng,
            losses,
            next_seq: 0,
            stats: StationStats::default(),
        }
    }

    /// Packets in the interface queue, the frame in service included.
    pub fn queued(&self) -> usize {
        self.waiting.len() + usize::from(self.head.is_some())
    }

    /// Backoff slots left at `now` while the medium is idle: the slots that ended idle
    /// since `count_from` are counted off (10.3.4.3: one per idle slot after DIFS).
    pub fn remaining(&self, now: SimTime, slot: SimDuration) -> u32 {
        if now <= self.count_from {
            return self.backoff;
        }
        let elapsed = (now - self.count_from).as_nanos() / slot.as_nanos();
        self.backoff
            .saturating_sub(elapsed.min(u32::MAX as u64) as u32)
    }

    /// When this station's backoff reaches zero while the medium stays idle.
    pub fn backoff_ends(&self, slot: SimDuration) -> SimTime {
        self.count_from + SimDuration(slot.as_nanos() * self.backoff as u64)
    }

    /// Draws a backoff uniformly from [0, CW] (10.3.3) from the station's own stream.
    pub fn draw_backoff(&mut self) {
        let choices = self.cw as u128 + 1;
        let slots = ((self.rng.next_u64() as u128 * choices) >> 64) as u32;
        self.backoff = slots;
        self.stats.backoff_slots += slots as u64;
    }

    /// Counts `now`'s queue length towards the peak.
    pub fn note_queue(&mut self) {
        self.stats.max_queue = self.stats.max_queue.max(self.queued() as u64);
    }

    /// Judges a frame of `bytes` bytes arriving here at `now`, carrying `packet` or
    /// nothing: true if any of the station's loss models corrupts it (all are stepped in
    /// order until one does, as on a link).
    pub fn corrupts(&mut self, now: SimTime, bytes: u32, packet: Option<&Packet>) -> bool {
        let corrupted = self
            .losses
            .iter_mut()
            .any(|model| model.judge_frame(now, bytes, packet).is_some());
        if corrupted {
            self.stats.frame_errors += 1;
        }
        corrupted
    }
}
