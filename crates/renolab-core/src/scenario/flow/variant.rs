//! The `variant` of a flow: the built-in controllers' names and options, and the form of
//! `variant = "python:<module>:<Class>"` for a controller written in Python.

use serde_json::Value;

use super::recovery::recovery_options;
use super::Options;
use crate::scenario::reader::Table;
use crate::scenario::{Result, ScenarioError, Variant};
use crate::tcp::cc::bbr::{gain_units, BbrConfig};
use crate::tcp::cc::{CubicConfig, HystartMode, VegasConfig};

/// TCP variants.
pub const VARIANTS: &[&str] = &[
    "tahoe", "reno", "newreno", "sack", "vegas", "cubic", "bbr", "dctcp",
];
/// How a variant names a Python controller: `"python:<module or file.py>:<Class>"`.
pub const PYTHON_VARIANT_PREFIX: &str = "python:";

/// Options every variant takes.
pub(super) const COMMON_OPTIONS: &[&str] = &[
    "initial_window",
    "initial_ssthresh",
    "window",
    "dupack_threshold",
    "min_rto",
    "max_rto",
    "initial_rto",
    "clock_granularity",
    "handshake",
    "limited_transmit",
    "clock_phase",
    "pacing",
    "ecn",
];
pub(super) const NEWRENO_OPTIONS: &[&str] = &[
    "partial_window_deflation",
    "timer_reset",
    "careful",
    "ssthresh_estimation",
];
pub(super) const SACK_OPTIONS: &[&str] = &["sack_recovery"];
pub(super) const VEGAS_OPTIONS: &[&str] = &["alpha", "beta", "gamma"];
pub(super) const CUBIC_OPTIONS: &[&str] = &["beta", "c", "fast_convergence", "hystart"];
/// BBR's options: Linux `tcp_bbr.c`'s parameters without their `bbr_` prefix.
pub(super) const BBR_OPTIONS: &[&str] = &[
    "high_gain",
    "drain_gain",
    "cwnd_gain",
    "bw_rtts",
    "min_rtt_win_sec",
    "probe_rtt_mode_ms",
    "cwnd_min_target",
    "full_bw_thresh",
    "full_bw_cnt",
    "extra_acked_gain",
    "extra_acked_win_rtts",
    "extra_acked_max_us",
    "lt_intvl_min_rtts",
    "lt_loss_thresh",
    "lt_bw_max_rtts",
    "pacing_margin_percent",
];
/// Options of a Python controller's flow under recovery "newreno" that are the sender's:
/// ns-2's NewReno with Hoe's changes also sends differently in recovery, which a controller
/// that reproduces `ssthresh_estimation` needs from the recovery.
pub(super) const PYTHON_NEWRENO_OPTIONS: &[&str] = &["hoe_sending"];

pub(super) fn variant_options(variant: &str) -> &'static [&'static str] {
    match variant {
        "newreno" => NEWRENO_OPTIONS,
        "sack" => SACK_OPTIONS,
        "vegas" => VEGAS_OPTIONS,
        "cubic" => CUBIC_OPTIONS,
        "bbr" => BBR_OPTIONS,
        _ => &[],
    }
}

/// A built-in variant's name (`reno` when absent).
pub(super) fn parse_variant_name(t: &Table<'_>) -> Result<&'static str> {
    let Some(name) = t.str("variant")? else {
        return Ok("reno");
    };
    VARIANTS.iter().copied().find(|v| *v == name).ok_or_else(|| {
        ScenarioError::new(
            t.field("variant"),
            format!(
                "unknown variant {name:?}; allowed: {}, or \"{PYTHON_VARIANT_PREFIX}<module>:<Class>\" for a Python controller",
                VARIANTS.join(", ")
            ),
        )
    })
}

/// Checks the form of `variant = "python:<module or file.py>:<Class>"` (whether the class
/// exists is for Python to say) and returns it as written.
pub(super) fn parse_python_reference(t: &Table<'_>, text: &str) -> Result<String> {
    let bad = |why: &str| {
        ScenarioError::new(
            t.field("variant"),
            format!(
                "{text:?} {why}; a Python controller is \"python:<module or file.py>:<Class>\", e.g. \"python:mymodule:Aimd\" or \"python:controllers/aimd.py:Aimd\""
            ),
        )
    };
    let rest = &text[PYTHON_VARIANT_PREFIX.len()..];
    let Some((module, class)) = rest.rsplit_once(':') else {
        return Err(bad("names no class"));
    };
    let identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    if !class.split('.').all(identifier) {
        return Err(bad("does not end in a class name"));
    }
    let is_file = module.ends_with(".py");
    if module.is_empty() || !(is_file || module.split('.').all(identifier)) {
        return Err(bad(
            "does not name a module (a dotted name, or a file ending in .py)",
        ));
    }
    Ok(text.to_string())
}

/// The options of a Python controller's flow that are not the sender's: the controller's
/// arguments. The sender's options are those of every variant and of the recovery.
pub(super) fn python_arguments(
    o: &Table<'_>,
    recovery: &str,
) -> Result<serde_json::Map<String, Value>> {
    let mut args = serde_json::Map::new();
    for key in o.keys() {
        let sender = COMMON_OPTIONS.contains(&key) || recovery_options(recovery).contains(&key);
        if PYTHON_NEWRENO_OPTIONS.contains(&key) && recovery != "newreno" {
            return Err(ScenarioError::new(
                o.field(key),
                format!("is an option of recovery \"newreno\", not {recovery:?}"),
            ));
        }
        if !sender && !PYTHON_NEWRENO_OPTIONS.contains(&key) {
            args.insert(key.to_string(), o.get(key).cloned().unwrap_or(Value::Null));
        }
    }
    Ok(args)
}

pub(super) fn parse_variant(o: &Options<'_, '_>, name: &str) -> Result<Variant> {
    Ok(match name {
        "tahoe" => Variant::Tahoe,
        "reno" => Variant::Reno,
        "newreno" => Variant::NewReno {
            ssthresh_estimation: o.bool("ssthresh_estimation")?.unwrap_or(false),
        },
        "sack" => Variant::Sack,
        "dctcp" => Variant::Dctcp,
        "python" => Variant::Custom,
        "vegas" => {
            let d = VegasConfig::default();
            let alpha = o.int("alpha", 0, 1_000_000)?.map_or(d.alpha, |n| n as u32);
            let beta = o.int("beta", 0, 1_000_000)?.map_or(d.beta, |n| n as u32);
            let gamma = o.int("gamma", 0, 1_000_000)?.map_or(d.gamma, |n| n as u32);
            if beta < alpha {
                return Err(ScenarioError::new(
                    o.field("beta"),
                    format!("({beta}) must not be below alpha ({alpha})"),
                ));
            }
            Variant::Vegas(VegasConfig { alpha, beta, gamma })
        }
        "cubic" => {
            let d = CubicConfig::default();
            // Linux keeps beta in 1/1024ths (BICTCP_BETA_SCALE) and C in 10/1024ths
            // (bic_scale): the ranges keep both at least one step above 0.
            let beta = o
                .float("beta", 0.001, 0.999)?
                .map_or(d.beta, CubicConfig::beta_from);
            let bic_scale = o
                .float("c", 0.005, 1000.0)?
                .map_or(d.bic_scale, CubicConfig::bic_scale_from);
            let hystart = o
                .choice("hystart", HystartMode::NAMES)?
                .and_then(HystartMode::by_name)
                .unwrap_or(d.hystart);
            Variant::Cubic(CubicConfig {
                beta,
                bic_scale,
                fast_convergence: o.bool("fast_convergence")?.unwrap_or(d.fast_convergence),
                hystart,
            })
        }
        "bbr" => Variant::Bbr(parse_bbr(o)?),
        _ => unreachable!("choice() only returns listed variants"),
    })
}

/// BBR's options over the kernel's defaults. Gains and fractions are numbers, kept in
/// 1/256 as the kernel keeps them (the nearest such value).
pub(super) fn parse_bbr(o: &Options<'_, '_>) -> Result<BbrConfig> {
    let d = BbrConfig::default();
    let gain = |key: &str, min: f64, default: u32| -> Result<u32> {
        Ok(o.float(key, min, 16.0)?.map_or(default, gain_units))
    };
    let int = |key: &str, min: u64, max: u64, default: u32| -> Result<u32> {
        Ok(o.int(key, min, max)?.map_or(default, |n| n as u32))
    };
    let unit = 1.0 / 256.0;
    Ok(BbrConfig {
        high_gain: gain("high_gain", unit, d.high_gain)?,
        drain_gain: gain("drain_gain", unit, d.drain_gain)?,
        cwnd_gain: gain("cwnd_gain", unit, d.cwnd_gain)?,
        bw_rtts: int("bw_rtts", 1, 1000, d.bw_rtts)?,
        min_rtt_win_sec: int("min_rtt_win_sec", 1, 3600, d.min_rtt_win_sec)?,
        probe_rtt_mode_ms: int("probe_rtt_mode_ms", 0, 60_000, d.probe_rtt_mode_ms)?,
        cwnd_min_target: int("cwnd_min_target", 1, 1000, d.cwnd_min_target)?,
        full_bw_thresh: gain("full_bw_thresh", unit, d.full_bw_thresh)?,
        full_bw_cnt: int("full_bw_cnt", 1, 100, d.full_bw_cnt)?,
        extra_acked_gain: gain("extra_acked_gain", 0.0, d.extra_acked_gain)?,
        extra_acked_win_rtts: int("extra_acked_win_rtts", 1, 31, d.extra_acked_win_rtts)?,
        extra_acked_max_us: int("extra_acked_max_us", 0, 10_000_000, d.extra_acked_max_us)?,
        lt_intvl_min_rtts: int("lt_intvl_min_rtts", 1, 31, d.lt_intvl_min_rtts)?,
        lt_loss_thresh: o
            .float("lt_loss_thresh", 0.0, 1.0)?
            .map_or(d.lt_loss_thresh, gain_units),
        lt_bw_max_rtts: int("lt_bw_max_rtts", 1, 127, d.lt_bw_max_rtts)?,
        pacing_margin_percent: int("pacing_margin_percent", 0, 99, d.pacing_margin_percent)?,
        ..d
    })
}
