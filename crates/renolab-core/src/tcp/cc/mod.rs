//! Congestion control: one small trait, one file per controller, one registry.
//!
//! A sender ([`crate::tcp::sender`]) owns the shared machinery: duplicate-ACK counting, the
//! retransmission timer, Karn's rule, the SACK scoreboard, RTT and delivery-rate sampling.
//! It calls these hooks with events it has already classified and measured. A controller
//! decides how `cwnd` and `ssthresh` move (and, optionally, a pacing rate). How the window
//! behaves while a loss is repaired (Reno's inflation, NewReno's partial ACKs, SACK's pipe,
//! PRR) is the second axis, [`crate::tcp::recovery`] and the Linux sender's PRR, as ns-3
//! splits `TcpCongestionOps` from `TcpRecoveryOps` and Linux `tcp_cong_avoid()` from
//! `tcp_cwnd_reduction()`. A controller never sees a recovery.
//!
//! The order of calls on one ACK, as Linux's `tcp_ack()` makes them:
//! 1. [`CongestionControl::on_ack_sample`] for every ACK that acknowledges or SACKs data
//!    (Linux's `pkts_acked`/`cong_control` inputs: RTT, delivery rate, in-flight);
//! 2. if the ACK reveals a loss, [`CongestionControl::on_congestion`] (once per episode);
//! 3. outside loss recovery, for an ACK of new data, [`CongestionControl::on_ack`] (Linux's
//!    `cong_avoid`): the window grows.
//!
//! Other events reach [`CongestionControl::on_event`] ([`CcEvent`], as Linux's
//! `cwnd_event` and `set_state`): each segment sent, duplicate ACKs, the SYN-ACK, the end of
//! a recovery, the first send after idle.
//!
//! A controller that models the path (BBR) sets the window itself on every ACK, in and out of
//! loss recovery, as Linux's `cong_control` hook does: its declaration says so
//! ([`Declaration::cong_control`]), and the Linux sender then calls
//! [`CongestionControl::cong_control`] in place of step 3 and of PRR's reduction, and
//! leaves the window alone when a reduction ends (Linux `tcp_end_cwnd_reduction()`) and
//! after idle (`tcp_slow_start_after_idle_check()`).
//!
//! **A controller is one file** (or folder): its type implements [`CongestionControl`],
//! its configuration implements [`Declared`] with its [`Declaration`] (name, options, trace
//! fields, profiles, recovery), and one line in the registry below adds it
//! (docs/architecture.md, "Where a new thing goes"). A controller from outside the crate (a
//! Python class) is the [`Cc::Custom`] arm ([`custom`]).

pub mod bbr;
pub mod bbr3;
mod cubic;
pub mod custom;
mod dctcp;
pub mod declare;
mod hystart;
mod newreno;
mod prague;
pub mod registry;
mod reno;
mod sack;
mod tahoe;
#[cfg(test)]
mod toy;
mod vegas;

pub use bbr::{Bbr, BbrConfig};
pub use bbr3::{Bbr3, Bbr3Config};
pub use cubic::{Cubic, CubicConfig};
pub use custom::{ControllerFactory, Custom, CustomInit, NoCustomControllers};
pub use dctcp::{Dctcp, DctcpConfig};
pub use declare::{
    BuildContext, Declaration, Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind,
    OptionReader, RecoveryRule, Requirement, TraceField, TraceKind,
};
pub use hystart::HystartMode;
pub use newreno::{NewReno, NewRenoCcConfig};
pub use prague::{Prague, PragueConfig};
pub use registry::{cc_columns, cc_modes, CcState, NO_MODE};
pub use reno::{Growth, Reno, RenoConfig};
pub use sack::SackConfig;
pub use tahoe::TahoeConfig;
pub use vegas::{Vegas, VegasConfig};

use crate::tcp::rate::{RateSample, TxSample};
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

// The registry: one line per built-in controller, `Arm(Configuration => Controller)`, in
// the order the scenario's "allowed" lists name them.
crate::controllers! {
    Tahoe(TahoeConfig => Reno),
    Reno(RenoConfig => Reno),
    NewReno(NewRenoCcConfig => NewReno),
    Sack(SackConfig => Reno),
    Vegas(VegasConfig => Vegas),
    Cubic(CubicConfig => Cubic),
    Bbr(BbrConfig => Box<Bbr>),
    Dctcp(DctcpConfig => Dctcp),
    Prague(PragueConfig => Box<Prague>),
    Bbr3(Bbr3Config => Box<Bbr3>),
    #[cfg(test)]
    Toy(toy::ToyConfig => toy::Toy),
}

impl Cc {
    /// The controller relies on ECN (Linux `tcp_ca_needs_ecn()`).
    pub fn needs_ecn(&self) -> bool {
        self.declaration().is_some_and(|d| d.needs_ecn.is_some())
    }

    /// The controller's data carry ECT(1) and it needs Accurate ECN (Linux
    /// `TCP_CONG_WANTS_ECT_1`: an L4S controller).
    pub fn wants_ect1(&self) -> bool {
        self.declaration().is_some_and(|d| d.wants_ect1.is_some())
    }

    /// The controller sets the window itself on every ACK (Linux's `cong_control` hook).
    #[inline]
    pub fn controls_window(&self) -> bool {
        self.declaration().is_some_and(|d| d.cong_control)
    }
}

/// The congestion state the Linux sender is in (Linux `enum tcp_ca_state`), which it
/// reports to controllers that set the window themselves ([`ConnState::ca_state`]), as Linux
/// passes it to `set_state` and `cong_control`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// Nothing outstanding is in doubt.
    Open,
    /// SACKs or retransmissions outstanding, no loss detected.
    Disorder,
    /// Reducing the window for an ECN echo or a probe-repaired loss.
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// What one ACK told the sender, measured once and handed to the controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// When the ACK arrived.
    pub now: SimTime,
    /// The cumulative ACK: the next segment the receiver expects.
    pub ack: u32,
    /// Segments newly acknowledged cumulatively by this ACK and not SACKed before (0 for a
    /// duplicate): with `sacked`, what the ACK newly delivered (Linux `acked_sacked`).
    pub acked: u32,
    /// Segments newly reported by SACK blocks of this ACK.
    pub sacked: u32,
    /// One past the highest segment sent so far (Linux's `snd_nxt`): a round trip ends when
    /// the cumulative ACK passes the value this had when the round began.
    pub snd_max: u32,
    /// The RTT measured by this ACK, if it gave one (Karn's rule applies).
    pub rtt: Option<SimDuration>,
    /// The smoothed RTT after this ACK, once there is one (outside the linux recovery, only
    /// on the ACKs that measure an RTT: it changes only then).
    pub srtt: Option<SimDuration>,
    /// The smallest RTT measured so far.
    pub min_rtt: Option<SimDuration>,
    /// Segments in flight after this ACK (RFC 6675 `pipe`, Linux `tcp_packets_in_flight()`;
    /// without a scoreboard, `snd_max - snd_una`).
    pub in_flight: u32,
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-estimation),
    /// when the sender estimates delivery rates.
    pub rate: Option<RateSample>,
    /// The ACK carried ECN-Echo (RFC 3168 §6.1.2).
    pub ece: bool,
    /// The sender used its whole window in the last round trip (RFC 7661; Linux
    /// `tcp_is_cwnd_limited()`): a controller that validates its window grows only then.
    pub cwnd_limited: bool,
    /// The connection's delivery counters and state after this ACK, as Linux's
    /// `cong_control` hook reads them (kept by the Linux loss recovery; zero elsewhere).
    pub conn: ConnState,
    /// Under Accurate ECN, the segments this ACK newly reported CE-marked (RFC 9768
    /// §3.2.2.5; Linux `rs->ece_delta`); 0 otherwise. Their bytes are `ce_delta` full
    /// segments: without the AccECN option the receiver counts packets.
    pub ce_delta: u32,
}

/// What Linux's `cong_control` hook (`bbr_main()`) reads from `tcp_sock` and the rate sample
/// besides the delivery-rate sample itself: counters that are valid on every ACK, also when
/// the ACK gives no rate sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnState {
    /// Segments delivered (ACKed or SACKed) so far (Linux `tp->delivered`).
    pub delivered: u64,
    /// When `delivered` last grew (`tp->delivered_mstamp`).
    pub delivered_time: SimTime,
    /// Segments marked lost so far, a lost retransmission counting again (`tp->lost`).
    pub lost: u64,
    /// Segments this ACK newly delivered (`rs->acked_sacked`).
    pub newly_delivered: u32,
    /// Segments this ACK newly marked lost (`rs->losses`).
    pub newly_lost: u32,
    /// Segments in flight before this ACK (`rs->prior_in_flight`).
    pub prior_in_flight: u32,
    /// The congestion state after this ACK (`icsk_ca_state`).
    pub ca_state: CaState,
    /// The earliest time the next segment may leave under pacing (`tp->tcp_wstamp_ns`).
    pub next_send: SimTime,
    /// Segments delivered that the receiver got CE-marked (`tp->delivered_ce`): under
    /// Accurate ECN the ACE field's count, under RFC 3168 every segment an ECN-Echo ACK
    /// delivers (`tcp_count_delivered()`).
    pub delivered_ce: u64,
    /// What the segment this ACK's rate sample comes from says beyond the rate (BBRv3's
    /// additions to the rate sample: its flight, losses and CE marks since it left).
    pub tx: TxSample,
    /// The sender used its whole window in its last round (`tp->is_cwnd_limited`, without
    /// `tcp_is_cwnd_limited()`'s slow-start clause).
    pub is_cwnd_limited: bool,
}

impl Default for ConnState {
    fn default() -> Self {
        ConnState {
            delivered: 0,
            delivered_time: SimTime::ZERO,
            lost: 0,
            newly_delivered: 0,
            newly_lost: 0,
            prior_in_flight: 0,
            ca_state: CaState::Open,
            next_send: SimTime::ZERO,
            delivered_ce: 0,
            tx: TxSample::default(),
            is_cwnd_limited: false,
        }
    }
}

impl AckSample {
    /// A sample carrying only the cumulative ACK (for tests and for senders that measure
    /// nothing else).
    pub fn new(now: SimTime, ack: u32, acked: u32) -> Self {
        AckSample {
            now,
            ack,
            acked,
            sacked: 0,
            snd_max: ack,
            rtt: None,
            srtt: None,
            min_rtt: None,
            in_flight: 0,
            rate: None,
            ece: false,
            cwnd_limited: true,
            conn: ConnState::default(),
            ce_delta: 0,
        }
    }
}

/// Why the window must come down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Loss inferred from duplicate ACKs or the SACK scoreboard (RFC 5681 §3.2, RFC 6675).
    FastRetransmit,
    /// Loss detected by RACK's time-based rule (RFC 8985 §6.2), or confirmed by a tail-loss
    /// probe.
    RackLoss,
    /// The retransmission timer expired (RFC 6298 §5).
    Timeout,
    /// The receiver echoed a Congestion Experienced mark (RFC 3168 §6.1.2).
    Ecn,
}

impl Congestion {
    /// The name Python controllers and traces see.
    pub fn name(self) -> &'static str {
        match self {
            Congestion::FastRetransmit => "fast_retransmit",
            Congestion::RackLoss => "rack_loss",
            Congestion::Timeout => "timeout",
            Congestion::Ecn => "ecn",
        }
    }
}

/// Something that happened to the connection, besides ACKs and congestion signals (Linux's
/// `cwnd_event()` and `set_state()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcEvent {
    /// Segment `seq` left (a retransmission if `retransmit`).
    Sent {
        /// The segment.
        seq: u32,
        /// It was sent before.
        retransmit: bool,
    },
    /// A duplicate ACK arrived (the classic sender's).
    DupAck,
    /// The SYN-ACK arrived, `rtt` after the first SYN left.
    SynAck {
        /// Time since the first SYN.
        rtt: SimDuration,
    },
    /// The loss episode ended: all that was outstanding at its start is acknowledged (the
    /// Linux sender's; `set_state(TCP_CA_Open)`).
    RecoveryEnd,
    /// New data leaves while nothing is in flight (Linux `CA_EVENT_TX_START`); `idle` is the
    /// time since the sender last sent anything.
    TxStart {
        /// Time since the last send.
        idle: SimDuration,
    },
    /// Loss detection marked a segment lost (Google's BBRv3 tree: the `skb_marked_lost`
    /// hook of `tcp_mark_skb_lost()`); the Linux sender's, for a controller that sets the
    /// window itself ([`Declaration::cong_control`]).
    SegmentLost {
        /// Segments in flight just after it was last sent, it included (`tx.in_flight`).
        tx_in_flight: u32,
        /// Segments marked lost since it was sent, it included (`tp->lost - tx.lost`).
        lost_since_send: u32,
        /// It was sent while the application limited sending (`tx.is_app_limited`).
        app_limited: bool,
        /// Segments delivered so far (`tp->delivered`).
        delivered: u64,
    },
    /// A tail-loss probe repaired the loss of one segment (Google's BBRv3 tree:
    /// `CA_EVENT_TLP_RECOVERY`); the Linux sender's, for a controller that sets the window
    /// itself.
    LossProbeRecovery {
        /// Segments delivered so far (`tp->delivered`).
        delivered: u64,
        /// The probe was sent while the application limited sending.
        app_limited: bool,
    },
}

/// What [`CongestionControl::cong_control`] tells the sender besides the window it set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Control {
    /// The controller held the flight down on purpose (BBR's ProbeRTT): rate samples until
    /// the current flight is delivered are application-limited (BBR sets Linux's
    /// `tp->app_limited`).
    pub app_limited: bool,
}

/// The hooks a congestion controller implements. Windows are in segments.
pub trait CongestionControl {
    /// Current congestion window (without fast-recovery inflation).
    fn cwnd(&self) -> Window;
    /// Current slow-start threshold.
    fn ssthresh(&self) -> Window;
    /// The rate the sender should pace at, if this controller paces.
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        None
    }
    /// Segments that leave back to back per pacing release (Linux's `tso_segs` hook: the
    /// size of a GSO buffer); 1 for a controller that does not say.
    fn tso_segs(&self) -> u32 {
        1
    }
    /// The fewest segments a GSO buffer holds (Linux's `min_tso_segs` hook, read by
    /// `tcp_tso_segs()`); `None`: the host's `tcp_min_tso_segs` (option `min_tso_segs`).
    fn min_tso_segs(&self) -> Option<u32> {
        None
    }
    /// Loss recovery sets the window (Linux writes `tp->snd_cwnd`): PRR's per-ACK
    /// reductions (RFC 6937), the end of a reduction (Linux `tcp_end_cwnd_reduction()`),
    /// Tahoe's restart from one segment.
    fn set_cwnd(&mut self, cwnd: Window);
    /// Loss recovery restores a threshold (Linux's RTO during recovery keeps the threshold
    /// set when recovery began; its restart after idle keeps 3/4 of the window).
    fn set_ssthresh(&mut self, ssthresh: Window);
    /// Partial window deflation (RFC 6582 §3.2 step 5): take `segments` off the window,
    /// never below one segment.
    fn deflate(&mut self, segments: u32) {
        let cwnd = self.cwnd().minus(segments);
        self.set_cwnd(cwnd);
    }
    /// Something happened to the connection (see [`CcEvent`]).
    fn on_event(&mut self, _now: SimTime, _event: CcEvent) {}
    /// An ACK that acknowledged or SACKed data, in or out of recovery, before the sender
    /// acts on it (Linux `pkts_acked`).
    fn on_ack_sample(&mut self, _sample: &AckSample) {}
    /// An ACK of new data outside loss recovery: grow the window (Linux `cong_avoid`).
    fn on_ack(&mut self, sample: &AckSample);
    /// A congestion signal at `now`. `window` is what a halving halves: the flight size
    /// (RFC 5681 §3.1 eq. 4), ns-2's `windowd()` = min(cwnd, receiver window), or Linux's
    /// cwnd. The controller sets ssthresh and the window the episode starts from (Linux's
    /// `ssthresh()` and the reduction it starts); loss recovery may then inflate it (Reno)
    /// or reduce towards ssthresh gradually (PRR).
    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window);
    /// The last reduction was spurious (Linux `undo_cwnd`): the window to restore. The
    /// controller may forget what the reduction taught it; it does not set the window.
    fn undo_cwnd(&mut self, _now: SimTime) -> Window {
        self.cwnd()
    }
    /// Every ACK while data is outstanding, once the Linux sender has classified it and the
    /// rate sample is complete (Linux `tcp_cong_control()` calling `cong_control`); only
    /// for a controller whose declaration says [`Declaration::cong_control`].
    fn cong_control(&mut self, _sample: &AckSample) -> Control {
        Control::default()
    }
    /// The values of the controller's `cc` trace fields ([`Declaration::trace`]), in their
    /// order, into `values` (as long as that list, NaN for none; a mode as its index in
    /// [`Declaration::modes`]). Nothing for a controller with no more state than its
    /// window, which the `cwnd` trace records.
    fn trace(&self, _values: &mut [f64]) {}
}

/// RFC 5681 §3.1 eq. 4 (and ns-2's `slowdown(CLOSE_SSTHRESH_HALF)`): half the window, in
/// whole segments, at least two.
pub fn halved_ssthresh(window: Window) -> Window {
    Window::segments((window.half().whole()).max(2))
}
