//! Loss recovery for the classic sender: what it does between detecting a loss and the ACK
//! that ends the episode: which segments it sends and how the window behaves meanwhile.
//! This is the second axis beside the congestion controller (which decides `cwnd` and
//! `ssthresh`), as ns-3's `TcpRecoveryOps` beside `TcpCongestionOps`: a recovery sees the
//! sender's state ([`ClassicState`]) and the controller only through
//! [`CongestionControl`], and the controller never sees the recovery.
//!
//! One file per recovery, each implementing [`LossRecovery`] (only the hooks it needs: the
//! others default to RFC 5681's behaviour):
//!
//! - [`tahoe`]: no fast recovery; go back to the hole and slow-start (Jacobson 1988);
//! - [`reno`]: RFC 5681 §3.2 fast recovery, the window inflated by each duplicate ACK;
//! - [`newreno`]: RFC 6582, partial ACKs keep recovery going (options as ns-2 and joo2000);
//! - [`sack`]: ns-2.35's `Agent/TCP/Sack1` (Fall & Floyd 1996), a running `pipe` counter;
//! - [`rfc6675`]: RFC 6675's conservative SACK recovery, `pipe` from the scoreboard;
//! - [`vegas`]: Vegas's fine-grained loss detection around any of the above (a Vegas
//!   controller outside the ns-2 dialect);
//! - [`vegas_ns2`]: ns-2.35's Vegas, whose own duplicate-ACK rule replaces fast recovery
//!   (for a Vegas controller under the ns-2 dialect; it drives that controller's ns-2
//!   window arithmetic, in `cc/vegas/ns2.rs`).
//!
//! `recovery = "prr"` is not one of these: it names Linux's loss recovery (SACK, RACK-TLP
//! and PRR in Linux's congestion-state machine), which is a sender of its own,
//! [`crate::tcp::sender::LinuxSender`].
//!
//! The sender calls the hooks at fixed points: on an ACK, [`LossRecovery::counts_dup_ack`]
//! and then, for a duplicate, [`LossRecovery::on_dup_ack`] (which may consume it) or the
//! loss test ([`LossRecovery::sack_says_lost`], [`LossRecovery::fast_retransmit_allowed`])
//! and [`LossRecovery::on_enter`]; for a new ACK during an episode,
//! [`LossRecovery::exits_on`], then [`LossRecovery::on_exit`] or
//! [`LossRecovery::on_partial_ack`]; outside one, [`LossRecovery::on_new_ack_outside_recovery`];
//! after either, [`LossRecovery::after_new_ack`]; on a timeout, [`LossRecovery::on_timeout`];
//! when sending, [`LossRecovery::select`], [`LossRecovery::inflation`] and
//! [`LossRecovery::burst_limit`].

pub mod newreno;
pub mod reno;
pub mod rfc6675;
pub mod sack;
pub mod tahoe;
pub mod vegas;
pub mod vegas_ns2;

pub use newreno::{NewRenoConfig, NewRenoRecovery, RetransmitGuard, TimerReset};
pub use reno::RenoRecovery;
pub use rfc6675::Rfc6675;
pub use sack::Ns2Sack;
pub use tahoe::GoBackN;
pub use vegas::FineTimer;
pub use vegas_ns2::VegasNs2;

use std::sync::LazyLock;

use super::cc::{AckSample, CongestionControl, OptionDecl};
use super::config::Dialect;
use super::sender::classic::ClassicState;
use super::window::Window;
use crate::time::SimTime;

/// What a loss recovery declares: its name as the scenario's `recovery` key takes it, what
/// it is, its options.
#[derive(Debug)]
pub struct RecoveryDeclaration {
    /// The name.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// Its options (beyond every sender's).
    pub options: &'static [&'static OptionDecl],
    /// The receiver must report SACK blocks.
    pub uses_sack: bool,
}

/// The loss recoveries, in the order the scenario's "allowed" lists name them.
pub const RECOVERY_DECLARATIONS: &[RecoveryDeclaration] = &[
    RecoveryDeclaration {
        name: "tahoe",
        summary: "no fast recovery: go back to the hole and slow-start (Jacobson 1988)",
        options: &[],
        uses_sack: false,
    },
    RecoveryDeclaration {
        name: "reno",
        summary: "RFC 5681 §3.2 fast recovery, the window inflated by each duplicate ACK",
        options: &[],
        uses_sack: false,
    },
    RecoveryDeclaration {
        name: "newreno",
        summary: "RFC 6582: partial ACKs retransmit the next hole and keep recovery going",
        options: &[
            &newreno::PARTIAL_WINDOW_DEFLATION,
            &newreno::TIMER_RESET,
            &newreno::CAREFUL,
        ],
        uses_sack: false,
    },
    RecoveryDeclaration {
        name: "sack",
        summary: "ns-2.35's Sack1 (Fall & Floyd 1996): a running pipe counter",
        options: &[],
        uses_sack: true,
    },
    RecoveryDeclaration {
        name: "rfc6675",
        summary: "RFC 6675's conservative SACK recovery, pipe from the scoreboard",
        options: &[],
        uses_sack: true,
    },
    RecoveryDeclaration {
        name: "prr",
        summary: "Linux's: SACK, RACK-TLP (RFC 8985) and PRR (RFC 6937), the Linux sender",
        options: &[],
        uses_sack: true,
    },
];

/// Names of the recoveries, as the scenario's `recovery` key takes them.
pub static RECOVERIES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| RECOVERY_DECLARATIONS.iter().map(|r| r.name).collect());

/// The declaration of the recovery called `name`.
pub fn declaration(name: &str) -> Option<&'static RecoveryDeclaration> {
    RECOVERY_DECLARATIONS.iter().find(|r| r.name == name)
}

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
    /// Linux: SACK, RACK-TLP and PRR (the Linux sender).
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

/// A loss recovery of the classic sender, for controllers of type `C`. Every hook but
/// [`LossRecovery::on_enter`] has a default: RFC 5681's sender, which keeps no recovery
/// state.
pub trait LossRecovery<C: CongestionControl> {
    /// True when the sender keeps a SACK scoreboard for this recovery.
    fn uses_sack(&self) -> bool {
        false
    }

    /// Segments of fast-recovery window inflation (RFC 5681 §3.2 steps 3-4; ns-2's
    /// `dupwnd_`): what the sender may fill beyond cwnd.
    fn inflation(&self) -> u32 {
        0
    }

    /// Does this duplicate ACK count towards the threshold? `fresh_sacks` is how many
    /// segments it newly SACKed.
    fn counts_dup_ack(&self, _fresh_sacks: u32) -> bool {
        true
    }

    /// How many segments the window may release in answer to the current ACK.
    fn burst_limit(&self, _s: &ClassicState) -> u32 {
        u32::MAX
    }

    /// Does an ACK of `ack` end the episode that began with `recover` outstanding?
    fn exits_on(&self, ack: u32, recover: u32) -> bool {
        ack >= recover
    }

    /// May duplicate ACKs start a fast retransmit now (RFC 6582 §3.2 step 1)? Not for
    /// segments sent before the last loss event.
    fn fast_retransmit_allowed(&self, s: &ClassicState, _cc: &C) -> bool {
        past_recover(s)
    }

    /// The scoreboard says `seq` is lost before the duplicate-ACK threshold is reached
    /// (RFC 6675 §5 "IsLost(HighACK + 1)").
    fn sack_says_lost(&self, _s: &ClassicState, _seq: u32) -> bool {
        false
    }

    /// A loss was detected and the controller has reacted: start the episode (ns-3
    /// `EnterRecovery`).
    fn on_enter(&mut self, s: &mut ClassicState, cc: &mut C);

    /// A duplicate ACK (already counted in `s.dupacks`). Returns true when recovery
    /// consumed it (ns-3 `DoRecovery`): during an episode, by default.
    fn on_dup_ack(&mut self, s: &mut ClassicState, _cc: &mut C, _now: SimTime) -> bool {
        s.in_fast_recovery()
    }

    /// A partial ACK of `acked` segments, the episode's `partial_acks`-th. Returns whether
    /// the retransmission timer restarts.
    fn on_partial_ack(
        &mut self,
        _s: &mut ClassicState,
        _cc: &mut C,
        _acked: u32,
        _partial_acks: u32,
    ) -> bool {
        true
    }

    /// The episode ended with the ACK `sample` (ns-3 `ExitRecovery`).
    fn on_exit(&mut self, _s: &ClassicState, _cc: &mut C, _sample: &AckSample) {}

    /// An ACK of new data outside recovery, before the controller grows the window.
    fn on_new_ack_outside_recovery(&mut self, _s: &ClassicState, _cc: &mut C) {}

    /// The recovery's own loss detection (Vegas's fine-grained timer): should a duplicate
    /// ACK below the threshold retransmit the first unacknowledged segment at once?
    fn retransmits_early(&self, _s: &ClassicState, _cc: &C, _now: SimTime) -> bool {
        false
    }

    /// After a new (not partial) ACK: the recovery's own loss detection may call for an
    /// immediate retransmission of the first unacknowledged segment.
    fn after_new_ack(&mut self, _s: &mut ClassicState, _cc: &mut C, _now: SimTime) {}

    /// The retransmission timer expired: the episode, if any, is over.
    fn on_timeout(&mut self, _s: &mut ClassicState) {}

    /// What to send next, with `cwnd` whole segments of window.
    fn select(&mut self, _s: &mut ClassicState, _cwnd: u32) -> Selection {
        Selection::ByWindow
    }

    /// True when [`LossRecovery::select`] is the default one: always
    /// [`Selection::ByWindow`], changing nothing. The sender can then tell from its window
    /// alone that nothing more may go (a recovery that chooses segments says false).
    fn selects_by_window(&self) -> bool {
        false
    }
}

/// RFC 6582 §3.2 step 1: the cumulative ACK covers more than `recover`, the highest segment
/// outstanding at the last loss event (or there was none).
pub(crate) fn past_recover(s: &ClassicState) -> bool {
    s.recover.is_none_or(|r| s.snd_una() > r)
}

/// The classic recoveries as one type, for senders whose recovery the scenario chooses:
/// each hook is a `match` (closed enum, no vtable).
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
}

impl Recovery {
    /// The recovery `kind` names (`Prr` is Linux's sender, not a classic recovery: it
    /// falls back to Reno's here).
    pub fn new(kind: RecoveryKind) -> Self {
        match kind {
            RecoveryKind::Tahoe => Recovery::Tahoe(GoBackN),
            RecoveryKind::Reno | RecoveryKind::Prr => Recovery::Reno(RenoRecovery::default()),
            RecoveryKind::NewReno(c) => Recovery::NewReno(NewRenoRecovery::new(c)),
            RecoveryKind::Sack => Recovery::Sack(Ns2Sack::default()),
            RecoveryKind::Rfc6675 => Recovery::Rfc6675(Rfc6675),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            Recovery::Tahoe($r) => $e,
            Recovery::Reno($r) => $e,
            Recovery::NewReno($r) => $e,
            Recovery::Sack($r) => $e,
            Recovery::Rfc6675($r) => $e,
        }
    };
}

impl<C: CongestionControl> LossRecovery<C> for Recovery {
    #[inline]
    fn uses_sack(&self) -> bool {
        dispatch!(self, r => LossRecovery::<C>::uses_sack(r))
    }
    #[inline]
    fn inflation(&self) -> u32 {
        dispatch!(self, r => LossRecovery::<C>::inflation(r))
    }
    #[inline]
    fn counts_dup_ack(&self, fresh_sacks: u32) -> bool {
        dispatch!(self, r => LossRecovery::<C>::counts_dup_ack(r, fresh_sacks))
    }
    #[inline]
    fn burst_limit(&self, s: &ClassicState) -> u32 {
        dispatch!(self, r => LossRecovery::<C>::burst_limit(r, s))
    }
    #[inline]
    fn exits_on(&self, ack: u32, recover: u32) -> bool {
        dispatch!(self, r => LossRecovery::<C>::exits_on(r, ack, recover))
    }
    fn fast_retransmit_allowed(&self, s: &ClassicState, cc: &C) -> bool {
        dispatch!(self, r => r.fast_retransmit_allowed(s, cc))
    }
    #[inline]
    fn sack_says_lost(&self, s: &ClassicState, seq: u32) -> bool {
        dispatch!(self, r => LossRecovery::<C>::sack_says_lost(r, s, seq))
    }
    fn on_enter(&mut self, s: &mut ClassicState, cc: &mut C) {
        dispatch!(self, r => r.on_enter(s, cc))
    }
    #[inline]
    fn on_dup_ack(&mut self, s: &mut ClassicState, cc: &mut C, now: SimTime) -> bool {
        dispatch!(self, r => r.on_dup_ack(s, cc, now))
    }
    fn on_partial_ack(
        &mut self,
        s: &mut ClassicState,
        cc: &mut C,
        acked: u32,
        partial_acks: u32,
    ) -> bool {
        dispatch!(self, r => r.on_partial_ack(s, cc, acked, partial_acks))
    }
    fn on_exit(&mut self, s: &ClassicState, cc: &mut C, sample: &AckSample) {
        dispatch!(self, r => r.on_exit(s, cc, sample))
    }
    #[inline]
    fn on_new_ack_outside_recovery(&mut self, s: &ClassicState, cc: &mut C) {
        dispatch!(self, r => r.on_new_ack_outside_recovery(s, cc))
    }

    fn on_timeout(&mut self, s: &mut ClassicState) {
        dispatch!(self, r => LossRecovery::<C>::on_timeout(r, s))
    }
    #[inline]
    fn select(&mut self, s: &mut ClassicState, cwnd: u32) -> Selection {
        dispatch!(self, r => LossRecovery::<C>::select(r, s, cwnd))
    }
    #[inline]
    fn selects_by_window(&self) -> bool {
        dispatch!(self, r => LossRecovery::<C>::selects_by_window(r))
    }
}

/// Reno's and NewReno's start of recovery (RFC 5681 §3.2 steps 2-3, RFC 6582 §3.2 step 2):
/// retransmit the first unacknowledged segment at once, begin the episode; returns the
/// inflation by the duplicates that arrived.
pub(crate) fn retransmit_and_inflate(s: &mut ClassicState) -> u32 {
    s.retransmit(s.snd_una());
    s.begin_episode();
    s.config().dupack_threshold
}

/// Reno's and NewReno's end of recovery (RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 6): the
/// inflation is taken back. ns-2's Reno and NewReno leave recovery through `newack()` +
/// `opencwnd()`, which opens the window once more on the same ACK.
pub(crate) fn deflate_on_exit<C: CongestionControl>(
    dupwnd: &mut u32,
    s: &ClassicState,
    cc: &mut C,
    sample: &AckSample,
) {
    *dupwnd = 0;
    if s.config().dialect == Dialect::Ns2 {
        cc.on_ack(sample);
    }
}

/// RFC 6582 §4.1's heuristic (`careful = "less"`), or ns-2's `lessCareful_`: may duplicate
/// ACKs start a fast retransmit although the ACK has not passed `recover`?
pub(crate) fn heuristic_allows(s: &ClassicState, cwnd: Window) -> bool {
    match s.config().dialect {
        // ns-2's lessCareful_: also when the ACK reaches exactly `recover`.
        Dialect::Ns2 => s.recover.is_none_or(|r| s.snd_una() >= r),
        // RFC 6582 §4.1: cwnd above one segment and the ACK within 4 segments of the
        // highest ACK seen before the loss event.
        Dialect::Rfc | Dialect::Linux => {
            past_recover(s)
                || (cwnd > Window::segments(1)
                    && s.snd_una().saturating_sub(s.highest_ack_before_loss) <= 4)
        }
    }
}
