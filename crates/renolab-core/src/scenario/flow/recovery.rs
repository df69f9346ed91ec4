//! The `recovery` of a flow: which loss recovery it runs (explicit, implied by an old
//! spelling, or the variant's default under the profile) and that recovery's options.

use serde_json::Value;

use super::Options;
use crate::scenario::profile::Profile;
use crate::scenario::reader::Table;
use crate::scenario::{Result, ScenarioError, Variant};
use crate::tcp::recovery::{NewRenoConfig, RecoveryKind, RetransmitGuard, TimerReset, RECOVERIES};

/// Options of NewReno's loss recovery, whatever the variant.
pub(super) const NEWRENO_RECOVERY_OPTIONS: &[&str] =
    &["partial_window_deflation", "timer_reset", "careful"];

pub(super) fn recovery_options(recovery: &str) -> &'static [&'static str] {
    match recovery {
        "newreno" => NEWRENO_RECOVERY_OPTIONS,
        _ => &[],
    }
}

/// The recovery the flow asks for: `recovery = ...`, else the old `options.sack_recovery`
/// of variant sack, else the variant's default under the profile.
pub(super) fn parse_recovery_name(
    t: &Table<'_>,
    opts: Option<&Table<'_>>,
    profile: Profile,
    variant: &str,
) -> Result<&'static str> {
    let explicit = t.choice("recovery", RECOVERIES)?;
    let legacy = match (variant, opts) {
        ("sack", Some(o)) => o.choice("sack_recovery", &["ns2", "rfc6675"])?,
        _ => None,
    }
    .map(|m| if m == "ns2" { "sack" } else { "rfc6675" });
    let sack_default = if profile.name == "ns2" {
        "sack"
    } else {
        "rfc6675"
    };
    let name = match (explicit, legacy) {
        (Some(r), Some(l)) if r != l => {
            return Err(ScenarioError::new(
                t.field("recovery"),
                format!(
                    "{r:?} contradicts options.sack_recovery (recovery {l:?}); give one of them"
                ),
            ))
        }
        (Some(r), _) => r,
        (None, Some(l)) => l,
        (None, None) => match variant {
            "tahoe" => "tahoe",
            "newreno" => "newreno",
            "vegas" => "reno",
            // BBR needs Linux's loss recovery, whatever the profile.
            "bbr" => "prr",
            // A Linux host recovers with SACK, RACK-TLP and PRR.
            _ if profile.name == "linux" => "prr",
            // CUBIC runs with SACK, as Linux does.
            "sack" | "cubic" => sack_default,
            _ => "reno",
        },
    };
    let name = RECOVERIES
        .iter()
        .copied()
        .find(|r| *r == name)
        .expect("a listed recovery");
    if variant == "bbr" && name != "prr" {
        return Err(ScenarioError::new(
            t.field("recovery"),
            format!("{name:?} cannot run BBR; variant \"bbr\" takes recovery \"prr\" (Linux's loss recovery, whose cong_control hook BBR replaces PRR with)"),
        ));
    }
    if variant == "sack" && !matches!(name, "sack" | "rfc6675" | "prr") {
        return Err(ScenarioError::new(
            t.field("recovery"),
            format!("{name:?} does not use SACK; variant \"sack\" takes recovery \"sack\", \"rfc6675\" or \"prr\""),
        ));
    }
    Ok(name)
}

pub(super) fn parse_recovery(
    o: &Options<'_, '_>,
    profile: Profile,
    name: &str,
    variant: Variant,
) -> Result<RecoveryKind> {
    Ok(match name {
        "tahoe" => RecoveryKind::Tahoe,
        "reno" => RecoveryKind::Reno,
        "newreno" => {
            let defaults = NewRenoConfig::default();
            let timer_reset = match o.choice("timer_reset", &["slow_but_steady", "impatient"])? {
                Some("impatient") => TimerReset::Impatient,
                Some(_) => TimerReset::SlowButSteady,
                None => defaults.timer_reset,
            };
            let careful = match o.table.and_then(|t| t.get("careful")) {
                None => RetransmitGuard::AfterRecover,
                Some(Value::Bool(true)) => RetransmitGuard::AfterRecover,
                Some(Value::Bool(false)) => RetransmitGuard::Off,
                Some(Value::String(s)) if s == "less" => RetransmitGuard::Heuristic,
                Some(v) => {
                    return Err(ScenarioError::new(
                        o.field("careful"),
                        format!("{v} is not allowed; use true (RFC 6582), \"less\" (§4.1 heuristic) or false"),
                    ))
                }
            };
            RecoveryKind::NewReno(NewRenoConfig {
                partial_window_deflation: o
                    .bool("partial_window_deflation")?
                    .unwrap_or(profile.partial_window_deflation),
                timer_reset,
                careful,
                hoe_sending: match variant {
                    Variant::NewReno {
                        ssthresh_estimation,
                    } => ssthresh_estimation,
                    Variant::Custom => o.bool("hoe_sending")?.unwrap_or(false),
                    _ => false,
                },
            })
        }
        "sack" => RecoveryKind::Sack,
        "rfc6675" => RecoveryKind::Rfc6675,
        "prr" => RecoveryKind::Prr,
        _ => unreachable!("parse_recovery_name() only returns listed recoveries"),
    })
}
