//! `[[flow]]` tables: endpoints, application, TCP variant, profile and options.
//!
//! `variant.rs` reads the controllers' names and options (their declarations say what they
//! are), `recovery.rs` the loss recoveries', `options.rs` the options every sender takes,
//! `json.rs` the resolved form.

mod json;
mod options;
mod recovery;
mod variant;

use serde_json::Value;

use super::profile::{self, Profile, PROFILES};
use super::reader::Table;
use super::{
    fmt_duration, CustomCcSpec, FlowSpec, Names, Result, ScenarioError, Start, TcpSpec, Traffic,
};
use crate::packet::headers::TCP_IP_HEADER_BYTES;
use crate::tcp::cc::Variant;
use crate::tcp::ecn::EchoMode;
use crate::tcp::gso::{Gso, MAX_MIN_TSO_SEGS, MAX_PACING_SHIFT};
use crate::tcp::recovery::RecoveryKind;
use crate::tcp::rtt::RtoConfig;
use crate::tcp::{Dialect, ReceiverConfig, SenderConfig};
use crate::time::SimDuration;

pub(super) use json::{flow_json, tcp_json};
pub use options::{option_keys, option_words, options_tables_markdown, COMMON as COMMON_OPTIONS};
use recovery::{parse_recovery, parse_recovery_name};
pub use variant::PYTHON_VARIANT_PREFIX;
use variant::{
    check_option_names, parse_python_reference, parse_variant, parse_variant_name, python_arguments,
};

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
            Traffic::Cbr(crate::app::CbrConfig {
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

pub(super) fn parse_tcp(t: &Table<'_>, default_profile: Profile) -> Result<TcpSpec> {
    let profile = t
        .choice("profile", PROFILES)?
        .map_or(default_profile, profile::by_name);
    let custom_reference = match t.str("variant")? {
        Some(v) if v.starts_with(PYTHON_VARIANT_PREFIX) => Some(parse_python_reference(t, v)?),
        _ => None,
    };
    let declaration = match custom_reference {
        Some(_) => None,
        None => Some(parse_variant_name(t)?),
    };
    if let Some(d) = declaration {
        if !d.profiles.contains(&profile.name) {
            return Err(ScenarioError::new(
                t.field("variant"),
                format!(
                    "{:?} does not run under profile {:?}; it runs under: {}",
                    d.name,
                    profile.name,
                    d.profiles.join(", ")
                ),
            ));
        }
    }
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
    let profile = match declaration {
        Some(d) if profile.name == "ns2" && !d.ns2_sends_syn => Profile {
            handshake: false,
            ..profile
        },
        _ => profile,
    };

    let opts = t.table("options")?;
    let recovery_name = parse_recovery_name(t, opts.as_ref(), profile, declaration)?;
    let sack = crate::tcp::recovery::declaration(recovery_name).is_some_and(|r| r.uses_sack);
    let receiver = parse_receiver(t.table("receiver")?, profile, sack)?;
    let mut custom_args = serde_json::Map::new();
    match (&opts, declaration) {
        (Some(o), None) => custom_args = python_arguments(o, recovery_name)?,
        (Some(o), Some(d)) => check_option_names(o, d, recovery_name)?,
        (None, _) => {}
    }
    let options = Options {
        table: opts.as_ref(),
        flow: t,
    };
    let sender = parse_sender(&options, profile, mss, header_bytes)?;
    let variant = match declaration {
        Some(d) => parse_variant(&options, d)?,
        None => Variant::Custom,
    };
    let recovery = parse_recovery(&options, profile, recovery_name, &variant)?;
    debug_assert_eq!(recovery.uses_sack(), receiver.sack);
    // ECN (RFC 3168): off unless asked for, as between two Linux hosts at the default
    // net.ipv4.tcp_ecn = 2 (answer ECN, never ask for it); a controller that needs it
    // (DCTCP, Linux tcp_ca_needs_ecn()) always asks, and cannot do without. Accurate ECN
    // (RFC 9768) is the Linux sender's, and an L4S controller's only ECN (Prague).
    let asked = parse_ecn(&options)?;
    let needs_ecn = declaration.and_then(|d| d.needs_ecn.map(|source| (d.name, source)));
    if let (Some((name, source)), Some(EcnAsked::Off)) = (needs_ecn, asked) {
        return Err(ScenarioError::new(
            options.field("ecn"),
            format!("must be true for variant {name:?}, which needs ECN ({source})"),
        ));
    }
    let wants_ect1 = declaration.and_then(|d| d.wants_ect1.map(|source| (d.name, source)));
    if let (Some((name, source)), Some(a)) = (wants_ect1, asked) {
        if a != EcnAsked::AccEcn {
            return Err(ScenarioError::new(
                options.field("ecn"),
                format!(
                    "must be \"accecn\" for variant {name:?}, which needs Accurate ECN ({source})"
                ),
            ));
        }
    }
    if asked == Some(EcnAsked::AccEcn) && profile.dialect != crate::tcp::Dialect::Linux {
        return Err(ScenarioError::new(
            options.field("ecn"),
            format!(
                "\"accecn\" needs profile \"linux\" (Accurate ECN is the Linux sender's), not {:?}",
                profile.name
            ),
        ));
    }
    let asked = asked.unwrap_or(match (wants_ect1, needs_ecn) {
        (Some(_), _) => EcnAsked::AccEcn,
        (None, Some(_)) => EcnAsked::Classic,
        (None, None) => EcnAsked::Off,
    });
    let needs_ecn = needs_ecn.is_some();
    let ecn = asked != EcnAsked::Off;
    let accecn = asked == EcnAsked::AccEcn;
    // Linux paces some controllers' flows whatever the qdisc (`SK_PACING_NEEDED`: BBR).
    let pacing = options
        .bool("pacing")?
        .unwrap_or(declaration.is_some_and(|d| d.paces));
    let sender = SenderConfig {
        recovery,
        ecn,
        accecn,
        pacing,
        ..sender
    };
    let receiver = ReceiverConfig {
        ecn: match (asked, needs_ecn) {
            (EcnAsked::Off, _) => EchoMode::Off,
            (EcnAsked::AccEcn, _) => EchoMode::AccEcn,
            (EcnAsked::Classic, false) => EchoMode::Rfc3168,
            (EcnAsked::Classic, true) => EchoMode::Dctcp,
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

/// What `options.ecn` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EcnAsked {
    Off,
    /// RFC 3168 (`true` or `"classic"`).
    Classic,
    /// RFC 9768 (`"accecn"`).
    AccEcn,
}

/// `options.ecn`: `true` or `"classic"` (RFC 3168), `"accecn"` (RFC 9768), `false`.
fn parse_ecn(options: &Options<'_, '_>) -> Result<Option<EcnAsked>> {
    let Some(value) = options.table.and_then(|t| t.get("ecn")) else {
        return Ok(None);
    };
    match value {
        Value::Bool(false) => Ok(Some(EcnAsked::Off)),
        Value::Bool(true) => Ok(Some(EcnAsked::Classic)),
        Value::String(s) if s == "classic" => Ok(Some(EcnAsked::Classic)),
        Value::String(s) if s == "accecn" => Ok(Some(EcnAsked::AccEcn)),
        other => Err(ScenarioError::new(
            options.field("ecn"),
            format!("expected true, false, \"classic\" or \"accecn\", got {other}"),
        )),
    }
}

/// The `[flow.options]` table, possibly absent.
struct Options<'a, 'b> {
    pub(super) table: Option<&'b Table<'a>>,
    pub(super) flow: &'b Table<'a>,
}

impl Options<'_, '_> {
    pub(super) fn field(&self, key: &str) -> String {
        match self.table {
            Some(o) => o.field(key),
            None => format!("{}.options.{key}", self.flow.path()),
        }
    }
    pub(super) fn int(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>> {
        self.table.map_or(Ok(None), |o| o.int(key, min, max))
    }
    pub(super) fn duration(&self, key: &str, default: SimDuration) -> Result<SimDuration> {
        Ok(self
            .table
            .map_or(Ok(None), |o| o.duration_ns(key))?
            .map_or(default, SimDuration))
    }
    pub(super) fn bool(&self, key: &str) -> Result<Option<bool>> {
        self.table.map_or(Ok(None), |o| o.bool(key))
    }
    pub(super) fn float(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>> {
        self.table.map_or(Ok(None), |o| o.float(key, min, max))
    }
    pub(super) fn choice(&self, key: &str, allowed: &[&str]) -> Result<Option<&str>> {
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
    let gso = parse_gso(o, profile)?;
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
        accecn: false,
        gso,
    })
}

/// `options.gso`, `min_tso_segs`, `pacing_shift`: the Linux sender's GSO buffers, off for
/// the other senders (which send one segment at a time), and refused there.
fn parse_gso(o: &Options<'_, '_>, profile: Profile) -> Result<Gso> {
    let keys = ["gso", "min_tso_segs", "pacing_shift"];
    if profile.dialect != Dialect::Linux {
        if let Some(key) = keys
            .iter()
            .find(|k| o.table.is_some_and(|t| t.get(k).is_some()))
        {
            return Err(ScenarioError::new(
                o.field(key),
                format!(
                    "needs profile \"linux\" (GSO buffers are the Linux sender's), not {:?}",
                    profile.name
                ),
            ));
        }
        return Ok(Gso::OFF);
    }
    let mut gso = Gso::LINUX;
    gso.enabled = o.bool("gso")?.unwrap_or(gso.enabled);
    gso.min_tso_segs = o
        .int("min_tso_segs", 1, MAX_MIN_TSO_SEGS as u64)?
        .map_or(gso.min_tso_segs, |n| n as u32);
    gso.pacing_shift = o
        .int("pacing_shift", 0, MAX_PACING_SHIFT as u64)?
        .map_or(gso.pacing_shift, |n| n as u32);
    Ok(gso)
}
