//! Topology helpers: `[[topology]]` tables that expand into ordinary `[[link]]` tables before
//! anything else is parsed, so the general graph stays the one mechanism.
//!
//! ```toml
//! [[topology]]
//! kind = "dumbbell"          # s1..sN - r1 = r2 - d1..dN
//! n = 3
//! access = { rate = "100Mbps", delay = "1ms" }
//! bottleneck = { rate = "1.6Mbps", delay = "20ms", queue = { kind = "red" } }
//!
//! [[topology]]
//! kind = "chain"             # N1 - N2 - ... - N6
//! nodes = 6
//! link = { rate = "10Mbps", delay = "10ms" }
//! ```

use serde_json::{json, Map, Value};

use super::reader::Table;
use super::{Result, ScenarioError};

/// Topology kinds.
pub const TOPOLOGY_KINDS: &[&str] = &["dumbbell", "chain"];

/// The `[[link]]` tables the `[[topology]]` tables of `root` stand for, each with the path
/// of the topology's table it came from (`topology[0].bottleneck`), which errors name.
pub fn expand(root: &Table<'_>) -> Result<(Vec<Value>, Vec<String>)> {
    let mut links = Vec::new();
    let mut origins = Vec::new();
    for t in root.tables("topology")? {
        let kind = t.choice("kind", TOPOLOGY_KINDS)?.ok_or_else(|| {
            ScenarioError::new(
                t.field("kind"),
                format!("is required; allowed: {}", TOPOLOGY_KINDS.join(", ")),
            )
        })?;
        match kind {
            "dumbbell" => dumbbell(&t, &mut links, &mut origins)?,
            _ => chain(&t, &mut links, &mut origins)?,
        }
    }
    Ok((links, origins))
}

/// `error` about the document with the generated links first and the scenario's own
/// `[[link]]` tables after them, as the scenario's author wrote it: a generated link's path
/// becomes the topology field it came from, `link[i]` of the author's own links `link[i - n]`.
pub fn locate(mut error: ScenarioError, origins: &[String]) -> ScenarioError {
    let Some(rest) = error.path.strip_prefix("link[") else {
        return error;
    };
    let Some((index, tail)) = rest.split_once(']') else {
        return error;
    };
    let Ok(index) = index.parse::<usize>() else {
        return error;
    };
    error.path = match origins.get(index) {
        Some(origin) => format!("{origin}{tail}"),
        None => format!("link[{}]{tail}", index - origins.len()),
    };
    error
}

/// A link table joining `from` and `to` with the direction settings of `settings`.
fn link(name: String, from: &str, to: &str, settings: &Map<String, Value>) -> Value {
    let mut v = json!({"name": name, "from": from, "to": to});
    if let Value::Object(m) = &mut v {
        for (k, val) in settings {
            if k != "name" {
                m.insert(k.clone(), val.clone());
            }
        }
    }
    v
}

fn settings<'a>(t: &Table<'a>, key: &str) -> Result<&'a Map<String, Value>> {
    match t.get(key) {
        Some(Value::Object(m)) => Ok(m),
        _ => Err(ScenarioError::new(
            t.field(key),
            "is required: a table of link settings (rate, delay, queue, ...)",
        )),
    }
}

fn dumbbell(t: &Table<'_>, links: &mut Vec<Value>, origins: &mut Vec<String>) -> Result<()> {
    t.only(&[
        "kind",
        "n",
        "access",
        "bottleneck",
        "left",
        "right",
        "sender_prefix",
        "receiver_prefix",
    ])?;
    // 2n + 2 nodes must stay within the node cap.
    let n = t
        .int("n", 1, (super::MAX_NODES as u64 - 2) / 2)?
        .ok_or_else(|| {
            ScenarioError::new(
                t.field("n"),
                "is required: the number of sender/receiver pairs",
            )
        })?;
    let access = settings(t, "access")?;
    let bottleneck = settings(t, "bottleneck")?;
    let left = t.str("left")?.unwrap_or("r1");
    let right = t.str("right")?.unwrap_or("r2");
    let sp = t.str("sender_prefix")?.unwrap_or("s");
    let rp = t.str("receiver_prefix")?.unwrap_or("d");
    let name = bottleneck
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("bottleneck");
    for i in 1..=n {
        links.push(link(
            format!("{sp}{i}-{left}"),
            &format!("{sp}{i}"),
            left,
            access,
        ));
        origins.push(t.field("access"));
    }
    links.push(link(name.to_string(), left, right, bottleneck));
    origins.push(t.field("bottleneck"));
    for i in 1..=n {
        links.push(link(
            format!("{right}-{rp}{i}"),
            right,
            &format!("{rp}{i}"),
            access,
        ));
        origins.push(t.field("access"));
    }
    Ok(())
}

fn chain(t: &Table<'_>, links: &mut Vec<Value>, origins: &mut Vec<String>) -> Result<()> {
    t.only(&["kind", "nodes", "link", "prefix"])?;
    let n = t
        .int("nodes", 2, super::MAX_NODES as u64)?
        .ok_or_else(|| ScenarioError::new(t.field("nodes"), "is required: the number of nodes"))?;
    let settings = settings(t, "link")?;
    let p = t.str("prefix")?.unwrap_or("N");
    for i in 1..n {
        links.push(link(
            format!("{p}{i}-{p}{}", i + 1),
            &format!("{p}{i}"),
            &format!("{p}{}", i + 1),
            settings,
        ));
        origins.push(t.field("link"));
    }
    Ok(())
}
