//! BBRv3's parameters, named and valued as the module parameters (`bbr_param(sk, name)`) and
//! constants of `net/ipv4/tcp_bbr.c` on Google's `v3` branch (`BBR_VERSION 3`), without their
//! `bbr_` prefix. Gains and fractions are fixed point in 1/256 (`BBR_UNIT`), as the kernel
//! keeps them; where the kernel writes a fraction as `BBR_UNIT * a / b`, the value is that
//! integer division (so `loss_thresh`, "2 %", is 5/256 = 1.95 %).

use crate::tcp::cc::bbr::BBR_UNIT;

/// ProbeBW's phases (`enum bbr_pacing_gain_phase`), in the kernel's numbering, which indexes
/// [`PACING_GAIN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Push the flight up to probe for bandwidth and volume (`BBR_BW_PROBE_UP`).
    Up = 0,
    /// Drain the queue the probe made (`BBR_BW_PROBE_DOWN`).
    Down = 1,
    /// Use the pipe, leaving headroom (`BBR_BW_PROBE_CRUISE`).
    Cruise = 2,
    /// Refill the pipe to the estimate before probing (`BBR_BW_PROBE_REFILL`).
    Refill = 3,
}

/// ProbeBW's pacing gain per phase (`bbr_pacing_gain[]`): UP 5/4, DOWN 0.91, CRUISE and
/// REFILL 1.
pub const PACING_GAIN: [u32; 4] = [BBR_UNIT * 5 / 4, BBR_UNIT * 91 / 100, BBR_UNIT, BBR_UNIT];

/// BBRv3's parameters, with the kernel's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bbr3Config {
    /// Startup's pacing gain, 4 ln 2 (`bbr_startup_pacing_gain` = 256 x 277 / 100 + 1 = 710,
    /// 2.77): the smallest that doubles the rate per round and sends what a slow-starting
    /// Reno would.
    pub startup_pacing_gain: u32,
    /// Startup's (and Drain's) cwnd gain (`bbr_startup_cwnd_gain` = 2.0).
    pub startup_cwnd_gain: u32,
    /// Drain's pacing gain (`bbr_drain_gain` = 256 x 1000 / 2885 = 88, 0.344).
    pub drain_gain: u32,
    /// ProbeBW's cwnd gain (`bbr_cwnd_gain` = 2.0).
    pub cwnd_gain: u32,
    /// ProbeBW_UP adds this many quarters to the cwnd gain (`bbr_bw_probe_cwnd_gain` = 1,
    /// i.e. 2.25 while probing; 0 to 3).
    pub bw_probe_cwnd_gain: u32,
    /// Window of the min-RTT filter, seconds (`bbr_min_rtt_win_sec`).
    pub min_rtt_win_sec: u32,
    /// Least time ProbeRTT holds the window down, ms; 0 never probes
    /// (`bbr_probe_rtt_mode_ms`).
    pub probe_rtt_mode_ms: u32,
    /// Window of the ProbeRTT min-RTT filter, ms: ProbeRTT comes when it passes without a
    /// lower RTT (`bbr_probe_rtt_win_ms` = 5000; at most `min_rtt_win_sec`).
    pub probe_rtt_win_ms: u32,
    /// ProbeRTT's window as a fraction of the estimated BDP (`bbr_probe_rtt_cwnd_gain` =
    /// 1/2).
    pub probe_rtt_cwnd_gain: u32,
    /// The smallest window BBR aims for (`bbr_cwnd_min_target`).
    pub cwnd_min_target: u32,
    /// Bandwidth growth per round that says the pipe is not full yet
    /// (`bbr_full_bw_thresh` = 5/4).
    pub full_bw_thresh: u32,
    /// Rounds without that growth after which the pipe is full (`bbr_full_bw_cnt`; the
    /// kernel's field is 2 bits: 1 to 3).
    pub full_bw_cnt: u32,
    /// Gain on the ACK-aggregation allowance; 0 turns it off (`bbr_extra_acked_gain` = 1.0).
    pub extra_acked_gain: u32,
    /// Window of the ACK-aggregation filter, round trips (`bbr_extra_acked_win_rtts`).
    pub extra_acked_win_rtts: u32,
    /// The allowance is at most this long at the estimated bandwidth, microseconds
    /// (`bbr_extra_acked_max_us`).
    pub extra_acked_max_us: u32,
    /// Pace this many percent below the estimate (`bbr_pacing_margin_percent`).
    pub pacing_margin_percent: u32,
    /// The TSO allowance halves for every 2^this microseconds of min RTT; 0 turns the
    /// RTT-based allowance off (`bbr_tso_rtt_shift` = 9, 512 us).
    pub tso_rtt_shift: u32,
    /// The ECN logic runs only at a min RTT up to this, microseconds; 0 at any RTT
    /// (`bbr_ecn_max_rtt_us` = 5000).
    pub ecn_max_rtt_us: u32,
    /// Multiplicative cut of `bw_lo`/`inflight_lo` on loss: they become `1 - beta` of
    /// themselves (`bbr_beta` = 256 x 30 / 100 = 76, so 180/256 = 0.70).
    pub beta: u32,
    /// Gain of the EWMA of the CE-marked fraction (`bbr_ecn_alpha_gain` = 1/16).
    pub ecn_alpha_gain: u32,
    /// The EWMA's first value (`bbr_ecn_alpha_init` = 1.0: react at once to a congested
    /// bottleneck at start-up).
    pub ecn_alpha_init: u32,
    /// On ECN, `inflight_lo` becomes `1 - ecn_factor x alpha` of itself; 0 turns the ECN
    /// response off (`bbr_ecn_factor` = 256 / 3 = 85, 1/3).
    pub ecn_factor: u32,
    /// A CE-marked fraction above this means the probe went too far; 0 turns it off
    /// (`bbr_ecn_thresh` = 1/2).
    pub ecn_thresh: u32,
    /// After a cycle with ECN marks but no loss, the first probe round raises
    /// `inflight_hi` by this fraction of it; 0 turns it off (`bbr_ecn_reprobe_gain` = 1/2).
    pub ecn_reprobe_gain: u32,
    /// A loss rate above this means the probe went too far (`bbr_loss_thresh` = 256 x 2 /
    /// 100 = 5, 1.95 %).
    pub loss_thresh: u32,
    /// Startup ends on loss once a recovery round has this many loss events and a loss
    /// rate above `loss_thresh`; 0 never (`bbr_full_loss_cnt`).
    pub full_loss_cnt: u32,
    /// Startup ends after this many rounds in a row with a CE fraction above `ecn_thresh`
    /// (`bbr_full_ecn_cnt`; the kernel's counter is 2 bits: 0 to 3).
    pub full_ecn_cnt: u32,
    /// Fraction of `inflight_hi` left unused as headroom when cruising
    /// (`bbr_inflight_headroom` = 256 x 15 / 100 = 38, 15 %).
    pub inflight_headroom: u32,
    /// Most packet-timed rounds between bandwidth probes, for Reno coexistence
    /// (`bbr_bw_probe_max_rounds`).
    pub bw_probe_max_rounds: u32,
    /// Random rounds (0 to this, exclusive) taken off that count
    /// (`bbr_bw_probe_rand_rounds`).
    pub bw_probe_rand_rounds: u32,
    /// Least wall-clock wait between bandwidth probes, microseconds
    /// (`bbr_bw_probe_base_us` = 2 s).
    pub bw_probe_base_us: u32,
    /// Random extra wait (0 to this, exclusive), microseconds (`bbr_bw_probe_rand_us` =
    /// 1 s).
    pub bw_probe_rand_us: u32,
    /// Count a loss repaired by a tail-loss probe (`bbr_loss_probe_recovery`).
    pub loss_probe_recovery: bool,
    /// Skip the model update on application-limited ACKs that carry no news
    /// (`bbr_fast_path`).
    pub fast_path: bool,
    /// The route says CE marks come from a shallow-threshold AQM (the kernel's `ecn_low`
    /// route feature, `TCP_ECN_LOW`): with ECN negotiated, BBRv3 may use its ECN logic.
    /// Off by default, as on a kernel route.
    pub ecn_low: bool,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            startup_pacing_gain: BBR_UNIT * 277 / 100 + 1,
            startup_cwnd_gain: BBR_UNIT * 2,
            drain_gain: BBR_UNIT * 1000 / 2885,
            cwnd_gain: BBR_UNIT * 2,
            bw_probe_cwnd_gain: 1,
            min_rtt_win_sec: 10,
            probe_rtt_mode_ms: 200,
            probe_rtt_win_ms: 5000,
            probe_rtt_cwnd_gain: BBR_UNIT / 2,
            cwnd_min_target: 4,
            full_bw_thresh: BBR_UNIT * 5 / 4,
            full_bw_cnt: 3,
            extra_acked_gain: BBR_UNIT,
            extra_acked_win_rtts: 5,
            extra_acked_max_us: 100_000,
            pacing_margin_percent: 1,
            tso_rtt_shift: 9,
            ecn_max_rtt_us: 5000,
            beta: BBR_UNIT * 30 / 100,
            ecn_alpha_gain: BBR_UNIT / 16,
            ecn_alpha_init: BBR_UNIT,
            ecn_factor: BBR_UNIT / 3,
            ecn_thresh: BBR_UNIT / 2,
            ecn_reprobe_gain: BBR_UNIT / 2,
            loss_thresh: BBR_UNIT * 2 / 100,
            full_loss_cnt: 6,
            full_ecn_cnt: 2,
            inflight_headroom: BBR_UNIT * 15 / 100,
            bw_probe_max_rounds: 63,
            bw_probe_rand_rounds: 2,
            bw_probe_base_us: 2_000_000,
            bw_probe_rand_us: 1_000_000,
            loss_probe_recovery: true,
            fast_path: true,
            ecn_low: false,
        }
    }
}

// ----- the declaration -------------------------------------------------------------------

use serde_json::{json, Value};

use super::super::bbr::{gain_units, gain_value, TRACE as V1};
use super::super::{
    BuildContext, Cc, Declaration, Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind,
    OptionReader, RecoveryRule, Requirement, TraceField, TraceKind,
};
use super::Bbr3;

/// A gain or fraction in 1/256 units, from one unit to `max`.
const fn fraction(max: f64) -> OptionKind {
    OptionKind::Float {
        min: 1.0 / BBR_UNIT as f64,
        max,
    }
}

crate::option_decls! {
    OPTIONS;
    STARTUP_PACING_GAIN: "startup_pacing_gain", fraction(16.0), "`2.7734375` (710/256)",
        "Startup's pacing gain", "Google's v3 `bbr_startup_pacing_gain`";
    STARTUP_CWND_GAIN: "startup_cwnd_gain", fraction(16.0), "`2.0`",
        "Startup's and Drain's cwnd gain", "Google's v3 `bbr_startup_cwnd_gain`";
    DRAIN_GAIN: "drain_gain", fraction(16.0), "`0.34375` (88/256)", "Drain's pacing gain",
        "Google's v3 `bbr_drain_gain`";
    CWND_GAIN: "cwnd_gain", fraction(16.0), "`2.0`", "ProbeBW's cwnd gain",
        "Google's v3 `bbr_cwnd_gain`";
    CWND_MIN_TARGET: "cwnd_min_target", OptionKind::Int { min: 1, max: 1000 }, "`4`",
        "smallest window, segments", "Google's v3 `bbr_cwnd_min_target`";
    FULL_BW_THRESH: "full_bw_thresh", fraction(16.0), "`1.25`",
        "bandwidth growth per round that keeps Startup going",
        "Google's v3 `bbr_full_bw_thresh`";
    FULL_BW_CNT: "full_bw_cnt", OptionKind::Int { min: 1, max: 3 }, "`3`",
        "rounds without that growth that end Startup", "Google's v3 `bbr_full_bw_cnt`";
    PROBE_RTT_WIN_MS: "probe_rtt_win_ms", OptionKind::Int { min: 1, max: 10_000 }, "`5000`",
        "ProbeRTT comes when this long passes without a lower RTT, ms",
        "Google's v3 `bbr_probe_rtt_win_ms`";
    PROBE_RTT_MODE_MS: "probe_rtt_mode_ms", OptionKind::Int { min: 0, max: 60_000 }, "`200`",
        "least time ProbeRTT holds the window down, ms; `0` never probes",
        "Google's v3 `bbr_probe_rtt_mode_ms`";
    PROBE_RTT_CWND_GAIN: "probe_rtt_cwnd_gain", fraction(1.0), "`0.5`",
        "ProbeRTT's window as a fraction of the estimated BDP",
        "Google's v3 `bbr_probe_rtt_cwnd_gain`";
    BETA: "beta", fraction(1.0), "`0.296875` (76/256)",
        "a lossy round cuts `bw_lo` and `inflight_lo` by this fraction (to 0.7 of themselves)",
        "Google's v3 `bbr_beta`";
    LOSS_THRESH: "loss_thresh", fraction(1.0), "`0.01953125` (5/256, \"2 %\")",
        "a probe's loss rate above this means it went too far",
        "Google's v3 `bbr_loss_thresh`";
    FULL_LOSS_CNT: "full_loss_cnt", OptionKind::Int { min: 0, max: 15 }, "`6`",
        "loss events in a Startup round (with the loss rate above `loss_thresh`) that end Startup; `0` never",
        "Google's v3 `bbr_full_loss_cnt`";
    INFLIGHT_HEADROOM: "inflight_headroom", fraction(1.0), "`0.1484375` (38/256, \"15 %\")",
        "fraction of `inflight_hi` left free while cruising",
        "Google's v3 `bbr_inflight_headroom`";
    BW_PROBE_BASE_US: "bw_probe_base_us", OptionKind::Int { min: 0, max: 100_000_000 },
        "`2000000`", "least wall-clock wait between bandwidth probes, µs",
        "Google's v3 `bbr_bw_probe_base_us`";
    BW_PROBE_RAND_US: "bw_probe_rand_us", OptionKind::Int { min: 0, max: 100_000_000 },
        "`1000000`", "random extra wait (from 0 to this), µs",
        "Google's v3 `bbr_bw_probe_rand_us`";
    BW_PROBE_MAX_ROUNDS: "bw_probe_max_rounds", OptionKind::Int { min: 1, max: 255 }, "`63`",
        "most round trips between bandwidth probes (Reno coexistence)",
        "Google's v3 `bbr_bw_probe_max_rounds`";
    ECN_LOW: "ecn_low", OptionKind::Bool, "`false`",
        "CE marks come from a shallow-threshold AQM (the kernel's `ecn_low` route feature): with ECN on and a min RTT up to `ecn_max_rtt_us`, marks bound the flight",
        "Google's v3 `TCP_ECN_LOW`";
    ECN_MAX_RTT_US: "ecn_max_rtt_us", OptionKind::Int { min: 0, max: 10_000_000 }, "`5000`",
        "the ECN response runs only at a min RTT up to this, µs; `0` at any RTT",
        "Google's v3 `bbr_ecn_max_rtt_us`";
    ECN_THRESH: "ecn_thresh", fraction(1.0), "`0.5`",
        "a probe's CE-marked fraction above this means it went too far",
        "Google's v3 `bbr_ecn_thresh`";
    ECN_FACTOR: "ecn_factor", fraction(1.0), "`0.33203125` (85/256)",
        "a marked round cuts `inflight_lo` by this times the CE fraction's EWMA",
        "Google's v3 `bbr_ecn_factor`";
    ECN_ALPHA_GAIN: "ecn_alpha_gain", fraction(1.0), "`0.0625` (1/16)",
        "gain of the EWMA of the CE-marked fraction", "Google's v3 `bbr_ecn_alpha_gain`";
    EXTRA_ACKED_GAIN: "extra_acked_gain", OptionKind::Float { min: 0.0, max: 16.0 }, "`1.0`",
        "gain on the ACK-aggregation allowance in cwnd; `0` turns it off",
        "Google's v3 `bbr_extra_acked_gain`";
    PACING_MARGIN_PERCENT: "pacing_margin_percent", OptionKind::Int { min: 0, max: 99 },
        "`1`", "pace this many percent below the estimate",
        "Google's v3 `bbr_pacing_margin_percent`";
}

/// The `mode` codes BBRv3 reports: its mode, and in ProbeBW its phase (in the kernel's
/// numbering of [`Phase`], after Startup and Drain).
pub(super) const MODES: &[&str] = &[
    "startup",
    "drain",
    "probe_bw_up",
    "probe_bw_down",
    "probe_bw_cruise",
    "probe_bw_refill",
    "probe_rtt",
];

/// BBRv3's `cc` trace fields, in the order `Bbr3::trace` fills them: v1's (its mode with
/// ProbeBW's phase), then the bounds.
pub(super) const TRACE: &[TraceField] = &[
    TraceField {
        name: "mode",
        kind: TraceKind::Mode,
        doc: "Startup, Drain, ProbeBW's DOWN, CRUISE, REFILL or UP, ProbeRTT",
    },
    V1[1],
    V1[2],
    V1[3],
    V1[4],
    V1[5],
    V1[6],
    TraceField {
        name: "phase",
        kind: TraceKind::Number,
        doc: "BBRv3's ProbeBW phase as the kernel numbers it: 0 UP, 1 DOWN, 2 CRUISE, 3 REFILL (none outside ProbeBW)",
    },
    TraceField {
        name: "inflight_hi",
        kind: TraceKind::Number,
        doc: "BBRv3's upper bound on the flight, segments (none until a probe finds one)",
    },
    TraceField {
        name: "inflight_lo",
        kind: TraceKind::Number,
        doc: "BBRv3's short-term lower bound on the flight, segments (none when reset)",
    },
    TraceField {
        name: "bw_hi_bps",
        kind: TraceKind::Number,
        doc: "BBRv3's max bandwidth of the last two ProbeBW cycles (`bw_hi`), bit/s of payload",
    },
    TraceField {
        name: "bw_lo_bps",
        kind: TraceKind::Number,
        doc: "BBRv3's short-term lower bound on the bandwidth (`bw_lo`), bit/s (none when reset)",
    },
];

impl Declared for Bbr3Config {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "bbr3",
        summary: "BBRv3 as Google's v3 `tcp_bbr.c` (draft-ietf-ccwg-bbr): BBR's model bounded \
                  by loss and ECN (`inflight_hi`/`inflight_lo`, `bw_hi`/`bw_lo`)",
        options: OPTIONS,
        trace: TRACE,
        modes: MODES,
        // It reads what only the Linux sender measures (per-segment flight, loss and CE
        // counts).
        profiles: &["linux"],
        recovery: RecoveryRule {
            requires: Some(Requirement {
                recoveries: &["prr"],
                refusal: "cannot run BBRv3",
                why: " (Linux's loss recovery, whose cong_control hook BBRv3 replaces PRR with)",
            }),
            ..RecoveryRule::any(DefaultRecovery::Always("prr"))
        },
        needs_ecn: None,
        wants_ect1: None,
        // Linux paces BBR flows whatever the qdisc (`SK_PACING_NEEDED`).
        paces: true,
        cong_control: true,
        ns2_sends_syn: true,
    };

    /// Gains and fractions are numbers, kept in 1/256 as the kernel keeps them (the nearest
    /// such value).
    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError> {
        let d = Bbr3Config::default();
        let gain = |o: &OptionDecl, default: u32| -> Result<u32, OptionError> {
            Ok(options.float(o)?.map_or(default, gain_units))
        };
        let int = |o: &OptionDecl, default: u32| -> Result<u32, OptionError> {
            Ok(options.int(o)?.map_or(default, |n| n as u32))
        };
        Ok(Bbr3Config {
            startup_pacing_gain: gain(&STARTUP_PACING_GAIN, d.startup_pacing_gain)?,
            startup_cwnd_gain: gain(&STARTUP_CWND_GAIN, d.startup_cwnd_gain)?,
            drain_gain: gain(&DRAIN_GAIN, d.drain_gain)?,
            cwnd_gain: gain(&CWND_GAIN, d.cwnd_gain)?,
            cwnd_min_target: int(&CWND_MIN_TARGET, d.cwnd_min_target)?,
            full_bw_thresh: gain(&FULL_BW_THRESH, d.full_bw_thresh)?,
            full_bw_cnt: int(&FULL_BW_CNT, d.full_bw_cnt)?,
            probe_rtt_win_ms: int(&PROBE_RTT_WIN_MS, d.probe_rtt_win_ms)?,
            probe_rtt_mode_ms: int(&PROBE_RTT_MODE_MS, d.probe_rtt_mode_ms)?,
            probe_rtt_cwnd_gain: gain(&PROBE_RTT_CWND_GAIN, d.probe_rtt_cwnd_gain)?,
            beta: gain(&BETA, d.beta)?,
            loss_thresh: gain(&LOSS_THRESH, d.loss_thresh)?,
            full_loss_cnt: int(&FULL_LOSS_CNT, d.full_loss_cnt)?,
            inflight_headroom: gain(&INFLIGHT_HEADROOM, d.inflight_headroom)?,
            bw_probe_base_us: int(&BW_PROBE_BASE_US, d.bw_probe_base_us)?,
            bw_probe_rand_us: int(&BW_PROBE_RAND_US, d.bw_probe_rand_us)?,
            bw_probe_max_rounds: int(&BW_PROBE_MAX_ROUNDS, d.bw_probe_max_rounds)?,
            ecn_low: options.bool(&ECN_LOW)?.unwrap_or(d.ecn_low),
            ecn_max_rtt_us: int(&ECN_MAX_RTT_US, d.ecn_max_rtt_us)?,
            ecn_thresh: gain(&ECN_THRESH, d.ecn_thresh)?,
            ecn_factor: gain(&ECN_FACTOR, d.ecn_factor)?,
            ecn_alpha_gain: gain(&ECN_ALPHA_GAIN, d.ecn_alpha_gain)?,
            extra_acked_gain: gain(&EXTRA_ACKED_GAIN, d.extra_acked_gain)?,
            pacing_margin_percent: int(&PACING_MARGIN_PERCENT, d.pacing_margin_percent)?,
            ..d
        })
    }

    fn describe(&self) -> Vec<(&'static str, Value)> {
        let gains = [
            (&STARTUP_PACING_GAIN, self.startup_pacing_gain),
            (&STARTUP_CWND_GAIN, self.startup_cwnd_gain),
            (&DRAIN_GAIN, self.drain_gain),
            (&CWND_GAIN, self.cwnd_gain),
            (&FULL_BW_THRESH, self.full_bw_thresh),
            (&PROBE_RTT_CWND_GAIN, self.probe_rtt_cwnd_gain),
            (&BETA, self.beta),
            (&LOSS_THRESH, self.loss_thresh),
            (&INFLIGHT_HEADROOM, self.inflight_headroom),
            (&ECN_THRESH, self.ecn_thresh),
            (&ECN_FACTOR, self.ecn_factor),
            (&ECN_ALPHA_GAIN, self.ecn_alpha_gain),
            (&EXTRA_ACKED_GAIN, self.extra_acked_gain),
        ];
        let counts = [
            (&CWND_MIN_TARGET, self.cwnd_min_target),
            (&FULL_BW_CNT, self.full_bw_cnt),
            (&PROBE_RTT_WIN_MS, self.probe_rtt_win_ms),
            (&PROBE_RTT_MODE_MS, self.probe_rtt_mode_ms),
            (&FULL_LOSS_CNT, self.full_loss_cnt),
            (&BW_PROBE_BASE_US, self.bw_probe_base_us),
            (&BW_PROBE_RAND_US, self.bw_probe_rand_us),
            (&BW_PROBE_MAX_ROUNDS, self.bw_probe_max_rounds),
            (&ECN_MAX_RTT_US, self.ecn_max_rtt_us),
            (&PACING_MARGIN_PERCENT, self.pacing_margin_percent),
        ];
        let gains = gains.map(|(o, units)| (o.name, json!(gain_value(units))));
        let counts = counts.map(|(o, n)| (o.name, json!(n)));
        let flags = [(ECN_LOW.name, json!(self.ecn_low))];
        gains.into_iter().chain(counts).chain(flags).collect()
    }

    /// ProbeBW's random waits come from a stream of the flow's own. The sender hands over
    /// ECN echoes only when the flow negotiated ECN, so the controller takes it as
    /// negotiated.
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        let rng = flow.rng.split();
        let mut b = Bbr3::new(*self, flow.initial_window, flow.mss, flow.header_bytes, rng);
        b.set_pacing_shift(flow.pacing_shift);
        b.set_ecn_negotiated(true);
        Cc::Bbr3(Box::new(b))
    }
}
