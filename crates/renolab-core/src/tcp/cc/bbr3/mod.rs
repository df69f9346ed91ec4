//! BBRv3 as Google's Linux tree runs it (`net/ipv4/tcp_bbr.c` on the `v3` branch of
//! github.com/google/bbr, `BBR_VERSION 3`), which draft-ietf-ccwg-bbr specifies.
//!
//! v3 keeps v1's model (the windowed max of delivery-rate samples, the min RTT, pacing at a
//! gain times the bandwidth, a window of a gain times the BDP) and bounds it with what losses
//! and ECN marks say (Cardwell et al., "BBR v2: A Model-based Congestion Control", IETF 104
//! ICCRG; "BBRv3: Algorithm Bug Fixes and Public Internet Deployment", IETF 117 CCWG):
//!
//! - **upper bounds**, `bw_hi` (the max bandwidth of the last one or two ProbeBW cycles) and
//!   `inflight_hi` (the flight at which loss passed 2 % or CE marks 50 % while probing, cut
//!   to 0.7 of the BDP at most), which ProbeBW probes above only on its schedule;
//! - **lower bounds**, `bw_lo` and `inflight_lo`: outside probing, a round trip with a loss
//!   cuts them to 0.7 of themselves (`beta`), one with CE marks cuts `inflight_lo` by
//!   `ecn_factor x alpha` (alpha an EWMA of the CE-marked fraction, as DCTCP's), never below
//!   what the last round delivered; probing resets them.
//!
//! ProbeBW is a cycle of four phases (`probe_bw.rs`): DOWN (pace at 0.91 until the flight is
//! at most the BDP and leaves 15 % of `inflight_hi` as headroom), CRUISE (pace at 1, cwnd
//! capped by that headroom) for a random 2-3 s or until a Reno flow at our BDP would have
//! probed (at most 63 rounds), REFILL (one round at 1 with the lower bounds reset), UP (pace
//! at 1.25, `inflight_hi` growing exponentially per round while cwnd-limited) until the
//! flight reaches `inflight_hi` after a probe that went too high, the bandwidth stops
//! growing, or loss or ECN say it went too far. Startup (`modes.rs`) paces at 2.77 and ends
//! when the bandwidth stops growing 25 % for three rounds, when a recovery round sees six
//! loss events and more than 2 % loss, or after two rounds with more than 50 % CE marks;
//! ProbeRTT comes when 5 s pass without a lower RTT and holds cwnd at half the BDP for
//! 200 ms and a round trip.
//!
//! The arithmetic is the kernel's (gains in 1/256, bandwidth in segments per microsecond
//! times 2^24), shared with v1 where v1 does the same ([`crate::tcp::cc::bbr`]).
//!
//! Deviations, with why:
//! - As v1's: exact nanosecond stamps, not jiffies; `rs->is_ack_delayed` never set; no
//!   segmentation offload (the window keeps the kernel's allowance for it).
//! - Protective Load Balancing (`bbr_plb()`) is left out: it changes a flow's IPv6 label,
//!   which needs multipath routing renolab's networks do not have (and the kernel's
//!   `tcp_plb_enabled` is off by default).
//! - `fast_ack_mode` (the receiver's ACK policy under BBRv3) and `precise_ece_ack` (the
//!   receiver's DCTCP-style echo) are the receiver's side: renolab's receiver echoes per the
//!   flow's ECN options.

mod aggregation;
mod config;
mod modes;
mod probe_bw;
mod signals;
#[cfg(test)]
mod tests;
mod window;

pub use config::{Bbr3Config, Phase, PACING_GAIN};

use aggregation::AckAggregation;

pub use super::bbr::Mode;
use super::bbr::{arith, gain_value, BBR_SCALE, BBR_UNIT, BW_UNIT};
use super::{AckSample, CaState, CcEvent, Congestion, CongestionControl, Control};
use crate::rng::RngStream;
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// "No bound yet" for `inflight_lo`/`inflight_hi` (the kernel's `~0U`).
const UNBOUNDED: u32 = u32::MAX;
/// "No bound yet" for `bw_lo`.
const BW_UNBOUNDED: u64 = u64::MAX;
/// Linux `GSO_LEGACY_MAX_SIZE`, bytes: the largest burst, and the RTT-based allowance.
const GSO_LEGACY_MAX_SIZE: u64 = 65_536;

/// What BBRv3 reads from an ACK beyond what v1 reads: the fields Google's v3 tree adds to
/// Linux's rate sample (`struct rate_sample`) and connection (`tcp_sock`), from the
/// per-segment snapshot taken at send time (`tcp_rate_skb_sent()`: `tx.in_flight`,
/// `tx.lost`, `tx.delivered_ce`) of the most recently sent segment this ACK delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct V3Rate {
    /// Segments in flight just after the sampled segment was sent, it included
    /// (`rs->tx_in_flight`); 0 when the ACK delivered no timed segment.
    pub tx_in_flight: u32,
    /// Segments marked lost between that send and this ACK (`rs->lost` = `tp->lost -
    /// tx.lost`).
    pub lost: u32,
    /// Segments delivered over the sample (`rs->delivered`), also when its interval is
    /// shorter than the min RTT and the sample's rate is invalid.
    pub delivered: u32,
    /// Of those, delivered with a CE mark echoed (`rs->delivered_ce`).
    pub delivered_ce: u32,
    /// The sampled segment was sent application-limited (`rs->is_app_limited`).
    pub app_limited: bool,
    /// Segments delivered with CE echoed so far (`tp->delivered_ce`).
    pub conn_delivered_ce: u64,
    /// The sender was limited by cwnd in its last round (`tp->is_cwnd_limited`, without
    /// `tcp_is_cwnd_limited()`'s slow-start clause).
    pub cwnd_limited: bool,
}

/// A segment the loss detection just marked lost, as Linux's `skb_marked_lost` hook sees it
/// (from its send-time snapshot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LostSegment {
    /// Segments in flight just after it was sent, it included (`tx.in_flight`).
    pub tx_in_flight: u32,
    /// The connection's lost count when it was sent (`tx.lost`).
    pub lost_at_send: u64,
    /// It was sent application-limited (`tx.is_app_limited`).
    pub app_limited: bool,
}

/// How the ACKs relate to bandwidth probing (`enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    /// Not probing, no probe feedback.
    Init,
    /// Sending at the estimate to fill the pipe (REFILL).
    Refilling,
    /// The flight rises to probe (UP's first round).
    ProbeStarting,
    /// ACKs of the probe arrive.
    ProbeFeedback,
    /// Probing stopped; its ACKs still arrive.
    ProbeStopping,
}

/// BBRv3's state (the v3 tree's `struct bbr`, and the `tcp_sock` fields it owns:
/// `snd_cwnd`, `snd_ssthresh`, `sk_pacing_rate`).
#[derive(Clone, Debug)]
pub struct Bbr3 {
    config: Bbr3Config,
    /// Payload bytes per segment (`mss_cache`).
    mss: u32,
    /// Header bytes per segment on the wire.
    header_bytes: u32,
    /// The window, segments (`snd_cwnd`).
    cwnd: u32,
    /// `snd_ssthresh`: infinite until Drain sets it (for monitoring only).
    ssthresh: u32,
    /// The pacing rate, payload bytes per second (`sk_pacing_rate`).
    pacing_rate: u64,
    /// The window the connection started with, at most 127 (`init_cwnd`).
    init_cwnd: u32,
    mode: Mode,
    /// ProbeBW's phase (`cycle_idx`).
    phase: Phase,
    /// The min RTT of `min_rtt_win_sec`, microseconds (`u32::MAX`: none yet).
    min_rtt_us: u32,
    min_rtt_stamp: SimTime,
    /// The min RTT of `probe_rtt_win_ms`, which schedules ProbeRTT (`probe_rtt_min_us`).
    probe_rtt_min_us: u32,
    probe_rtt_min_stamp: SimTime,
    /// When ProbeRTT may end, once its flight is down (`probe_rtt_done_stamp`).
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// The round ends when a segment sent after this many were delivered is delivered.
    next_rtt_delivered: u64,
    /// When the current phase's clock started (`cycle_mstamp`).
    cycle_stamp: SimTime,
    prev_ca_state: CaState,
    round_start: bool,
    idle_restart: bool,
    /// The ACK's sample may skip the model (`try_fast_path`).
    try_fast_path: bool,
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw_reached: bool,
    /// The bandwidth plateaued recently (Startup's exit, ProbeBW_UP's end).
    full_bw_now: bool,
    full_bw_cnt: u32,
    /// The bandwidth sample that last grew by `full_bw_thresh` (`full_bw`).
    full_bw: u64,
    has_seen_rtt: bool,
    /// The last good window, restored after a timeout and ProbeRTT (`prior_cwnd`).
    prior_cwnd: u32,
    /// The ACK-aggregation estimate.
    aggregation: AckAggregation,
    /// Consecutive Startup rounds with the CE fraction above `ecn_thresh`.
    startup_ecn_rounds: u32,
    /// A loss (an ECN mark) in this ProbeBW cycle.
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    /// The loss round ends when a segment sent after this many were delivered is
    /// delivered (`loss_round_delivered`).
    loss_round_delivered: u64,
    /// The bounds before the latest losses, for undo.
    undo_bw_lo: u64,
    undo_inflight_lo: u32,
    undo_inflight_hi: u32,
    /// Max delivery rate and volume of the last round trip (`bw_latest`,
    /// `inflight_latest`).
    bw_latest: u64,
    inflight_latest: u32,
    /// Short-term lower bound on the bandwidth, `BW_UNIT`s (`BW_UNBOUNDED`: none).
    bw_lo: u64,
    /// Max bandwidth of the previous and the current cycle (`bw_hi[2]`).
    bw_hi: [u64; 2],
    /// Lower and upper bounds on the flight, segments (`UNBOUNDED`: none).
    inflight_lo: u32,
    inflight_hi: u32,
    /// ProbeBW_UP raises `inflight_hi` by 1 per this many segments (S)ACKed
    /// (`bw_probe_up_cnt`), counting them in `bw_probe_up_acks`, doubling the slope each
    /// round (`bw_probe_up_rounds`).
    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
    bw_probe_up_rounds: u32,
    /// Wall-clock wait from ProbeBW_DOWN to the next probe, microseconds.
    probe_wait_us: u32,
    /// The connection may use the ECN logic (`ecn_eligible`).
    ecn_eligible: bool,
    /// EWMA of the CE-marked fraction, in 1/256 (`ecn_alpha`).
    ecn_alpha: u32,
    /// Rate samples reflect bandwidth probing (`bw_probe_samples`).
    bw_probe_samples: bool,
    /// The last ProbeBW_UP went too high (`prev_probe_too_high`).
    prev_probe_too_high: bool,
    /// The last ProbeBW_UP stopped at `inflight_hi`, for fear of loss.
    stopped_risky_probe: bool,
    /// Packet-timed rounds since the last probe (8 bits, saturating).
    rounds_since_probe: u32,
    loss_round_start: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    ack_phase: AckPhase,
    /// ACKs with losses in this Startup round (4 bits, saturating).
    loss_events_in_round: u32,
    /// `tp->delivered` and `tp->delivered_ce` at the last alpha update.
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    /// A timeout cut the window: the next [`CongestionControl::set_cwnd`] is Linux's
    /// `snd_cwnd = in_flight + 1`, after which `bbr_set_state(TCP_CA_Loss)` runs.
    entering_loss: bool,
    /// ECN was negotiated (`TCP_ECN_OK`).
    ecn_ok: bool,
    /// ProbeRTT asked, on the last ACK, that rate samples be application-limited.
    marked_app_limited: bool,
    /// The last valid delivery-rate sample, `BW_UNIT`s (for the `cc` trace).
    last_sample: Option<u64>,
    /// The connection's counters as of the last ACK.
    conn: super::ConnState,
    /// The time of the event being handled (Linux `tp->tcp_mstamp`).
    now: SimTime,
    /// The SYN was acknowledged: Linux counts it in `tp->delivered`.
    syn_delivered: bool,
    /// Linux `sk_pacing_shift` (option `pacing_shift`): TSO autosizing aims at 2^-shift s
    /// (about 1 ms) of data per burst.
    pacing_shift: u32,
    /// The flow's random stream (ProbeBW's waits).
    rng: RngStream,
}

impl Bbr3 {
    /// A BBRv3 sender with an initial window of `initial_window` segments of `mss` payload
    /// bytes plus `header_bytes`, drawing ProbeBW's random waits from `rng` (`bbr_init()`).
    pub fn new(
        config: Bbr3Config,
        initial_window: u32,
        mss: u32,
        header_bytes: u32,
        rng: RngStream,
    ) -> Self {
        let cwnd = initial_window.max(1);
        let mut b = Bbr3 {
            config,
            mss: mss.max(1),
            header_bytes,
            cwnd,
            ssthresh: u32::MAX,
            pacing_rate: 0,
            init_cwnd: cwnd.min(0x7f),
            mode: Mode::Startup,
            phase: Phase::Up,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min_us: u32::MAX,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            next_rtt_delivered: 0,
            cycle_stamp: SimTime::ZERO,
            prev_ca_state: CaState::Open,
            round_start: false,
            idle_restart: false,
            try_fast_path: false,
            pacing_gain: config.startup_pacing_gain,
            cwnd_gain: config.startup_cwnd_gain,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw_cnt: 0,
            full_bw: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            aggregation: AckAggregation::default(),
            startup_ecn_rounds: 0,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            loss_round_delivered: 1,
            undo_bw_lo: 0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            bw_latest: 0,
            inflight_latest: 0,
            bw_lo: BW_UNBOUNDED,
            bw_hi: [0; 2],
            inflight_lo: UNBOUNDED,
            inflight_hi: UNBOUNDED,
            bw_probe_up_cnt: u32::MAX,
            bw_probe_up_acks: 0,
            bw_probe_up_rounds: 0,
            probe_wait_us: 0,
            ecn_eligible: false,
            ecn_alpha: config.ecn_alpha_init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            rounds_since_probe: 0,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            ack_phase: AckPhase::Init,
            loss_events_in_round: 0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            entering_loss: false,
            ecn_ok: false,
            marked_app_limited: false,
            last_sample: None,
            conn: super::ConnState::default(),
            now: SimTime::ZERO,
            syn_delivered: false,
            pacing_shift: crate::tcp::gso::DEFAULT_PACING_SHIFT,
            rng,
        };
        b.init_pacing_rate_from_rtt(None);
        b
    }

    /// The host's `sk_pacing_shift` (option `pacing_shift`, default 10).
    pub fn set_pacing_shift(&mut self, shift: u32) {
        self.pacing_shift = shift;
    }

    /// ECN was negotiated on the connection (Linux `TCP_ECN_OK`): with the route's
    /// `ecn_low`, the ECN logic may run.
    pub fn set_ecn_negotiated(&mut self, ok: bool) {
        self.ecn_ok = ok;
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// ProbeBW's phase (meaningful in ProbeBW).
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Linux `bbr_max_bw()`: the max bandwidth of the last one or two cycles, `BW_UNIT`s.
    pub fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// Linux `bbr_bw()`: the estimate BBR paces at, the max bounded by `bw_lo`.
    pub fn bw(&self) -> u64 {
        self.max_bw().min(self.bw_lo)
    }

    /// The bounds on the flight, segments, where there are any.
    pub fn inflight_bounds(&self) -> (Option<u32>, Option<u32>) {
        let bound = |v: u32| (v != UNBOUNDED).then_some(v);
        (bound(self.inflight_lo), bound(self.inflight_hi))
    }

    /// The lower bound on the bandwidth, `BW_UNIT`s, if there is one.
    pub fn bw_lo(&self) -> Option<u64> {
        (self.bw_lo != BW_UNBOUNDED).then_some(self.bw_lo)
    }

    /// The min-RTT estimate, if BBR has one.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        (self.min_rtt_us != u32::MAX).then(|| SimDuration::from_micros(self.min_rtt_us as u64))
    }

    /// The pacing rate, payload bytes per second (`sk_pacing_rate`).
    pub fn pacing_rate_bytes(&self) -> u64 {
        self.pacing_rate
    }

    /// The current pacing and cwnd gains, 1/256 units.
    pub fn gains(&self) -> (u32, u32) {
        (self.pacing_gain, self.cwnd_gain)
    }

    /// The ECN alpha, 1/256 units.
    pub fn ecn_alpha(&self) -> u32 {
        self.ecn_alpha
    }

    /// `BW_UNIT`s as payload bits per second.
    fn bw_bps(&self, bw: u64) -> f64 {
        arith::bw_bps(bw, self.mss)
    }

    /// Linux's `tp->delivered`, which counts an acknowledged SYN (renolab's does not).
    fn delivered(&self) -> u64 {
        self.conn.delivered + self.syn_delivered as u64
    }

    /// Linux `bbr_is_probing_bandwidth()`: Startup, ProbeBW's REFILL and UP.
    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// A uniform draw in `0..n` (Linux `get_random_u32_below()`; 0 for `n` = 0).
    fn random_below(&mut self, n: u32) -> u32 {
        ((n as u128 * self.rng.next_u64() as u128) >> 64) as u32
    }

    /// Linux `bbr_init()` once the connection is open: the SYN's RTT is the first min RTT
    /// (of both filters) and sets the first pacing rate.
    fn init_from_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        let rtt_us = (rtt.as_nanos() / 1000).min(u32::MAX as u64 - 1) as u32;
        self.min_rtt_us = rtt_us;
        self.min_rtt_stamp = now;
        self.probe_rtt_min_us = rtt_us;
        self.probe_rtt_min_stamp = now;
        self.aggregation.restart_epoch(now);
        // Rounds count from here; the loss rate is sampled after the first flight.
        self.next_rtt_delivered = self.delivered();
        self.loss_round_delivered = self.delivered() + 1;
        self.init_pacing_rate_from_rtt(Some(rtt));
    }

    /// Linux `bbr_main()` for an ACK with the v3 tree's additions to the rate sample.
    pub fn on_ack_v3(&mut self, sample: &AckSample, v3: &V3Rate) {
        self.conn = sample.conn;
        self.now = sample.now;
        self.marked_app_limited = false;
        self.update_round_start(sample);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
            self.update_ecn_alpha(v3);
        }
        self.ecn_in_round |= self.ecn_eligible && sample.ece;
        let sample_bw = signals::bw_sample(sample);
        if let Some(bw) = sample_bw {
            self.last_sample = Some(bw);
        }
        let sample_bw = sample_bw.unwrap_or(0);
        self.update_latest_delivery_signals(sample, v3, sample_bw);
        let mut update_model = true;
        let mut fast = false;
        if self.config.fast_path
            && self.try_fast_path
            && v3.app_limited
            && sample_bw < self.max_bw()
            && !self.loss_in_round
            && !self.ecn_in_round
        {
            // Linux `bbr_run_fast_path()`: an application-limited ACK with nothing new.
            let (mode, min_rtt) = (self.mode, self.min_rtt_us);
            self.check_drain(sample);
            self.update_cycle_phase(sample, v3, sample_bw);
            self.update_min_rtt(sample);
            fast = self.mode == mode && self.min_rtt_us == min_rtt && self.try_fast_path;
            update_model = false;
        }
        if !fast {
            if update_model {
                self.update_model(sample, v3, sample_bw);
            }
            self.update_gains();
            let bw = self.bw();
            self.set_pacing_rate(bw, self.pacing_gain, sample.srtt);
            self.set_cwnd(sample.conn.newly_delivered, bw, self.cwnd_gain);
            self.bound_cwnd_for_inflight_model();
        }
        self.advance_latest_delivery_signals(sample, v3, sample_bw);
        self.prev_ca_state = sample.conn.ca_state;
        self.loss_in_cycle |= v3.lost > 0;
        self.ecn_in_cycle |= v3.delivered_ce > 0;
    }

    /// Linux `bbr_update_model()`, in the kernel's order.
    fn update_model(&mut self, sample: &AckSample, v3: &V3Rate, sample_bw: u64) {
        self.update_congestion_signals(sample, v3, sample_bw);
        self.update_ack_aggregation(sample);
        self.check_loss_too_high_in_startup(sample, v3);
        self.check_full_bw_reached(v3, sample_bw);
        self.check_drain(sample);
        self.update_cycle_phase(sample, v3, sample_bw);
        self.update_min_rtt(sample);
    }

    /// Linux's `skb_marked_lost` hook (`bbr_skb_marked_lost()`): loss detection marked a
    /// segment lost; `lost` and `delivered` are the connection's counts with it counted.
    /// While probing, a loss rate above `loss_thresh` over the segment's flight ends the
    /// probe, `inflight_hi` set where the rate crossed it.
    pub fn on_segment_lost(&mut self, now: SimTime, seg: &LostSegment, lost: u64, delivered: u64) {
        self.now = now;
        self.note_loss(delivered + self.syn_delivered as u64);
        if !self.bw_probe_samples {
            return; // not sent while probing
        }
        let rs = probe_bw::LossSample {
            tx_in_flight: seg.tx_in_flight,
            lost: lost.saturating_sub(seg.lost_at_send).min(u32::MAX as u64) as u32,
            app_limited: seg.app_limited,
        };
        if self.is_loss_too_high(rs.lost, rs.tx_in_flight) {
            let tx_in_flight = self.inflight_hi_from_lost_segment(&rs);
            self.handle_inflight_too_high(tx_in_flight, rs.app_limited);
        }
    }

    /// Linux `bbr_run_loss_probe_recovery()` (`CA_EVENT_TLP_RECOVERY`): a tail-loss probe
    /// repaired the loss of one segment, sent application-limited or not.
    pub fn on_loss_probe_recovery(&mut self, now: SimTime, delivered: u64, app_limited: bool) {
        self.now = now;
        if !self.config.loss_probe_recovery {
            return;
        }
        self.note_loss(delivered + self.syn_delivered as u64);
        if !self.bw_probe_samples {
            return;
        }
        let tx_in_flight = self.inflight_latest + 1;
        if self.is_loss_too_high(1, tx_in_flight) {
            self.handle_inflight_too_high(tx_in_flight, app_limited);
        }
    }

    /// Linux `bbr_exit_loss_recovery()`: leaving the Loss state restores the window.
    fn exit_loss_recovery(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.try_fast_path = false;
    }

    /// Linux `bbr_set_state(TCP_CA_Loss)`, once the timeout set cwnd: the round's
    /// measurements restart, and outside probing `inflight_lo` remembers the window before
    /// the timeout.
    fn enter_loss(&mut self) {
        self.prev_ca_state = CaState::Loss;
        self.reset_full_bw();
        if !self.is_probing_bandwidth() && self.inflight_lo == UNBOUNDED {
            self.inflight_lo = self.cwnd.max(self.prior_cwnd);
        }
    }
}

impl CongestionControl for Bbr3 {
    fn cwnd(&self) -> Window {
        Window::segments(self.cwnd)
    }

    fn ssthresh(&self) -> Window {
        Window::segments(self.ssthresh)
    }

    /// The pacing rate in bits per second of wire bytes (as v1's).
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        Some(arith::wire_pacing_rate(
            self.pacing_rate,
            self.mss,
            self.header_bytes,
        ))
    }

    /// v3's `bbr_min_tso_segs()` (as v1's): one segment per GSO buffer below 1.2 Mb/s.
    fn min_tso_segs(&self) -> Option<u32> {
        Some(arith::min_tso_segs(self.pacing_rate))
    }

    /// Loss recovery sets the window: after a timeout's `on_congestion`, this is Linux's
    /// `snd_cwnd = in_flight + 1`, and the Loss state begins.
    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd.whole();
        if self.entering_loss {
            self.entering_loss = false;
            self.enter_loss();
        }
    }

    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.whole();
    }

    /// Not called: BBR's window moves in [`CongestionControl::cong_control`].
    fn on_ack(&mut self, _sample: &AckSample) {}

    /// Linux `bbr_ssthresh()` (entering recovery, CWR or a timeout: save the window and the
    /// bounds for undo); leaving the Loss state for recovery is `bbr_set_state()`'s exit.
    fn on_congestion(&mut self, _now: SimTime, event: Congestion, _window: Window) {
        self.save_cwnd();
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
        if event == Congestion::Timeout {
            self.entering_loss = true;
        } else if self.prev_ca_state == CaState::Loss {
            self.exit_loss_recovery();
        }
    }

    /// Linux `bbr_undo_cwnd()`: the reduction was spurious: restore the bounds, search for
    /// the full pipe again, and return the window before the reduction.
    fn undo_cwnd(&mut self, _now: SimTime) -> Window {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.try_fast_path = false;
        Window::segments(self.prior_cwnd.max(1))
    }

    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        match event {
            CcEvent::SynAck { rtt } => {
                self.syn_delivered = true;
                self.init_from_rtt(now, rtt);
            }
            CcEvent::TxStart { .. } => self.on_tx_start(now),
            // The Loss state ended (Linux `bbr_set_state()` leaving `TCP_CA_Loss`).
            CcEvent::RecoveryEnd if self.prev_ca_state == CaState::Loss => {
                self.exit_loss_recovery()
            }
            CcEvent::SegmentLost {
                tx_in_flight,
                lost_since_send,
                app_limited,
                delivered,
            } => {
                let seg = LostSegment {
                    tx_in_flight,
                    lost_at_send: 0,
                    app_limited,
                };
                self.on_segment_lost(now, &seg, lost_since_send as u64, delivered);
            }
            CcEvent::LossProbeRecovery {
                delivered,
                app_limited,
            } => self.on_loss_probe_recovery(now, delivered, app_limited),
            _ => {}
        }
    }

    /// Linux `bbr_main()` with the v3 tree's additions to the rate sample, which the Linux
    /// sender hands over in the connection's state.
    fn cong_control(&mut self, sample: &AckSample) -> Control {
        let tx = sample.conn.tx;
        let v3 = V3Rate {
            tx_in_flight: tx.tx_in_flight,
            lost: tx.lost,
            delivered: tx.delivered,
            delivered_ce: tx.delivered_ce,
            app_limited: tx.app_limited,
            conn_delivered_ce: sample.conn.delivered_ce,
            cwnd_limited: sample.conn.is_cwnd_limited,
        };
        self.on_ack_v3(sample, &v3);
        Control {
            app_limited: self.marked_app_limited,
        }
    }

    /// BBRv3's state once it has an RTT sample, in the order of its declared trace fields
    /// (`config::TRACE`).
    fn trace(&self, values: &mut [f64]) {
        if !self.has_seen_rtt {
            return;
        }
        let bound = |v: u32| if v == UNBOUNDED { f64::NAN } else { v as f64 };
        // The index into config::MODES: ProbeBW by phase.
        values[0] = match self.mode {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0 + self.phase as u8 as f64,
            Mode::ProbeRtt => 6.0,
        };
        values[1] = self.bw_bps(self.bw());
        values[2] = self.min_rtt().map_or(f64::NAN, |d| d.as_nanos() as f64);
        values[3] = gain_value(self.pacing_gain);
        values[4] = gain_value(self.cwnd_gain);
        values[5] = self.pacing_rate as f64 * 8.0;
        values[6] = self.last_sample.map_or(f64::NAN, |bw| self.bw_bps(bw));
        values[7] = if self.mode == Mode::ProbeBw {
            self.phase as u8 as f64
        } else {
            f64::NAN
        };
        values[8] = bound(self.inflight_hi);
        values[9] = bound(self.inflight_lo);
        values[10] = self.bw_bps(self.max_bw());
        values[11] = self.bw_lo().map_or(f64::NAN, |bw| self.bw_bps(bw));
    }
}

impl Bbr3 {
    /// Linux `bbr_cwnd_event(CA_EVENT_TX_START)` for an application-limited connection: a
    /// new ACK epoch, and in ProbeBW pacing at the estimate.
    fn on_tx_start(&mut self, now: SimTime) {
        self.now = now;
        self.idle_restart = true;
        self.aggregation.restart_epoch(now);
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(self.bw(), BBR_UNIT, None),
            Mode::ProbeRtt => self.check_probe_rtt_done(now),
            _ => {}
        }
    }
}
