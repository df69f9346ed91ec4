//! The scenario: the one contract between Python and Rust.
//!
//! A scenario arrives as TOML or JSON with the structure documented in `docs/scenario.md`
//! (`[simulation]`, `[[link]]`, `[[medium]]`, `[[flow]]`). [`Scenario::from_json_str`] and
//! [`Scenario::from_toml_str`] validate it completely — every error names the field path and
//! what is allowed — and resolve it into typed, unit-free settings the engine builds from.
//! [`Scenario::to_json`] writes the resolved scenario back with every default made explicit.

mod error;
mod flow;
mod limits;
mod link;
mod medium;
mod names;
pub mod profile;
pub mod reader;
pub mod topology;
mod varying;
mod workload;

pub use crate::tcp::cc::Variant;
pub use error::{shorten, Result, ScenarioError};
pub use flow::{
    option_keys, option_words, options_tables_markdown, COMMON_OPTIONS, DEFAULT_ACK_EVERY,
    DEFAULT_CBR_PACKET_BYTES, FLOW_KINDS, MIN_SSTHRESH_SEGMENTS, PYTHON_VARIANT_PREFIX,
};
pub use limits::{
    Estimate, DEFAULT_MAX_EVENTS, DEFAULT_MAX_MEMORY, MAX_FLOWS, MAX_LINKS, MAX_MEDIA, MAX_NODES,
    MIN_MAX_MEMORY,
};
pub use link::{LOSS_KINDS, QUEUE_KINDS};
pub use medium::{
    fmt_wifi_rate, MediumSpec, StationSpec, DEFAULT_STATION_QUEUE, MAX_MEDIUM_NODES, MEDIUM_KINDS,
};
use names::Names;
pub use profile::{Profile, PROFILES};
pub use varying::{read_trace_file, MAX_SCHEDULE_STEPS, MAX_TRACE_BYTES};
pub use workload::{
    read_cdf_file, Offered, Pairs, SizesSource, WorkloadSpec, ARRIVALS, MAX_CDF_BYTES,
    MAX_WORKLOADS,
};

use serde_json::{json, Value};

use crate::app::CbrConfig;
use crate::loss::{AppliesTo, GilbertElliottConfig, LatencyDist};
use crate::net::{DeliveryTrace, Outages};
use crate::queue::{CoDelConfig, DualPi2Config, FqCoDelConfig, QueueLimit, RedConfig};
use crate::schedule::Schedule;
use crate::tcp::{ReceiverConfig, SenderConfig};
use crate::time::SimDuration;
use crate::units::BitsPerSec;
use reader::Table;

/// Simulated time a scenario without `duration` may run before it is stopped.
const DEFAULT_TIME_LIMIT_NS: u64 = 3_600_000_000_000;

/// A congestion controller the scenario names but the crate does not define: a Python
/// class, `variant = "python:<module or file.py>:<Class>"`. The engine runs it only through
/// a [`crate::tcp::cc::ControllerFactory`] that its embedder supplies (the Python binding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomCcSpec {
    /// The variant as written, `"python:<module or file.py>:<Class>"`.
    pub reference: String,
    /// The flow's options that are not the sender's: the controller's arguments (its
    /// constructor's keyword arguments), as JSON values.
    pub args: serde_json::Map<String, Value>,
}

/// An output-queue discipline with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueSpec {
    /// First-in first-out with a hard limit.
    DropTail {
        /// Capacity.
        limit: QueueLimit,
        /// ns-2 semantics: the packet being transmitted counts towards `limit`.
        counts_transmitting: bool,
        /// DCTCP step marking: mark ECN-capable arrivals that find at least this many
        /// packets (bytes, with a byte limit) waiting.
        ecn_threshold: Option<u64>,
    },
    /// RED (Floyd & Jacobson 1993, ns-2.35's parameters), for the direction's rate.
    Red(RedConfig),
    /// CoDel (RFC 8289).
    CoDel(CoDelConfig),
    /// FQ-CoDel (RFC 8290).
    FqCoDel(FqCoDelConfig),
    /// DualPI2, the coupled dual queue of L4S (RFC 9332, Linux `sch_dualpi2`).
    DualPi2(DualPi2Config),
}

/// What a loss model does.
#[derive(Clone, Debug, PartialEq)]
pub enum LossKind {
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
    /// Bit errors at rate `ber`: a packet of S bytes is lost with 1 - (1 - ber)^(8 S).
    Ber {
        /// Bit error rate.
        ber: f64,
    },
    /// Two-state Markov (Gilbert-Elliott) losses.
    GilbertElliott(GilbertElliottConfig),
    /// Every `every`-th packet in scope, after the first `offset`.
    Periodic {
        /// The period, packets.
        every: u64,
        /// Packets let through before the period starts.
        offset: u64,
    },
    /// One model after another, each from its instant (`{ schedule = [[time, model], ...] }`;
    /// the models are not schedules themselves).
    Schedule(Schedule<LossSpec>),
}

/// A loss model on a link direction and the packets it applies to.
#[derive(Clone, Debug, PartialEq)]
pub struct LossSpec {
    /// The model.
    pub kind: LossKind,
    /// Data, ACKs or both.
    pub applies_to: AppliesTo,
}

/// Extra per-packet latency on a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatencySpec {
    /// Distribution of the extra delay.
    pub dist: LatencyDist,
    /// Whether a packet may overtake the one before it.
    pub reorder: bool,
}

/// How fast a link direction sends.
#[derive(Clone, Debug, PartialEq)]
pub enum RateSpec {
    /// A rate, constant (one step at time 0) or changing at given instants.
    Schedule(Schedule<BitsPerSec>),
    /// A mahimahi trace's delivery opportunities (`{ trace = "FILE" }`).
    Trace(TraceSpec),
}

/// A mahimahi trace a link direction follows.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// The file as the scenario names it (Python makes it absolute, from the scenario
    /// file's folder).
    pub path: String,
    /// Its delivery opportunities, shared by the directions that name the same file.
    pub trace: std::sync::Arc<DeliveryTrace>,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct DirSpec {
    /// Transmission rate: fixed, scheduled or a trace's.
    pub rate: RateSpec,
    /// Propagation delay, constant (one step) or scheduled.
    pub delay: Schedule<SimDuration>,
    /// Output queue.
    pub queue: QueueSpec,
    /// Loss models, applied in order.
    pub losses: Vec<LossSpec>,
    /// Extra latency, if any.
    pub latency: Option<LatencySpec>,
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
    /// When the link is down, both directions.
    pub outages: Outages,
}

/// When a flow's application starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At this time.
    At(SimDuration),
    /// At a time drawn uniformly from `[lo, hi]` from the flow's own random stream.
    Uniform {
        /// Earliest start.
        lo: SimDuration,
        /// Latest start.
        hi: SimDuration,
    },
}

/// A TCP transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSpec {
    /// Congestion control.
    pub variant: Variant,
    /// The controller of a [`Variant::Custom`] flow (`None` for the built-in variants).
    pub custom: Option<CustomCcSpec>,
    /// Bytes to transfer; `None` for unlimited.
    pub bytes: Option<u64>,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Sender settings.
    pub sender: SenderConfig,
    /// Receiver settings.
    pub receiver: ReceiverConfig,
    /// Name of the profile that supplied the defaults.
    pub profile: &'static str,
}

/// What a flow carries.
// A TcpSpec is large next to a CbrConfig; a scenario holds one per flow, built once, so boxing
// would only add a pointer chase for every reader.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    /// A TCP connection with a bulk-transfer application.
    Tcp(TcpSpec),
    /// UDP packets at a constant rate.
    Cbr(CbrConfig),
}

/// A flow: endpoints, timing and traffic.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// Unique name.
    pub name: String,
    /// Sending node index.
    pub src: u32,
    /// Receiving node index.
    pub dst: u32,
    /// When the application starts.
    pub start: Start,
    /// When the application stops offering data (unlimited TCP and CBR).
    pub stop: Option<SimDuration>,
    /// What it sends.
    pub traffic: Traffic,
}

impl FlowSpec {
    /// The TCP settings, if this is a TCP flow.
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match &self.traffic {
            Traffic::Tcp(t) => Some(t),
            Traffic::Cbr(_) => None,
        }
    }

    /// The controller of a flow with a custom variant (`variant = "python:..."`).
    pub fn custom_cc(&self) -> Option<&CustomCcSpec> {
        self.tcp().and_then(|t| t.custom.as_ref())
    }

    /// True if the flow ends by itself (a TCP flow with `bytes`).
    pub fn is_finite(&self) -> bool {
        matches!(&self.traffic, Traffic::Tcp(t) if t.bytes.is_some())
    }
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Master seed of every random stream.
    pub seed: u64,
    /// The scenario-wide parameter profile.
    pub profile: &'static str,
    /// Simulated time to run; `None`: until every flow finishes (or `time_limit`).
    pub duration: Option<SimDuration>,
    /// Safety stop when `duration` is absent.
    pub time_limit: SimDuration,
    /// Most events a run may take: refused before the run when the estimate is larger,
    /// stopped with an error when the run passes it.
    pub max_events: u64,
    /// Most memory (bytes) the run may need by the estimate of [`Scenario::estimate`].
    pub max_memory: u64,
    /// Node names; indices are positions here (order of first appearance in links, then in
    /// media).
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<LinkSpec>,
    /// Shared media.
    pub media: Vec<MediumSpec>,
    /// Flows.
    pub flows: Vec<FlowSpec>,
    /// Workloads: flows created as the run goes, numbered after [`Scenario::flows`].
    pub workloads: Vec<WorkloadSpec>,
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
        root.only(&[
            "simulation",
            "link",
            "medium",
            "flow",
            "workload",
            "topology",
            "description",
        ])?;
        root.str("description")?;
        let (generated, origins) = topology::expand(&root)?;
        if !generated.is_empty() {
            // Topology helpers stand for [[link]] tables: parse the document with them added.
            let mut doc = doc.clone();
            let links = match doc.get("link") {
                Some(Value::Array(a)) => a.clone(),
                Some(table @ Value::Object(_)) => vec![table.clone()],
                _ => Vec::new(),
            };
            doc["link"] = Value::Array(generated.into_iter().chain(links).collect());
            if let Value::Object(m) = &mut doc {
                m.remove("topology");
            }
            return Self::from_value(&doc).map_err(|e| topology::locate(e, &origins));
        }
        let sim = parse_simulation(root.table("simulation")?)?;
        let profile = sim.profile;
        let link_tables = root.tables("link")?;
        let medium_tables = root.tables("medium")?;
        if link_tables.is_empty() && medium_tables.is_empty() {
            return Err(ScenarioError::new(
                "link",
                "at least one [[link]] or [[medium]] is required",
            ));
        }
        let mut nodes = Names::default();
        let mut link_names = Names::default();
        for t in &link_tables {
            for key in ["from", "to"] {
                let name = t.req_str(key)?;
                check_name(name).map_err(|m| ScenarioError::new(t.field(key), m))?;
                nodes.insert(name);
            }
        }
        for t in &medium_tables {
            for name in medium::node_names(t)? {
                nodes.insert(name);
            }
        }
        let flow_tables = root.tables("flow")?;
        limits::check_counts(
            nodes.len(),
            link_tables.len(),
            medium_tables.len(),
            flow_tables.len(),
        )?;
        let mut flow_names = Names::default();
        for t in &flow_tables {
            let name = t.req_str("name")?;
            check_name(name).map_err(|m| ScenarioError::new(t.field("name"), m))?;
            if !flow_names.insert(name) {
                return Err(ScenarioError::new(
                    t.field("name"),
                    format!("duplicate flow name {name:?}"),
                ));
            }
        }
        let workload_tables = root.tables("workload")?;
        if workload_tables.len() > MAX_WORKLOADS {
            return Err(ScenarioError::new(
                "workload",
                format!(
                    "{} workloads is more than the {MAX_WORKLOADS} allowed",
                    workload_tables.len()
                ),
            ));
        }
        workload::check_names(&workload_tables, &flow_names)?;
        let mut links = Vec::new();
        for t in &link_tables {
            let link = link::parse_link(t, &nodes, &flow_names, profile)?;
            if !link_names.insert(&link.name) {
                return Err(ScenarioError::new(
                    t.field("name"),
                    format!("duplicate link name {:?}", link.name),
                ));
            }
            links.push(link);
        }
        let media = parse_media(&medium_tables, &nodes, &flow_names, &links)?;
        let flows = flow_tables
            .iter()
            .map(|t| flow::parse_flow(t, &nodes, !media.is_empty(), profile))
            .collect::<Result<Vec<_>>>()?;
        if sim.duration.is_none() {
            if let Some(f) = flows.iter().find(|f| !f.is_finite()) {
                return Err(ScenarioError::new(
                    "simulation.duration",
                    format!(
                        "is required because flow {:?} never finishes by itself (no `bytes`)",
                        f.name
                    ),
                ));
            }
        }
        let mut scenario = Scenario {
            seed: sim.seed,
            profile: profile.name,
            duration: sim.duration,
            time_limit: sim.time_limit,
            max_events: sim.max_events,
            max_memory: sim.max_memory,
            nodes: nodes.into_vec(),
            links,
            media,
            flows,
            workloads: Vec::new(),
        };
        let routes = scenario.check_routes(&flow_tables)?;
        scenario.workloads = (workload_tables.iter())
            .map(|t| workload::parse_workload(t, &scenario, &routes, profile))
            .collect::<Result<Vec<_>>>()?;
        if sim.duration.is_none() {
            if let Some((w, _)) =
                (scenario.workloads.iter().zip(&workload_tables)).find(|(w, _)| !w.ends())
            {
                return Err(ScenarioError::new(
                    "simulation.duration",
                    format!(
                        "is required because workload {:?} never stops creating flows (no `stop` or `max_flows`)",
                        w.name
                    ),
                ));
            }
        }
        scenario.check_limits(&routes)?;
        Ok(scenario)
    }

    fn check_routes(&self, flow_tables: &[Table<'_>]) -> Result<crate::net::Routes> {
        let routes = self.routes();
        let what = if self.media.is_empty() {
            "the links"
        } else {
            "the links and media"
        };
        for (f, t) in self.flows.iter().zip(flow_tables) {
            if routes.next_hop(f.src, f.dst).is_none() {
                return Err(ScenarioError::new(
                    t.path(),
                    format!(
                        "no route from {:?} to {:?}: {what} do not connect them",
                        self.nodes[f.src as usize], self.nodes[f.dst as usize]
                    ),
                ));
            }
        }
        Ok(routes)
    }

    /// The routes between every pair of nodes, over the links (direction 2k is link k
    /// forward, 2k + 1 its reverse) and the media.
    pub fn routes(&self) -> crate::net::Routes {
        let dirs: Vec<(u32, u32)> = self
            .links
            .iter()
            .flat_map(|l| [(l.from, l.to), (l.to, l.from)])
            .collect();
        let media: Vec<Vec<u32>> = self.media.iter().map(MediumSpec::nodes).collect();
        crate::net::Routes::with_media(self.nodes.len(), &dirs, &media)
    }

    /// Names of the places packets wait, in the numbering of the traces' `link` column:
    /// the link directions (`"<link>"`, `"<link>/rev"`), then the stations of every medium
    /// (`"<medium>/<node>"`).
    pub fn place_names(&self) -> Vec<String> {
        let dirs = self
            .links
            .iter()
            .flat_map(|l| [l.name.clone(), format!("{}/rev", l.name)]);
        let stations = self.media.iter().flat_map(|m| {
            m.stations
                .iter()
                .map(|s| format!("{}/{}", m.name, self.nodes[s.node as usize]))
        });
        dirs.chain(stations).collect()
    }

    /// The resolved scenario as JSON, every default explicit, units normalised.
    pub fn to_json(&self) -> Value {
        let mut sim = json!({
            "seed": self.seed,
            "profile": self.profile,
            "time_limit": fmt_duration(self.time_limit),
            "max_events": self.max_events,
            "max_memory": self.max_memory,
        });
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
                merge(&mut v, link::dir_json(&l.forward, &self.flows));
                v["reverse"] = link::dir_json(&l.reverse, &self.flows);
                if !l.outages.is_empty() {
                    v["outages"] = varying::outages_json(&l.outages);
                }
                v
            })
            .collect();
        let flows: Vec<Value> = self
            .flows
            .iter()
            .map(|f| flow::flow_json(f, &self.nodes))
            .collect();
        let mut doc = json!({ "simulation": sim, "link": links, "flow": flows });
        if !self.workloads.is_empty() {
            doc["workload"] = (self.workloads.iter())
                .map(|w| workload::workload_json(w, self))
                .collect();
        }
        if !self.media.is_empty() {
            doc["medium"] = self
                .media
                .iter()
                .map(|m| medium::medium_json(m, &self.nodes, &self.flows))
                .collect();
        }
        doc
    }
}

/// The `[[medium]]` tables: names unique among media and links, and every station's name
/// (`"<medium>/<node>"`) unlike any link direction's, since traces name both alike.
fn parse_media(
    tables: &[Table<'_>],
    nodes: &Names,
    flows: &Names,
    links: &[LinkSpec],
) -> Result<Vec<MediumSpec>> {
    let mut names = Names::default();
    let mut media = Vec::with_capacity(tables.len());
    for t in tables {
        let m = medium::parse_medium(t, nodes, flows)?;
        if !names.insert(&m.name) || links.iter().any(|l| l.name == m.name) {
            return Err(ScenarioError::new(
                t.field("name"),
                format!("duplicate name {:?}: a link or medium has it", m.name),
            ));
        }
        for s in &m.stations {
            let station = format!("{}/{}", m.name, nodes[s.node as usize]);
            if links
                .iter()
                .any(|l| l.name == station || format!("{}/rev", l.name) == station)
            {
                return Err(ScenarioError::new(
                    t.field("name"),
                    format!("its station {station:?} has the name of a link direction"),
                ));
            }
        }
        media.push(m);
    }
    Ok(media)
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
    }
}

/// Longest name of a node, link, medium or flow: it becomes a file name (pcap files) and a
/// word of an ns-2 script, which must stay well under the file systems' 255 bytes.
pub const MAX_NAME_CHARS: usize = 100;

/// A name is what its message says: 1 to [`MAX_NAME_CHARS`] ASCII letters, digits, `_` or
/// `-`, nothing a file name, a Tcl script or a shell would read otherwise.
pub(crate) fn check_name(name: &str) -> std::result::Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if name.is_empty() || name.len() > MAX_NAME_CHARS || !name.chars().all(allowed) {
        Err(format!(
            "{name:?} is not a valid name; use letters, digits, '_' or '-' (ASCII, at most {MAX_NAME_CHARS} characters)"
        ))
    } else {
        Ok(())
    }
}

/// The `[simulation]` table.
struct SimulationTable {
    seed: u64,
    duration: Option<SimDuration>,
    time_limit: SimDuration,
    max_events: u64,
    max_memory: u64,
    profile: Profile,
}

fn parse_simulation(t: Option<Table<'_>>) -> Result<SimulationTable> {
    let Some(t) = t else {
        return Ok(SimulationTable {
            seed: 1,
            duration: None,
            time_limit: SimDuration(DEFAULT_TIME_LIMIT_NS),
            max_events: DEFAULT_MAX_EVENTS,
            max_memory: DEFAULT_MAX_MEMORY,
            profile: profile::RFC,
        });
    };
    t.only(&[
        "seed",
        "duration",
        "time_limit",
        "profile",
        "max_events",
        "max_memory",
    ])?;
    let profile = t
        .choice("profile", PROFILES)?
        .map_or(profile::RFC, profile::by_name);
    let seed = t.int("seed", 0, u64::MAX)?.unwrap_or(1);
    let positive = |key: &str| -> Result<Option<SimDuration>> {
        match t.duration_ns(key)? {
            Some(0) => Err(ScenarioError::new(t.field(key), "must be longer than 0s")),
            d => Ok(d.map(SimDuration)),
        }
    };
    let duration = positive("duration")?;
    let time_limit = positive("time_limit")?.unwrap_or(SimDuration(DEFAULT_TIME_LIMIT_NS));
    Ok(SimulationTable {
        seed,
        duration,
        time_limit,
        max_events: t
            .int("max_events", 1, u64::MAX)?
            .unwrap_or(DEFAULT_MAX_EVENTS),
        max_memory: t
            .bytes("max_memory", MIN_MAX_MEMORY, u64::MAX)?
            .unwrap_or(DEFAULT_MAX_MEMORY),
        profile,
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
