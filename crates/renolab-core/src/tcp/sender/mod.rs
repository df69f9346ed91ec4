//! The TCP sender: one type per dialect, chosen once when the flow is built.
//!
//! A sans-IO state machine, packet-based like ns-2's one-way agents: sequence numbers count
//! segments. It never touches the event queue or a link. The engine drives it:
//!
//! 1. [`TcpSender::start`] when the application starts, [`TcpSender::on_ack`] for each ACK
//!    that arrives, [`TcpSender::on_timeout`] when [`TcpSender::poll_timeout`] has passed;
//! 2. after each of those, [`TcpSender::poll_transmit`] until it returns `None` (or a
//!    segment marked [`Transmit::last`]);
//! 3. then [`TcpSender::poll_timeout`] to learn when it next needs to be woken.
//!
//! `now` must never decrease between calls.
//!
//! The senders, as ns-3 keeps `TcpSocketBase` apart from what it shares through
//! `TcpSocketState`:
//! - [`ClassicSender`] ([`classic`]), ns-2's one-way agent and the RFCs' sender (profiles
//!   `rfc`, `ns2`, `opnet`, and any profile with a classic recovery): duplicate-ACK
//!   counting, Karn's timed segment, and a loss recovery behind the
//!   [`crate::tcp::recovery::LossRecovery`] interface (ns-3's `TcpRecoveryOps`); Reno's
//!   controller with Reno's recovery, the commonest flow, has an arm of its own built for
//!   those two types (`ClassicSender<Reno, RenoRecovery>`), the others the closed enums;
//! - [`LinuxSender`] ([`linux`]), a Linux 6.x socket (`recovery = "prr"`): the retransmission
//!   queue with SACK and RACK-TLP, PRR, Linux's congestion states and timers;
//! - a Vegas controller's classic sender, whose recovery is typed to the Vegas controller it
//!   needs: Vegas's fine-grained loss detection around the flow's recovery
//!   ([`crate::tcp::recovery::FineTimer`]), or, under the ns-2 dialect, ns-2's Vegas agent,
//!   whose own duplicate-ACK rule replaces fast recovery
//!   ([`crate::tcp::recovery::VegasNs2`]).
//!
//! [`TcpSender`] is the enum of these, one `match` per call; the per-packet paths of a
//! classic flow never test for Linux, Vegas or ECN beyond their own fields. All share what
//! every sender keeps (`conn.rs`: sequence variables, the SYN exchange, the
//! RTT estimator, the one timer, pacing, ECN bits, counters) and the congestion controller
//! ([`crate::tcp::cc`]).

pub mod classic;
mod conn;
pub mod linux;

pub use classic::ClassicSender;
pub(crate) use conn::Conn;
pub use linux::LinuxSender;

use super::cc::{Cc, CongestionControl, Declared, Reno, RenoConfig, Vegas, VegasConfig};
use super::config::{Dialect, SenderConfig, Transfer};
use super::recovery::{FineTimer, Recovery, RecoveryKind, RenoRecovery, VegasNs2};
use super::window::Window;
use crate::packet::Ecn;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

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
    /// Bytes on the wire: the payload and the headers.
    pub wire_bytes: u32,
    /// True when the segment was sent before.
    pub retransmit: bool,
    /// The IP ECN field and TCP CWR flag it carries.
    pub ecn: Ecn,
    /// Nothing more may go at this instant: polling again before the next event would
    /// return `None` and change nothing, so the caller need not (false when unsure).
    pub last: bool,
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

/// A TCP sender of one of the dialects (not `Clone`: its controller may be a Python
/// object).
#[derive(Debug)]
pub enum TcpSender {
    /// Reno's controller with Reno's recovery (`variant = "reno"` under the ns-2 and RFC
    /// profiles): the classic sender built for these two alone, so that the commonest flow
    /// runs no other controller's or recovery's `match` on its per-packet path.
    Reno(ClassicSender<Reno, RenoRecovery>),
    /// ns-2's one-way agent or the RFCs' sender, with one of the classic recoveries.
    Classic(ClassicSender<Cc, Recovery>),
    /// A Vegas controller with its fine-grained loss detection around a classic recovery.
    Vegas(ClassicSender<Vegas, FineTimer<Recovery>>),
    /// ns-2's Vegas agent.
    Ns2Vegas(ClassicSender<Vegas, VegasNs2>),
    /// A Linux socket (boxed: its retransmission queue and recovery state are large, and
    /// the classic senders stay inline).
    Linux(Box<LinuxSender>),
}

/// `$e` for whichever sender `$self` is, bound to `$s`.
macro_rules! each {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            TcpSender::Reno($s) => $e,
            TcpSender::Classic($s) => $e,
            TcpSender::Vegas($s) => $e,
            TcpSender::Ns2Vegas($s) => $e,
            TcpSender::Linux($s) => $e,
        }
    };
}

impl TcpSender {
    /// The sender of `transfer` under `config` with congestion controller `cc`, of the kind
    /// they call for: ns-2's Vegas agent for a Vegas controller under the ns-2 dialect
    /// (whatever the recovery: its `recv()` replaces them), Linux's for `recovery = "prr"`,
    /// else the classic sender (for Vegas, with its fine-grained loss detection).
    /// `clock_phase` is the phase of ns-2's tick clock (its random `boot_time_`), in ns.
    pub fn new(config: SenderConfig, transfer: Transfer, cc: Cc, clock_phase: u64) -> Self {
        match cc {
            Cc::Vegas(vegas) if config.dialect == Dialect::Ns2 => {
                // ns-2's Vegas recv() never calls send_one(): no Limited Transmit.
                let config = SenderConfig {
                    limited_transmit: false,
                    ..config
                };
                TcpSender::Ns2Vegas(ClassicSender::new(
                    config,
                    transfer,
                    vegas,
                    VegasNs2,
                    clock_phase,
                    false,
                ))
            }
            cc if config.recovery == RecoveryKind::Prr => TcpSender::Linux(Box::new(
                LinuxSender::new(config, transfer, cc, clock_phase),
            )),
            Cc::Reno(reno) if config.recovery == RecoveryKind::Reno => {
                TcpSender::Reno(ClassicSender::new(
                    config,
                    transfer,
                    reno,
                    RenoRecovery::default(),
                    clock_phase,
                    false,
                ))
            }
            Cc::Vegas(vegas) => {
                let recovery = FineTimer(Recovery::new(config.recovery));
                TcpSender::Vegas(ClassicSender::new(
                    config,
                    transfer,
                    vegas,
                    recovery,
                    clock_phase,
                    false,
                ))
            }
            cc => {
                let recovery = Recovery::new(config.recovery);
                let needs_ecn = cc.needs_ecn();
                TcpSender::Classic(ClassicSender::new(
                    config,
                    transfer,
                    cc,
                    recovery,
                    clock_phase,
                    needs_ecn,
                ))
            }
        }
    }

    #[inline]
    fn conn(&self) -> &Conn {
        each!(self, s => s.conn())
    }

    /// The application starts handing data to TCP.
    pub fn start(&mut self, _now: SimTime) {
        each!(self, s => s.conn_mut().start())
    }

    /// Stops offering new data (the application stopped); outstanding data is still
    /// recovered.
    pub fn stop_offering(&mut self) {
        each!(self, s => s.conn_mut().stop_offering())
    }

    /// The congestion window, segments: the controller's, without fast-recovery inflation.
    #[inline]
    pub fn cwnd(&self) -> Window {
        each!(self, s => s.cc().cwnd())
    }

    /// Slow-start threshold, segments.
    #[inline]
    pub fn ssthresh(&self) -> Window {
        each!(self, s => s.cc().ssthresh())
    }

    /// The window the sender may fill, segments: cwnd plus Reno's fast-recovery inflation
    /// (RFC 5681 §3.2 steps 3-4, ns-2's `cwnd_ + dupwnd_`). Equal to [`Self::cwnd`] outside
    /// Reno-style fast recovery.
    #[inline]
    pub fn inflated_cwnd(&self) -> Window {
        match self {
            TcpSender::Reno(s) => s.inflated_cwnd(),
            TcpSender::Classic(s) => s.inflated_cwnd(),
            TcpSender::Vegas(s) => s.inflated_cwnd(),
            TcpSender::Ns2Vegas(s) => s.inflated_cwnd(),
            TcpSender::Linux(s) => s.cc().cwnd(),
        }
    }

    /// True when cwnd may legitimately fall below one segment: ns-2's Vegas deflates to
    /// the window its last cut left, zero before any cut, and then waits for its timer
    /// (docs/ns2-behaviour.md §6).
    pub fn cwnd_may_be_zero(&self) -> bool {
        matches!(self, TcpSender::Ns2Vegas(_))
    }

    /// True while in fast recovery (the classic sender's episode, Linux's Recovery state).
    pub fn in_fast_recovery(&self) -> bool {
        match self {
            TcpSender::Reno(s) => s.in_fast_recovery(),
            TcpSender::Classic(s) => s.in_fast_recovery(),
            TcpSender::Vegas(s) => s.in_fast_recovery(),
            TcpSender::Ns2Vegas(s) => s.in_fast_recovery(),
            TcpSender::Linux(s) => s.ca == linux::CaState::Recovery,
        }
    }

    /// The congestion controller's state for the `cc` trace.
    pub fn cc_state(&self) -> crate::tcp::cc::CcState {
        match self {
            TcpSender::Reno(s) => declared_state::<RenoConfig>(s.cc()),
            TcpSender::Classic(s) => s.cc().cc_state(),
            TcpSender::Vegas(s) => declared_state::<VegasConfig>(s.cc()),
            TcpSender::Ns2Vegas(s) => declared_state::<VegasConfig>(s.cc()),
            TcpSender::Linux(s) => s.cc().cc_state(),
        }
    }

    /// Counters.
    #[inline]
    pub fn stats(&self) -> &SenderStats {
        &self.conn().stats
    }

    /// What the application hands this sender.
    #[inline]
    pub fn transfer(&self) -> Transfer {
        self.conn().transfer
    }

    /// Oldest unacknowledged segment.
    #[inline]
    pub fn snd_una(&self) -> u32 {
        self.conn().snd_una
    }

    /// One past the highest segment sent.
    #[inline]
    pub fn snd_max(&self) -> u32 {
        self.conn().snd_max
    }

    /// True once every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.conn().is_complete()
    }

    /// Size on the wire of a segment with `payload` bytes.
    #[inline]
    pub fn wire_size(&self, payload: u32) -> u32 {
        payload + self.conn().config.header_bytes
    }

    /// The smoothed RTT (`rtt`, the sample just taken, before the first) and the RTO now.
    pub fn srtt_and_rto(&self, rtt: SimDuration) -> (SimDuration, SimDuration) {
        self.conn().srtt_and_rto(rtt)
    }

    /// When the sender next needs waking: its timer, or the release of a paced segment
    /// (then call [`TcpSender::on_timeout`], which ignores an early call, and
    /// [`TcpSender::poll_transmit`]).
    #[inline(always)]
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.conn().poll_timeout()
    }

    /// The two halves of [`TcpSender::poll_timeout`], which the engine re-arms separately
    /// after each event, in one dispatch: when the retransmission timer (or loss probe, or
    /// reordering timer) expires, if it runs, and when a segment held back by pacing may
    /// leave, if one is.
    #[inline(always)]
    pub fn poll_timers(&self) -> (Option<SimTime>, Option<SimTime>) {
        let conn = self.conn();
        (conn.timer, conn.pacer.release())
    }

    /// The pacing rate in bits per second of wire bytes: the controller's, else Linux's
    /// default (`tcp_update_pacing_rate()`). `None` before an RTT sample.
    pub fn pacing_rate(&self) -> Option<BitsPerSec> {
        each!(self, s => s.conn().pacing_rate(s.cc()))
    }

    /// The SYN-ACK arrived: the connection is open (its RTT is the first sample).
    pub fn on_syn_ack(&mut self, now: SimTime) {
        each!(self, s => s.on_syn_ack(now))
    }

    /// Segments the receiver reported CE-marked under Accurate ECN (Linux
    /// `tp->delivered_ce`), and whether AccECN is in use; the Linux sender's.
    pub fn accecn(&self) -> Option<u64> {
        match self {
            TcpSender::Linux(s) if s.conn().ecn.accecn => Some(s.rate.delivered_ce),
            _ => None,
        }
    }

    /// ECN is in use (RFC 3168 or AccECN, after the handshake's negotiation).
    pub fn ecn_enabled(&self) -> bool {
        each!(self, s => s.conn().ecn.enabled)
    }

    /// The SYN-ACK arrived carrying the ECN flags `ecn`: the Linux sender reads AccECN's
    /// answer (RFC 9768 §3.1.2), then the connection opens.
    pub fn on_syn_ack_ecn(&mut self, now: SimTime, ecn: crate::packet::Ecn) {
        if let TcpSender::Linux(s) = self {
            s.conn_mut().ecn.on_syn_ack(ecn);
        }
        self.on_syn_ack(now);
    }

    /// Processes a cumulative ACK carrying the TCP ECN flags `ecn`: ECE, or AccECN's ACE
    /// field (read by the Linux sender). Returns the RTT sample it gave, if any, taken in the
    /// same `match` (one dispatch an ACK, not two).
    #[inline(always)]
    pub fn on_ack_flags(
        &mut self,
        now: SimTime,
        ack: u32,
        sack: &crate::packet::sack::SackBlocks,
        ecn: crate::packet::Ecn,
    ) -> Option<SimDuration> {
        match self {
            TcpSender::Linux(s) => {
                s.on_ack_flags(now, ack, sack, ecn);
                s.conn_mut().take_rtt_sample()
            }
            TcpSender::Reno(s) => classic_ack(s, now, ack, sack, ecn),
            TcpSender::Classic(s) => classic_ack(s, now, ack, sack, ecn),
            TcpSender::Vegas(s) => classic_ack(s, now, ack, sack, ecn),
            TcpSender::Ns2Vegas(s) => classic_ack(s, now, ack, sack, ecn),
        }
    }

    /// Processes a cumulative ACK: `ack` is the next segment the receiver expects; `sack`
    /// the SACK blocks it carries.
    pub fn on_ack(&mut self, now: SimTime, ack: u32, sack: &crate::packet::sack::SackBlocks) {
        self.on_ack_ecn(now, ack, sack, false);
    }

    /// Processes a cumulative ACK that carries ECN-Echo if `ece` (heeded only when ECN was
    /// negotiated).
    #[inline(always)]
    pub fn on_ack_ecn(
        &mut self,
        now: SimTime,
        ack: u32,
        sack: &crate::packet::sack::SackBlocks,
        ece: bool,
    ) {
        each!(self, s => s.on_ack_ecn(now, ack, sack, ece))
    }

    /// The sender's timer expired (call when `poll_timeout() <= now`; an early call, for a
    /// paced segment's release, changes nothing).
    #[inline]
    pub fn on_timeout(&mut self, now: SimTime) {
        each!(self, s => s.on_timeout(now))
    }

    /// The next segment to put on the wire now, if the window allows one.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        each!(self, s => s.poll_transmit(now))
    }
}

/// A classic sender's part of [`TcpSender::on_ack_flags`]: the ACK (its ECN-Echo flag),
/// then the RTT sample it gave.
#[inline(always)]
fn classic_ack<C: CongestionControl, R: crate::tcp::recovery::LossRecovery<C>>(
    s: &mut ClassicSender<C, R>,
    now: SimTime,
    ack: u32,
    sack: &crate::packet::sack::SackBlocks,
    ecn: Ecn,
) -> Option<SimDuration> {
    s.on_ack_ecn(now, ack, sack, ecn.ece());
    s.take_rtt_sample()
}

/// The `cc` trace's values of a controller a sender holds outside [`Cc`], declared by `D`
/// (as [`Cc::cc_state`] reports those inside it).
fn declared_state<D: Declared>(cc: &impl CongestionControl) -> crate::tcp::cc::CcState {
    crate::tcp::cc::CcState::of(D::DECLARATION, |values| cc.trace(values))
}

/// Building blocks for unit tests of loss recoveries and controllers.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
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
            accecn: false,
            gso: crate::tcp::gso::Gso::OFF,
        }
    }

    /// The classic sender's state for 100 segments of 1000 bytes under `config`.
    pub fn state(config: SenderConfig) -> classic::ClassicState {
        let transfer = Transfer {
            mss: 1000,
            bytes: Some(100_000),
        };
        classic::ClassicState::new(Conn::new(config, transfer, 0, false))
    }
}
