//! The TCP sender: the machinery every congestion-control variant shares.
//!
//! A sans-IO state machine, packet-based like ns-2's one-way agents: sequence numbers count
//! segments. It never touches the event queue or a link. The engine drives it:
//!
//! 1. [`TcpSender::start`] when the application starts, [`TcpSender::on_ack`] for each ACK
//!    that arrives, [`TcpSender::on_timeout`] when [`TcpSender::poll_timeout`] has passed;
//! 2. after each of those, [`TcpSender::poll_transmit`] until it returns `None`;
//! 3. then [`TcpSender::poll_timeout`] to learn when it next needs to be woken.
//!
//! `now` must never decrease between calls.
//!
//! The sender is three parts, as ns-3's `TcpSocketBase` with its `TcpCongestionOps` and
//! `TcpRecoveryOps`:
//! - [`SenderState`], the shared machinery: the optional SYN exchange, sequence variables,
//!   duplicate-ACK counting, the SACK scoreboard, the RFC 6298 (or ns-2) retransmission
//!   timer with exponential back-off, RTT timing with Karn's rule (`ack.rs`, `transmit.rs`);
//! - the congestion controller ([`Cc`]), which moves `cwnd` and `ssthresh`;
//! - the loss recovery ([`Recovery`]), which decides what is sent and how the window
//!   behaves between a loss and the end of its repair.

mod ack;
mod transmit;

use super::cc::{AckSample, Cc, CongestionControl};
use super::config::{Dialect, SenderConfig, Transfer};
use super::ecn::EcnSender;
use super::recovery::Recovery;
use super::rtt::{LinuxRtt, Ns2Rtt, Rfc6298, RttEstimator};
use super::scoreboard::Scoreboard;
use super::window::Window;
use crate::time::{SimDuration, SimTime};

/// What a transmission carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// A data segment.
    Data,
    /// The connection-opening SYN (no payload).
    Syn,
}

/// A segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Data or SYN.
    pub kind: SegmentKind,
    /// Segment number (0 for the SYN).
    pub seq: u32,
    /// Payload bytes.
    pub payload: u32,
    /// True when the segment was sent before.
    pub retransmit: bool,
    /// The IP ECN field and TCP CWR flag it carries.
    pub ecn: crate::packet::Ecn,
}

/// Counters of a sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments handed to the network, retransmissions included.
    pub segments_sent: u64,
    /// SYNs sent (with retransmissions).
    pub syns_sent: u64,
    /// Retransmitted data segments.
    pub retransmits: u64,
    /// Retransmission-timer expirations.
    pub timeouts: u64,
    /// Fast retransmits (loss inferred from duplicate ACKs).
    pub fast_retransmits: u64,
    /// When the first data segment left.
    pub first_send: Option<SimTime>,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2), at most one a window.
    pub cwnd_reductions: u64,
}

/// Where the connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The application has not started.
    Idle,
    /// A SYN is due (first or again after a timeout).
    SynDue,
    /// The SYN is out; data waits for the SYN-ACK.
    SynSent,
    /// Data flows; no loss recovery in progress.
    Open,
    /// Fast recovery after a fast retransmit.
    FastRecovery {
        /// `snd_max` when recovery began (RFC 6582 `recover`).
        recover: u32,
        /// Partial ACKs seen so far in this episode.
        partial_acks: u32,
    },
}

/// The state every loss recovery and controller works on.
#[derive(Clone, Debug)]
pub(crate) struct SenderState {
    pub config: SenderConfig,
    pub transfer: Transfer,
    /// Segments the application offers (`u32::MAX` when unlimited).
    pub limit: u32,
    pub rtt: RttEstimator,
    pub phase: Phase,
    /// Oldest unacknowledged segment.
    pub snd_una: u32,
    /// Next new-or-go-back-N segment to send.
    pub snd_nxt: u32,
    /// One past the highest segment ever sent.
    pub snd_max: u32,
    /// Highest cumulative ACK seen before the last loss event (RFC 6582 §4.1).
    pub highest_ack_before_loss: u32,
    /// Duplicate ACKs since the last new ACK.
    pub dupacks: u32,
    /// New segments Limited Transmit sent since the last new ACK (RFC 3042): the flight a
    /// fast retransmit halves leaves them out (RFC 5681 §3.2 step 2).
    pub limited_sent: u32,
    /// `snd_max` at the last loss event: duplicate ACKs for segments sent before it do not
    /// start another fast retransmit (RFC 6582 §3.2 step 1; ns-2's `recover_`, `bug_fix_`).
    pub recover: Option<u32>,
    /// A segment to retransmit at once, window or not (the fast retransmit itself).
    pub retransmit_next: Option<u32>,
    /// The last loss response was a fast retransmit with no new ACK since (ns-2's
    /// `last_cwnd_action_ == CWND_ACTION_DUPACK`): Tahoe may fast-retransmit again.
    pub last_loss_was_fast_retransmit: bool,
    /// The last loss response was a timeout (ns-2's `last_cwnd_action_ ==
    /// CWND_ACTION_TIMEOUT`): ns-2's Vegas then waits for `recover` before retransmitting
    /// on duplicates.
    pub last_loss_was_timeout: bool,
    /// Segments the window may still release in response to the current event (ns-2's
    /// `maxburst` argument of `send_much`).
    pub burst_left: u32,
    /// One new segment is due regardless of the window (ns-2 NewReno with Hoe's changes,
    /// on odd duplicate ACKs during recovery).
    pub send_new_regardless: bool,
    pub scoreboard: Scoreboard,
    pub rto_deadline: Option<SimTime>,
    /// The one segment being timed for an RTT sample, and when it was sent.
    pub timed: Option<(u32, SimTime)>,
    /// When the SYN was first sent, while it is timed.
    pub syn_timed: Option<SimTime>,
    /// When the first SYN was sent.
    pub syn_first_sent: Option<SimTime>,
    /// The last RTT sample, until a tracer takes it.
    pub new_rtt_sample: Option<SimDuration>,
    /// Pacing: the earliest time the next segment may leave (Linux `tcp_wstamp_ns`).
    pub next_send: SimTime,
    /// Pacing held a segment back: the sender wants waking at `next_send`.
    pub pacing_wait: bool,
    /// ECN: what segments carry (ECT, CWR).
    pub ecn: EcnSender,
    /// The last window reduction answered an ECN-Echo (ns-2 `last_cwnd_action_ ==
    /// CWND_ACTION_ECN`): a loss in the same window is retransmitted without reducing
    /// again (RFC 3168 §6.1.2).
    pub last_reduction_was_ecn: bool,
    pub stats: SenderStats,
}

impl SenderState {
    /// A sender's state before anything was sent; `needs_ecn` for a controller that
    /// relies on ECN (DCTCP).
    pub fn new(
        config: SenderConfig,
        transfer: Transfer,
        clock_phase: u64,
        needs_ecn: bool,
    ) -> Self {
        let rtt = match config.dialect {
            Dialect::Rfc => RttEstimator::Rfc6298(Rfc6298::new(config.rto)),
            Dialect::Ns2 => RttEstimator::Ns2(Ns2Rtt::new(config.rto, clock_phase)),
            Dialect::Linux => RttEstimator::Linux(LinuxRtt::new(config.rto)),
        };
        SenderState {
            config,
            transfer,
            limit: transfer.segments().unwrap_or(u32::MAX),
            rtt,
            phase: Phase::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            highest_ack_before_loss: 0,
            dupacks: 0,
            limited_sent: 0,
            recover: None,
            retransmit_next: None,
            last_loss_was_fast_retransmit: false,
            last_loss_was_timeout: false,
            burst_left: u32::MAX,
            send_new_regardless: false,
            scoreboard: Scoreboard::default(),
            rto_deadline: None,
            timed: None,
            syn_timed: None,
            syn_first_sent: None,
            new_rtt_sample: None,
            next_send: SimTime::ZERO,
            pacing_wait: false,
            ecn: EcnSender::new(config.ecn, config.dialect, needs_ecn),
            last_reduction_was_ecn: false,
            stats: SenderStats::default(),
        }
    }

    /// True while in fast recovery.
    pub fn in_fast_recovery(&self) -> bool {
        matches!(self.phase, Phase::FastRecovery { .. })
    }

    pub fn restart_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The window a loss halves: the flight size (RFC 5681 §3.1 eq. 4), ns-2's
    /// `windowd()` = min(cwnd, receiver window), fraction kept, or Linux's cwnd (its
    /// `ssthresh()` hooks read `snd_cwnd`). The fast-recovery inflation
    /// never counts: it is zero at a fast retransmit, and ns-2's Reno `timeout()` clears
    /// `dupwnd_` before it halves.
    pub fn halving_basis(&self, cc: &Cc) -> Window {
        match self.config.dialect {
            Dialect::Rfc => Window::segments(self.snd_max - self.snd_una),
            Dialect::Ns2 => cc.cwnd().min(Window::segments(self.config.receiver_window)),
            Dialect::Linux => cc.cwnd(),
        }
    }

    /// Takes an RTT sample if the timed segment is covered by `ack` (Karn's rule: only
    /// segments never retransmitted are timed), and puts it in `sample` with the smoothed RTT
    /// after it, for the controller (the smoothed RTT changes only with a sample).
    pub fn sample_rtt(&mut self, now: SimTime, ack: u32, sample: &mut AckSample) {
        if let Some((seq, sent)) = self.timed {
            if ack > seq {
                self.new_rtt_sample = Some(now - sent);
                self.rtt.on_sample(now, now - sent);
                self.rtt.clear_backoff();
                self.timed = None;
                sample.rtt = Some(now - sent);
                sample.srtt = self.rtt.srtt();
            }
        }
    }
}

/// A TCP sender (not `Clone`: its controller may be a Python object).
#[derive(Debug)]
pub struct TcpSender {
    state: SenderState,
    cc: Cc,
    recovery: Recovery,
}

impl TcpSender {
    /// A sender that will send `transfer` under `config`, with congestion control `cc`.
    /// `clock_phase` is the phase of ns-2's tick clock (its random `boot_time_`), in ns.
    pub fn new(mut config: SenderConfig, transfer: Transfer, mut cc: Cc, clock_phase: u64) -> Self {
        let recovery = Recovery::new(&mut config, &mut cc);
        let needs_ecn = cc.needs_ecn();
        TcpSender {
            state: SenderState::new(config, transfer, clock_phase, needs_ecn),
            cc,
            recovery,
        }
    }

    /// The application starts handing data to TCP.
    pub fn start(&mut self, _now: SimTime) {
        let s = &mut self.state;
        if s.phase == Phase::Idle {
            s.phase = if s.config.handshake {
                Phase::SynDue
            } else {
                Phase::Open
            };
        }
    }

    /// Stops offering new data (the application stopped); outstanding data is still recovered.
    pub fn stop_offering(&mut self) {
        let s = &mut self.state;
        s.limit = s.limit.min(s.snd_max);
    }

    /// The congestion window, segments: the controller's, without fast-recovery inflation.
    pub fn cwnd(&self) -> Window {
        self.cc.cwnd()
    }

    /// The window the sender may fill, segments: cwnd plus Reno's fast-recovery inflation
    /// (RFC 5681 §3.2 steps 3-4, ns-2's `cwnd_ + dupwnd_`). Equal to [`Self::cwnd`] outside
    /// Reno-style fast recovery.
    pub fn inflated_cwnd(&self) -> Window {
        self.cc.cwnd().plus(self.recovery.inflation())
    }

    /// True when cwnd may legitimately fall below one segment: ns-2's Vegas deflates to
    /// the window its last cut left, zero before any cut, and then waits for its timer
    /// (docs/ns2-behaviour.md §6).
    pub fn cwnd_may_be_zero(&self) -> bool {
        matches!(self.recovery, Recovery::VegasNs2(_))
    }

    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> Window {
        self.cc.ssthresh()
    }

    /// The congestion controller.
    pub fn cc(&self) -> &Cc {
        &self.cc
    }

    /// The loss recovery.
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.state.stats
    }

    /// What the application hands this sender.
    pub fn transfer(&self) -> Transfer {
        self.state.transfer
    }

    /// Oldest unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.state.snd_una
    }

    /// One past the highest segment sent.
    pub fn snd_max(&self) -> u32 {
        self.state.snd_max
    }

    /// True while in fast recovery.
    pub fn in_fast_recovery(&self) -> bool {
        self.state.in_fast_recovery()
    }

    /// True once every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.state.transfer.bytes.is_some() && self.state.snd_una >= self.state.limit
    }

    /// Size on the wire of a segment with `payload` bytes.
    pub fn wire_size(&self, payload: u32) -> u32 {
        payload + self.state.config.header_bytes
    }

    /// The RTT sample taken since the last call, with the smoothed RTT and RTO after it.
    pub fn take_rtt_sample(&mut self) -> Option<(SimDuration, SimDuration, SimDuration)> {
        let s = &mut self.state;
        let rtt = s.new_rtt_sample.take()?;
        Some((rtt, s.rtt.srtt().unwrap_or(rtt), s.rtt.rto()))
    }

    /// When the sender next needs waking: its timer, or the release of a paced segment
    /// (then call [`TcpSender::on_timeout`], which ignores an early call, and
    /// [`TcpSender::poll_transmit`]).
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let s = &self.state;
        match (s.rto_deadline, s.pacing_wait.then_some(s.next_send)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When the retransmission timer (or loss probe, or reordering timer) expires, if it
    /// runs: [`TcpSender::poll_timeout`] without the pacing release.
    pub fn poll_timer(&self) -> Option<SimTime> {
        self.state.rto_deadline
    }

    /// When a segment held back by pacing may leave, if one is.
    pub fn poll_release(&self) -> Option<SimTime> {
        let s = &self.state;
        s.pacing_wait.then_some(s.next_send)
    }

    /// The pacing rate in bits per second of wire bytes: the controller's, else Linux's
    /// default (`tcp_update_pacing_rate()`): max(cwnd, in flight) full segments per
    /// SRTT, times 2 while cwnd is below half of ssthresh (`tcp_pacing_ss_ratio` = 200 %),
    /// else times 1.2 (`tcp_pacing_ca_ratio` = 120 %). `None` before an RTT sample.
    pub fn pacing_rate(&self) -> Option<crate::units::BitsPerSec> {
        if let Some(rate) = self.cc.pacing_rate() {
            return Some(rate);
        }
        let s = &self.state;
        let srtt = s.rtt.srtt()?;
        let cwnd = self.cc.cwnd().whole().max(s.snd_max - s.snd_una) as u128;
        let ratio = if self.cc.cwnd() < self.cc.ssthresh().half() {
            200
        } else {
            120
        };
        let segment_bits = 8 * (s.transfer.mss + s.config.header_bytes) as u128;
        let bps = segment_bits * cwnd * ratio * 1_000_000_000 / (100 * srtt.0.max(1) as u128);
        Some(crate::units::BitsPerSec(bps.min(u64::MAX as u128) as u64))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_linux;

/// Building blocks for unit tests of loss recoveries and controllers.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
    use crate::tcp::recovery::RecoveryKind;
    use crate::tcp::rtt::RtoConfig;

    /// An RFC-dialect Reno-recovery configuration with IW 1 and a 1 s initial RTO.
    pub fn config() -> SenderConfig {
        SenderConfig {
            header_bytes: 40,
            initial_window: 1,
            initial_ssthresh: u32::MAX,
            receiver_window: 1000,
            dupack_threshold: 3,
            rto: RtoConfig {
                initial: SimDuration::from_secs(1),
                min: SimDuration::from_millis(200),
                max: SimDuration::from_secs(60),
                granularity: SimDuration::ZERO,
            },
            handshake: false,
            dialect: Dialect::Rfc,
            recovery: RecoveryKind::Reno,
            limited_transmit: false,
            clock_phase: None,
            pacing: false,
            ecn: false,
        }
    }

    /// The state of a sender of 100 segments of 1000 bytes under `config`.
    pub fn state(config: SenderConfig) -> SenderState {
        let transfer = Transfer {
            mss: 1000,
            bytes: Some(100_000),
        };
        SenderState::new(config, transfer, 0, false)
    }
}
