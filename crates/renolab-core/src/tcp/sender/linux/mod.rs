//! The Linux sender: a Linux 6.x socket at its default sysctls (`recovery = "prr"`, the
//! default of `profile = "linux"`): SACK with RACK-TLP loss detection (RFC 8985) and
//! Proportional Rate Reduction (RFC 6937), driven by Linux's congestion-state machine
//! (`tcp_fastretrans_alert()` in `net/ipv4/tcp_input.c`).
//!
//! - States ([`CaState`], Linux `icsk_ca_state`): Open; Disorder (SACKs or retransmissions
//!   outstanding, no loss yet); CWR (an ECN-triggered reduction); Recovery (fast recovery
//!   after RACK deemed segments lost); Loss (after a retransmission timeout).
//! - On each ACK (`ack.rs`, `tcp_ack()`): the retransmission queue ([`segments`]) takes the
//!   SACK blocks and the cumulative ACK; the RTT is measured from the send time of the
//!   oldest newly acknowledged segment never retransmitted (or, failing that, the newest
//!   SACKed one); RACK marks losses (`loss.rs`, [`rack`]); recovery starts when a segment is
//!   lost (`tcp_time_to_recover()`: "the loss is proven") and ends when everything
//!   outstanding at its start is acknowledged, with cwnd = ssthresh; within a reduction PRR
//!   ([`prr`]) sets cwnd on every ACK, elsewhere the controller grows it.
//! - Sending (`transmit.rs`, `tcp_xmit_retransmit_queue()`, `tcp_write_xmit()`): segments
//!   deemed lost first, then new data, while fewer than cwnd segments are in flight; with
//!   GSO (`gso.rs`), in buffers of `tcp_tso_autosize()` segments that leave at one instant,
//!   a buffer the window would cut short waiting for the next ACK (`tcp_tso_should_defer()`).
//! - Timers (`timers.rs`, one at a time, Linux's `icsk_pending`): the tail-loss probe in the
//!   Open and CWR states, RACK's reordering timer, else the retransmission timer. A timeout
//!   marks the segments older than RACK's RTT lost, sets cwnd to the flight plus one, and
//!   retransmits the first.
//! - The window grows only while the sender used it (`tcp_is_cwnd_limited()`), and after an
//!   idle period longer than the RTO it restarts (`tcp_cwnd_restart()`).
//!
//! Left out, with why: F-RTO (RFC 5682) and the undo of spurious reductions (Eifel,
//! DSACK): they need spurious timeouts or duplicate deliveries, which renolab's links only
//! cause with reordering latency; the receiver sends no DSACK; timers are not rounded to
//! jiffies; no TCP Small Queues (a simulated host has no qdisc below TCP).

mod ack;
mod gso;
mod loss;
pub mod prr;
pub mod rack;
pub mod segments;
mod timers;
mod transmit;

use prr::Prr;
use rack::{probe_timeout, sent_after, Rack, Tlp, TLP_MIN_EXTRA};
use segments::Segments;

use super::conn::Prelude;
use super::{Conn, Transmit};
use crate::packet::sack::SackBlocks;
use crate::packet::Ecn;
pub use crate::tcp::cc::CaState;
use crate::tcp::cc::{AckSample, Cc, CcEvent, Congestion, CongestionControl, ConnState};
use crate::tcp::config::{SenderConfig, Transfer};
use crate::tcp::minmax::{Keep, MinMax};
use crate::tcp::rate::RateEstimator;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// Linux `tcp_min_rtt_wlen` (sysctl default 300 s): the window of the min-RTT filter.
pub const MIN_RTT_WINDOW: SimDuration = SimDuration::from_secs(300);

/// A segment opens a GSO buffer not sized yet (sized only if it goes: the sizing divides).
const NEW_BUFFER: u32 = u32::MAX;

/// Which timer the sender's one deadline stands for (Linux `icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XmitTimer {
    /// The retransmission timer.
    Retransmit,
    /// The tail-loss probe.
    LossProbe,
    /// RACK's reordering window runs out.
    Reordering,
}

/// The Linux sender.
#[derive(Debug)]
pub struct LinuxSender {
    conn: Conn,
    cc: Cc,
    /// The retransmission queue: each outstanding segment's state.
    pub segs: Segments,
    /// Delivery-rate estimation.
    pub rate: RateEstimator,
    /// RACK's state.
    pub rack: Rack,
    /// The tail-loss probe's state.
    pub tlp: Tlp,
    /// The congestion state.
    pub ca: CaState,
    /// `snd_max` when the current reduction, recovery or loss episode began.
    pub high_seq: u32,
    /// PRR's counters of the current reduction.
    pub prr: Prr,
    /// Linux `tp->reordering`: the duplicate threshold of RACK's DUPTHRESH emulation.
    reordering: u32,
    min_rtt: MinMax,
    /// Which timer the connection's one timer is.
    pub timer: XmitTimer,
    /// A tail-loss probe is due at the next transmit opportunity.
    probe_due: bool,
    /// RTO retransmissions since the cumulative ACK last moved (Linux `icsk_retransmits`).
    rto_retransmits: u32,
    /// Segments sent since the last end of a sending opportunity.
    sent_in_burst: u32,
    /// The current sending opportunity stopped at a full window.
    burst_cwnd_limited: bool,
    /// The last segment of the burst was a loss probe.
    burst_ended_with_probe: bool,
    /// cwnd validation (RFC 7661; Linux `is_cwnd_limited`, `max_packets_out`,
    /// `cwnd_usage_seq`).
    is_cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: u32,
    /// When the sender last sent data (Linux `lsndtime`).
    last_send: Option<SimTime>,
    /// Tail-loss probes sent.
    pub probes: u64,
}

impl LinuxSender {
    /// A sender of `transfer` under `config` with controller `cc`; `clock_phase` is the
    /// phase of ns-2's tick clock (for the RTT estimator of the ns-2 dialect), in ns.
    pub fn new(config: SenderConfig, transfer: Transfer, cc: Cc, clock_phase: u64) -> Self {
        let mut conn = Conn::new(config, transfer, clock_phase, cc.needs_ecn());
        if config.accecn {
            conn.ecn = conn.ecn.with_accecn(cc.wants_ect1());
        }
        LinuxSender {
            conn,
            cc,
            segs: Segments::default(),
            rate: RateEstimator::default(),
            rack: Rack::default(),
            tlp: Tlp::default(),
            ca: CaState::Open,
            high_seq: 0,
            prr: Prr::default(),
            // `dupthresh` as Linux's `tcp_reordering` (3).
            reordering: config.dupack_threshold.max(1),
            min_rtt: MinMax::new(Keep::Min),
            timer: XmitTimer::Retransmit,
            probe_due: false,
            rto_retransmits: 0,
            sent_in_burst: 0,
            burst_cwnd_limited: false,
            burst_ended_with_probe: false,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            last_send: None,
            probes: 0,
        }
    }

    /// The controller.
    pub fn cc(&self) -> &Cc {
        &self.cc
    }

    pub(crate) fn conn(&self) -> &Conn {
        &self.conn
    }

    pub(crate) fn conn_mut(&mut self) -> &mut Conn {
        &mut self.conn
    }

    /// The smallest RTT of the last 300 s.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt.get().map(SimDuration)
    }

    /// True while PRR owns the window (Linux `tcp_in_cwnd_reduction()`).
    pub fn in_reduction(&self) -> bool {
        matches!(self.ca, CaState::Cwr | CaState::Recovery)
    }

    /// Linux `tcp_is_cwnd_limited()`: the window was used, or in slow start the flight
    /// reached half of it.
    pub fn cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        self.cc.cwnd() < self.cc.ssthresh() && self.cc.cwnd().whole() < 2 * self.max_packets_out
    }

    fn update_min_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.min_rtt.update(MIN_RTT_WINDOW.0, now.0, rtt.0.max(1));
    }

    fn rtt_sample(&mut self, now: SimTime, rtt: SimDuration) {
        if let RttEstimator::Linux(e) = &mut self.conn.rtt {
            e.on_sample(rtt, self.conn.snd_una, self.conn.snd_max);
        } else {
            self.conn.rtt.on_sample(now, rtt);
            self.conn.rtt.clear_backoff();
        }
        self.conn.new_rtt_sample = Some(rtt);
    }

    /// The SYN-ACK arrived: the connection is open; its round trip is the first RTT
    /// sample and the first min RTT.
    pub fn on_syn_ack(&mut self, now: SimTime) {
        if let Some(since_first_syn) = self.conn.on_syn_ack(now) {
            self.cc.on_event(
                now,
                CcEvent::SynAck {
                    rtt: since_first_syn,
                },
            );
            self.update_min_rtt(now, since_first_syn);
            self.conn.opened();
        }
    }

    /// Processes a cumulative ACK that carries ECN-Echo if `ece` (heeded only when ECN was
    /// negotiated).
    pub fn on_ack_ecn(&mut self, now: SimTime, ack: u32, sack: &SackBlocks, ece: bool) {
        self.on_ack_flags(now, ack, sack, Ecn::NONE.with_ece(ece));
    }

    /// Processes a cumulative ACK carrying the TCP ECN flags `ecn` (ECE, or under AccECN
    /// the ACE field).
    pub fn on_ack_flags(&mut self, now: SimTime, ack: u32, sack: &SackBlocks, ecn: Ecn) {
        let c = &self.conn;
        if !c.is_open() || ack > c.snd_max {
            return; // acknowledges data never sent: ignore (RFC 9293 §3.10.7.4)
        }
        if ack >= c.snd_una {
            self.process_ack(now, ack, sack, ecn);
        }
    }

    /// The connection's one timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        if !self.conn.timer_due(now) || self.conn.on_syn_timeout() {
            return;
        }
        self.on_timer(now);
    }

    /// The next segment to put on the wire now: the SYN, an RTO's retransmission, else what
    /// `next_segment` chooses, unless pacing holds it back.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        match self.conn.prelude(now) {
            Prelude::Nothing => return None,
            Prelude::Syn(syn) => return Some(syn),
            Prelude::Data => {}
        }
        // A segment opening a GSO buffer sizes it (sized when it goes: `NEW_BUFFER`).
        let in_buffer = self.conn.pacer.in_burst(now);
        let max_segs = if in_buffer { 0 } else { NEW_BUFFER };
        if let Some(seq) = self.conn.retransmit_next.take() {
            return Some(self.emit(now, seq, max_segs));
        }
        if self.conn.pacer.holds(now) {
            // Paced: the segment waits for its release time (one wake-up per flow). The
            // window may be full all the same (tcp_write_xmit(): `is_cwnd_limited |=
            // in_flight >= cwnd` whatever stopped it); counted so for the controllers that
            // set the window themselves (Prague, paced at exactly its window per SRTT,
            // would otherwise never grow). Linux counts it for every controller; renolab's
            // paced Reno and CUBIC keep their earlier outputs until that is decided.
            if self.cc.controls_window() {
                self.burst_cwnd_limited |= self.segs.in_flight() >= self.cc.cwnd().whole().max(1);
            }
            self.on_burst_end(now);
            return None;
        }
        match self.next_segment(now, max_segs) {
            Some((seq, max_segs)) => Some(self.emit(now, seq, max_segs)),
            None => {
                self.on_burst_end(now);
                None
            }
        }
    }

    /// Segment `seq` leaves at `now`, opening a GSO buffer of `max_segs` (0: in one;
    /// [`NEW_BUFFER`]: one of [`LinuxSender::tso_segs`]).
    fn emit(&mut self, now: SimTime, seq: u32, max_segs: u32) -> Transmit {
        let max_segs = if max_segs == NEW_BUFFER {
            self.tso_segs()
        } else {
            max_segs
        };
        let retransmit = self.conn.begin_send(seq);
        self.cc.on_event(now, CcEvent::Sent { seq, retransmit });
        self.on_sent(now, seq, retransmit);
        self.conn
            .finish_send(now, seq, retransmit, &self.cc, Some(max_segs))
    }
}

#[cfg(test)]
mod tests;
