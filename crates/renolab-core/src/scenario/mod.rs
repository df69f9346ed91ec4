//! The scenario: the one contract between Python and Rust.
//!
//! A scenario arrives as TOML or JSON with the structure documented in `docs/scenario.md`
//! (`[simulation]`, `[[link]]`, `[[flow]]`). [`Scenario::from_json_str`] and
//! [`Scenario::from_toml_str`] validate it completely — every error names the field path and
//! what is allowed — and resolve it into typed, unit-free settings the engine builds from.
//! [`Scenario::to_json`] writes the resolved scenario back with every default made explicit.

mod error;
mod reader;

pub use error::{Result, ScenarioError};

use serde_json::{json, Value};

use crate::queue::QueueLimit;
use crate::tcp::rtt::RtoConfig;
use crate::tcp::{ReceiverConfig, SenderConfig};
use crate::time::SimDuration;
use crate::units::BitsPerSec;
use reader::Table;

/// TCP variants the engine implements.
pub const VARIANTS: &[&str] = &["reno"];
/// Queue disciplines.
pub const QUEUE_KINDS: &[&str] = &["droptail"];
/// Loss models.
pub const LOSS_KINDS: &[&str] = &["drop", "uniform"];
/// Flow kinds.
pub const FLOW_KINDS: &[&str] = &["tcp"];

/// Largest MSS accepted (an IPv4 datagram must fit in 64 KiB).
const MAX_MSS: u64 = 65_495;
/// Simulated time a scenario without `duration` may run before it is stopped.
const DEFAULT_TIME_LIMIT_NS: u64 = 3_600_000_000_000;

/// A TCP congestion-control variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 5681 Reno.
    Reno,
}

impl Variant {
    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Reno => "reno",
        }
    }
}

/// An output-queue discipline with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueSpec {
    /// First-in first-out with a hard limit.
    DropTail(QueueLimit),
}

/// A loss model on a link direction.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// Deterministic drops.
    Drop {
        /// Flow index whose segments are listed.
        flow: Option<u32>,
        /// Segment numbers (each drops one transmission).
        segments: Vec<u32>,
        /// Packet indices on the link direction.
        packets: Vec<u64>,
    },
    /// Independent losses with probability `p`.
    Uniform {
        /// Loss probability per packet.
        p: f64,
    },
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct DirSpec {
    /// Transmission rate.
    pub rate: BitsPerSec,
    /// Propagation delay.
    pub delay: SimDuration,
    /// Output queue.
    pub queue: QueueSpec,
    /// Loss models, applied in order.
    pub losses: Vec<LossSpec>,
}

/// A duplex link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// Name (given, or `"from-to"`).
    pub name: String,
    /// Node index at the `from` end.
    pub from: u32,
    /// Node index at the `to` end.
    pub to: u32,
    /// `from` -> `to`.
    pub forward: DirSpec,
    /// `to` -> `from`.
    pub reverse: DirSpec,
}

/// A TCP flow and its application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// Unique name.
    pub name: String,
    /// Congestion control.
    pub variant: Variant,
    /// Sending node index.
    pub src: u32,
    /// Receiving node index.
    pub dst: u32,
    /// When the application starts.
    pub start: SimDuration,
    /// Bytes to transfer; `None` for unlimited.
    pub bytes: Option<u64>,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Sender settings.
    pub sender: SenderConfig,
    /// Receiver settings.
    pub receiver: ReceiverConfig,
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Master seed of every random stream.
    pub seed: u64,
    /// Simulated time to run; `None`: until every flow finishes (or `time_limit`).
    pub duration: Option<SimDuration>,
    /// Safety stop when `duration` is absent.
    pub time_limit: SimDuration,
    /// Node names; indices are positions here (order of first appearance in links).
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<LinkSpec>,
    /// Flows.
    pub flows: Vec<FlowSpec>,
}

impl Scenario {
    /// Parses and validates a scenario written as JSON.
    pub fn from_json_str(text: &str) -> Result<Self> {
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
        Self::from_value(&doc)
    }

    /// Parses and validates a scenario written as TOML.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let doc: Value = toml::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("not valid TOML: {}", e.message())))?;
        Self::from_value(&doc)
    }

    /// Validates a parsed document.
    pub fn from_value(doc: &Value) -> Result<Self> {
        let root = Table::new("", doc)?;
        root.only(&["simulation", "link", "flow", "description"])?;
        let (seed, duration, time_limit) = parse_simulation(root.table("simulation")?)?;
        let link_tables = root.tables("link")?;
        if link_tables.is_empty() {
            return Err(ScenarioError::new(
                "link",
                "at least one [[link]] is required",
            ));
        }
        let mut nodes: Vec<String> = Vec::new();
        let mut link_names: Vec<String> = Vec::new();
        for t in &link_tables {
            for key in ["from", "to"] {
                let name = t.req_str(key)?;
                check_name(name).map_err(|m| ScenarioError::new(t.field(key), m))?;
                if !nodes.iter().any(|n| n == name) {
                    nodes.push(name.to_string());
                }
            }
        }
        let flow_tables = root.tables("flow")?;
        let mut flow_names: Vec<String> = Vec::new();
        for t in &flow_tables {
            let name = t.req_str("name")?;
            check_name(name).map_err(|m| ScenarioError::new(t.field("name"), m))?;
            if flow_names.iter().any(|n| n == name) {
                return Err(ScenarioError::new(
                    t.field("name"),
                    format!("duplicate flow name {name:?}"),
                ));
            }
            flow_names.push(name.to_string());
        }
        let mut links = Vec::new();
        for t in &link_tables {
            let link = parse_link(t, &nodes, &flow_names)?;
            if link_names.contains(&link.name) {
                return Err(ScenarioError::new(
                    t.field("name"),
                    format!("duplicate link name {:?}", link.name),
                ));
            }
            link_names.push(link.name.clone());
            links.push(link);
        }
        let flows = flow_tables
            .iter()
            .map(|t| parse_flow(t, &nodes))
            .collect::<Result<Vec<_>>>()?;
        if duration.is_none() {
            if let Some(f) = flows.iter().find(|f| f.bytes.is_none()) {
                return Err(ScenarioError::new(
                    "simulation.duration",
                    format!(
                        "is required because flow {:?} has no `bytes` (it never finishes)",
                        f.name
                    ),
                ));
            }
        }
        let scenario = Scenario {
            seed,
            duration,
            time_limit,
            nodes,
            links,
            flows,
        };
        scenario.check_routes(&flow_tables)?;
        Ok(scenario)
    }

    fn check_routes(&self, flow_tables: &[Table<'_>]) -> Result<()> {
        let dirs: Vec<(u32, u32)> = self
            .links
            .iter()
            .flat_map(|l| [(l.from, l.to), (l.to, l.from)])
            .collect();
        let routes = crate::net::Routes::compute(self.nodes.len(), &dirs);
        for (f, t) in self.flows.iter().zip(flow_tables) {
            if routes.next_hop(f.src, f.dst).is_none() {
                return Err(ScenarioError::new(
                    t.path(),
                    format!(
                        "no route from {:?} to {:?}: the links do not connect them",
                        self.nodes[f.src as usize], self.nodes[f.dst as usize]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The resolved scenario as JSON, every default explicit, units normalised.
    pub fn to_json(&self) -> Value {
        let mut sim = json!({ "seed": self.seed, "time_limit": fmt_duration(self.time_limit) });
        if let Some(d) = self.duration {
            sim["duration"] = json!(fmt_duration(d));
        }
        let links: Vec<Value> = self
            .links
            .iter()
            .map(|l| {
                let mut v = json!({
                    "name": l.name,
                    "from": self.nodes[l.from as usize],
                    "to": self.nodes[l.to as usize],
                });
                merge(&mut v, dir_json(&l.forward, &self.flows));
                v["reverse"] = dir_json(&l.reverse, &self.flows);
                v
            })
            .collect();
        let flows: Vec<Value> = self
            .flows
            .iter()
            .map(|f| {
                let mut v = json!({
                    "name": f.name,
                    "kind": "tcp",
                    "variant": f.variant.name(),
                    "src": self.nodes[f.src as usize],
                    "dst": self.nodes[f.dst as usize],
                    "start": fmt_duration(f.start),
                    "mss": f.mss,
                    "header_bytes": f.sender.header_bytes,
                    "receiver": {
                        "delayed_ack": f.receiver.delayed_ack,
                        "ack_every": f.receiver.ack_every,
                        "delack_timeout": fmt_duration(f.receiver.delack_timeout),
                        "ack_bytes": f.receiver.ack_bytes,
                    },
                    "options": {
                        "initial_window": f.sender.initial_window,
                        "initial_ssthresh": f.sender.initial_ssthresh,
                        "window": f.sender.receiver_window,
                        "dupack_threshold": f.sender.dupack_threshold,
                        "initial_rto": fmt_duration(f.sender.rto.initial),
                        "min_rto": fmt_duration(f.sender.rto.min),
                        "max_rto": fmt_duration(f.sender.rto.max),
                        "clock_granularity": fmt_duration(f.sender.rto.granularity),
                    },
                });
                if let Some(b) = f.bytes {
                    v["bytes"] = json!(b);
                }
                v
            })
            .collect();
        json!({ "simulation": sim, "link": links, "flow": flows })
    }
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
    }
}

fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Err(format!(
            "{name:?} is not a valid name; use letters, digits, '_' or '-' without spaces"
        ))
    } else {
        Ok(())
    }
}

fn parse_simulation(t: Option<Table<'_>>) -> Result<(u64, Option<SimDuration>, SimDuration)> {
    let Some(t) = t else {
        return Ok((1, None, SimDuration(DEFAULT_TIME_LIMIT_NS)));
    };
    t.only(&["seed", "duration", "time_limit"])?;
    let seed = t.int("seed", 0, u64::MAX)?.unwrap_or(1);
    let positive = |key: &str| -> Result<Option<SimDuration>> {
        match t.duration_ns(key)? {
            Some(0) => Err(ScenarioError::new(t.field(key), "must be longer than 0s")),
            d => Ok(d.map(SimDuration)),
        }
    };
    let duration = positive("duration")?;
    let time_limit = positive("time_limit")?.unwrap_or(SimDuration(DEFAULT_TIME_LIMIT_NS));
    Ok((seed, duration, time_limit))
}

const DIR_KEYS: &[&str] = &["rate", "delay", "queue", "loss"];

fn parse_link(t: &Table<'_>, nodes: &[String], flows: &[String]) -> Result<LinkSpec> {
    let mut allowed = vec!["name", "from", "to", "reverse"];
    allowed.extend_from_slice(DIR_KEYS);
    t.only(&allowed)?;
    let node = |key: &str| -> u32 {
        let name = t.req_str(key).unwrap_or_default();
        nodes.iter().position(|n| n == name).unwrap_or(0) as u32
    };
    let (from, to) = (node("from"), node("to"));
    if from == to {
        return Err(ScenarioError::new(
            t.field("to"),
            "a link must join two different nodes",
        ));
    }
    let name = match t.str("name")? {
        Some(n) => {
            check_name(n).map_err(|m| ScenarioError::new(t.field("name"), m))?;
            n.to_string()
        }
        None => format!("{}-{}", nodes[from as usize], nodes[to as usize]),
    };
    let forward = parse_dir(t, None, flows)?;
    let reverse = match t.table("reverse")? {
        Some(r) => {
            r.only(DIR_KEYS)?;
            parse_dir(&r, Some(&forward), flows)?
        }
        None => forward.clone(),
    };
    Ok(LinkSpec {
        name,
        from,
        to,
        forward,
        reverse,
    })
}

/// A direction's settings; `base` supplies what a `reverse` table leaves out.
fn parse_dir(t: &Table<'_>, base: Option<&DirSpec>, flows: &[String]) -> Result<DirSpec> {
    let rate = match t.get("rate") {
        Some(v) => {
            let text = v.as_str().ok_or_else(|| {
                ScenarioError::new(
                    t.field("rate"),
                    format!("expected a rate such as \"10Mbps\", got {v}"),
                )
            })?;
            crate::units::parse_rate(text).map_err(|m| ScenarioError::new(t.field("rate"), m))?
        }
        None => match base {
            Some(b) => b.rate,
            None => {
                return Err(ScenarioError::new(
                    t.field("rate"),
                    "is required, e.g. \"10Mbps\"",
                ))
            }
        },
    };
    let delay = match t.duration_ns("delay")? {
        Some(d) => SimDuration(d),
        None => base.map_or(SimDuration::ZERO, |b| b.delay),
    };
    let queue = match t.table("queue")? {
        Some(q) => parse_queue(&q)?,
        None => base.map_or(QueueSpec::DropTail(QueueLimit::Packets(100)), |b| b.queue),
    };
    let losses = match t.get("loss") {
        Some(_) => t
            .tables("loss")?
            .iter()
            .map(|l| parse_loss(l, flows))
            .collect::<Result<_>>()?,
        None => base.map_or_else(Vec::new, |b| b.losses.clone()),
    };
    Ok(DirSpec {
        rate,
        delay,
        queue,
        losses,
    })
}

fn parse_queue(q: &Table<'_>) -> Result<QueueSpec> {
    let kind = q.choice("kind", QUEUE_KINDS)?.ok_or_else(|| {
        ScenarioError::new(
            q.field("kind"),
            format!("is required; allowed: {}", QUEUE_KINDS.join(", ")),
        )
    })?;
    match kind {
        "droptail" => {
            q.only(&["kind", "limit", "limit_bytes"])?;
            let packets = q.int("limit", 1, u32::MAX as u64)?;
            let bytes = q.bytes("limit_bytes", 1, 1 << 40)?;
            let limit = match (packets, bytes) {
                (Some(_), Some(_)) => {
                    return Err(ScenarioError::new(
                        q.path(),
                        "give `limit` (packets) or `limit_bytes`, not both",
                    ))
                }
                (Some(p), None) => QueueLimit::Packets(p as u32),
                (None, Some(b)) => QueueLimit::Bytes(b),
                (None, None) => QueueLimit::Packets(100),
            };
            Ok(QueueSpec::DropTail(limit))
        }
        _ => unreachable!("choice() only returns allowed kinds"),
    }
}

fn parse_loss(l: &Table<'_>, flows: &[String]) -> Result<LossSpec> {
    let kind = l.choice("kind", LOSS_KINDS)?.ok_or_else(|| {
        ScenarioError::new(
            l.field("kind"),
            format!("is required; allowed: {}", LOSS_KINDS.join(", ")),
        )
    })?;
    match kind {
        "drop" => {
            l.only(&["kind", "flow", "segments", "packets"])?;
            let flow = match l.str("flow")? {
                Some(name) => Some(flows.iter().position(|f| f == name).ok_or_else(|| {
                    ScenarioError::new(
                        l.field("flow"),
                        format!("unknown flow {name:?}; flows: {}", flows.join(", ")),
                    )
                })? as u32),
                None => None,
            };
            let segments: Vec<u32> = l
                .ints("segments", 0, u32::MAX as u64)?
                .into_iter()
                .map(|s| s as u32)
                .collect();
            if !segments.is_empty() && flow.is_none() {
                return Err(ScenarioError::new(
                    l.field("flow"),
                    "is required when `segments` are listed",
                ));
            }
            let packets = l.ints("packets", 0, u64::MAX)?;
            Ok(LossSpec::Drop {
                flow,
                segments,
                packets,
            })
        }
        "uniform" => {
            l.only(&["kind", "p"])?;
            let p = l
                .float("p", 0.0, 1.0)?
                .ok_or_else(|| ScenarioError::new(l.field("p"), "is required, from 0 to 1"))?;
            Ok(LossSpec::Uniform { p })
        }
        _ => unreachable!("choice() only returns allowed kinds"),
    }
}

const OPTION_KEYS: &[&str] = &[
    "initial_window",
    "initial_ssthresh",
    "window",
    "dupack_threshold",
    "min_rto",
    "max_rto",
    "initial_rto",
    "clock_granularity",
];

fn parse_flow(t: &Table<'_>, nodes: &[String]) -> Result<FlowSpec> {
    t.only(&[
        "name",
        "kind",
        "variant",
        "src",
        "dst",
        "start",
        "bytes",
        "mss",
        "header_bytes",
        "receiver",
        "options",
    ])?;
    let name = t.req_str("name")?.to_string();
    t.choice("kind", FLOW_KINDS)?;
    let variant = match t.choice("variant", VARIANTS)? {
        Some("reno") | None => Variant::Reno,
        Some(_) => unreachable!("choice() only returns allowed variants"),
    };
    let node = |key: &str| -> Result<u32> {
        let n = t.req_str(key)?;
        nodes
            .iter()
            .position(|x| x == n)
            .map(|i| i as u32)
            .ok_or_else(|| {
                ScenarioError::new(
                    t.field(key),
                    format!(
                        "unknown node {n:?}; nodes (from the links): {}",
                        nodes.join(", ")
                    ),
                )
            })
    };
    let (src, dst) = (node("src")?, node("dst")?);
    if src == dst {
        return Err(ScenarioError::new(t.field("dst"), "must differ from `src`"));
    }
    let start = SimDuration(t.duration_ns("start")?.unwrap_or(0));
    let mss = t.int("mss", 1, MAX_MSS)?.unwrap_or(1460) as u32;
    let header_bytes = t.int("header_bytes", 0, 1024)?.unwrap_or(40) as u32;
    let bytes = t.bytes("bytes", 1, 1 << 50)?;
    if let Some(b) = bytes {
        if b.div_ceil(mss as u64) >= u32::MAX as u64 {
            return Err(ScenarioError::new(
                t.field("bytes"),
                "is more segments than a flow can number (2^32)",
            ));
        }
    }

    let rcv = t.table("receiver")?;
    let (delayed_ack, ack_every, delack_timeout, ack_bytes) = match &rcv {
        Some(r) => {
            r.only(&["delayed_ack", "ack_every", "delack_timeout", "ack_bytes"])?;
            (
                r.bool("delayed_ack")?.unwrap_or(false),
                r.int("ack_every", 1, 1_000_000)?.unwrap_or(2) as u32,
                r.duration_ns("delack_timeout")?.unwrap_or(200_000_000),
                r.int("ack_bytes", 1, 65_535)?.unwrap_or(40) as u32,
            )
        }
        None => (false, 2, 200_000_000, 40),
    };
    let receiver = ReceiverConfig {
        delayed_ack,
        ack_every,
        delack_timeout: SimDuration(delack_timeout),
        ack_bytes,
    };

    let opts = t.table("options")?;
    if let Some(o) = &opts {
        o.only(OPTION_KEYS)?;
    }
    let int = |key: &str, min: u64, max: u64| -> Result<Option<u64>> {
        opts.as_ref().map_or(Ok(None), |o| o.int(key, min, max))
    };
    let dur = |key: &str, default: u64| -> Result<SimDuration> {
        Ok(SimDuration(
            opts.as_ref()
                .map_or(Ok(None), |o| o.duration_ns(key))?
                .unwrap_or(default),
        ))
    };
    // RFC 6928: IW = min(10 * MSS, max(2 * MSS, 14600 bytes)).
    let rfc6928_iw = (14_600 / mss).clamp(2, 10);
    let initial_window = int("initial_window", 1, 1 << 30)?.unwrap_or(rfc6928_iw as u64) as u32;
    let initial_ssthresh =
        int("initial_ssthresh", 2, u32::MAX as u64)?.unwrap_or(u32::MAX as u64) as u32;
    let receiver_window = int("window", 1, u32::MAX as u64)?.unwrap_or(u32::MAX as u64) as u32;
    let dupack_threshold = int("dupack_threshold", 1, 1_000_000)?.unwrap_or(3) as u32;
    let rto = RtoConfig {
        initial: dur("initial_rto", 1_000_000_000)?,
        min: dur("min_rto", 1_000_000_000)?,
        max: dur("max_rto", 60_000_000_000)?,
        granularity: dur("clock_granularity", 0)?,
    };
    let opt_field = |key: &str| {
        opts.as_ref()
            .map_or_else(|| format!("{}.options.{key}", t.path()), |o| o.field(key))
    };
    if rto.initial.0 == 0 {
        return Err(ScenarioError::new(
            opt_field("initial_rto"),
            "must be longer than 0s",
        ));
    }
    if rto.max < rto.min {
        return Err(ScenarioError::new(
            opt_field("max_rto"),
            format!(
                "({}) must not be below min_rto ({})",
                fmt_duration(rto.max),
                fmt_duration(rto.min)
            ),
        ));
    }
    let sender = SenderConfig {
        header_bytes,
        initial_window,
        initial_ssthresh,
        receiver_window,
        dupack_threshold,
        rto,
    };
    Ok(FlowSpec {
        name,
        variant,
        src,
        dst,
        start,
        bytes,
        mss,
        sender,
        receiver,
    })
}

fn dir_json(d: &DirSpec, flows: &[FlowSpec]) -> Value {
    let queue = match d.queue {
        QueueSpec::DropTail(QueueLimit::Packets(n)) => json!({"kind": "droptail", "limit": n}),
        QueueSpec::DropTail(QueueLimit::Bytes(b)) => json!({"kind": "droptail", "limit_bytes": b}),
    };
    let losses: Vec<Value> = d
        .losses
        .iter()
        .map(|l| match l {
            LossSpec::Drop {
                flow,
                segments,
                packets,
            } => {
                let mut v = json!({"kind": "drop", "segments": segments, "packets": packets});
                if let Some(f) = flow {
                    v["flow"] = json!(flows[*f as usize].name);
                }
                v
            }
            LossSpec::Uniform { p } => json!({"kind": "uniform", "p": p}),
        })
        .collect();
    json!({
        "rate": fmt_rate(d.rate),
        "delay": fmt_duration(d.delay),
        "queue": queue,
        "loss": losses,
    })
}

/// Writes a duration with the largest unit that keeps it exact (`"48ms"`, `"1500us"`).
pub fn fmt_duration(d: SimDuration) -> String {
    let ns = d.0;
    match ns {
        0 => "0s".to_string(),
        _ if ns % 1_000_000_000 == 0 => format!("{}s", ns / 1_000_000_000),
        _ if ns % 1_000_000 == 0 => format!("{}ms", ns / 1_000_000),
        _ if ns % 1_000 == 0 => format!("{}us", ns / 1_000),
        _ => format!("{ns}ns"),
    }
}

/// Writes a rate with the largest unit that keeps it exact (`"1500Kbps"`).
pub fn fmt_rate(r: BitsPerSec) -> String {
    let b = r.0;
    match b {
        _ if b % 1_000_000_000 == 0 => format!("{}Gbps", b / 1_000_000_000),
        _ if b % 1_000_000 == 0 => format!("{}Mbps", b / 1_000_000),
        _ if b % 1_000 == 0 => format!("{}Kbps", b / 1_000),
        _ => format!("{b}bps"),
    }
}

#[cfg(test)]
mod tests;
