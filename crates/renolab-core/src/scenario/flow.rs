//! `[[flow]]` tables: endpoints, application, TCP variant, profile and options.

use serde_json::{json, Value};

use super::profile::{self, Profile, PROFILES};
use super::reader::Table;
use super::{
    fmt_duration, fmt_rate, CbrSpec, CustomCcSpec, FlowSpec, Names, Result, ScenarioError, Start,
    TcpSpec, Traffic, Variant,
};
use crate::net::headers::TCP_IP_HEADER_BYTES;
use crate::tcp::cc::bbr::{gain_units, gain_value, BbrConfig};
use crate::tcp::cc::{CubicConfig, HystartMode, VegasConfig};
use crate::tcp::ecn::EchoMode;
use crate::tcp::recovery::{NewRenoConfig, RecoveryKind, RetransmitGuard, TimerReset, RECOVERIES};
use crate::tcp::rtt::RtoConfig;
use crate::tcp::{ReceiverConfig, SenderConfig};
use crate::time::SimDuration;

/// TCP variants.
pub const VARIANTS: &[&str] = &[
    "tahoe", "reno", "newreno", "sack", "vegas", "cubic", "bbr", "dctcp",
];
/// How a variant names a Python controller: `"python:<module or file.py>:<Class>"`.
pub const PYTHON_VARIANT_PREFIX: &str = "python:";
/// Flow kinds.
pub const FLOW_KINDS: &[&str] = &["tcp", "cbr"];

/// Largest MSS accepted (an IPv4 datagram, headers included, must fit in 64 KiB).
const MAX_MSS: u64 = u16::MAX as u64 - TCP_IP_HEADER_BYTES as u64;

/// Default size of a constant-bit-rate packet on the wire: ns-2's `Agent/UDP packetSize_`
/// (`ns-default.tcl`).
pub const DEFAULT_CBR_PACKET_BYTES: u32 = 1000;
/// Largest CBR `jitter`: a gap is the interval x (1 + jitter x U(-1/2, 1/2)), which a larger
/// jitter could make negative.
const MAX_CBR_JITTER: f64 = 2.0;
/// Default `receiver.ack_every` with delayed ACKs: RFC 5681 §4.2's "at least every second
/// full-sized segment", as ns-2's DelAckSink and subedi2008's OPNET table do.
pub const DEFAULT_ACK_EVERY: u32 = 2;
/// The smallest slow-start threshold, in segments: RFC 5681 eq. (4)'s floor of 2 * SMSS.
pub const MIN_SSTHRESH_SEGMENTS: u32 = 2;
/// RFC 6928's initial window: min(10 * MSS, max(2 * MSS, 14600 bytes)), in segments.
const RFC6928_IW_BYTES: u32 = 14_600;
/// RFC 6928's smallest initial window, in segments.
const RFC6928_IW_MIN: u32 = 2;
/// RFC 6928's largest initial window, in segments.
const RFC6928_IW_MAX: u32 = 10;

/// Options every variant takes.
const COMMON_OPTIONS: &[&str] = &[
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
const NEWRENO_OPTIONS: &[&str] = &[
    "partial_window_deflation",
    "timer_reset",
    "careful",
    "ssthresh_estimation",
];
/// Options of NewReno's loss recovery, whatever the variant.
const NEWRENO_RECOVERY_OPTIONS: &[&str] = &["partial_window_deflation", "timer_reset", "careful"];
const SACK_OPTIONS: &[&str] = &["sack_recovery"];
const VEGAS_OPTIONS: &[&str] = &["alpha", "beta", "gamma"];
const CUBIC_OPTIONS: &[&str] = &["beta", "c", "fast_convergence", "hystart"];
/// BBR's options: Linux `tcp_bbr.c`'s parameters without their `bbr_` prefix.
const BBR_OPTIONS: &[&str] = &[
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
const PYTHON_NEWRENO_OPTIONS: &[&str] = &["hoe_sending"];

fn recovery_options(recovery: &str) -> &'static [&'static str] {
    match recovery {
        "newreno" => NEWRENO_RECOVERY_OPTIONS,
        _ => &[],
    }
}

fn variant_options(variant: &str) -> &'static [&'static str] {
    match variant {
        "newreno" => NEWRENO_OPTIONS,
        "sack" => SACK_OPTIONS,
        "vegas" => VEGAS_OPTIONS,
        "cubic" => CUBIC_OPTIONS,
        "bbr" => BBR_OPTIONS,
        _ => &[],
    }
}

/// Parses flow `t`; `nodes` are the node names, `default_profile` the scenario's profile.
pub(super) fn parse_flow(
    t: &Table<'_>,
    nodes: &Names,
    with_media: bool,
    default_profile: Profile,
) -> Result<FlowSpec> {
    let from = if with_media {
        "the links and media"
    } else {
        "the links"
    };
    let name = t.req_str("name")?.to_string();
    let kind = t.choice("kind", FLOW_KINDS)?.unwrap_or("tcp");
    let node = |key: &str| -> Result<u32> {
        let n = t.req_str(key)?;
        nodes.position(n).ok_or_else(|| {
            ScenarioError::new(
                t.field(key),
                format!(
                    "unknown node {n:?}; nodes (from {from}): {}",
                    nodes.join(", ")
                ),
            )
        })
    };
    let (src, dst) = (node("src")?, node("dst")?);
    if src == dst {
        return Err(ScenarioError::new(t.field("dst"), "must differ from `src`"));
    }
    let start = parse_start(t)?;
    let stop = t.duration_ns("stop")?.map(SimDuration);
    if let (Some(stop), Start::At(s) | Start::Uniform { hi: s, .. }) = (stop, start) {
        if stop <= s {
            return Err(ScenarioError::new(
                t.field("stop"),
                "must be later than `start`",
            ));
        }
    }
    let traffic = match kind {
        "cbr" => {
            t.only(&[
                "name",
                "kind",
                "src",
                "dst",
                "start",
                "stop",
                "rate",
                "packet_bytes",
                "jitter",
            ])?;
            let rate = match t.str("rate")? {
                Some(r) => crate::units::parse_rate(r)
                    .map_err(|m| ScenarioError::new(t.field("rate"), m))?,
                None => {
                    return Err(ScenarioError::new(
                        t.field("rate"),
                        "is required for a cbr flow, e.g. \"2Mbps\"",
                    ))
                }
            };
            Traffic::Cbr(CbrSpec {
                rate,
                packet_bytes: t
                    .int("packet_bytes", 1, 65_535)?
                    .map_or(DEFAULT_CBR_PACKET_BYTES, |n| n as u32),
                jitter: t.float("jitter", 0.0, MAX_CBR_JITTER)?.unwrap_or(0.0),
            })
        }
        _ => {
            t.only(&[
                "name",
                "kind",
                "variant",
                "recovery",
                "profile",
                "src",
                "dst",
                "start",
                "stop",
                "bytes",
                "mss",
                "header_bytes",
                "receiver",
                "options",
            ])?;
            Traffic::Tcp(parse_tcp(t, default_profile)?)
        }
    };
    if stop.is_some() && matches!(&traffic, Traffic::Tcp(tcp) if tcp.bytes.is_some()) {
        return Err(ScenarioError::new(
            t.field("stop"),
            "is for unlimited flows; a flow with `bytes` ends by itself",
        ));
    }
    Ok(FlowSpec {
        name,
        src,
        dst,
        start,
        stop,
        traffic,
    })
}

/// `start = "5s"` or `start = { uniform = ["50s", "51s"] }`.
fn parse_start(t: &Table<'_>) -> Result<Start> {
    match t.get("start") {
        None => Ok(Start::At(SimDuration::ZERO)),
        Some(Value::Object(_)) => {
            let s = t.table("start")?.expect("present");
            s.only(&["uniform"])?;
            let bad = || {
                ScenarioError::new(
                    s.field("uniform"),
                    "expected two durations [earliest, latest], e.g. [\"50s\", \"51s\"]",
                )
            };
            let pair = s
                .get("uniform")
                .and_then(Value::as_array)
                .filter(|a| a.len() == 2)
                .ok_or_else(bad)?;
            let parse = |v: &Value| -> Result<SimDuration> {
                let text = v.as_str().ok_or_else(bad)?;
                crate::units::parse_duration_ns(text)
                    .map(SimDuration)
                    .map_err(|m| ScenarioError::new(s.field("uniform"), m))
            };
            let (lo, hi) = (parse(&pair[0])?, parse(&pair[1])?);
            if hi < lo {
                return Err(ScenarioError::new(
                    s.field("uniform"),
                    "the latest start is before the earliest",
                ));
            }
            Ok(Start::Uniform { lo, hi })
        }
        Some(_) => Ok(Start::At(SimDuration(t.duration_ns("start")?.unwrap_or(0)))),
    }
}

fn parse_tcp(t: &Table<'_>, default_profile: Profile) -> Result<TcpSpec> {
    let profile = t
        .choice("profile", PROFILES)?
        .map_or(default_profile, profile::by_name);
    let custom_reference = match t.str("variant")? {
        Some(v) if v.starts_with(PYTHON_VARIANT_PREFIX) => Some(parse_python_reference(t, v)?),
        _ => None,
    };
    let variant_name = match custom_reference {
        Some(_) => Variant::Custom.name(),
        None => parse_variant_name(t)?,
    };
    let mss = t.int("mss", 1, MAX_MSS)?.unwrap_or(profile.mss as u64) as u32;
    let header_bytes = t
        .int("header_bytes", 0, 1024)?
        .unwrap_or(profile.header_bytes as u64) as u32;
    let bytes = t.bytes("bytes", 1, 1 << 50)?;
    if let Some(b) = bytes {
        if b.div_ceil(mss as u64) >= u32::MAX as u64 {
            return Err(ScenarioError::new(
                t.field("bytes"),
                "is more segments than a flow can number (2^32)",
            ));
        }
    }
    // ns-2's Vegas has its own output() and never sends a SYN (docs/ns2-behaviour.md §6).
    let profile = if profile.name == "ns2" && variant_name == "vegas" {
        Profile {
            handshake: false,
            ..profile
        }
    } else {
        profile
    };

    let opts = t.table("options")?;
    let recovery_name = parse_recovery_name(t, opts.as_ref(), profile, variant_name)?;
    let sack = matches!(recovery_name, "sack" | "rfc6675" | "prr");
    let receiver = parse_receiver(t.table("receiver")?, profile, sack)?;
    let mut custom_args = serde_json::Map::new();
    if let (Some(o), true) = (&opts, custom_reference.is_some()) {
        custom_args = python_arguments(o, recovery_name)?;
    } else if let Some(o) = &opts {
        let mut allowed: Vec<&str> = COMMON_OPTIONS.to_vec();
        for key in variant_options(variant_name)
            .iter()
            .chain(recovery_options(recovery_name))
        {
            if !allowed.contains(key) {
                allowed.push(key);
            }
        }
        for key in o.keys() {
            if !allowed.contains(&key) {
                let owner = VARIANTS.iter().find(|v| variant_options(v).contains(&key));
                let why = match owner {
                    Some(v) => format!("is an option of variant {v:?}, not {variant_name:?}"),
                    None => "is not an option".to_string(),
                };
                return Err(ScenarioError::new(
                    o.field(key),
                    format!("{why}; options of {variant_name}: {}", allowed.join(", ")),
                ));
            }
        }
    }
    let options = Options {
        table: opts.as_ref(),
        flow: t,
    };
    let sender = parse_sender(&options, profile, mss, header_bytes)?;
    let variant = parse_variant(&options, variant_name)?;
    let recovery = parse_recovery(&options, profile, recovery_name, variant)?;
    debug_assert_eq!(recovery.uses_sack(), receiver.sack);
    // ECN (RFC 3168): off unless asked for, as between two Linux hosts at the default
    // net.ipv4.tcp_ecn = 2 (answer ECN, never ask for it); DCTCP always asks for it
    // (Linux tcp_ca_needs_ecn()), and cannot do without.
    let ecn = options.bool("ecn")?;
    let dctcp = variant == Variant::Dctcp;
    if dctcp && ecn == Some(false) {
        return Err(ScenarioError::new(
            options.field("ecn"),
            "must be true for variant \"dctcp\", which needs ECN (RFC 8257)",
        ));
    }
    let ecn = ecn.unwrap_or(dctcp);
    // Linux paces BBR flows whatever the qdisc (`SK_PACING_NEEDED`).
    let pacing = options
        .bool("pacing")?
        .unwrap_or(matches!(variant, Variant::Bbr(_)));
    let sender = SenderConfig {
        recovery,
        ecn,
        pacing,
        ..sender
    };
    let receiver = ReceiverConfig {
        ecn: match (ecn, dctcp) {
            (false, _) => EchoMode::Off,
            (true, false) => EchoMode::Rfc3168,
            (true, true) => EchoMode::Dctcp,
        },
        ..receiver
    };
    Ok(TcpSpec {
        variant,
        custom: custom_reference.map(|reference| CustomCcSpec {
            reference,
            args: custom_args,
        }),
        bytes,
        mss,
        sender,
        receiver,
        profile: profile.name,
    })
}

/// The recovery the flow asks for: `recovery = ...`, else the old `options.sack_recovery`
/// of variant sack, else the variant's default under the profile.
fn parse_recovery_name(
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

fn parse_recovery(
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

/// The `[flow.options]` table, possibly absent.
struct Options<'a, 'b> {
    table: Option<&'b Table<'a>>,
    flow: &'b Table<'a>,
}

impl Options<'_, '_> {
    fn field(&self, key: &str) -> String {
        match self.table {
            Some(o) => o.field(key),
            None => format!("{}.options.{key}", self.flow.path()),
        }
    }
    fn int(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>> {
        self.table.map_or(Ok(None), |o| o.int(key, min, max))
    }
    fn duration(&self, key: &str, default: SimDuration) -> Result<SimDuration> {
        Ok(self
            .table
            .map_or(Ok(None), |o| o.duration_ns(key))?
            .map_or(default, SimDuration))
    }
    fn bool(&self, key: &str) -> Result<Option<bool>> {
        self.table.map_or(Ok(None), |o| o.bool(key))
    }
    fn float(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>> {
        self.table.map_or(Ok(None), |o| o.float(key, min, max))
    }
    fn choice(&self, key: &str, allowed: &[&str]) -> Result<Option<&str>> {
        self.table.map_or(Ok(None), |o| o.choice(key, allowed))
    }
}

fn parse_receiver(r: Option<Table<'_>>, profile: Profile, sack: bool) -> Result<ReceiverConfig> {
    let mut config = ReceiverConfig {
        delayed_ack: profile.delayed_ack,
        ack_every: DEFAULT_ACK_EVERY,
        delack_timeout: profile.delack_timeout,
        ack_bytes: profile.ack_bytes,
        sack_option_bytes: profile.sack_option_bytes,
        sack,
        dialect: profile.dialect,
        ecn: EchoMode::Off,
    };
    if let Some(r) = r {
        r.only(&["delayed_ack", "ack_every", "delack_timeout", "ack_bytes"])?;
        config.delayed_ack = r.bool("delayed_ack")?.unwrap_or(config.delayed_ack);
        config.ack_every = r
            .int("ack_every", 1, 1_000_000)?
            .map_or(config.ack_every, |n| n as u32);
        config.delack_timeout = r
            .duration_ns("delack_timeout")?
            .map_or(config.delack_timeout, SimDuration);
        config.ack_bytes = r
            .int("ack_bytes", 1, 65_535)?
            .map_or(config.ack_bytes, |n| n as u32);
    }
    Ok(config)
}

fn parse_sender(
    o: &Options<'_, '_>,
    profile: Profile,
    mss: u32,
    header_bytes: u32,
) -> Result<SenderConfig> {
    let rfc6928_iw = (RFC6928_IW_BYTES / mss).clamp(RFC6928_IW_MIN, RFC6928_IW_MAX);
    let initial_window = o
        .int("initial_window", 1, 1 << 30)?
        .map_or(profile.initial_window.unwrap_or(rfc6928_iw), |n| n as u32);
    let profile_window = profile
        .window
        .unwrap_or_else(|| (profile.receive_buffer_bytes / mss as u64).max(1) as u32);
    let receiver_window = o
        .int("window", 1, u32::MAX as u64)?
        .map_or(profile_window, |n| n as u32);
    let initial_ssthresh = o
        .int(
            "initial_ssthresh",
            MIN_SSTHRESH_SEGMENTS as u64,
            u32::MAX as u64,
        )?
        .map_or(profile.initial_ssthresh.unwrap_or(receiver_window), |n| {
            n as u32
        });
    let dupack_threshold = o
        .int("dupack_threshold", 1, 1_000_000)?
        .map_or(profile.dupack_threshold, |n| n as u32);
    let rto = RtoConfig {
        initial: o.duration("initial_rto", profile.initial_rto)?,
        min: o.duration("min_rto", profile.min_rto)?,
        max: o.duration("max_rto", profile.max_rto)?,
        granularity: o.duration("clock_granularity", profile.clock_granularity)?,
    };
    if rto.initial.0 == 0 {
        return Err(ScenarioError::new(
            o.field("initial_rto"),
            "must be longer than 0s",
        ));
    }
    if rto.max.0 == 0 {
        // A zero timeout would fire again at the same instant, for ever.
        return Err(ScenarioError::new(
            o.field("max_rto"),
            "must be longer than 0s",
        ));
    }
    if rto.max < rto.min {
        return Err(ScenarioError::new(
            o.field("max_rto"),
            format!(
                "({}) must not be below min_rto ({})",
                fmt_duration(rto.max),
                fmt_duration(rto.min)
            ),
        ));
    }
    let handshake = o.bool("handshake")?.unwrap_or(profile.handshake);
    let dialect = profile.dialect;
    Ok(SenderConfig {
        header_bytes,
        initial_window,
        initial_ssthresh,
        receiver_window,
        dupack_threshold,
        rto,
        handshake,
        dialect,
        recovery: RecoveryKind::Reno,
        limited_transmit: o
            .bool("limited_transmit")?
            .unwrap_or(profile.limited_transmit),
        clock_phase: o
            .table
            .map_or(Ok(None), |t| t.duration_ns("clock_phase"))?
            .map(SimDuration),
        pacing: o.bool("pacing")?.unwrap_or(false),
        ecn: false,
    })
}

/// A built-in variant's name (`reno` when absent).
fn parse_variant_name(t: &Table<'_>) -> Result<&'static str> {
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
fn parse_python_reference(t: &Table<'_>, text: &str) -> Result<String> {
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
fn python_arguments(o: &Table<'_>, recovery: &str) -> Result<serde_json::Map<String, Value>> {
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

fn parse_variant(o: &Options<'_, '_>, name: &str) -> Result<Variant> {
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
fn parse_bbr(o: &Options<'_, '_>) -> Result<BbrConfig> {
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

/// The resolved flow as JSON, every default explicit.
pub(super) fn flow_json(f: &FlowSpec, nodes: &[String]) -> Value {
    let mut v = json!({
        "name": f.name,
        "src": nodes[f.src as usize],
        "dst": nodes[f.dst as usize],
        "start": match f.start {
            Start::At(t) => json!(fmt_duration(t)),
            Start::Uniform { lo, hi } => json!({"uniform": [fmt_duration(lo), fmt_duration(hi)]}),
        },
    });
    if let Some(stop) = f.stop {
        v["stop"] = json!(fmt_duration(stop));
    }
    let fields = match &f.traffic {
        Traffic::Tcp(tcp) => tcp_json(tcp),
        Traffic::Cbr(c) => json!({
            "kind": "cbr",
            "rate": fmt_rate(c.rate),
            "packet_bytes": c.packet_bytes,
            "jitter": c.jitter,
        }),
    };
    if let (Value::Object(a), Value::Object(b)) = (&mut v, fields) {
        a.extend(b);
    }
    v
}

fn tcp_json(t: &TcpSpec) -> Value {
    let s = &t.sender;
    let mut options = json!({
        "initial_window": s.initial_window,
        "initial_ssthresh": s.initial_ssthresh,
        "window": s.receiver_window,
        "dupack_threshold": s.dupack_threshold,
        "initial_rto": fmt_duration(s.rto.initial),
        "min_rto": fmt_duration(s.rto.min),
        "max_rto": fmt_duration(s.rto.max),
        "clock_granularity": fmt_duration(s.rto.granularity),
        "handshake": s.handshake,
        "limited_transmit": s.limited_transmit,
        "pacing": s.pacing,
    });
    if let Some(phase) = s.clock_phase {
        options["clock_phase"] = json!(fmt_duration(phase));
    }
    // Only when on, so that resolved scenarios without ECN read as they always did.
    if s.ecn {
        options["ecn"] = json!(true);
    }
    if let RecoveryKind::NewReno(c) = s.recovery {
        options["partial_window_deflation"] = json!(c.partial_window_deflation);
        options["timer_reset"] = json!(match c.timer_reset {
            TimerReset::SlowButSteady => "slow_but_steady",
            TimerReset::Impatient => "impatient",
        });
        options["careful"] = match c.careful {
            RetransmitGuard::AfterRecover => json!(true),
            RetransmitGuard::Heuristic => json!("less"),
            RetransmitGuard::Off => json!(false),
        };
        if t.variant == Variant::Custom {
            options["hoe_sending"] = json!(c.hoe_sending);
        }
    }
    match t.variant {
        Variant::NewReno {
            ssthresh_estimation,
        } => {
            options["ssthresh_estimation"] = json!(ssthresh_estimation);
        }
        Variant::Sack => {
            options["sack_recovery"] = json!(match s.recovery {
                RecoveryKind::Sack => "ns2",
                _ => "rfc6675",
            });
        }
        Variant::Vegas(c) => {
            options["alpha"] = json!(c.alpha);
            options["beta"] = json!(c.beta);
            options["gamma"] = json!(c.gamma);
        }
        Variant::Cubic(c) => {
            // The values the kernel arithmetic uses (0.7 is 717/1024).
            options["beta"] = json!(c.beta_f64());
            options["c"] = json!(c.c_f64());
            options["fast_convergence"] = json!(c.fast_convergence);
            options["hystart"] = json!(c.hystart.name());
        }
        Variant::Bbr(c) => {
            for (key, units) in [
                ("high_gain", c.high_gain),
                ("drain_gain", c.drain_gain),
                ("cwnd_gain", c.cwnd_gain),
                ("full_bw_thresh", c.full_bw_thresh),
                ("extra_acked_gain", c.extra_acked_gain),
                ("lt_loss_thresh", c.lt_loss_thresh),
            ] {
                options[key] = json!(gain_value(units));
            }
            for (key, n) in [
                ("bw_rtts", c.bw_rtts),
                ("min_rtt_win_sec", c.min_rtt_win_sec),
                ("probe_rtt_mode_ms", c.probe_rtt_mode_ms),
                ("cwnd_min_target", c.cwnd_min_target),
                ("full_bw_cnt", c.full_bw_cnt),
                ("extra_acked_win_rtts", c.extra_acked_win_rtts),
                ("extra_acked_max_us", c.extra_acked_max_us),
                ("lt_intvl_min_rtts", c.lt_intvl_min_rtts),
                ("lt_bw_max_rtts", c.lt_bw_max_rtts),
                ("pacing_margin_percent", c.pacing_margin_percent),
            ] {
                options[key] = json!(n);
            }
        }
        Variant::Custom => {
            if let (Some(c), Value::Object(o)) = (&t.custom, &mut options) {
                o.extend(c.args.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        Variant::Tahoe | Variant::Reno | Variant::Dctcp => {}
    }
    let variant = match &t.custom {
        Some(c) => c.reference.as_str(),
        None => t.variant.name(),
    };
    let mut v = json!({
        "kind": "tcp",
        "variant": variant,
        "recovery": s.recovery.name(),
        "profile": t.profile,
        "mss": t.mss,
        "header_bytes": s.header_bytes,
        "receiver": {
            "delayed_ack": t.receiver.delayed_ack,
            "ack_every": t.receiver.ack_every,
            "delack_timeout": fmt_duration(t.receiver.delack_timeout),
            "ack_bytes": t.receiver.ack_bytes,
        },
        "options": options,
    });
    if let Some(b) = t.bytes {
        v["bytes"] = json!(b);
    }
    v
}
