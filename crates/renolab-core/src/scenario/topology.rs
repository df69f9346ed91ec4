//! Topology helpers: `[[topology]]` tables that expand into ordinary `[[link]]` tables before
//! anything else is parsed, so the general graph stays the one mechanism.
//!
//! ```toml
//! [[topology]]
//! kind = "dumbbell"          # s1..sN - r1 = r2 - d1..dN
//! n = 3
//! access = { rate = "100Mbps", delay = "1ms" }
//! bottleneck = { rate = "1.6Mbps", delay = "20ms", queue = { kind = "red" } }
//! # optional: each side's own settings (added to `access`, which applies to both), the
//! # pairs' base RTTs, queue limits in bandwidth-delay products
//! receiver_access = { loss = { kind = "uniform", p = 0.01 } }
//! rtt = ["20ms", "40ms", "80ms"]
//! # bottleneck = { ..., queue = { kind = "droptail", limit = "1bdp" } }
//!
//! [[topology]]
//! kind = "chain"             # N1 - N2 - ... - N6
//! nodes = 6
//! link = { rate = "10Mbps", delay = "10ms" }
//! ```

use serde_json::{json, Map, Value};

use super::reader::Table;
use super::{Result, ScenarioError};
use crate::time::SimDuration;
use crate::units;

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

/// The settings of one side of a dumbbell: `access` (both sides) overlaid with the side's own
/// table (`sender_access` or `receiver_access`), and the path errors in them are reported at.
fn side<'a>(t: &Table<'a>, key: &str) -> Result<(Map<String, Value>, String)> {
    let table = |k: &str| match t.get(k) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(ScenarioError::new(
            t.field(k),
            "expected a table of link settings (rate, delay, queue, ...)",
        )),
    };
    let (shared, own) = (table("access")?, table(key)?);
    let mut merged = shared.cloned().unwrap_or_default();
    merged.extend(
        own.into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    if shared.is_none() && own.is_none() {
        return Err(ScenarioError::new(
            t.field("access"),
            format!(
                "is required: a table of link settings (rate, delay, queue, ...) for both \
                 sides, or give {key} for this side"
            ),
        ));
    }
    let origin = t.field(if own.is_some() { key } else { "access" });
    Ok((merged, origin))
}

/// A scheduled value (`{ schedule = [["0s", v], ...] }`) stands for its first step's value
/// `v`, the value from the start (its steps are checked when the link is read); any other
/// value for itself.
fn first_step(v: Option<&Value>) -> Option<&Value> {
    match v {
        Some(Value::Object(m)) => m
            .get("schedule")
            .and_then(|s| s.get(0))
            .and_then(|step| step.get(1))
            .filter(|d| d.is_string())
            .or(v),
        _ => v,
    }
}

/// The propagation delays of both directions of a link with `settings`, ns (`reverse.delay`
/// defaults to `delay`, which defaults to 0), read where errors are reported at `origin`.
fn delays(settings: &Map<String, Value>, origin: &str) -> Result<(u64, u64)> {
    let read = |v: Option<&Value>, path: String| match first_step(v) {
        None => Ok(None),
        Some(Value::String(s)) => units::parse_duration_ns(s)
            .map(Some)
            .map_err(|m| ScenarioError::new(path, m)),
        Some(_) => Err(ScenarioError::new(
            path,
            "expected a duration with a unit such as \"10ms\"",
        )),
    };
    let forward = read(settings.get("delay"), format!("{origin}.delay"))?.unwrap_or(0);
    let reverse = settings.get("reverse").and_then(|r| r.get("delay"));
    let reverse = read(reverse, format!("{origin}.reverse.delay"))?.unwrap_or(forward);
    Ok((forward, reverse))
}

/// The base round-trip times the dumbbell's `rtt` asks for, one per sender (a single
/// duration stands for all), ns; `None` without `rtt`.
fn rtts(t: &Table<'_>, n: u64) -> Result<Option<Vec<u64>>> {
    let parse = |v: &Value, path: String| match v {
        Value::String(s) => units::parse_duration_ns(s).map_err(|m| ScenarioError::new(path, m)),
        _ => Err(ScenarioError::new(
            path,
            "expected a duration with a unit such as \"40ms\"",
        )),
    };
    match t.get("rtt") {
        None => Ok(None),
        Some(Value::Array(values)) if values.len() as u64 == n => values
            .iter()
            .enumerate()
            .map(|(i, v)| parse(v, format!("{}[{i}]", t.field("rtt"))))
            .collect::<Result<Vec<u64>>>()
            .map(Some),
        Some(Value::Array(values)) => Err(ScenarioError::new(
            t.field("rtt"),
            format!(
                "has {} values for n = {n} senders: give one per sender, or one duration for all",
                values.len()
            ),
        )),
        Some(v) => Ok(Some(vec![parse(v, t.field("rtt"))?; n as usize])),
    }
}

/// Replaces a queue limit given in bandwidth-delay products (`"1bdp"`, `"0.5bdp"`) in
/// `settings` (its `queue` and `reverse.queue`) by packets of [`BDP_PACKET_BYTES`] (`limit`) or
/// bytes (`limit_bytes`), rounded, at least 1; any other value is left as it is. `bdp_bits` is
/// called only then (it needs the bottleneck's rate).
fn resolve_bdp(
    settings: &mut Map<String, Value>,
    origin: &str,
    bdp_bits: &mut dyn FnMut() -> Result<f64>,
) -> Result<()> {
    for (at, path) in [
        (None, format!("{origin}.queue")),
        (Some("reverse"), format!("{origin}.reverse.queue")),
    ] {
        let holder = match at {
            None => Some(&mut *settings),
            Some(key) => settings.get_mut(key).and_then(Value::as_object_mut),
        };
        let Some(Value::Object(queue)) = holder.and_then(|h| h.get_mut("queue")) else {
            continue;
        };
        for (key, unit_bytes) in [("limit", BDP_PACKET_BYTES), ("limit_bytes", 1.0)] {
            let Some(Value::String(text)) = queue.get(key) else {
                continue;
            };
            let Some(number) = text.trim().strip_suffix("bdp") else {
                continue;
            };
            let field = format!("{path}.{key}");
            let times = number
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| {
                    let hint = "use e.g. \"1bdp\" or \"0.5bdp\"";
                    let message = format!(
                        "{text:?} is not a multiple of the bandwidth-delay product; {hint}"
                    );
                    ScenarioError::new(field.clone(), message)
                })?;
            // The link's parser checks the range, naming this field.
            let value = (times * bdp_bits()? / 8.0 / unit_bytes).round().max(1.0);
            queue.insert(key.to_string(), Value::from(value as u64));
        }
    }
    Ok(())
}

/// The packet size a queue limit in BDPs counts (`limit = "1bdp"`): a full 1500-byte packet.
const BDP_PACKET_BYTES: f64 = 1500.0;

fn dumbbell(t: &Table<'_>, links: &mut Vec<Value>, origins: &mut Vec<String>) -> Result<()> {
    t.only(&[
        "kind",
        "n",
        "access",
        "sender_access",
        "receiver_access",
        "bottleneck",
        "rtt",
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
    let (sender, sender_origin) = side(t, "sender_access")?;
    let (receiver, receiver_origin) = side(t, "receiver_access")?;
    let mut bottleneck = settings(t, "bottleneck")?.clone();
    let bottleneck_origin = t.field("bottleneck");
    let left = t.str("left")?.unwrap_or("r1");
    let right = t.str("right")?.unwrap_or("r2");
    let sp = t.str("sender_prefix")?.unwrap_or("s");
    let rp = t.str("receiver_prefix")?.unwrap_or("d");
    let name = bottleneck
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("bottleneck")
        .to_string();

    // Every pair's path but its sender's access link, both ways.
    let (b_fwd, b_rev) = delays(&bottleneck, &bottleneck_origin)?;
    let (r_fwd, r_rev) = delays(&receiver, &receiver_origin)?;
    let shared_ns = b_fwd + b_rev + r_fwd + r_rev;
    // Each sender's access link: the sender side's settings, with the delays that give its
    // pair the asked-for base RTT.
    let mut senders = Vec::with_capacity(n as usize);
    let mut rtt_sum_ns = 0u128;
    match rtts(t, n)? {
        None => {
            let (s_fwd, s_rev) = delays(&sender, &sender_origin)?;
            senders.resize(n as usize, sender.clone());
            rtt_sum_ns = (shared_ns + s_fwd + s_rev) as u128 * n as u128;
        }
        Some(rtts) => {
            let own = t.get("sender_access").and_then(Value::as_object);
            let explicit = own.is_some_and(|m| {
                m.contains_key("delay")
                    || m.get("reverse").is_some_and(|r| r.get("delay").is_some())
            });
            if explicit {
                return Err(ScenarioError::new(
                    t.field("rtt"),
                    "sets the sender side's delays; give `rtt` or sender_access.delay, not both",
                ));
            }
            for (i, rtt) in rtts.iter().enumerate() {
                let Some(own_ns) = rtt.checked_sub(shared_ns) else {
                    let path = match t.get("rtt") {
                        Some(Value::Array(_)) => format!("{}[{i}]", t.field("rtt")),
                        _ => t.field("rtt"),
                    };
                    return Err(ScenarioError::new(
                        path,
                        format!(
                            "{} is shorter than the rest of the path, both ways: the bottleneck's \
                             and the receiver side's delays add up to {}; allowed: at least that",
                            super::fmt_duration(SimDuration(*rtt)),
                            super::fmt_duration(SimDuration(shared_ns))
                        ),
                    ));
                };
                // Half each way; an odd nanosecond goes to the ACKs' direction.
                let (fwd, rev) = (own_ns / 2, own_ns - own_ns / 2);
                let mut settings = sender.clone();
                let text = |ns| Value::from(super::fmt_duration(SimDuration(ns)));
                settings.insert("delay".into(), text(fwd));
                if rev != fwd {
                    let reverse = settings
                        .entry("reverse")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(r) = reverse {
                        r.insert("delay".into(), text(rev));
                    }
                } else if let Some(Value::Object(r)) = settings.get_mut("reverse") {
                    r.remove("delay");
                }
                senders.push(settings);
                rtt_sum_ns += *rtt as u128;
            }
        }
    }

    // Queue limits in BDPs: the bottleneck's rate times the pairs' mean base RTT.
    let mean_rtt_s = rtt_sum_ns as f64 / n as f64 * 1e-9;
    let rate = bottleneck.get("rate").cloned();
    let mut bdp_bits = || -> Result<f64> {
        let path = format!("{bottleneck_origin}.rate");
        match first_step(rate.as_ref()) {
            Some(Value::String(s)) => units::parse_rate(s)
                .map(|r| r.0 as f64 * mean_rtt_s)
                .map_err(|m| ScenarioError::new(path, m)),
            _ => Err(ScenarioError::new(
                path,
                "is required, e.g. \"10Mbps\" (a queue limit in BDPs is resolved against it)",
            )),
        }
    };
    resolve_bdp(&mut bottleneck, &bottleneck_origin, &mut bdp_bits)?;
    let mut receiver = receiver;
    resolve_bdp(&mut receiver, &receiver_origin, &mut bdp_bits)?;
    for settings in &mut senders {
        resolve_bdp(settings, &sender_origin, &mut bdp_bits)?;
    }

    for (i, settings) in (1..=n).zip(&senders) {
        links.push(link(
            format!("{sp}{i}-{left}"),
            &format!("{sp}{i}"),
            left,
            settings,
        ));
        origins.push(sender_origin.clone());
    }
    links.push(link(name, left, right, &bottleneck));
    origins.push(bottleneck_origin);
    for i in 1..=n {
        links.push(link(
            format!("{right}-{rp}{i}"),
            right,
            &format!("{rp}{i}"),
            &receiver,
        ));
        origins.push(receiver_origin.clone());
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
