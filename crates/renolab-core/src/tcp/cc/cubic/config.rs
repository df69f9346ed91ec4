//! CUBIC's parameters and its declaration: the options of `variant = "cubic"`, its `cc`
//! trace fields, its default recovery.

use serde_json::{json, Value};

use super::super::declare::ALL_PROFILES;
use super::super::hystart::HystartMode;
use super::super::reno::Growth;
use super::super::{
    BuildContext, Cc, Declaration, Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind,
    OptionReader, RecoveryRule, TraceField, TraceKind,
};
use super::{Cubic, BETA_SCALE};
use crate::tcp::config::Dialect;

/// CUBIC's parameters in the kernel's units, with their defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubicConfig {
    /// Multiplicative decrease, in 1/1024 (Linux `beta` = 717: 0.7, RFC 9438 §4.6).
    pub beta: u32,
    /// `C` in 10/1024 segments per s^3 (Linux `bic_scale` = 41: C = 0.4, RFC 9438 §5).
    pub bic_scale: u32,
    /// Fast convergence (RFC 9438 §4.7; Linux `fast_convergence` = 1).
    pub fast_convergence: bool,
    /// The slow-start exit.
    pub hystart: HystartMode,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            beta: 717,
            bic_scale: 41,
            fast_convergence: true,
            hystart: HystartMode::Linux,
        }
    }
}

impl CubicConfig {
    /// The kernel's `beta` for a factor `beta` in (0, 1): the nearest 1/1024, within 1..=1023.
    pub fn beta_from(beta: f64) -> u32 {
        ((beta * BETA_SCALE as f64).round() as u32).clamp(1, BETA_SCALE - 1)
    }

    /// The kernel's `bic_scale` for `c` (segments/s^3): the nearest 10/1024, at least 1.
    pub fn bic_scale_from(c: f64) -> u32 {
        ((c * BETA_SCALE as f64 / 10.0)
            .round()
            .min(u32::MAX as f64 / 10.0) as u32)
            .max(1)
    }

    /// Beta as a fraction (717 → 0.7001953125).
    pub fn beta_f64(self) -> f64 {
        self.beta as f64 / BETA_SCALE as f64
    }

    /// C in segments per s^3 (41 → 0.400390625).
    pub fn c_f64(self) -> f64 {
        self.bic_scale as f64 * 10.0 / BETA_SCALE as f64
    }
}

/// `beta`: the multiplicative decrease.
pub const BETA: OptionDecl = OptionDecl {
    name: "beta",
    // Linux keeps beta in 1/1024ths (BICTCP_BETA_SCALE): the range keeps it at least one
    // step above 0 and below 1.
    kind: OptionKind::Float {
        min: 0.001,
        max: 0.999,
    },
    default: "`0.7`",
    doc: "multiplicative decrease, kept in 1/1024ths as Linux's (0.7 is 717/1024)",
    source: "RFC 9438 §4.6; Linux `beta` = 717",
};
/// `c`: the cubic's scale.
pub const C: OptionDecl = OptionDecl {
    name: "c",
    // Kept in 10/1024ths as Linux's `bic_scale`: at least one step above 0.
    kind: OptionKind::Float {
        min: 0.005,
        max: 1000.0,
    },
    default: "`0.4`",
    doc: "the cubic's scale C (segments/s³), kept in 10/1024ths as Linux's `bic_scale`",
    source: "RFC 9438 §5; Linux `bic_scale` = 41",
};
/// `fast_convergence`.
pub const FAST_CONVERGENCE: OptionDecl = OptionDecl {
    name: "fast_convergence",
    kind: OptionKind::Bool,
    default: "`true`",
    doc: "a loss below the last W_max lowers W_max to cwnd (1 + beta) / 2",
    source: "RFC 9438 §4.7; Linux `fast_convergence`",
};
/// `hystart`: the slow-start exit.
pub const HYSTART: OptionDecl = OptionDecl {
    name: "hystart",
    kind: OptionKind::Choice(HystartMode::NAMES),
    default: "`\"linux\"`",
    doc: "the slow-start exit: Linux's HyStart (ACK train and delay increase from 16 \
          segments), HyStart++ with Conservative Slow Start, or none",
    source: "Linux `hystart`; RFC 9406",
};

/// CUBIC's `cc` trace fields, in the order [`Cubic`]'s `trace` fills them.
pub(super) const TRACE: &[TraceField] = &[
    TraceField {
        name: "w_max",
        kind: TraceKind::Number,
        doc: "`W_max`, the window at the last congestion event, segments",
    },
    TraceField {
        name: "k_ns",
        kind: TraceKind::Number,
        doc: "`K`, the time from the epoch's start to the curve's plateau, ns",
    },
    TraceField {
        name: "epoch_start_ns",
        kind: TraceKind::Number,
        doc: "when the current congestion-avoidance epoch began (to the kernel's jiffy), ns",
    },
];

impl Declared for CubicConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "cubic",
        summary: "CUBIC (RFC 9438) in the integer arithmetic of Linux's `tcp_cubic.c`, with \
                  HyStart or HyStart++",
        options: &[&BETA, &C, &FAST_CONVERGENCE, &HYSTART],
        trace: TRACE,
        modes: &[],
        profiles: ALL_PROFILES,
        // CUBIC runs with SACK, as Linux does.
        recovery: RecoveryRule::any(DefaultRecovery::Sack),
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError> {
        let d = CubicConfig::default();
        Ok(CubicConfig {
            beta: options.float(&BETA)?.map_or(d.beta, CubicConfig::beta_from),
            bic_scale: options
                .float(&C)?
                .map_or(d.bic_scale, CubicConfig::bic_scale_from),
            fast_convergence: options
                .bool(&FAST_CONVERGENCE)?
                .unwrap_or(d.fast_convergence),
            hystart: options
                .choice(&HYSTART)?
                .and_then(HystartMode::by_name)
                .unwrap_or(d.hystart),
        })
    }
    /// The values the kernel arithmetic uses (0.7 is 717/1024).
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![
            (BETA.name, json!(self.beta_f64())),
            (C.name, json!(self.c_f64())),
            (FAST_CONVERGENCE.name, json!(self.fast_convergence)),
            (HYSTART.name, json!(self.hystart.name())),
        ]
    }
    /// Linux's slow start counts segments; the RFC senders' count ACKs.
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        let growth = match flow.dialect {
            Dialect::Linux => Growth::Linux,
            Dialect::Rfc | Dialect::Ns2 => Growth::PerAck,
        };
        let cubic = Cubic::new(flow.initial_window, flow.initial_ssthresh, flow.mss, *self);
        Cc::Cubic(cubic.with_growth(growth))
    }
}
