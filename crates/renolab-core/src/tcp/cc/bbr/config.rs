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
