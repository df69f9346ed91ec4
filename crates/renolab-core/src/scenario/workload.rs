//! `[[workload]]` tables: flows that arrive as the run goes (Poisson arrivals at a load or a
//! rate), their sizes drawn from a distribution, their endpoints from a list of pairs, each
//! a TCP flow with the workload's variant, profile and options (docs/workloads.md).
//!
//! A size CDF file is data from a stranger, read as a trace is: a regular file of at most
//! [`MAX_CDF_BYTES`], one line naming the field, the file and the line at fault.

use std::sync::Arc;

use serde_json::{json, Value};

use super::flow::{parse_tcp, tcp_json};
use super::profile::Profile;
use super::reader::Table;
use super::varying::read_data_file;
use super::{fmt_duration, Names, Result, Scenario, ScenarioError, TcpSpec};
use crate::app::workload::BUILTIN_SIZES;
use crate::app::{FlowSizes, PoissonArrivals, SizeCdf};
use crate::net::{is_forward, link_of, Routes};
use crate::rng::RngStream;
use crate::time::SimDuration;

/// How a workload's flows arrive.
pub const ARRIVALS: &[&str] = &["poisson"];
/// Most `[[workload]]` tables.
pub const MAX_WORKLOADS: usize = 256;
/// Largest flow-size CDF file read: 1 MiB.
pub const MAX_CDF_BYTES: u64 = 1 << 20;
/// Largest `load`: a workload may overload its link (to study overload), up to this.
const MAX_LOAD: f64 = 100.0;

/// Where a workload's flow sizes come from, as the scenario names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizesSource {
    /// A built-in CDF ([`BUILTIN_SIZES`]).
    Builtin(&'static str),
    /// A CDF file (as the scenario names it; Python makes it absolute).
    File(String),
    /// `{ fixed = ... }`.
    Fixed,
    /// `{ pareto = { mean, shape } }`.
    Pareto,
}

/// How a workload's flows pick their endpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pairs {
    /// One of these (source, destination) pairs, uniformly.
    List(Vec<(u32, u32)>),
    /// A source uniformly from `from`, a destination uniformly from `to` (drawn again while
    /// it is the source).
    Between {
        /// Source nodes.
        from: Vec<u32>,
        /// Destination nodes.
        to: Vec<u32>,
    },
}

impl Pairs {
    /// The first pair a scenario names (whose route decides the default `link`).
    pub fn first(&self) -> (u32, u32) {
        match self {
            Pairs::List(list) => list[0],
            // The first source with a destination other than itself (parsing made sure
            // there is one).
            Pairs::Between { from, to } => (from.iter())
                .find_map(|&s| to.iter().find(|&&d| d != s).map(|&d| (s, d)))
                .unwrap_or((from[0], to[0])),
        }
    }

    /// A pair, drawn from `rng`.
    pub fn draw(&self, rng: &mut RngStream) -> (u32, u32) {
        let pick =
            |rng: &mut RngStream, n: usize| ((n as u128 * rng.next_u64() as u128) >> 64) as usize;
        match self {
            Pairs::List(list) => list[pick(rng, list.len())],
            Pairs::Between { from, to } => loop {
                let src = from[pick(rng, from.len())];
                let dst = to[pick(rng, to.len())];
                if src != dst {
                    return (src, dst);
                }
            },
        }
    }

    /// Every pair that may be drawn, as far as routes matter: the list, or each source with
    /// each destination but itself.
    fn each(&self) -> Vec<(u32, u32)> {
        match self {
            Pairs::List(list) => list.clone(),
            Pairs::Between { from, to } => from
                .iter()
                .flat_map(|&s| to.iter().filter(move |&&d| d != s).map(move |&d| (s, d)))
                .collect(),
        }
    }
}

/// What set a workload's arrival rate.
#[derive(Clone, Debug, PartialEq)]
pub enum Offered {
    /// `load`: this fraction of link direction `dir`'s capacity.
    Load {
        /// The fraction.
        load: f64,
        /// The link direction (2k forward, 2k + 1 reverse).
        dir: u32,
    },
    /// `rate`: flows per second, as given.
    Rate,
}

/// A `[[workload]]`: flows created as the run goes.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    /// Name; its flows are `<name>-<n>`, n = 0, 1, ...
    pub name: String,
    /// When flows arrive.
    pub arrivals: PoissonArrivals,
    /// What set the rate.
    pub offered: Offered,
    /// How big they are.
    pub sizes: FlowSizes,
    /// Where the sizes come from, as the scenario names it.
    pub sizes_source: SizesSource,
    /// Their endpoints.
    pub pairs: Pairs,
    /// Their TCP settings (`bytes` unset: each flow draws its size).
    pub tcp: TcpSpec,
    /// No flow arrives before this.
    pub start: SimDuration,
    /// No flow arrives after this (`None`: until the end of the run).
    pub stop: Option<SimDuration>,
    /// No more flows than this.
    pub max_flows: Option<u64>,
}

impl WorkloadSpec {
    /// Flows the workload creates if it runs until `end`: `max_flows`, or its expected
    /// number of arrivals between `start` and `stop` (or `end`).
    pub fn expected_flows(&self, end: SimDuration) -> f64 {
        let until = self.stop.unwrap_or(end).min(end);
        let span = until.as_secs_f64() - self.start.as_secs_f64();
        let expected = span.max(0.0) * self.arrivals.per_second;
        match self.max_flows {
            Some(n) => expected.min(n as f64),
            None => expected,
        }
    }

    /// True when the workload stops creating flows by itself (`stop` or `max_flows`).
    pub fn ends(&self) -> bool {
        self.stop.is_some() || self.max_flows.is_some()
    }
}

/// Parses workload `t` of `scenario` (its links, nodes and flows parsed); `routes` are its
/// routes, `default_profile` the scenario's profile.
pub(super) fn parse_workload(
    t: &Table<'_>,
    scenario: &Scenario,
    routes: &Routes,
    default_profile: Profile,
) -> Result<WorkloadSpec> {
    t.only(&[
        "name",
        "arrivals",
        "load",
        "rate",
        "link",
        "sizes",
        "pairs",
        "variant",
        "recovery",
        "profile",
        "mss",
        "header_bytes",
        "receiver",
        "options",
        "start",
        "stop",
        "max_flows",
    ])?;
    let name = t.req_str("name")?.to_string();
    t.choice("arrivals", ARRIVALS)?;
    if let Some(v) = t.str("variant")? {
        if v.starts_with(super::PYTHON_VARIANT_PREFIX) {
            return Err(ScenarioError::new(
                t.field("variant"),
                "a workload's flows run built-in controllers only; a Python controller needs [[flow]] tables",
            ));
        }
    }
    let tcp = parse_tcp(t, default_profile)?;
    let (sizes, sizes_source) = parse_sizes(t)?;
    let pairs = parse_pairs(t, &scenario.nodes)?;
    for (src, dst) in pairs.each() {
        if routes.next_hop(src, dst).is_none() {
            return Err(ScenarioError::new(
                t.field("pairs"),
                format!(
                    "no route from {:?} to {:?}: the links do not connect them",
                    scenario.nodes[src as usize], scenario.nodes[dst as usize]
                ),
            ));
        }
    }
    let start = SimDuration(t.duration_ns("start")?.unwrap_or(0));
    let stop = t.duration_ns("stop")?.map(SimDuration);
    if matches!(stop, Some(s) if s <= start) {
        return Err(ScenarioError::new(
            t.field("stop"),
            "must be later than `start`",
        ));
    }
    let max_flows = t.int("max_flows", 1, u32::MAX as u64)?;
    let mean = sizes.mean();
    let (per_second, offered) = match (t.float("load", 0.0, MAX_LOAD)?, t.float("rate", 0.0, 1e12)?) {
        (Some(_), Some(_)) => {
            return Err(ScenarioError::new(
                t.field("rate"),
                "give `load` (a fraction of the link's capacity) or `rate` (flows per second), not both",
            ))
        }
        (None, None) => {
            return Err(ScenarioError::new(
                t.field("load"),
                "is required (a fraction of the link's capacity, e.g. 0.5), or give `rate` (flows per second)",
            ))
        }
        (None, Some(rate)) => (rate, Offered::Rate),
        (Some(load), None) => {
            let dir = load_dir(t, scenario, routes, pairs.first())?;
            let capacity = scenario.dir_spec(dir).rate.nominal().0 as f64;
            (load * capacity / (8.0 * mean), Offered::Load { load, dir })
        }
    };
    if per_second <= 0.0 {
        let field = if offered == Offered::Rate {
            "rate"
        } else {
            "load"
        };
        return Err(ScenarioError::new(t.field(field), "must be above 0"));
    }
    Ok(WorkloadSpec {
        name,
        arrivals: PoissonArrivals { per_second },
        offered,
        sizes,
        sizes_source,
        pairs,
        tcp,
        start,
        stop,
        max_flows,
    })
}

/// The link direction whose capacity `load` is a fraction of: `link` named (the direction
/// the first pair's route takes, else its forward one), else the slowest direction on the
/// first pair's route.
fn load_dir(t: &Table<'_>, scenario: &Scenario, routes: &Routes, first: (u32, u32)) -> Result<u32> {
    let path = scenario.link_path(routes, first.0, first.1);
    if let Some(name) = t.str("link")? {
        let Some(k) = scenario.links.iter().position(|l| l.name == name) else {
            let names: Vec<&str> = scenario.links.iter().map(|l| l.name.as_str()).collect();
            return Err(ScenarioError::new(
                t.field("link"),
                format!("unknown link {name:?}; links: {}", names.join(", ")),
            ));
        };
        let taken = (path.iter().flatten()).find(|&&d| link_of(d) as usize == k);
        return Ok(taken.copied().unwrap_or(2 * k as u32));
    }
    let Some(path) = path else {
        return Err(ScenarioError::new(
            t.field("load"),
            "the first pair's route crosses a shared medium: name the link whose capacity `load` is a fraction of (`link`), or give `rate`",
        ));
    };
    Ok(*path
        .iter()
        .min_by_key(|&&d| scenario.dir_spec(d).rate.nominal())
        .expect("a route between two nodes has a hop"))
}

/// `sizes = "websearch" | "datamining" | { cdf = FILE } | { fixed = SIZE } | { pareto = {
/// mean = SIZE, shape = X } }`.
fn parse_sizes(t: &Table<'_>) -> Result<(FlowSizes, SizesSource)> {
    let expected = "expected \"websearch\", \"datamining\", { cdf = \"FILE.csv\" }, { fixed = \"100KB\" } or { pareto = { mean = \"100KB\", shape = 1.5 } }";
    match t.get("sizes") {
        None => Err(ScenarioError::new(
            t.field("sizes"),
            format!("is required; {expected}"),
        )),
        Some(Value::String(_)) => {
            let given = t.choice("sizes", BUILTIN_SIZES)?.expect("present");
            let name = *BUILTIN_SIZES
                .iter()
                .find(|n| **n == given)
                .expect("a built-in name");
            let cdf = SizeCdf::builtin(name).expect("a built-in name");
            Ok((FlowSizes::Cdf(Arc::new(cdf)), SizesSource::Builtin(name)))
        }
        Some(Value::Object(o)) if o.len() == 1 => {
            let s = t.table("sizes")?.expect("present");
            s.only(&["cdf", "fixed", "pareto"])?;
            if let Some(path) = s.str("cdf")? {
                let cdf = read_cdf_file(path).map_err(|m| ScenarioError::new(s.field("cdf"), m))?;
                return Ok((
                    FlowSizes::Cdf(Arc::new(cdf)),
                    SizesSource::File(path.into()),
                ));
            }
            if let Some(bytes) = s.bytes("fixed", 1, 1 << 50)? {
                return Ok((FlowSizes::Fixed(bytes), SizesSource::Fixed));
            }
            let p = s.table("pareto")?.expect("the one key left");
            p.only(&["mean", "shape"])?;
            let mean = p.bytes("mean", 1, 1 << 50)?.ok_or_else(|| {
                ScenarioError::new(p.field("mean"), "is required, e.g. \"100KB\"")
            })?;
            let shape = p.float("shape", 1.0, 100.0)?.ok_or_else(|| {
                ScenarioError::new(p.field("shape"), "is required, e.g. 1.5 (above 1)")
            })?;
            if shape <= 1.0 {
                return Err(ScenarioError::new(
                    p.field("shape"),
                    "must be above 1 (a Pareto of shape 1 or less has no mean)",
                ));
            }
            Ok((
                FlowSizes::Pareto {
                    mean: mean as f64,
                    shape,
                },
                SizesSource::Pareto,
            ))
        }
        Some(_) => Err(ScenarioError::new(t.field("sizes"), expected)),
    }
}

/// Reads a flow-size CDF file: lines `size_bytes,cumulative_probability` (commas or white
/// space between them; a first line that is not numbers is a header; `#` starts a comment).
/// The error is one line naming the file, and the line at fault.
pub fn read_cdf_file(path: &str) -> std::result::Result<SizeCdf, String> {
    let text = read_data_file(
        path,
        MAX_CDF_BYTES,
        "a size CDF is a text file of lines `size_bytes,cumulative_probability`",
    )?;
    let text = String::from_utf8(text).map_err(|_| format!("{path}: is not UTF-8 text"))?;
    // The points, and the line each came from (for the errors).
    let mut points = Vec::new();
    let mut lines = Vec::new();
    let mut first = true;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let numbers: Option<Vec<f64>> = (line.split(|c: char| c == ',' || c.is_whitespace()))
            .filter(|f| !f.is_empty())
            .map(|f| f.parse::<f64>().ok())
            .collect();
        match numbers {
            Some(n) if n.len() == 2 => {
                points.push((n[0], n[1]));
                lines.push(i + 1);
            }
            None if first => {} // a header
            _ => {
                return Err(format!(
                    "{path}: line {}: expected `size_bytes,cumulative_probability`",
                    i + 1
                ))
            }
        }
        first = false;
    }
    SizeCdf::new(points).map_err(|(at, m)| match lines.get(at) {
        Some(line) => format!("{path}: line {line}: {m}"),
        None => format!("{path}: {m}"),
    })
}

/// `pairs = [["a", "b"], ...]` or `pairs = { from = [...], to = [...] }`.
fn parse_pairs(t: &Table<'_>, nodes: &[String]) -> Result<Pairs> {
    let expected = "expected a list of [src, dst] pairs, e.g. [[\"h1\", \"h2\"]], or { from = [\"h1\", ...], to = [\"h2\", ...] }";
    let node = |field: String, v: &Value| -> Result<u32> {
        let name = v
            .as_str()
            .ok_or_else(|| ScenarioError::new(&field, "expected a node name"))?;
        (nodes.iter().position(|n| n == name).map(|i| i as u32)).ok_or_else(|| {
            ScenarioError::new(
                &field,
                format!("unknown node {name:?}; nodes: {}", nodes.join(", ")),
            )
        })
    };
    let field = t.field("pairs");
    match t.get("pairs") {
        Some(Value::Array(list)) if !list.is_empty() => {
            let mut pairs = Vec::with_capacity(list.len());
            for (i, pair) in list.iter().enumerate() {
                let at = format!("{field}[{i}]");
                let Some([src, dst]) = pair.as_array().map(Vec::as_slice) else {
                    return Err(ScenarioError::new(&at, expected));
                };
                let (src, dst) = (
                    node(format!("{at}[0]"), src)?,
                    node(format!("{at}[1]"), dst)?,
                );
                if src == dst {
                    return Err(ScenarioError::new(&at, "the two ends must differ"));
                }
                pairs.push((src, dst));
            }
            Ok(Pairs::List(pairs))
        }
        Some(Value::Object(_)) => {
            let p = t.table("pairs")?.expect("present");
            p.only(&["from", "to"])?;
            let list = |key: &str| -> Result<Vec<u32>> {
                let values = p
                    .get(key)
                    .and_then(Value::as_array)
                    .filter(|a| !a.is_empty());
                let values = values.ok_or_else(|| {
                    ScenarioError::new(p.field(key), "expected a non-empty list of node names")
                })?;
                (values.iter().enumerate())
                    .map(|(i, v)| node(format!("{}[{i}]", p.field(key)), v))
                    .collect()
            };
            let (from, to) = (list("from")?, list("to")?);
            if from.iter().all(|s| to.iter().all(|d| d == s)) {
                return Err(ScenarioError::new(
                    &field,
                    "every source is its only destination: no pair has two different ends",
                ));
            }
            Ok(Pairs::Between { from, to })
        }
        _ => Err(ScenarioError::new(&field, expected)),
    }
}

/// The resolved workload as JSON, every default explicit.
pub(super) fn workload_json(w: &WorkloadSpec, scenario: &Scenario) -> Value {
    let nodes = &scenario.nodes;
    let sizes = match (&w.sizes_source, &w.sizes) {
        (SizesSource::Builtin(name), _) => json!(name),
        (SizesSource::File(path), _) => json!({ "cdf": path }),
        (_, FlowSizes::Fixed(bytes)) => json!({ "fixed": bytes }),
        (_, FlowSizes::Pareto { mean, shape }) => {
            json!({ "pareto": { "mean": mean, "shape": shape } })
        }
        (_, FlowSizes::Cdf(_)) => unreachable!("a CDF is built-in or a file's"),
    };
    let pairs = match &w.pairs {
        Pairs::List(list) => json!(list
            .iter()
            .map(|&(s, d)| [&nodes[s as usize], &nodes[d as usize]])
            .collect::<Vec<_>>()),
        Pairs::Between { from, to } => {
            let names = |v: &[u32]| {
                v.iter()
                    .map(|&n| nodes[n as usize].clone())
                    .collect::<Vec<_>>()
            };
            json!({ "from": names(from), "to": names(to) })
        }
    };
    let mut v = json!({
        "name": w.name,
        "arrivals": "poisson",
        "rate": w.arrivals.per_second,
        "sizes": sizes,
        "mean_size_bytes": w.sizes.mean(),
        "pairs": pairs,
        "start": fmt_duration(w.start),
    });
    if let Offered::Load { load, dir } = w.offered {
        v["load"] = json!(load);
        v["link"] = json!(scenario.links[link_of(dir) as usize].name);
        if !is_forward(dir) {
            v["link_direction"] = json!("reverse");
        }
    }
    if let Some(stop) = w.stop {
        v["stop"] = json!(fmt_duration(stop));
    }
    if let Some(n) = w.max_flows {
        v["max_flows"] = json!(n);
    }
    if let (Value::Object(a), Value::Object(b)) = (&mut v, tcp_json(&w.tcp)) {
        a.extend(b.into_iter().filter(|(k, _)| k != "kind"));
    }
    v
}

/// Checks the workloads' names: unique, and no flow of theirs (`<name>-<n>`) named as a
/// `[[flow]]` is.
pub(super) fn check_names(tables: &[Table<'_>], flows: &Names) -> Result<()> {
    let mut names = Names::default();
    for t in tables {
        let name = t.req_str("name")?;
        super::check_name(name).map_err(|m| ScenarioError::new(t.field("name"), m))?;
        if !names.insert(name) {
            return Err(ScenarioError::new(
                t.field("name"),
                format!("duplicate workload name {name:?}"),
            ));
        }
        let prefix = format!("{name}-");
        let taken = flows.iter().find(|f| {
            f.strip_prefix(&prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        if let Some(flow) = taken {
            return Err(ScenarioError::new(
                t.field("name"),
                format!("its flows are named {name}-0, {name}-1, ...: a [[flow]] is named {flow:?} already"),
            ));
        }
    }
    Ok(())
}

impl Scenario {
    /// The link directions from `from` to `to`, in order; `None` when the route crosses a
    /// shared medium (or there is none).
    pub fn link_path(&self, routes: &Routes, from: u32, to: u32) -> Option<Vec<u32>> {
        routes.link_path(from, to, |d| self.far_end(d))
    }

    /// The node link direction `dir` leads to.
    pub fn far_end(&self, dir: u32) -> u32 {
        let link = &self.links[link_of(dir) as usize];
        if is_forward(dir) {
            link.to
        } else {
            link.from
        }
    }

    /// The spec of link direction `dir`.
    pub fn dir_spec(&self, dir: u32) -> &super::DirSpec {
        let link = &self.links[link_of(dir) as usize];
        if is_forward(dir) {
            &link.forward
        } else {
            &link.reverse
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("renolab-cdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn a_cdf_file_reads_with_a_header_and_comments() {
        let path = file(
            "ok.csv",
            "size_bytes,cdf\n# small ones\n100,0.5\n1000 1.0\n",
        );
        let cdf = read_cdf_file(&path).unwrap();
        assert_eq!(cdf.points(), &[(100.0, 0.5), (1000.0, 1.0)]);
    }

    #[test]
    fn a_bad_cdf_file_names_its_line() {
        let path = file("bad.csv", "size,p\n100,0.5\n50,1.0\n");
        let err = read_cdf_file(&path).unwrap_err();
        assert!(err.starts_with(&format!("{path}: line 3: ")), "{err}");
        let path = file("words.csv", "100,0.5\nmany,1.0\n");
        let err = read_cdf_file(&path).unwrap_err();
        assert!(err.contains("line 2: expected"), "{err}");
        let err = read_cdf_file("/nonexistent/x.csv").unwrap_err();
        assert!(err.ends_with("cannot be read: no such file"), "{err}");
    }
}
