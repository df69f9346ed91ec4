//! `variant = "sack"`: Reno's window arithmetic with SACK (RFC 2018) and a SACK-based loss
//! recovery (ns-2's Sack1 under the ns2 profile, RFC 6675 elsewhere, Linux's under linux).
//! Its one option, `sack_recovery`, is the old spelling of `recovery`.

use serde_json::Value;

use super::declare::ALL_PROFILES;
use super::reno::for_flow;
use super::{
    BuildContext, Cc, Declaration, Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind,
    OptionReader, RecoveryRule, Requirement,
};

/// `sack_recovery`: which SACK recovery, as `recovery` names it now.
pub const SACK_RECOVERY: OptionDecl = OptionDecl {
    name: "sack_recovery",
    kind: OptionKind::Choice(&["ns2", "rfc6675"]),
    default: "`\"ns2\"` under the ns2 profile, else `\"rfc6675\"`",
    doc: "ns-2.35's Sack1 (a running pipe counter, holes retransmitted in order) or RFC \
          6675's conservative SACK recovery; the old spelling of `recovery = \"sack\"` or \
          `\"rfc6675\"`",
    source: "ns-2 `Agent/TCP/Sack1`, RFC 6675",
};

/// `variant = "sack"`: no options of the controller (its `sack_recovery` is the recovery's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackConfig;

impl Declared for SackConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "sack",
        summary: "Reno's window arithmetic with SACK (RFC 2018) and a SACK-based recovery",
        options: &[&SACK_RECOVERY],
        trace: &[],
        modes: &[],
        profiles: ALL_PROFILES,
        recovery: RecoveryRule {
            default: DefaultRecovery::Sack,
            requires: Some(Requirement {
                recoveries: &["sack", "rfc6675", "prr"],
                refusal: "does not use SACK",
                why: "",
            }),
            alias: Some((&SACK_RECOVERY, &[("ns2", "sack"), ("rfc6675", "rfc6675")])),
            sets_recovery_option: None,
        },
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(_: &dyn OptionReader) -> Result<Self, OptionError> {
        Ok(SackConfig)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        Cc::Sack(for_flow(flow))
    }
}
