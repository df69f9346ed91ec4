//! The `recovery` of a flow: which loss recovery it runs (explicit, implied by the
//! controller's legacy option, or the controller's default under the profile, as its
//! declaration says) and that recovery's options.

use super::Options;
use crate::scenario::profile::Profile;
use crate::scenario::reader::Table;
use crate::scenario::{Result, ScenarioError};
use crate::tcp::cc::{Declaration, Variant};
use crate::tcp::recovery::newreno::HOE_SENDING;
use crate::tcp::recovery::{NewRenoConfig, RecoveryKind, RECOVERIES};

/// The recovery the flow asks for: `recovery = ...`, else the controller's legacy option
/// naming it (`options.sack_recovery`), else the controller's default under the profile.
/// `variant` is `None` for a controller from outside the crate.
pub(super) fn parse_recovery_name(
    t: &Table<'_>,
    opts: Option<&Table<'_>>,
    profile: Profile,
    variant: Option<&Declaration>,
) -> Result<&'static str> {
    let explicit = t.choice("recovery", &RECOVERIES)?;
    let rule = variant.map(|d| d.recovery);
    let legacy = match (rule.and_then(|r| r.alias), opts) {
        (Some((option, names)), Some(o)) => {
            let values: Vec<&str> = names.iter().map(|(v, _)| *v).collect();
            let value = o.choice(option.name, &values)?;
            value.and_then(|v| names.iter().find(|(x, _)| *x == v).map(|(_, r)| *r))
        }
        _ => None,
    };
    let name = match (explicit, legacy) {
        (Some(r), Some(l)) if r != l => {
            let option = rule.and_then(|r| r.alias).map_or("", |(o, _)| o.name);
            return Err(ScenarioError::new(
                t.field("recovery"),
                format!("{r:?} contradicts options.{option} (recovery {l:?}); give one of them"),
            ));
        }
        (Some(r), _) => r,
        (None, Some(l)) => l,
        // A Python controller recovers as Reno's window arithmetic would.
        (None, None) => rule.map_or(
            crate::tcp::cc::DefaultRecovery::Reno.under(profile.name),
            |r| r.default.under(profile.name),
        ),
    };
    let name = RECOVERIES
        .iter()
        .copied()
        .find(|r| *r == name)
        .expect("a listed recovery");
    if let (Some(d), Some(needs)) = (variant, rule.and_then(|r| r.requires)) {
        if !needs.recoveries.contains(&name) {
            return Err(ScenarioError::new(
                t.field("recovery"),
                format!(
                    "{name:?} {}; variant {:?} takes recovery {}{}",
                    needs.refusal,
                    d.name,
                    one_of(needs.recoveries),
                    needs.why
                ),
            ));
        }
    }
    Ok(name)
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// The recovery called `name` with its options; NewReno's `hoe_sending` comes from the
/// controller's option that sets it (its declaration says which), or, for a Python
/// controller, from the option itself.
pub(super) fn parse_recovery(
    o: &Options<'_, '_>,
    profile: Profile,
    name: &str,
    variant: &Variant,
) -> Result<RecoveryKind> {
    Ok(match name {
        "tahoe" => RecoveryKind::Tahoe,
        "reno" => RecoveryKind::Reno,
        "newreno" => {
            let hoe_sending = match variant.declaration() {
                None => o.bool(HOE_SENDING.name)?.unwrap_or(false),
                Some(d) => match d.recovery.sets_recovery_option {
                    Some((option, set)) if set == HOE_SENDING.name => {
                        o.bool(option.name)?.unwrap_or(false)
                    }
                    _ => false,
                },
            };
            RecoveryKind::NewReno(NewRenoConfig::configure(
                o,
                profile.partial_window_deflation,
                hoe_sending,
            )?)
        }
        "sack" => RecoveryKind::Sack,
        "rfc6675" => RecoveryKind::Rfc6675,
        "prr" => RecoveryKind::Prr,
        _ => unreachable!("parse_recovery_name() only returns listed recoveries"),
    })
}
