//! What a controller's file declares about it, once: its name, its options (type, range,
//! default, one-line documentation, the kernel or RFC source), the fields it reports in the
//! `cc` trace, the profiles it runs under, the loss recovery it takes, and how its
//! configuration builds it (quinn's pattern: a controller's config is its factory).
//!
//! As Linux keeps everything about a controller in its `struct tcp_congestion_ops`
//! (`.name = "cubic"`, registered once by `tcp_register_congestion_control()`), the scenario
//! parser, the resolved JSON, the builder, the `cc` trace's layout, the options table of
//! docs/scenario.md and the fuzz lists all read these declarations, through the registry
//! ([`super::registry`]): nothing else in the crate names a controller's options.
//!
//! The declaration is plain data and functions over this layer's types: the scenario reads
//! option values through an [`OptionReader`] it implements, so that the controllers know
//! nothing of the scenario format.

use serde_json::Value;

use super::Cc;
use crate::rng::RngStream;
use crate::tcp::config::Dialect;

/// What a controller declares.
#[derive(Debug)]
pub struct Declaration {
    /// The name a scenario's `variant` takes.
    pub name: &'static str,
    /// One line on what it is, with its source.
    pub summary: &'static str,
    /// Its options (beyond every variant's), in the order the docs list them.
    pub options: &'static [&'static OptionDecl],
    /// The fields it reports in the `cc` trace (beyond time and flow).
    pub trace: &'static [TraceField],
    /// Names of the modes its `mode` trace field reports, by index.
    pub modes: &'static [&'static str],
    /// The profiles it runs under.
    pub profiles: &'static [&'static str],
    /// The loss recovery it takes by default, and those it refuses.
    pub recovery: RecoveryRule,
    /// The controller relies on ECN (Linux `TCP_CONG_NEEDS_ECN`), per this source: ECN is
    /// on unless the scenario turns it off, which is then an error, and the receiver echoes
    /// every CE mark exactly (RFC 8257 §3.2).
    pub needs_ecn: Option<&'static str>,
    /// The controller's data carry ECT(1), the L4S identifier, and it needs Accurate ECN
    /// (RFC 9768) without falling back to RFC 3168 (Linux `TCP_CONG_WANTS_ECT_1`,
    /// `TCP_CONG_NO_FALLBACK_RFC3168`), per this source: `options.ecn` is `"accecn"`.
    pub wants_ect1: Option<&'static str>,
    /// Linux paces its flows whatever the qdisc (`SK_PACING_NEEDED`): pacing is on unless
    /// the scenario turns it off.
    pub paces: bool,
    /// The controller sets the window itself on every ACK (Linux's `cong_control` hook, as
    /// BBR): the Linux sender calls [`super::CongestionControl::cong_control`] in place of
    /// its growth and of PRR.
    pub cong_control: bool,
    /// Under the `ns2` profile, its ns-2 agent opens with a SYN (`syn_`): ns-2's Vegas has
    /// its own `output()` and never does.
    pub ns2_sends_syn: bool,
}

/// Every profile: what the built-in controllers run under.
pub const ALL_PROFILES: &[&str] = &["rfc", "ns2", "opnet", "linux"];

/// The loss recovery a controller takes: its default under each profile, and those it
/// cannot run with.
#[derive(Clone, Copy, Debug)]
pub struct RecoveryRule {
    /// Its default.
    pub default: DefaultRecovery,
    /// The recoveries it needs, if not any: with the refusal's reason and an explanation
    /// ("\"sack\" does not use SACK; variant \"sack\" takes recovery ...").
    pub requires: Option<Requirement>,
    /// A legacy option of the controller that names its recovery (`sack_recovery`): the
    /// option, then its values with the recovery each names; the resolved JSON shows the
    /// last value for any other recovery.
    pub alias: Option<(&'static OptionDecl, &'static [(&'static str, &'static str)])>,
    /// An option of the controller that also sets an option of NewReno's recovery, as ns-2's
    /// `newreno_changes_` changes both (`ssthresh_estimation` → `hoe_sending`).
    pub sets_recovery_option: Option<(&'static OptionDecl, &'static str)>,
}

impl RecoveryRule {
    /// Any recovery, `default` by default.
    pub const fn any(default: DefaultRecovery) -> Self {
        RecoveryRule {
            default,
            requires: None,
            alias: None,
            sets_recovery_option: None,
        }
    }
}

/// The recovery a controller runs with when the scenario names none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultRecovery {
    /// Linux's (`"prr"`) under the `linux` profile, Reno's elsewhere.
    Reno,
    /// Linux's under the `linux` profile, else SACK: ns-2's Sack1 under `ns2`, RFC 6675
    /// elsewhere.
    Sack,
    /// This one whatever the profile.
    Always(&'static str),
}

impl DefaultRecovery {
    /// The recovery's name under the profile called `profile`.
    pub fn under(self, profile: &str) -> &'static str {
        match self {
            DefaultRecovery::Always(name) => name,
            // A Linux host recovers with SACK, RACK-TLP and PRR.
            _ if profile == "linux" => "prr",
            DefaultRecovery::Sack if profile == "ns2" => "sack",
            DefaultRecovery::Sack => "rfc6675",
            DefaultRecovery::Reno => "reno",
        }
    }
}

/// The recoveries a controller needs.
#[derive(Clone, Copy, Debug)]
pub struct Requirement {
    /// The recoveries it runs with.
    pub recoveries: &'static [&'static str],
    /// What is wrong with another ("cannot run BBR").
    pub refusal: &'static str,
    /// Said after the list of those it takes (may be empty).
    pub why: &'static str,
}

/// One option of a controller (or of a loss recovery, or of every sender).
#[derive(Debug)]
pub struct OptionDecl {
    /// The key in `[flow.options]`.
    pub name: &'static str,
    /// Its type and range.
    pub kind: OptionKind,
    /// Its default, as the docs show it.
    pub default: &'static str,
    /// One line on what it does.
    pub doc: &'static str,
    /// Where it comes from: the RFC section, the kernel parameter or the ns-2 variable.
    pub source: &'static str,
}

/// Declares options, one `OptionDecl` constant each, and the list of them:
/// `option_decls! { LIST; CONST: "name", kind, "default", "doc", "source"; ... }`.
#[macro_export]
#[doc(hidden)]
macro_rules! option_decls {
    ($vis:vis $list:ident; $( $konst:ident: $name:literal, $kind:expr, $default:literal, $doc:literal, $source:literal; )*) => {
        $(
            #[doc = concat!("`", $name, "`: ", $doc)]
            pub const $konst: $crate::tcp::cc::OptionDecl = $crate::tcp::cc::OptionDecl {
                name: $name,
                kind: $kind,
                default: $default,
                doc: $doc,
                source: $source,
            };
        )*
        /// These options, in the order the docs and the "allowed" lists name them.
        $vis const $list: &[&$crate::tcp::cc::OptionDecl] = &[$(&$konst),*];
    };
}

/// An option's type and range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A number in `min..=max`.
    Float {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// One of these names.
    Choice(&'static [&'static str]),
    /// A form of its own, described here (read with [`OptionReader::value`]).
    Other(&'static str),
}

impl OptionKind {
    /// What the option takes, for the docs ("a number from 0.001 to 0.999").
    pub fn describe(self) -> String {
        match self {
            OptionKind::Bool => "`true` or `false`".to_string(),
            OptionKind::Int { min, max } => format!("a whole number from {min} to {max}"),
            OptionKind::Float { min, max } => format!("a number from {min} to {max}"),
            OptionKind::Choice(names) => {
                let quoted: Vec<String> = names.iter().map(|n| format!("`\"{n}\"`")).collect();
                format!("one of {}", quoted.join(", "))
            }
            OptionKind::Other(text) => text.to_string(),
        }
    }
}

/// A bad option value: the field path it names and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The field's path in the scenario (`flow[0].options.beta`).
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

/// The result of reading an option.
pub type OptionResult<T> = Result<Option<T>, OptionError>;

/// How a controller's configuration reads its options: each read checks the value against
/// the option's declared type and range and names the field in an error. `None` when the
/// scenario does not set it.
pub trait OptionReader {
    /// A `Bool` option.
    fn bool(&self, option: &OptionDecl) -> OptionResult<bool>;
    /// An `Int` option.
    fn int(&self, option: &OptionDecl) -> OptionResult<u64>;
    /// A `Float` option.
    fn float(&self, option: &OptionDecl) -> OptionResult<f64>;
    /// A `Choice` option: one of its names.
    fn choice(&self, option: &OptionDecl) -> OptionResult<&'static str>;
    /// The value as written, for an option of a form of its own.
    fn value(&self, option: &OptionDecl) -> Option<Value>;
    /// An error about `option`.
    fn error(&self, option: &OptionDecl, message: String) -> OptionError;
}

/// What a built-in controller is built from besides its configuration: the flow's settings.
#[derive(Debug)]
pub struct BuildContext<'a> {
    /// Initial window, segments.
    pub initial_window: u32,
    /// Initial slow-start threshold, segments.
    pub initial_ssthresh: u32,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Header bytes on every segment.
    pub header_bytes: u32,
    /// The receiver's window, segments.
    pub receiver_window: u32,
    /// The rules the sender follows.
    pub dialect: Dialect,
    /// Linux `sk_pacing_shift` (option `pacing_shift`): GSO buffers hold 2^-shift s of data.
    pub pacing_shift: u32,
    /// The flow's random stream (a controller that draws takes a stream of its own from it).
    pub rng: &'a mut RngStream,
}

/// A built-in controller's configuration: declared once, read from the scenario, written
/// back to the resolved JSON, and the factory of the controller.
pub trait Declared: Copy + std::fmt::Debug + PartialEq + Sized {
    /// The declaration.
    const DECLARATION: &'static Declaration;
    /// The configuration the scenario's options describe (defaults where it sets none).
    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError>;
    /// Its options as the resolved JSON shows them (the values the controller uses).
    fn describe(&self) -> Vec<(&'static str, Value)>;
    /// The controller.
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc;
}

/// The kind of a `cc` trace field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// The controller's mode: an index into its declaration's `modes`, recorded as a
    /// one-byte code shared by all controllers (255 for none).
    Mode,
    /// A number (`f64`; NaN for none).
    Number,
}

/// One field of the `cc` trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceField {
    /// The column's name, with its unit (`min_rtt_ns`).
    pub name: &'static str,
    /// A mode or a number.
    pub kind: TraceKind,
    /// One line on what it is.
    pub doc: &'static str,
}
