//! What an emulation will create, decided before anything is: which nodes become network
//! namespaces and under which names, which kernel congestion control each flow uses, and
//! which scenario settings reach the kernel.
//!
//! Everything here is pure and platform-independent, so a scenario that cannot be emulated
//! (a hostile name, a variant no kernel has) is refused the same way everywhere, before a
//! single namespace exists.
//!
//! The emulator runs as root, so names are the one way scenario text could reach the system.
//! They reach it only through [`safe_name`]: 1 to [`MAX_NAME`] ASCII letters, digits, `_` or
//! `-`, starting with a letter or digit, behind a fixed prefix. No shell ever sees them.

use renolab_core::packet::headers::TCP_IP_HEADER_BYTES;
use renolab_core::scenario::{Start, Traffic, PROFILES};
use renolab_core::sim::workload::{drawn_flows, DrawnFlow, Paths};
use renolab_core::tcp::cc::registry;
use renolab_core::time::{SimDuration, SimTime};
use renolab_core::trace::pcap::node_ip;
use renolab_core::{rng::RngStream, Scenario};
use serde_json::Value;

/// Longest node or flow name the emulator accepts.
pub const MAX_NAME: usize = 32;
/// Prefix of every network namespace the emulator creates: `renolab-<pid>-<node>`.
pub const NETNS_PREFIX: &str = "renolab-";
/// Prefix of every TUN device: `rl-<node>`, cut to the kernel's limit.
pub const DEVICE_PREFIX: &str = "rl-";
/// The kernel's limit on interface names (`IFNAMSIZ` - 1).
pub const IFNAME_MAX: usize = 15;
/// Longest congestion-control name the kernel knows (`TCP_CA_NAME_MAX` - 1).
pub const CA_NAME_MAX: usize = 15;
/// Smallest MTU of the namespaces' devices (Ethernet's, RFC 894).
pub const MIN_MTU: u32 = 1500;
/// Most flows an emulation may have: each takes two ports and two sockets.
pub const MAX_FLOWS: usize = 1000;
/// Port of a flow's sender is this plus the flow's index (as in renolab's pcap files).
pub const SENDER_PORT_BASE: u16 = 10_000;
/// Port of a flow's receiver is this plus the flow's index.
pub const RECEIVER_PORT_BASE: u16 = 20_000;

/// Why a scenario cannot be emulated: bad input (exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanError {}

fn err(path: &str, message: impl std::fmt::Display) -> PlanError {
    if path.is_empty() {
        PlanError(message.to_string())
    } else {
        PlanError(format!("{path}: {message}"))
    }
}

/// Checks that `name` may become part of a namespace or device name: 1 to [`MAX_NAME`]
/// ASCII letters, digits, `_` or `-`, the first a letter or digit (so never `.`, `/`, a
/// space, a quote or a shell metacharacter).
pub fn safe_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        let shown: String = name.chars().take(40).collect();
        let more = if name.chars().count() > 40 { "..." } else { "" };
        Err(format!(
            "{shown:?}{more} cannot be used by renolab emulate: names become network-namespace and device names, so they must be 1-{MAX_NAME} ASCII letters, digits, '_' or '-', starting with a letter or digit"
        ))
    }
}

/// The network namespace of host `node` in the emulation run by process `pid`.
pub fn netns_name(pid: u32, node: &str) -> String {
    debug_assert!(safe_name(node).is_ok());
    format!("{NETNS_PREFIX}{pid}-{node}")
}

/// The TUN device of host `node` (inside its own namespace): `rl-` and the node's name, cut
/// to the kernel's 15 characters (names are ASCII, so any cut is a character boundary).
pub fn device_name(node: &str) -> String {
    debug_assert!(safe_name(node).is_ok());
    let mut name = format!("{DEVICE_PREFIX}{node}");
    name.truncate(IFNAME_MAX);
    name
}

/// The process id in the name of a namespace this emulator created, if `name` is one.
pub fn netns_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(NETNS_PREFIX)?;
    let (pid, node) = rest.split_once('-')?;
    safe_name(node).ok()?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// A node that becomes a network namespace with a TUN device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// Node index in the scenario.
    pub node: u32,
    /// Node name (checked by [`safe_name`]).
    pub name: String,
    /// Network namespace name.
    pub netns: String,
    /// TUN device name inside the namespace.
    pub device: String,
    /// The host's IPv4 address (renolab's pcap address of the node).
    pub ip: [u8; 4],
    /// SACK enabled in this namespace (`net.ipv4.tcp_sack`).
    pub sack: bool,
    /// Generic segmentation offload on the host's device (the kernel's default, on): the
    /// flows it sends build super-packets of several segments (`tcp_tso_autosize()`).
    pub gso: bool,
}

/// How a flow's sender runs in the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelTcp {
    /// The variant the scenario asked for.
    pub requested: String,
    /// The kernel congestion control (`TCP_CONGESTION`).
    pub congestion: String,
    /// SACK negotiated (off only for `newreno`).
    pub sack: bool,
    /// Index in [`Plan::hosts`] of the sender.
    pub src_host: usize,
    /// Index in [`Plan::hosts`] of the receiver.
    pub dst_host: usize,
    /// `TCP_MAXSEG`: the scenario's MSS plus the option bytes of its `header_bytes` (the
    /// timestamps' 12 under the linux profile), because the kernel subtracts its options
    /// from `TCP_MAXSEG`: its segments then carry the scenario's `mss` of payload.
    pub mss: u32,
    /// Bytes to send; `None`: until the flow stops.
    pub bytes: Option<u64>,
    /// Receive window (`TCP_WINDOW_CLAMP`, bytes) when the scenario bounds it.
    pub window_bytes: Option<u64>,
    /// Initial window (the route's `initcwnd`) when the flow sets it explicitly.
    pub initial_window: Option<u32>,
    /// Minimum RTO (the route's `rto_min`) when the flow sets it explicitly.
    pub min_rto: Option<SimDuration>,
    /// Sender's port.
    pub src_port: u16,
    /// Receiver's (listening) port.
    pub dst_port: u16,
}

/// What a flow is in the emulation.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowRole {
    /// A real kernel TCP connection.
    Tcp(KernelTcp),
    /// Constant-bit-rate datagrams the emulator itself generates and absorbs.
    Cbr,
}

/// One flow of the emulation.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowPlan {
    /// Flow name.
    pub name: String,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// When the application starts.
    pub start: SimTime,
    /// When it stops offering data.
    pub stop: Option<SimTime>,
    /// TCP or CBR.
    pub role: FlowRole,
    /// The completion time of a finite TCP transfer alone on its path, as the simulator
    /// reckons it for the scenario's TCP (docs/workloads.md).
    pub ideal_fct: Option<SimDuration>,
}

/// Everything an emulation will create and run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The scenario as renolab's parser reads it (variants it does not know replaced by
    /// `reno`, see [`Plan::notes`]): links, queues and losses come from here.
    pub scenario: Scenario,
    /// Nodes that become namespaces.
    pub hosts: Vec<Host>,
    /// Flows in scenario order, then the workloads' flows in the order they arrive.
    pub flows: Vec<FlowPlan>,
    /// MTU of every TUN device.
    pub mtu: u32,
    /// When the run stops: the duration, else the time limit (or earlier, when every
    /// finite flow has finished).
    pub stop_at: SimTime,
    /// True when the run ends as soon as every finite flow has finished.
    pub stop_when_finished: bool,
    /// What the emulator changed or ignores, for the summary.
    pub notes: Vec<String>,
    /// Each workload's variant as the scenario asked for it.
    pub workload_variants: Vec<String>,
}

impl Plan {
    /// The scenario with every default explicit, as `renolab check` writes it, but each
    /// flow's variant as the scenario asked for it (the kernel's, not the placeholder the
    /// simulator's parser read).
    pub fn normalised(&self) -> Value {
        let mut doc = self.scenario.to_json();
        let fixed = self.scenario.flows.len();
        for (i, f) in self.flows.iter().enumerate().take(fixed) {
            if let FlowRole::Tcp(t) = &f.role {
                doc["flow"][i]["variant"] = Value::String(t.requested.clone());
            }
        }
        for (w, variant) in self.workload_variants.iter().enumerate() {
            if let Some(table) = doc.get_mut("workload").and_then(|t| t.get_mut(w)) {
                table["variant"] = Value::String(variant.clone());
            }
        }
        doc
    }
}

/// Whether the emulated hosts may keep their devices' offloads on (the kernel's default).
/// `RENOLAB_EMU_GSO=0` turns TSO, GSO and GRO off on every host whatever the flows ask
/// (older scripts' switch; a flow's `options.gso = false` does it for its two hosts).
fn offloads_on() -> bool {
    std::env::var("RENOLAB_EMU_GSO").map_or(true, |v| v != "0")
}

/// One flow to plan, a `[[flow]]`'s or a workload's.
struct Planned<'a> {
    /// Where its settings are in the document (`flow[i]`, `workload[w]`), for errors.
    path: String,
    name: String,
    src: u32,
    dst: u32,
    start: SimTime,
    stop: Option<SimTime>,
    traffic: Traffic,
    /// The variant as the scenario wrote it.
    requested: &'a str,
    /// Its table's `options`, as written.
    options: Option<&'a Value>,
}

/// What a flow asks of its hosts' offloads: `options.gso` (default on, as the kernel's
/// devices and the simulator's `linux` profile have it).
fn flow_gso(options: Option<&Value>) -> Result<bool, String> {
    match options.and_then(|o| o.get("gso")) {
        None => Ok(true),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("expected true or false, got {other}")),
    }
}

/// Builds the plan of the scenario `doc` (a parsed TOML or JSON document) for process `pid`.
pub fn plan(doc: &Value, pid: u32) -> Result<Plan, PlanError> {
    let mut notes = Vec::new();
    let (compatible, requested) = simulator_compatible(doc, &mut notes)?;
    let scenario = Scenario::from_value(&compatible).map_err(|e| PlanError(e.to_string()))?;
    check_names(doc, &scenario)?;
    if !scenario.media.is_empty() {
        return Err(err(
            "medium",
            "renolab emulate carries packets over links only; run a scenario with a [[medium]] in the simulator",
        ));
    }
    if scenario.flows.len() > MAX_FLOWS {
        return Err(err(
            "flow",
            format!(
                "{} flows; renolab emulate runs at most {MAX_FLOWS}",
                scenario.flows.len()
            ),
        ));
    }
    let stop_at = SimTime::ZERO + scenario.duration.unwrap_or(scenario.time_limit);
    let raw_flows = tables(doc, "flow");
    let raw_workloads = tables(doc, "workload");
    let mut planned: Vec<Planned> = (scenario.flows.iter().enumerate())
        .map(|(i, f)| Planned {
            path: format!("flow[{i}]"),
            name: f.name.clone(),
            src: f.src,
            dst: f.dst,
            start: SimTime::ZERO + start_time(scenario.seed, &f.name, f.start),
            stop: f.stop.map(|s| SimTime::ZERO + s),
            traffic: f.traffic.clone(),
            requested: &requested.flows[i],
            options: raw_flows.get(i).and_then(|t| t.get("options")),
        })
        .collect();
    for d in workload_flows(&scenario, stop_at)? {
        planned.push(Planned {
            path: format!("workload[{}]", d.workload),
            name: d.name,
            src: d.src,
            dst: d.dst,
            start: d.arrival,
            stop: None,
            traffic: Traffic::Tcp(d.tcp),
            requested: &requested.workloads[d.workload],
            options: (raw_workloads.get(d.workload)).and_then(|t| t.get("options")),
        });
    }
    // Hosts: every node a TCP flow starts or ends at, in node order.
    let mut is_host = vec![false; scenario.nodes.len()];
    for f in &planned {
        if let Traffic::Tcp(_) = f.traffic {
            is_host[f.src as usize] = true;
            is_host[f.dst as usize] = true;
        }
    }
    let mut hosts: Vec<Host> = is_host
        .iter()
        .enumerate()
        .filter(|(_, &h)| h)
        .map(|(node, _)| {
            let name = scenario.nodes[node].clone();
            Host {
                node: node as u32,
                netns: netns_name(pid, &name),
                device: device_name(&name),
                ip: node_ip(node as u32),
                sack: true,
                gso: offloads_on(),
                name,
            }
        })
        .collect();
    let host_index = |node: u32| hosts.iter().position(|h| h.node == node);
    let mut flows = Vec::with_capacity(planned.len());
    let mut sack_of_host: Vec<Option<(bool, String)>> = vec![None; hosts.len()];
    let mut gso_of_host: Vec<Option<(bool, String)>> = vec![None; hosts.len()];
    let mut mtu = MIN_MTU;
    let routes = scenario.routes();
    let mut paths = Paths::new(&scenario);
    for (i, f) in planned.into_iter().enumerate() {
        let path = f.path;
        let mut ideal_fct = None;
        let role = match &f.traffic {
            Traffic::Cbr(_) => FlowRole::Cbr,
            Traffic::Tcp(t) => {
                let (congestion, sack) =
                    kernel_variant(f.requested).map_err(|m| err(&format!("{path}.variant"), m))?;
                let src_host = host_index(f.src).expect("TCP endpoints are hosts");
                let dst_host = host_index(f.dst).expect("TCP endpoints are hosts");
                match &sack_of_host[src_host] {
                    Some((other, by)) if *other != sack => {
                        return Err(err(
                            &format!("{path}.variant"),
                            format!(
                                "{:?} needs SACK {} but flow {by:?} from the same host {:?} needs it {}; SACK is a setting of the sending host's namespace, so put these flows on different hosts",
                                f.requested,
                                if sack { "on" } else { "off" },
                                hosts[src_host].name,
                                if *other { "on" } else { "off" },
                            ),
                        ))
                    }
                    _ => sack_of_host[src_host] = Some((sack, f.name.clone())),
                }
                let options = f.options;
                // GSO is a setting of a device: both hosts of the flow take it.
                let gso = flow_gso(options).map_err(|m| err(&format!("{path}.options.gso"), m))?;
                for host in [src_host, dst_host] {
                    match &gso_of_host[host] {
                        Some((other, by)) if *other != gso => {
                            return Err(err(
                                &format!("{path}.options.gso"),
                                format!(
                                    "is {gso} but flow {by:?} through the same host {:?} has {other}; GSO is a setting of the host's device, so put these flows on different hosts",
                                    hosts[host].name,
                                ),
                            ))
                        }
                        _ => gso_of_host[host] = Some((gso, f.name.clone())),
                    }
                }
                let initial_window = options
                    .and_then(|o| o.get("initial_window"))
                    .map(|_| t.sender.initial_window);
                let min_rto = (f.options)
                    .and_then(|o| o.get("min_rto"))
                    .map(|_| t.sender.rto.min);
                let window = t.sender.receiver_window;
                let window_bytes = (window != u32::MAX).then(|| window as u64 * t.mss as u64);
                mtu = mtu.max(t.mss + t.sender.header_bytes);
                // The simulator's ideal for the scenario's TCP (its profile's initial window
                // and headers): the kernel's flows are measured against the same yardstick.
                ideal_fct = paths.ideal_fct(&routes, f.src, f.dst, t);
                FlowRole::Tcp(KernelTcp {
                    requested: f.requested.to_string(),
                    congestion,
                    sack,
                    src_host,
                    dst_host,
                    mss: t.mss + t.sender.header_bytes.saturating_sub(TCP_IP_HEADER_BYTES),
                    bytes: t.bytes,
                    window_bytes,
                    initial_window,
                    min_rto,
                    src_port: SENDER_PORT_BASE + i as u16,
                    dst_port: RECEIVER_PORT_BASE + i as u16,
                })
            }
        };
        flows.push(FlowPlan {
            name: f.name,
            src: f.src,
            dst: f.dst,
            start: f.start,
            stop: f.stop,
            role,
            ideal_fct,
        });
    }
    check_routes(&flows, &hosts)?;
    for (h, (sack, gso)) in hosts.iter_mut().zip(sack_of_host.iter().zip(&gso_of_host)) {
        if let Some((s, _)) = sack {
            h.sack = *s;
        }
        if let Some((g, _)) = gso {
            h.gso &= *g;
        }
    }
    if mtu > 65_535 {
        return Err(err(
            "flow",
            format!("mss + header_bytes of {mtu} bytes exceeds the largest IPv4 datagram (65535)"),
        ));
    }
    Ok(Plan {
        stop_when_finished: scenario.duration.is_none(),
        scenario,
        hosts,
        flows,
        mtu,
        stop_at,
        notes,
        workload_variants: requested.workloads.clone(),
    })
}

/// The flows the scenario's workloads start before `end`, as the simulator draws them
/// (its own generators, [`drawn_flows`]), each checked to fit: names that can name
/// namespaces, and no more than [`MAX_FLOWS`] flows in all, each a real connection.
fn workload_flows(scenario: &Scenario, end: SimTime) -> Result<Vec<DrawnFlow>, PlanError> {
    if scenario.workloads.is_empty() {
        return Ok(Vec::new());
    }
    let room = MAX_FLOWS - scenario.flows.len();
    let drawn = drawn_flows(scenario, end, room + 1);
    if drawn.len() > room {
        // Name the workload that takes the most of them.
        let mut counts = vec![0usize; scenario.workloads.len()];
        for d in &drawn {
            counts[d.workload] += 1;
        }
        let (w, _) = (counts.iter().enumerate())
            .max_by_key(|&(w, &n)| (n, std::cmp::Reverse(w)))
            .expect("a workload");
        let name = &scenario.workloads[w].name;
        return Err(err(
            &format!("workload[{w}].max_flows"),
            format!(
                "the workloads start more than {room} flows before the run ends ({name:?} {} of the first {}); renolab emulate runs at most {MAX_FLOWS} flows in all, [[flow]] tables included, each a real kernel connection: set max_flows, an earlier stop, or a lower load or rate",
                counts[w],
                drawn.len()
            ),
        ));
    }
    for d in &drawn {
        safe_name(&d.name).map_err(|m| err(&format!("workload[{}].name", d.workload), m))?;
    }
    Ok(drawn)
}

/// Per-route settings (initial window, minimum RTO) are set once for a (sender, receiver)
/// pair of hosts: flows sharing one must agree.
fn check_routes(flows: &[FlowPlan], hosts: &[Host]) -> Result<(), PlanError> {
    for (i, a) in flows.iter().enumerate() {
        let FlowRole::Tcp(ta) = &a.role else { continue };
        for b in &flows[..i] {
            let FlowRole::Tcp(tb) = &b.role else { continue };
            if (ta.src_host, ta.dst_host) == (tb.src_host, tb.dst_host)
                && (ta.initial_window, ta.min_rto) != (tb.initial_window, tb.min_rto)
            {
                return Err(err(
                    &format!("flow[{i}].options"),
                    format!(
                        "initial_window and min_rto become settings of the route from {:?} to {:?}, which flow {:?} sets differently; give both flows the same values or different hosts",
                        hosts[ta.src_host].name, hosts[ta.dst_host].name, b.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A flow's start time, drawn as the simulator draws it when random (the flow's own stream).
fn start_time(seed: u64, name: &str, start: Start) -> SimDuration {
    match start {
        Start::At(t) => t,
        Start::Uniform { lo, hi } => {
            // Same stream and formula as the simulator's flow builder (sim/build.rs).
            let mut rng = RngStream::derive(seed, &format!("flow/{name}"));
            let span = (hi.0 - lo.0) as u128 + 1;
            SimDuration(lo.0 + ((span * rng.next_u64() as u128) >> 64) as u64)
        }
    }
}

/// The kernel congestion control and SACK setting for variant `name`. Linux has no Reno
/// without NewReno's partial-ACK rule: `newreno` is the kernel's `reno` without SACK and
/// `sack` is `reno` with SACK; any other name is passed to the kernel as it is (checked
/// against the kernel's list when the emulation starts).
pub fn kernel_variant(name: &str) -> Result<(String, bool), String> {
    match name {
        "newreno" => Ok(("reno".to_string(), false)),
        "sack" => Ok(("reno".to_string(), true)),
        "tahoe" => Err(
            "\"tahoe\" has no Linux implementation; use reno, newreno (reno without SACK), sack (reno with SACK) or a congestion control the kernel offers".to_string(),
        ),
        _ if name.is_empty()
            || name.len() > CA_NAME_MAX
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') =>
        {
            let shown: String = name.chars().take(40).collect();
            Err(format!(
                "{shown:?} is not a congestion-control name (1-{CA_NAME_MAX} lower-case letters, digits or '_')"
            ))
        }
        _ => Ok((name.to_string(), true)),
    }
}

/// Each TCP table's variant as the scenario wrote it.
struct Requested {
    /// Per `[[flow]]` (constant-bit-rate ones included).
    flows: Vec<String>,
    /// Per `[[workload]]`.
    workloads: Vec<String>,
}

/// The document with what renolab's parser does not know (yet) replaced: variants of flows
/// and workloads not registered (`registry::names()`) by `reno`, profiles outside
/// [`PROFILES`] by `rfc`. Returns it and each table's variant as written. The emulator only
/// needs the parser for links, flows' endpoints and timing; the kernel runs the real
/// variant.
fn simulator_compatible(
    doc: &Value,
    notes: &mut Vec<String>,
) -> Result<(Value, Requested), PlanError> {
    let mut doc = doc.clone();
    let replace_profile = |t: &mut Value, path: &str, notes: &mut Vec<String>| {
        if let Some(Value::String(p)) = t.get("profile") {
            if !PROFILES.contains(&p.as_str()) && safe_name(p).is_ok() {
                notes.push(format!(
                    "{path}.profile {p:?} is not known to this renolab's simulator; its links and flows were read with profile \"rfc\" (the kernel's own defaults apply in the emulation)"
                ));
                t["profile"] = Value::String("rfc".into());
            }
        }
    };
    if let Some(sim) = doc.get_mut("simulation") {
        replace_profile(sim, "simulation", notes);
    }
    let mut requested = Requested {
        flows: Vec::new(),
        workloads: Vec::new(),
    };
    for (key, out) in [
        ("flow", &mut requested.flows),
        ("workload", &mut requested.workloads),
    ] {
        let Some(tables) = doc.get_mut(key) else {
            continue;
        };
        let list: Vec<&mut Value> = match tables {
            Value::Array(a) => a.iter_mut().collect(),
            table @ Value::Object(_) => vec![table],
            _ => Vec::new(),
        };
        for (i, f) in list.into_iter().enumerate() {
            let path = format!("{key}[{i}]");
            replace_profile(f, &path, notes);
            let kind = f.get("kind").and_then(Value::as_str).unwrap_or("tcp");
            let variant = match f.get("variant") {
                None => "reno".to_string(),
                Some(Value::String(v)) => v.clone(),
                Some(other) => {
                    return Err(err(
                        &format!("{path}.variant"),
                        format!("expected a string, found {other}"),
                    ))
                }
            };
            if kind == "tcp" && registry::declaration(&variant).is_none() {
                kernel_variant(&variant).map_err(|m| err(&format!("{path}.variant"), m))?;
                f["variant"] = Value::String("reno".into());
            }
            out.push(variant);
        }
    }
    Ok((doc, requested))
}

fn tables<'a>(doc: &'a Value, key: &str) -> Vec<&'a Value> {
    match doc.get(key) {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(t @ Value::Object(_)) => vec![t],
        _ => Vec::new(),
    }
}

/// Refuses node and flow names that could not safely name a namespace or device, naming
/// the field where the document has it.
fn check_names(doc: &Value, scenario: &Scenario) -> Result<(), PlanError> {
    let links = tables(doc, "link");
    for node in &scenario.nodes {
        if let Err(m) = safe_name(node) {
            let path = links
                .iter()
                .enumerate()
                .find_map(|(i, l)| {
                    ["from", "to"].into_iter().find_map(|k| {
                        (l.get(k).and_then(Value::as_str) == Some(node.as_str()))
                            .then(|| format!("link[{i}].{k}"))
                    })
                })
                .unwrap_or_else(|| "link".to_string());
            return Err(err(&path, m));
        }
    }
    for (i, f) in scenario.flows.iter().enumerate() {
        safe_name(&f.name).map_err(|m| err(&format!("flow[{i}].name"), m))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
