//! BBR's parameters, named and valued as the module parameters and constants of Linux's
//! `net/ipv4/tcp_bbr.c` (without their `bbr_` prefix). Gains are fixed point in 1/256 units
//! (`BBR_UNIT`), as the kernel keeps them.

/// Fixed-point scale of gains and fractions (Linux `BBR_SCALE`): 1.0 is `BBR_UNIT` = 256.
pub const BBR_SCALE: u32 = 8;
/// 1.0 in gain units.
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Fixed-point scale of bandwidths (Linux `BW_SCALE`): bandwidth is kept in segments per
/// microsecond times 2^24 (about 715 bit/s per unit with 1500-byte segments).
pub const BW_SCALE: u32 = 24;
/// 1 segment per microsecond in bandwidth units.
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// Phases of ProbeBW's pacing-gain cycle (Linux `CYCLE_LEN`).
pub const CYCLE_LEN: usize = 8;
/// The gain cycle of ProbeBW (Linux `bbr_pacing_gain[]`): probe at 5/4, drain at 3/4, cruise
/// at 1 for six phases.
pub const PACING_GAIN_CYCLE: [u32; CYCLE_LEN] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// Linux `TCP_INIT_CWND`: BBR's window before it has an RTT sample, and the delivered count
/// below which Startup grows cwnd regardless of the target.
pub const TCP_INIT_CWND: u32 = 10;

/// BBR v1's parameters, with the kernel's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BbrConfig {
    /// Startup's pacing and cwnd gain, 2/ln 2 (`bbr_high_gain` = 256 x 2885 / 1000 + 1 =
    /// 739, i.e. 2.887).
    pub high_gain: u32,
    /// Drain's pacing gain, its inverse (`bbr_drain_gain` = 256 x 1000 / 2885 = 88, 0.344).
    pub drain_gain: u32,
    /// ProbeBW's cwnd gain (`bbr_cwnd_gain` = 2.0).
    pub cwnd_gain: u32,
    /// Window of the max-bandwidth filter, round trips (`bbr_bw_rtts` = `CYCLE_LEN` + 2).
    pub bw_rtts: u32,
    /// Window of the min-RTT filter, seconds (`bbr_min_rtt_win_sec`).
    pub min_rtt_win_sec: u32,
    /// Least time ProbeRTT holds the window at `cwnd_min_target`, ms; 0 never probes
    /// (`bbr_probe_rtt_mode_ms`).
    pub probe_rtt_mode_ms: u32,
    /// The smallest window BBR aims for, and ProbeRTT's (`bbr_cwnd_min_target`).
    pub cwnd_min_target: u32,
    /// Growth of the bandwidth estimate per round that says the pipe is not full yet
    /// (`bbr_full_bw_thresh` = 5/4).
    pub full_bw_thresh: u32,
    /// Rounds without that growth after which Startup ends (`bbr_full_bw_cnt`).
    pub full_bw_cnt: u32,
    /// Gain on the ACK-aggregation allowance added to cwnd; 0 turns it off
    /// (`bbr_extra_acked_gain` = 1.0).
    pub extra_acked_gain: u32,
    /// Window of the ACK-aggregation filter, round trips (`bbr_extra_acked_win_rtts`).
    pub extra_acked_win_rtts: u32,
    /// The allowance is at most this long at the estimated bandwidth, microseconds
    /// (`bbr_extra_acked_max_us`).
    pub extra_acked_max_us: u32,
    /// Least round trips of a long-term (policer) sampling interval
    /// (`bbr_lt_intvl_min_rtts`).
    pub lt_intvl_min_rtts: u32,
    /// Loss rate above which an interval counts as policed, in 1/256 (`bbr_lt_loss_thresh`
    /// = 50, 19.5 %).
    pub lt_loss_thresh: u32,
    /// Two intervals' rates are consistent if they differ by at most this fraction, in
    /// 1/256 (`bbr_lt_bw_ratio` = 1/8) ...
    pub lt_bw_ratio: u32,
    /// ... or by at most this many bytes per second (`bbr_lt_bw_diff` = 4000 / 8).
    pub lt_bw_diff: u32,
    /// Round trips BBR keeps to a policed rate before probing again (`bbr_lt_bw_max_rtts`).
    pub lt_bw_max_rtts: u32,
    /// Pace this many percent below the estimate (`bbr_pacing_margin_percent`).
    pub pacing_margin_percent: u32,
    /// ProbeBW starts at a random one of this many phases (`bbr_cycle_rand`).
    pub cycle_rand: u32,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            high_gain: BBR_UNIT * 2885 / 1000 + 1,
            drain_gain: BBR_UNIT * 1000 / 2885,
            cwnd_gain: BBR_UNIT * 2,
            bw_rtts: CYCLE_LEN as u32 + 2,
            min_rtt_win_sec: 10,
            probe_rtt_mode_ms: 200,
            cwnd_min_target: 4,
            full_bw_thresh: BBR_UNIT * 5 / 4,
            full_bw_cnt: 3,
            extra_acked_gain: BBR_UNIT,
            extra_acked_win_rtts: 5,
            extra_acked_max_us: 100_000,
            lt_intvl_min_rtts: 4,
            lt_loss_thresh: 50,
            lt_bw_ratio: BBR_UNIT / 8,
            lt_bw_diff: 4000 / 8,
            lt_bw_max_rtts: 48,
            pacing_margin_percent: 1,
            cycle_rand: 7,
        }
    }
}

/// A gain given as a number (2.0) in 1/256 units, rounded to the nearest.
pub fn gain_units(gain: f64) -> u32 {
    (gain * BBR_UNIT as f64).round() as u32
}

/// A gain in 1/256 units as a number.
pub fn gain_value(units: u32) -> f64 {
    units as f64 / BBR_UNIT as f64
}

// ----- the declaration -------------------------------------------------------------------

use serde_json::{json, Value};

use super::super::declare::ALL_PROFILES;
use super::super::{
    BuildContext, Cc, Declaration, Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind,
    OptionReader, RecoveryRule, Requirement, TraceField, TraceKind,
};
use super::Bbr;

/// A gain or fraction in 1/256 units, from `min` to 16.
const fn gain(min: f64) -> OptionKind {
    OptionKind::Float { min, max: 16.0 }
}

/// The smallest gain: one unit of 1/256.
const UNIT: f64 = 1.0 / BBR_UNIT as f64;

crate::option_decls! {
    OPTIONS;
    HIGH_GAIN: "high_gain", gain(UNIT), "`2.88671875` (739/256, 2/ln 2)",
        "Startup's pacing and cwnd gain",
        "Linux `bbr_high_gain`";
    DRAIN_GAIN: "drain_gain", gain(UNIT), "`0.34375` (88/256)", "Drain's pacing gain",
        "Linux `bbr_drain_gain`";
    CWND_GAIN: "cwnd_gain", gain(UNIT), "`2.0`", "ProbeBW's cwnd gain",
        "Linux `bbr_cwnd_gain`";
    BW_RTTS: "bw_rtts", OptionKind::Int { min: 1, max: 1000 }, "`10`",
        "window of the max-bandwidth filter, round trips",
        "Linux `bbr_bw_rtts`";
    MIN_RTT_WIN_SEC: "min_rtt_win_sec", OptionKind::Int { min: 1, max: 3600 }, "`10`",
        "window of the min-RTT filter, seconds",
        "Linux `bbr_min_rtt_win_sec`";
    PROBE_RTT_MODE_MS: "probe_rtt_mode_ms", OptionKind::Int { min: 0, max: 60_000 }, "`200`",
        "least time in ProbeRTT at `cwnd_min_target`, ms; `0` never probes",
        "Linux `bbr_probe_rtt_mode_ms`";
    CWND_MIN_TARGET: "cwnd_min_target", OptionKind::Int { min: 1, max: 1000 }, "`4`",
        "smallest window, and ProbeRTT's, segments",
        "Linux `bbr_cwnd_min_target`";
    FULL_BW_THRESH: "full_bw_thresh", gain(UNIT), "`1.25`",
        "bandwidth growth per round that keeps Startup going",
        "Linux `bbr_full_bw_thresh`";
    FULL_BW_CNT: "full_bw_cnt", OptionKind::Int { min: 1, max: 100 }, "`3`",
        "rounds without that growth that end Startup",
        "Linux `bbr_full_bw_cnt`";
    EXTRA_ACKED_GAIN: "extra_acked_gain", gain(0.0), "`1.0`",
        "gain on the ACK-aggregation allowance in cwnd; `0` turns it off",
        "Linux `bbr_extra_acked_gain`";
    EXTRA_ACKED_WIN_RTTS: "extra_acked_win_rtts", OptionKind::Int { min: 1, max: 31 }, "`5`",
        "window of the ACK-aggregation filter, round trips",
        "Linux `bbr_extra_acked_win_rtts`";
    EXTRA_ACKED_MAX_US: "extra_acked_max_us", OptionKind::Int { min: 0, max: 10_000_000 },
        "`100000`", "the allowance is at most this long at the estimated rate, µs",
        "Linux `bbr_extra_acked_max_us`";
    LT_INTVL_MIN_RTTS: "lt_intvl_min_rtts", OptionKind::Int { min: 1, max: 31 }, "`4`",
        "least round trips of a long-term (policer) sampling interval",
        "Linux `bbr_lt_intvl_min_rtts`";
    LT_LOSS_THRESH: "lt_loss_thresh", OptionKind::Float { min: 0.0, max: 1.0 },
        "`0.1953125` (50/256)", "loss rate that makes an interval look policed",
        "Linux `bbr_lt_loss_thresh`";
    LT_BW_MAX_RTTS: "lt_bw_max_rtts", OptionKind::Int { min: 1, max: 127 }, "`48`",
        "round trips paced at a policed rate before probing again",
        "Linux `bbr_lt_bw_max_rtts`";
    PACING_MARGIN_PERCENT: "pacing_margin_percent", OptionKind::Int { min: 0, max: 99 },
        "`1`", "pace this many percent below the estimate",
        "Linux `bbr_pacing_margin_percent`";
}

/// BBR's `cc` trace fields, in the order [`Bbr`]'s `trace` fills them.
pub(in crate::tcp::cc) const TRACE: &[TraceField] = &[
    TraceField {
        name: "mode",
        kind: TraceKind::Mode,
        doc: "Startup, Drain, ProbeBW or ProbeRTT",
    },
    TraceField {
        name: "btl_bw_bps",
        kind: TraceKind::Number,
        doc: "the bottleneck-bandwidth estimate (`bbr_bw()`), bit/s of payload",
    },
    TraceField {
        name: "min_rtt_ns",
        kind: TraceKind::Number,
        doc: "the min-RTT estimate, ns",
    },
    TraceField {
        name: "pacing_gain",
        kind: TraceKind::Number,
        doc: "the pacing gain",
    },
    TraceField {
        name: "cwnd_gain",
        kind: TraceKind::Number,
        doc: "the cwnd gain",
    },
    TraceField {
        name: "pacing_rate_bps",
        kind: TraceKind::Number,
        doc: "the pacing rate it asks for, bit/s of payload",
    },
    TraceField {
        name: "delivery_rate_bps",
        kind: TraceKind::Number,
        doc: "the last valid delivery-rate sample that fed its bandwidth filter, bit/s",
    },
];

impl Declared for BbrConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "bbr",
        summary: "BBR v1 as Linux's `tcp_bbr.c`: a model of the path's bandwidth and RTT \
                  sets the pacing rate and the window",
        options: OPTIONS,
        trace: TRACE,
        modes: &["startup", "drain", "probe_bw", "probe_rtt"],
        profiles: ALL_PROFILES,
        // BBR needs Linux's loss recovery, whatever the profile.
        recovery: RecoveryRule {
            requires: Some(Requirement {
                recoveries: &["prr"],
                refusal: "cannot run BBR",
                why: " (Linux's loss recovery, whose cong_control hook BBR replaces PRR with)",
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
        let d = BbrConfig::default();
        let gain = |o: &OptionDecl, default: u32| -> Result<u32, OptionError> {
            Ok(options.float(o)?.map_or(default, gain_units))
        };
        let int = |o: &OptionDecl, default: u32| -> Result<u32, OptionError> {
            Ok(options.int(o)?.map_or(default, |n| n as u32))
        };
        Ok(BbrConfig {
            high_gain: gain(&HIGH_GAIN, d.high_gain)?,
            drain_gain: gain(&DRAIN_GAIN, d.drain_gain)?,
            cwnd_gain: gain(&CWND_GAIN, d.cwnd_gain)?,
            bw_rtts: int(&BW_RTTS, d.bw_rtts)?,
            min_rtt_win_sec: int(&MIN_RTT_WIN_SEC, d.min_rtt_win_sec)?,
            probe_rtt_mode_ms: int(&PROBE_RTT_MODE_MS, d.probe_rtt_mode_ms)?,
            cwnd_min_target: int(&CWND_MIN_TARGET, d.cwnd_min_target)?,
            full_bw_thresh: gain(&FULL_BW_THRESH, d.full_bw_thresh)?,
            full_bw_cnt: int(&FULL_BW_CNT, d.full_bw_cnt)?,
            extra_acked_gain: gain(&EXTRA_ACKED_GAIN, d.extra_acked_gain)?,
            extra_acked_win_rtts: int(&EXTRA_ACKED_WIN_RTTS, d.extra_acked_win_rtts)?,
            extra_acked_max_us: int(&EXTRA_ACKED_MAX_US, d.extra_acked_max_us)?,
            lt_intvl_min_rtts: int(&LT_INTVL_MIN_RTTS, d.lt_intvl_min_rtts)?,
            lt_loss_thresh: gain(&LT_LOSS_THRESH, d.lt_loss_thresh)?,
            lt_bw_max_rtts: int(&LT_BW_MAX_RTTS, d.lt_bw_max_rtts)?,
            pacing_margin_percent: int(&PACING_MARGIN_PERCENT, d.pacing_margin_percent)?,
            ..d
        })
    }

    fn describe(&self) -> Vec<(&'static str, Value)> {
        let gains = [
            (&HIGH_GAIN, self.high_gain),
            (&DRAIN_GAIN, self.drain_gain),
            (&CWND_GAIN, self.cwnd_gain),
            (&FULL_BW_THRESH, self.full_bw_thresh),
            (&EXTRA_ACKED_GAIN, self.extra_acked_gain),
            (&LT_LOSS_THRESH, self.lt_loss_thresh),
        ];
        let counts = [
            (&BW_RTTS, self.bw_rtts),
            (&MIN_RTT_WIN_SEC, self.min_rtt_win_sec),
            (&PROBE_RTT_MODE_MS, self.probe_rtt_mode_ms),
            (&CWND_MIN_TARGET, self.cwnd_min_target),
            (&FULL_BW_CNT, self.full_bw_cnt),
            (&EXTRA_ACKED_WIN_RTTS, self.extra_acked_win_rtts),
            (&EXTRA_ACKED_MAX_US, self.extra_acked_max_us),
            (&LT_INTVL_MIN_RTTS, self.lt_intvl_min_rtts),
            (&LT_BW_MAX_RTTS, self.lt_bw_max_rtts),
            (&PACING_MARGIN_PERCENT, self.pacing_margin_percent),
        ];
        let gains = gains.map(|(o, units)| (o.name, json!(gain_value(units))));
        let counts = counts.map(|(o, n)| (o.name, json!(n)));
        gains.into_iter().chain(counts).collect()
    }

    /// ProbeBW's random phases come from a stream of the flow's own.
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        let rng = flow.rng.split();
        Cc::Bbr(Box::new(
            Bbr::new(*self, flow.initial_window, flow.mss, flow.header_bytes, rng)
                .with_pacing_shift(flow.pacing_shift),
        ))
    }
}
