//! `[flow.options]`: the options every sender takes (declared here), and the reader through
//! which a controller's or a recovery's declaration reads its own (the scenario's side of
//! [`OptionReader`]: the value checked against the option's declared type and range, and an
//! error naming the field).

use serde_json::Value;

use super::Options;
use crate::tcp::cc::declare::OptionResult;
use crate::tcp::cc::{OptionDecl, OptionError, OptionKind, OptionReader};
use crate::ScenarioError;

impl From<ScenarioError> for OptionError {
    fn from(e: ScenarioError) -> Self {
        OptionError {
            field: e.path,
            message: e.message,
        }
    }
}

impl From<OptionError> for ScenarioError {
    fn from(e: OptionError) -> Self {
        ScenarioError::new(e.field, e.message)
    }
}

impl OptionReader for Options<'_, '_> {
    fn bool(&self, option: &OptionDecl) -> OptionResult<bool> {
        Ok(Options::bool(self, option.name)?)
    }

    fn int(&self, option: &OptionDecl) -> OptionResult<u64> {
        // (A declaration reads each option as the kind it declares; another kind reads
        // unbounded.)
        let (min, max) = match option.kind {
            OptionKind::Int { min, max } => (min, max),
            _ => (0, u64::MAX),
        };
        Ok(Options::int(self, option.name, min, max)?)
    }

    fn float(&self, option: &OptionDecl) -> OptionResult<f64> {
        let (min, max) = match option.kind {
            OptionKind::Float { min, max } => (min, max),
            _ => (f64::MIN, f64::MAX),
        };
        Ok(Options::float(self, option.name, min, max)?)
    }

    fn choice(&self, option: &OptionDecl) -> OptionResult<&'static str> {
        let names = match option.kind {
            OptionKind::Choice(names) => names,
            _ => &[],
        };
        let chosen = Options::choice(self, option.name, names)?;
        Ok(chosen.and_then(|c| names.iter().copied().find(|n| *n == c)))
    }

    fn value(&self, option: &OptionDecl) -> Option<Value> {
        self.table.and_then(|t| t.get(option.name)).cloned()
    }

    fn error(&self, option: &OptionDecl, message: String) -> OptionError {
        OptionError {
            field: self.field(option.name),
            message,
        }
    }
}

/// A duration option of every sender.
const DURATION: OptionKind = OptionKind::Other("a duration (`\"200ms\"`)");

crate::option_decls! {
    pub COMMON;
    INITIAL_WINDOW: "initial_window", OptionKind::Int { min: 1, max: 1 << 30 },
        "from the profile", "initial congestion window, segments", "RFC 6928";
    INITIAL_SSTHRESH: "initial_ssthresh", OptionKind::Int { min: 2, max: u32::MAX as u64 },
        "from the profile", "initial slow-start threshold, segments", "RFC 5681 §3.1";
    WINDOW: "window", OptionKind::Int { min: 1, max: u32::MAX as u64 },
        "from the profile", "the receiver's advertised window, segments", "ns-2 `window_`";
    DUPACK_THRESHOLD: "dupack_threshold", OptionKind::Int { min: 1, max: 1_000_000 },
        "from the profile", "duplicate ACKs that trigger fast retransmit", "RFC 5681 §3.2";
    MIN_RTO: "min_rto", DURATION, "from the profile",
        "the retransmission timer's lower bound", "RFC 6298 §2.4";
    MAX_RTO: "max_rto", DURATION, "from the profile",
        "the retransmission timer's upper bound (longer than 0 s, not below `min_rto`)",
        "RFC 6298 §2.5";
    INITIAL_RTO: "initial_rto", DURATION, "from the profile",
        "the retransmission timer before an RTT sample (longer than 0 s)", "RFC 6298 §2.1";
    CLOCK_GRANULARITY: "clock_granularity", DURATION, "from the profile",
        "RTT clock tick G: samples are counted in ticks and G bounds the variance term",
        "RFC 6298 §2.3; ns-2 `tcpTick_`";
    HANDSHAKE: "handshake", OptionKind::Bool, "from the profile",
        "`true`: a SYN / SYN-ACK exchange precedes data; `false`: data from `start`",
        "ns-2 `syn_`";
    LIMITED_TRANSMIT: "limited_transmit", OptionKind::Bool, "from the profile",
        "one new segment on each of the first two duplicate ACKs",
        "RFC 3042; ns-2 `singledup_`";
    CLOCK_PHASE: "clock_phase", DURATION, "drawn from the flow's own random stream",
        "phase of the RTT clock", "ns-2 `boot_time_`";
    PACING: "pacing", OptionKind::Bool, "`false`; `true` for a controller Linux paces (`bbr`)",
        "space segments at the pacing rate: the controller's, else Linux's default of 200 % \
         (slow start) or 120 % of cwnd per SRTT; the first 10 segments go unpaced",
        "Linux internal TCP pacing";
    ECN: "ecn", OptionKind::Other("`true` or `\"classic\"` (RFC 3168), `\"accecn\"` (RFC 9768, profile `linux`), `false`"),
        "`false`; `true` for a controller that needs it (`dctcp`), `\"accecn\"` for one that needs Accurate ECN (`prague`)",
        "ECN: data is ECN-capable and the receiver's echo of CE marks reduces the window; `\"accecn\"` negotiates Accurate ECN on the handshake (falling back to RFC 3168) and counts the marks on every ACK",
        "RFC 3168; RFC 9768";
    GSO: "gso", OptionKind::Bool, "`true`",
        "profile `linux`: the host offloads segmentation (`ethtool -K dev gso on`): the \
         sender builds buffers of `tcp_tso_autosize()` segments, about 2^-`pacing_shift` s at \
         the pacing rate, which leave back to back, and a buffer the window would cut short \
         waits for an ACK due within 1 ms; `false`: one segment at a time",
        "Linux `tcp_write_xmit()`, `tcp_tso_should_defer()`";
    MIN_TSO_SEGS: "min_tso_segs", OptionKind::Int { min: 1, max: crate::tcp::gso::MAX_MIN_TSO_SEGS as u64 },
        "`2`",
        "profile `linux`, with `gso`: segments a buffer holds at least (BBR sets its own: 1 \
         below 1.2 Mb/s, else 2)",
        "Linux `net.ipv4.tcp_min_tso_segs`";
    PACING_SHIFT: "pacing_shift", OptionKind::Int { min: 0, max: crate::tcp::gso::MAX_PACING_SHIFT as u64 },
        "`10`",
        "profile `linux`, with `gso`: a buffer holds 2^-`pacing_shift` s of data at the pacing \
         rate",
        "Linux `sk_pacing_shift`";
}

/// The common options' names.
pub(super) fn common_names() -> Vec<&'static str> {
    COMMON.iter().map(|o| o.name).collect()
}

/// Every key `[flow.options]` may hold for some controller or recovery, once each: those of
/// every sender, of each registered controller, of each recovery (for the fuzz targets and
/// the docs).
pub fn option_keys() -> Vec<&'static str> {
    let controllers = crate::tcp::cc::CONTROLLERS.iter().flat_map(|d| d.options);
    let recoveries = crate::tcp::recovery::RECOVERY_DECLARATIONS
        .iter()
        .flat_map(|r| r.options);
    let extra: &[&'static OptionDecl] = &[&crate::tcp::recovery::newreno::HOE_SENDING];
    let mut keys = Vec::new();
    for o in COMMON
        .iter()
        .chain(controllers)
        .chain(recoveries)
        .chain(extra)
    {
        if !keys.contains(&o.name) {
            keys.push(o.name);
        }
    }
    keys
}

/// The names a flow's TCP keys take: the registered controllers, the recoveries, and the
/// values of every choice option (for the fuzz targets).
pub fn option_words() -> Vec<&'static str> {
    let mut words: Vec<&'static str> = crate::tcp::cc::registry::names();
    words.extend(crate::tcp::recovery::RECOVERIES.iter().copied());
    let controllers = crate::tcp::cc::CONTROLLERS.iter().flat_map(|d| d.options);
    let recoveries = crate::tcp::recovery::RECOVERY_DECLARATIONS
        .iter()
        .flat_map(|r| r.options);
    for o in controllers.chain(recoveries) {
        if let OptionKind::Choice(names) = o.kind {
            words.extend(names.iter().copied());
        }
    }
    let mut unique = Vec::new();
    for w in words {
        if !unique.contains(&w) {
            unique.push(w);
        }
    }
    unique
}

/// The options tables of docs/scenario.md, from the declarations: the options of every
/// sender, then those of each controller and each loss recovery (`tests/docs.rs` checks
/// that the docs hold exactly these).
pub fn options_tables_markdown() -> String {
    use crate::tcp::cc::registry::{option_row, options_table_rows};
    let mut out = String::from("| option | values | default |\n|---|---|---|\n");
    for o in COMMON {
        let source = if o.source.is_empty() {
            String::new()
        } else {
            format!(" ({})", o.source)
        };
        out += &format!(
            "| `{}` | {}: {} | {}{source} |\n",
            o.name,
            o.kind.describe(),
            o.doc,
            o.default
        );
    }
    out += "\nOptions of one variant (its declaration in `tcp/cc/`) or of one loss recovery \
            (`tcp/recovery/`):\n\n";
    out += "| variant or recovery | option | values | default |\n|---|---|---|---|\n";
    for row in options_table_rows() {
        out += &row;
        out.push('\n');
    }
    for r in crate::tcp::recovery::RECOVERY_DECLARATIONS {
        for o in r.options {
            out += &option_row(&format!("recovery `{}`", r.name), o);
            out.push('\n');
        }
    }
    out += &option_row(
        "`python:...` with recovery `newreno`",
        &crate::tcp::recovery::newreno::HOE_SENDING,
    );
    out += "\n| `python:...` | any other option | the class's keyword arguments (any TOML \
            value), checked against its constructor | the constructor's |\n";
    out
}
