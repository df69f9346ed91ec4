//! Congestion control: one small trait, one file per variant, one closed enum for dispatch.
//!
//! The sender ([`crate::tcp::sender`]) owns the shared machinery: duplicate-ACK counting, the
//! retransmission timer, Karn's rule, the SACK scoreboard, RTT and delivery-rate sampling.
//! It calls these hooks with events it has already classified and measured. A controller
//! decides how `cwnd` and `ssthresh` move (and, optionally, a pacing rate). How the window
//! behaves while a loss is repaired (Reno's inflation, NewReno's partial ACKs, SACK's pipe,
//! PRR) is the second axis, [`crate::tcp::recovery`], as ns-3 splits `TcpCongestionOps`
//! from `TcpRecoveryOps` and Linux `tcp_cong_avoid()` from `tcp_cwnd_reduction()`.
//!
//! The order of calls on one ACK, as Linux's `tcp_ack()` makes them:
//! 1. [`CongestionControl::on_ack_sample`] for every ACK that acknowledges or SACKs data
//!    (Linux's `pkts_acked`/`cong_control` inputs: RTT, delivery rate, in-flight);
//! 2. if the ACK reveals a loss, [`CongestionControl::on_congestion`] (once per episode);
//! 3. outside loss recovery, for an ACK of new data, [`CongestionControl::on_ack`] (Linux's
//!    `cong_avoid`): the window grows.
//!
//! A controller that models the path (BBR) sets the window itself on every ACK, in and out of
//! loss recovery, as Linux's `cong_control` hook does: it answers true to
//! [`CongestionControl::controls_window`], and Linux's loss recovery then calls
//! [`CongestionControl::cong_control`] in place of step 3 and of PRR's reduction, and leaves
//! the window alone when a reduction ends (Linux `tcp_end_cwnd_reduction()`) and after idle
//! (`tcp_slow_start_after_idle_check()`).
//! A controller from outside the crate (a Python class) is the [`Cc::Custom`] arm
//! ([`custom`]).

pub mod bbr;
mod cubic;
pub mod custom;
mod dctcp;
mod hystart;
mod newreno;
mod reno;
mod vegas;

pub use bbr::{Bbr, BbrConfig};
pub use cubic::{Cubic, CubicConfig};
pub use custom::{ControllerFactory, Custom, CustomInit, NoCustomControllers};
pub use dctcp::Dctcp;
pub use hystart::HystartMode;
pub use newreno::NewReno;
pub use reno::{Growth, Reno};
pub use vegas::{Vegas, VegasConfig};

use crate::tcp::rate::RateSample;
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

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

/// The hooks a congestion-control variant implements. Windows are in segments.
pub trait CongestionControl {
    /// Current congestion window (without fast-recovery inflation).
    fn cwnd(&self) -> Window;
    /// Current slow-start threshold.
    fn ssthresh(&self) -> Window;
    /// The rate the sender should pace at, if this controller paces.
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        None
    }
    /// Loss recovery sets the window directly: PRR's per-ACK reductions (RFC 6937), the end
    /// of a reduction (Linux `tcp_end_cwnd_reduction()`), NewReno's partial deflation.
    fn set_cwnd(&mut self, cwnd: Window);
    /// Loss recovery restores a threshold (Linux's undo, and its RTO during recovery, which
    /// keeps the threshold set when recovery began).
    fn set_ssthresh(&mut self, ssthresh: Window);
    /// Partial window deflation (RFC 6582 §3.2 step 5): take `segments` off the window,
    /// never below one segment.
    fn deflate(&mut self, segments: u32) {
        let cwnd = self.cwnd().minus(segments);
        self.set_cwnd(cwnd);
    }
    /// Segment `seq` left at `now` (a retransmission if `retransmit`).
    fn on_sent(&mut self, _now: SimTime, _seq: u32, _retransmit: bool) {}
    /// An ACK that acknowledged or SACKed data, in or out of recovery, before the sender
    /// acts on it (Linux `pkts_acked`).
    fn on_ack_sample(&mut self, _sample: &AckSample) {}
    /// A duplicate ACK arrived at `now`.
    fn on_dup_ack(&mut self, _now: SimTime) {}
    /// An ACK of new data outside loss recovery: grow the window (Linux `cong_avoid`).
    fn on_ack(&mut self, sample: &AckSample);
    /// A congestion signal at `now`. `window` is what a halving halves: the flight size
    /// (RFC 5681 §3.1 eq. 4), ns-2's `windowd()` = min(cwnd, receiver window), or Linux's
    /// cwnd. The controller sets ssthresh and the window the episode starts from; loss
    /// recovery may then inflate it (Reno) or reduce towards ssthresh gradually (PRR).
    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window);
    /// The loss episode ended (all that was outstanding at its start is acknowledged).
    fn on_recovery_end(&mut self, _now: SimTime) {}
    /// The last reduction was spurious: restore the window it took (Linux `undo_cwnd`).
    fn on_undo(&mut self, _now: SimTime) {}
    /// New data leaves while nothing is in flight (Linux `CA_EVENT_TX_START`); `idle` is
    /// the time since the sender last sent anything.
    fn on_tx_start(&mut self, _now: SimTime, _idle: SimDuration) {}
    /// The controller's own loss detection (Vegas's fine-grained timer): should segment
    /// `seq` (the first unacknowledged) be retransmitted at once? Asked on each new ACK
    /// (`dupacks == 0`) and on each duplicate ACK below the threshold.
    fn retransmit_due(&mut self, _now: SimTime, _seq: u32, _dupacks: u32) -> bool {
        false
    }
    /// The SYN-ACK arrived, `rtt` after the first SYN left.
    fn on_syn_ack(&mut self, _now: SimTime, _rtt: SimDuration) {}
    /// True for a controller that sets the window itself on every ACK, in and out of loss
    /// recovery (Linux's `cong_control` hook): see the module documentation.
    fn controls_window(&self) -> bool {
        false
    }
    /// Every ACK while data is outstanding, once loss recovery has classified it and the
    /// rate sample is complete (Linux `tcp_cong_control()` calling `cong_control`); only
    /// for controllers that [`CongestionControl::controls_window`].
    fn cong_control(&mut self, _sample: &AckSample) {}
    /// The last [`CongestionControl::cong_control`] held the flight down on purpose (BBR's
    /// ProbeRTT): rate samples until the current flight is delivered are
    /// application-limited (BBR sets Linux's `tp->app_limited`).
    fn marks_app_limited(&self) -> bool {
        false
    }
    /// The controller relies on ECN (Linux `tcp_ca_needs_ecn()`): DCTCP.
    fn needs_ecn(&self) -> bool {
        false
    }
    /// The controller's state for the `cc` trace (nothing for a controller with no more
    /// state than its window, which the `cwnd` trace records).
    fn cc_state(&self) -> CcState {
        CcState::default()
    }
}

/// Modes a controller reports in the `cc` trace (the `mode` column), by code.
pub const CC_MODES: &[&str] = &["startup", "drain", "probe_bw", "probe_rtt"];

/// A controller's state as the `cc` trace records it: one column per value, empty where a
/// controller has no such value. Rates in bits per second of payload.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcState {
    /// The controller's mode, an index into [`CC_MODES`].
    pub mode: Option<u8>,
    /// BBR: the bottleneck-bandwidth estimate (`bbr_bw()`), bit/s.
    pub btl_bw_bps: Option<f64>,
    /// BBR: the min-RTT estimate.
    pub min_rtt: Option<SimDuration>,
    /// BBR: the pacing gain.
    pub pacing_gain: Option<f64>,
    /// BBR: the cwnd gain.
    pub cwnd_gain: Option<f64>,
    /// The pacing rate the controller asks for, bit/s.
    pub pacing_rate_bps: Option<f64>,
    /// The last delivery-rate sample the controller took (BBR: the valid samples that feed
    /// its bandwidth filter), bit/s.
    pub delivery_rate_bps: Option<f64>,
    /// CUBIC: `W_max`, the window at the last congestion event, segments.
    pub w_max: Option<f64>,
    /// CUBIC: `K`, the time from the epoch's start to the curve's plateau.
    pub k: Option<SimDuration>,
    /// CUBIC: when the current congestion-avoidance epoch began (to the kernel's jiffy).
    pub epoch_start: Option<SimTime>,
}

/// RFC 5681 §3.1 eq. 4 (and ns-2's `slowdown(CLOSE_SSTHRESH_HALF)`): half the window, in
/// whole segments, at least two.
pub fn halved_ssthresh(window: Window) -> Window {
    Window::segments((window.half().whole()).max(2))
}

/// The variants, stored inline in each sender; every method is a `match`, no vtable (but
/// for the custom controller's own calls). Not `Clone`: a custom controller (a Python
/// object) has no meaningful copy.
#[derive(Debug)]
pub enum Cc {
    /// Reno (also the window arithmetic of Tahoe and SACK, whose differences are loss
    /// recovery's).
    Reno(Reno),
    /// NewReno, with Hoe's start-up threshold estimate.
    NewReno(NewReno),
    /// Vegas.
    Vegas(Vegas),
    /// DCTCP (RFC 8257).
    Dctcp(Dctcp),
    /// CUBIC, as Linux runs it, with HyStart or HyStart++.
    Cubic(Cubic),
    /// BBR v1, as Linux's `tcp_bbr.c` (boxed: its model is twice the size of the other
    /// controllers, which stay inline).
    Bbr(Box<Bbr>),
    /// A controller from outside the crate ([`custom`]), off the built-ins' path.
    Custom(Custom),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::Reno($c) => $e,
            Cc::NewReno($c) => $e,
            Cc::Vegas($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Bbr($c) => $e,
            Cc::Custom($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn cwnd(&self) -> Window {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> Window {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn set_cwnd(&mut self, cwnd: Window) {
        dispatch!(self, c => c.set_cwnd(cwnd))
    }
    fn set_ssthresh(&mut self, ssthresh: Window) {
        dispatch!(self, c => c.set_ssthresh(ssthresh))
    }
    fn deflate(&mut self, segments: u32) {
        dispatch!(self, c => c.deflate(segments))
    }
    #[inline]
    fn on_sent(&mut self, now: SimTime, seq: u32, retransmit: bool) {
        dispatch!(self, c => c.on_sent(now, seq, retransmit))
    }
    #[inline]
    fn on_ack_sample(&mut self, sample: &AckSample) {
        dispatch!(self, c => c.on_ack_sample(sample))
    }
    #[inline]
    fn on_dup_ack(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_dup_ack(now))
    }
    #[inline]
    fn on_ack(&mut self, sample: &AckSample) {
        dispatch!(self, c => c.on_ack(sample))
    }
    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        dispatch!(self, c => c.on_congestion(now, event, window))
    }
    fn on_recovery_end(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_recovery_end(now))
    }
    fn on_undo(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_undo(now))
    }
    fn on_tx_start(&mut self, now: SimTime, idle: SimDuration) {
        dispatch!(self, c => c.on_tx_start(now, idle))
    }
    #[inline]
    fn retransmit_due(&mut self, now: SimTime, seq: u32, dupacks: u32) -> bool {
        dispatch!(self, c => c.retransmit_due(now, seq, dupacks))
    }
    fn on_syn_ack(&mut self, now: SimTime, rtt: SimDuration) {
        dispatch!(self, c => c.on_syn_ack(now, rtt))
    }
    #[inline]
    fn controls_window(&self) -> bool {
        dispatch!(self, c => c.controls_window())
    }
    #[inline]
    fn cong_control(&mut self, sample: &AckSample) {
        dispatch!(self, c => c.cong_control(sample))
    }
    #[inline]
    fn marks_app_limited(&self) -> bool {
        dispatch!(self, c => c.marks_app_limited())
    }
    fn cc_state(&self) -> CcState {
        dispatch!(self, c => c.cc_state())
    }
    fn needs_ecn(&self) -> bool {
        dispatch!(self, c => c.needs_ecn())
    }
}
