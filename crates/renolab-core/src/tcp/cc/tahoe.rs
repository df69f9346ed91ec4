//! `variant = "tahoe"`: Reno's window arithmetic with Tahoe's answer to a loss (no fast
//! recovery: go back to the hole and slow-start, Jacobson 1988), which is loss recovery's
//! ([`crate::tcp::recovery::tahoe`]).

use serde_json::Value;

use super::declare::ALL_PROFILES;
use super::reno::for_flow;
use super::{
    BuildContext, Cc, Declaration, Declared, DefaultRecovery, OptionError, OptionReader,
    RecoveryRule,
};

/// `variant = "tahoe"`: no options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TahoeConfig;

impl Declared for TahoeConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "tahoe",
        summary: "Reno's window arithmetic with Tahoe's recovery: slow start after every \
                  loss (Jacobson 1988)",
        options: &[],
        trace: &[],
        modes: &[],
        profiles: ALL_PROFILES,
        recovery: RecoveryRule::any(DefaultRecovery::Always("tahoe")),
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(_: &dyn OptionReader) -> Result<Self, OptionError> {
        Ok(TahoeConfig)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        Cc::Tahoe(for_flow(flow))
    }
}
