//! Loss recovery: what the sender does between detecting a loss and the ACK that ends the
//! episode: which segments it sends and how the window behaves meanwhile. This is the second
//! axis beside the congestion controller (which decides `cwnd` and `ssthresh`), as ns-3's
//! `TcpRecoveryOps` beside `TcpCongestionOps`. One file per recovery:
//!
//! - [`tahoe`]: no fast recovery; go back to the hole and slow-start (Jacobson 1988);
//! - [`reno`]: RFC 5681 §3.2 fast recovery, the window inflated by each duplicate ACK;
//! - [`newreno`]: RFC 6582, partial ACKs keep recovery going (options as ns-2 and joo2000);
//! - [`sack`]: ns-2.35's `Agent/TCP/Sack1` (Fall & Floyd 1996), a running `pipe` counter;
//! - [`rfc6675`]: RFC 6675's conservative SACK recovery, `pipe` from the scoreboard;
//! - [`linux`] (`prr`): SACK with RACK-TLP loss detection (RFC 8985) and PRR (RFC 6937)
//!   in Linux's congestion-state machine, the default of `profile = "linux"` ([`prr`] and
//!   [`rack`] hold the two algorithms);
//! - [`vegas_ns2`]: ns-2.35's Vegas, whose own duplicate-ACK rule replaces fast recovery
//!   (chosen internally for `variant = "vegas"` under the ns-2 dialect).
//!
//! Each recovery is a struct holding its per-episode state; [`Recovery`] dispatches to them
//! with a `match` (closed enum, no vtable), and the sender calls the hooks below at fixed
//! points of its ACK, timer and transmit paths.

pub mod linux;
pub mod newreno;
pub mod prr;
pub mod rack;
pub mod reno;
pub mod rfc6675;
pub mod sack;
pub mod tahoe;
pub mod vegas_ns2;

pub use linux::LinuxRecovery;
pub use newreno::{NewRenoConfig, NewRenoRecovery, RetransmitGuard, TimerReset};
pub use reno::RenoRecovery;
pub use rfc6675::Rfc6675;
pub use sack::Ns2Sack;
pub use tahoe::GoBackN;
pub use vegas_ns2::VegasNs2;

use super::cc::{AckSample, Cc, CongestionControl};
use super::config::{Dialect, SenderConfig};
use super::sender::SenderState;
use crate::time::SimTime;

/// Names of the recoveries, as the scenario's `recovery` key takes them.
pub const RECOVERIES: &[&str] = &["tahoe", "reno", "newreno", "sack", "rfc6675", "prr"];

/// Which loss recovery a flow uses, with its options: the resolved `recovery` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// Go-back-N and slow start (Tahoe).
    Tahoe,
    /// RFC 5681 fast recovery.
    Reno,
    /// RFC 6582 NewReno.
    NewReno(NewRenoConfig),
    /// ns-2.35's Sack1.
    Sack,
    /// RFC 6675.
    Rfc6675,
    /// Linux: SACK, RACK-TLP and PRR.
    Prr,
}

impl RecoveryKind {
    /// The name in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryKind::Tahoe => "tahoe",
            RecoveryKind::Reno => "reno",
            RecoveryKind::NewReno(_) => "newreno",
            RecoveryKind::Sack => "sack",
            RecoveryKind::Rfc6675 => "rfc6675",
            RecoveryKind::Prr => "prr",
        }
    }

    /// True when the receiver must report SACK blocks for this recovery to work.
    pub fn uses_sack(self) -> bool {
        matches!(
            self,
            RecoveryKind::Sack | RecoveryKind::Rfc6675 | RecoveryKind::Prr
        )
    }
}

/// What loss recovery wants sent next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Nothing now.
    Nothing,
    /// This segment (a hole or new data, already accounted for).
    Segment(u32),
    /// New data as the (possibly inflated) window allows: recovery does not choose.
    ByWindow,
}

/// A loss recovery with its per-episode state.
#[derive(Clone, Debug)]
pub enum Recovery {
    /// Tahoe.
    Tahoe(GoBackN),
    /// Reno.
    Reno(RenoRecovery),
    /// NewReno.
    NewReno(NewRenoRecovery),
    /// ns-2's Sack1.
    Sack(Ns2Sack),
    /// RFC 6675.
    Rfc6675(Rfc6675),
    /// ns-2's Vegas.
    VegasNs2(VegasNs2),
    /// Linux's (boxed: its scoreboard is large, and the other recoveries stay small).
    Prr(Box<LinuxRecovery>),
}

impl Recovery {
    /// The recovery `config.recovery` names, for a sender with controller `cc`. ns-2's Vegas
    /// brings its own duplicate-ACK handling, which replaces Reno's under the ns-2 dialect
    /// (and adjusts `config` and `cc` to ns-2's artefacts, see [`vegas_ns2`]).
    pub fn new(config: &mut SenderConfig, cc: &mut Cc) -> Self {
        if let (Cc::Vegas(_), Dialect::Ns2) = (&*cc, config.dialect) {
            return Recovery::VegasNs2(VegasNs2::new(config, cc));
        }
        match config.recovery {
            RecoveryKind::Tahoe => Recovery::Tahoe(GoBackN),
            RecoveryKind::Reno => Recovery::Reno(RenoRecovery::default()),
            RecoveryKind::NewReno(c) => Recovery::NewReno(NewRenoRecovery::new(c)),
            RecoveryKind::Sack => Recovery::Sack(Ns2Sack::default()),
            RecoveryKind::Rfc6675 => Recovery::Rfc6675(Rfc6675),
            RecoveryKind::Prr => {
                Recovery::Prr(Box::new(LinuxRecovery::new(config.dupack_threshold)))
            }
        }
    }

    /// True when the sender keeps a SACK scoreboard.
    #[inline]
    pub fn uses_sack(&self) -> bool {
        matches!(self, Recovery::Sack(_) | Recovery::Rfc6675(_))
    }

    /// Linux's recovery, which handles ACKs, timers and sending itself.
    #[inline]
    pub fn linux(&mut self) -> Option<&mut LinuxRecovery> {
        match self {
            Recovery::Prr(l) => Some(l),
            _ => None,
        }
    }

    /// Linux's recovery, read-only.
    pub fn as_linux(&self) -> Option<&LinuxRecovery> {
        match self {
            Recovery::Prr(l) => Some(l),
            _ => None,
        }
    }

    /// Segments of fast-recovery window inflation (RFC 5681 §3.2 steps 3-4; ns-2's
    /// `dupwnd_`): what the sender may fill beyond cwnd.
    #[inline]
    pub fn inflation(&self) -> u32 {
        match self {
            Recovery::Reno(r) => r.dupwnd,
            Recovery::NewReno(r) => r.dupwnd,
            _ => 0,
        }
    }

    /// Does this duplicate ACK count towards the threshold? (ns-2's Sack1 counts only those
    /// that bring new SACK information; `fresh_sacks` is how many segments it newly SACKed.)
    #[inline]
    pub fn counts_dup_ack(&self, fresh_sacks: u32) -> bool {
        !matches!(self, Recovery::Sack(_)) || fresh_sacks > 0
    }

    /// How many segments the window may release in answer to the current ACK.
    #[inline]
    pub(crate) fn burst_limit(&self, s: &SenderState) -> u32 {
        match self {
            Recovery::NewReno(r) => r.burst_limit(s),
            _ => u32::MAX,
        }
    }

    /// Does an ACK of `ack` end the episode that began with `recover` outstanding?
    pub fn exits_on(&self, ack: u32, recover: u32) -> bool {
        match self {
            Recovery::Tahoe(_) | Recovery::Reno(_) | Recovery::VegasNs2(_) => true,
            Recovery::NewReno(_) | Recovery::Sack(_) | Recovery::Rfc6675(_) | Recovery::Prr(_) => {
                ack >= recover
            }
        }
    }

    /// The guard on starting another fast retransmit after a loss event.
    pub fn careful(&self) -> RetransmitGuard {
        match self {
            Recovery::NewReno(r) => r.config.careful,
            _ => RetransmitGuard::AfterRecover,
        }
    }

    /// Tahoe may fast-retransmit again while its last loss response was a fast retransmit.
    pub fn fast_retransmits_again(&self) -> bool {
        matches!(self, Recovery::Tahoe(_))
    }

    /// The scoreboard says `seq` is lost before the duplicate-ACK threshold is reached
    /// (RFC 6675 §5 "IsLost(HighACK + 1)").
    pub(crate) fn sack_says_lost(&self, s: &SenderState, seq: u32) -> bool {
        match self {
            Recovery::Rfc6675(_) => s.scoreboard.is_lost(seq, s.config.dupack_threshold),
            _ => false,
        }
    }

    /// A loss was detected and the controller has reacted: start the episode.
    pub(crate) fn on_enter(&mut self, s: &mut SenderState, cc: &mut Cc) {
        match self {
            Recovery::Tahoe(r) => r.on_enter(s, cc),
            Recovery::Reno(r) => r.on_enter(s),
            Recovery::NewReno(r) => r.on_enter(s),
            Recovery::Sack(r) => r.on_enter(s),
            Recovery::Rfc6675(r) => r.on_enter(s),
            Recovery::VegasNs2(_) | Recovery::Prr(_) => {}
        }
    }

    /// A duplicate ACK (already counted in `s.dupacks`). Returns true when recovery
    /// consumed it: during an episode, or ns-2's Vegas always.
    pub(crate) fn on_dup_ack(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime) -> bool {
        if let Recovery::VegasNs2(r) = self {
            r.on_dup_ack(s, cc, now);
            return true;
        }
        if !s.in_fast_recovery() {
            return false;
        }
        match self {
            Recovery::Reno(r) => r.on_dup_ack(),
            Recovery::NewReno(r) => r.on_dup_ack(s),
            Recovery::Sack(r) => r.on_dup_ack(),
            Recovery::Tahoe(_)
            | Recovery::Rfc6675(_)
            | Recovery::VegasNs2(_)
            | Recovery::Prr(_) => {}
        }
        true
    }

    /// A partial ACK of `acked` segments, the episode's `partial_acks`-th. Returns whether
    /// the retransmission timer restarts.
    pub(crate) fn on_partial_ack(
        &mut self,
        s: &mut SenderState,
        cc: &mut Cc,
        acked: u32,
        partial_acks: u32,
    ) -> bool {
        match self {
            Recovery::NewReno(r) => r.on_partial_ack(s, cc, acked, partial_acks),
            Recovery::Sack(r) => r.on_partial_ack(),
            Recovery::Tahoe(_) | Recovery::Reno(_) | Recovery::Rfc6675(_) => true,
            Recovery::VegasNs2(_) | Recovery::Prr(_) => true,
        }
    }

    /// The episode ended with the ACK `sample` (the sender is back in the open state).
    pub(crate) fn on_exit(&mut self, s: &SenderState, cc: &mut Cc, sample: &AckSample) {
        let ns2 = s.config.dialect == Dialect::Ns2;
        match self {
            Recovery::Reno(r) => r.on_exit(cc, sample, ns2),
            Recovery::NewReno(r) => r.on_exit(cc, sample, ns2),
            _ => {}
        }
    }

    /// An ACK of new data outside recovery, before the controller grows the window.
    pub(crate) fn on_new_ack_outside_recovery(&mut self, s: &SenderState, cc: &mut Cc) {
        if let Recovery::VegasNs2(r) = self {
            r.on_new_ack(s, cc);
        }
    }

    /// After a new (not partial) ACK: the controller's own loss detection may call for an
    /// immediate retransmission of the first unacknowledged segment.
    #[inline]
    pub(crate) fn check_controller_retransmit(
        &mut self,
        s: &mut SenderState,
        cc: &mut Cc,
        now: SimTime,
    ) {
        if let Recovery::VegasNs2(r) = self {
            r.check_expired(s, cc, now);
        } else if s.snd_una < s.snd_max && cc.retransmit_due(now, s.snd_una, 0) {
            s.retransmit_next = Some(s.snd_una);
        }
    }

    /// The retransmission timer expired: the episode, if any, is over.
    pub(crate) fn on_timeout(&mut self, s: &mut SenderState) {
        match self {
            Recovery::Reno(r) => r.dupwnd = 0,
            Recovery::NewReno(r) => r.dupwnd = 0,
            Recovery::Sack(_) | Recovery::Rfc6675(_) => s.scoreboard.clear(s.snd_una),
            Recovery::Tahoe(_) | Recovery::VegasNs2(_) | Recovery::Prr(_) => {}
        }
    }

    /// What to send next, if recovery chooses.
    #[inline]
    pub(crate) fn select(&mut self, s: &mut SenderState, cc: &Cc) -> Selection {
        if let Recovery::Prr(l) = self {
            return match l.next_segment(s, cc) {
                Some(seq) => Selection::Segment(seq),
                None => Selection::Nothing,
            };
        }
        if !s.in_fast_recovery() {
            return Selection::ByWindow;
        }
        match self {
            Recovery::Sack(r) => r.select(s, cc.cwnd().whole()),
            Recovery::Rfc6675(r) => r.select(s, cc.cwnd().whole()),
            _ => Selection::ByWindow,
        }
    }
}

/// May the sender send new data now (not past the end of the transfer or the receiver's
/// window)?
pub(crate) fn new_data_allowed(s: &SenderState) -> bool {
    s.snd_nxt < s.limit && s.snd_nxt < s.snd_una.saturating_add(s.config.receiver_window)
}

/// Takes the next new segment.
pub(crate) fn take_new_segment(s: &mut SenderState) -> u32 {
    s.snd_nxt += 1;
    s.snd_nxt - 1
}
