//! The scenario validation fed documents that look like scenarios: the right sections and
//! keys (and now and then a wrong one), with values of every type, sign and magnitude
//! (durations, rates and sizes with units included). Where the text target mostly explores
//! TOML syntax, this one reaches the checks of every field. It must return a scenario or
//! an error, never panic; an accepted scenario must survive a round trip through its
//! normalised JSON, and a small one must run with every invariant audited.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;
use serde_json::{json, Map, Value};
use std::sync::LazyLock;

const SIMULATION: &[&str] = &[
    "seed",
    "duration",
    "time_limit",
    "profile",
    "max_events",
    "max_memory",
];
const LINK: &[&str] = &[
    "name", "from", "to", "rate", "delay", "queue", "loss", "latency", "reverse",
];
const QUEUE: &[&str] = &[
    "kind",
    "limit",
    "limit_bytes",
    "counts_transmitting",
    "min_th",
    "max_th",
    "max_p",
    "w_q",
    "gentle",
    "wait",
    "byte_mode",
    "queue_in_bytes",
    "mean_pktsize",
    "target_delay",
    "target",
    "interval",
    "mtu",
    "flows",
    "quantum",
    "drop_batch",
];
const LOSS: &[&str] = &[
    "kind",
    "p",
    "ber",
    "p_gb",
    "p_bg",
    "loss_good",
    "loss_bad",
    "flow",
    "segments",
    "packets",
    "applies_to",
];
const LATENCY: &[&str] = &["kind", "delay", "min", "max", "mean", "sd", "reorder"];
const FLOW: &[&str] = &[
    "name",
    "kind",
    "variant",
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
    "rate",
    "packet_bytes",
    "jitter",
];
const RECEIVER: &[&str] = &["delayed_ack", "ack_every", "delack_timeout", "ack_bytes"];
/// Every option of `[flow.options]`: the sender's, every registered controller's and every
/// recovery's, from their declarations.
static OPTIONS: LazyLock<Vec<&str>> = LazyLock::new(renolab_core::scenario::option_keys);
const TOPOLOGY: &[&str] = &[
    "kind",
    "n",
    "access",
    "bottleneck",
    "left",
    "right",
    "sender_prefix",
    "receiver_prefix",
    "nodes",
    "link",
    "prefix",
];
/// Names of other sections' values.
const OTHER_WORDS: &[&str] = &[
    "n0",
    "n1",
    "n2",
    "n3",
    "f0",
    "f1",
    "f2",
    "l0",
    "cbr",
    "tcp",
    "rfc",
    "ns2",
    "opnet",
    "droptail",
    "red",
    "codel",
    "fq_codel",
    "dualpi2",
    "l4s_ect",
    "uniform",
    "ber",
    "gilbert_elliott",
    "drop",
    "fixed",
    "normal",
    "data",
    "ack",
    "all",
    "dumbbell",
    "chain",
    "less",
    "",
];
/// Words values take: the other sections', and the controllers' and recoveries' names and
/// choices, from their declarations.
static WORDS: LazyLock<Vec<&str>> = LazyLock::new(|| {
    let mut words = OTHER_WORDS.to_vec();
    words.extend(renolab_core::scenario::option_words());
    words
});
const UNITS: &[&str] = &[
    "bps", "Kbps", "Mbps", "Gbps", "ns", "us", "ms", "s", "min", "B", "KB", "MiB", "GiB", "",
    " Mbit", "x",
];

fn number(u: &mut Unstructured<'_>) -> Result<f64> {
    Ok(match u.int_in_range(0..=7)? {
        0 => 0.0,
        1 => 1.0,
        2 => u.int_in_range(0..=100u32)? as f64,
        3 => u.int_in_range(0..=100_000u32)? as f64,
        4 => 10f64.powi(u.int_in_range(-12..=20i32)?),
        5 => -(u.int_in_range(1..=10u32)? as f64),
        6 => u.int_in_range(0..=1000u32)? as f64 / 1000.0,
        _ => f64::from_bits(u.arbitrary()?),
    })
}

fn value(u: &mut Unstructured<'_>, depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=9)? {
        0 | 1 => {
            let x = number(u)?;
            let unit = *u.choose(UNITS)?;
            json!(format!("{x}{unit}"))
        }
        2 => json!(*u.choose(&WORDS)?),
        3 => {
            let x = number(u)?;
            if x.fract() == 0.0 && (0.0..1.8e19).contains(&x) {
                json!(x as u64)
            } else if x.is_finite() {
                json!(x)
            } else {
                json!(u64::MAX)
            }
        }
        4 => json!(u.arbitrary::<bool>()?),
        5 => json!(u.arbitrary::<u64>()?),
        6 if depth < 3 => {
            let n = u.int_in_range(0..=3)?;
            Value::Array((0..n).map(|_| value(u, depth + 1)).collect::<Result<_>>()?)
        }
        7 if depth < 3 => table(u, &OPTIONS, depth + 1)?,
        _ => json!(u.int_in_range(0..=64u32)?),
    })
}

fn table(u: &mut Unstructured<'_>, keys: &[&str], depth: u32) -> Result<Value> {
    let mut m = Map::new();
    for _ in 0..u.int_in_range(0..=6)? {
        let key = if u.ratio(1, 20)? {
            "bogus"
        } else {
            *u.choose(keys)?
        };
        let v = match key {
            "queue" if depth < 3 => table(u, QUEUE, depth + 1)?,
            "loss" if depth < 3 => table(u, LOSS, depth + 1)?,
            "latency" if depth < 3 => table(u, LATENCY, depth + 1)?,
            "reverse" | "access" | "bottleneck" | "link" if depth < 3 => table(u, LINK, depth + 1)?,
            "receiver" if depth < 3 => table(u, RECEIVER, depth + 1)?,
            "options" if depth < 3 => table(u, &OPTIONS, depth + 1)?,
            "start" if u.ratio(1, 4)? => {
                json!({"uniform": [value(u, depth + 1)?, value(u, depth + 1)?]})
            }
            _ => value(u, depth + 1)?,
        };
        m.insert(key.to_string(), v);
    }
    Ok(Value::Object(m))
}

/// A mostly well-formed link or flow: the required keys first, then random ones.
fn entry(u: &mut Unstructured<'_>, keys: &[&str], base: Value) -> Result<Value> {
    let mut v = base;
    if let (Value::Object(m), Value::Object(extra)) = (&mut v, table(u, keys, 1)?) {
        m.extend(extra);
    }
    Ok(v)
}

fn document(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut doc = Map::new();
    doc.insert("simulation".into(), table(u, SIMULATION, 1)?);
    let nodes = u.int_in_range(2..=4u32)?;
    let mut links = Vec::new();
    for i in 0..u.int_in_range(0..=4u32)? {
        let base = json!({"from": format!("n{}", i % nodes), "to": format!("n{}", (i + 1) % nodes), "rate": "10Mbps"});
        links.push(entry(u, LINK, base)?);
    }
    doc.insert("link".into(), Value::Array(links));
    let mut flows = Vec::new();
    for i in 0..u.int_in_range(0..=3u32)? {
        let base = json!({"name": format!("f{i}"), "src": "n0", "dst": format!("n{}", 1 + i % (nodes - 1)), "bytes": 10_000});
        flows.push(entry(u, FLOW, base)?);
    }
    doc.insert("flow".into(), Value::Array(flows));
    if u.ratio(1, 8)? {
        doc.insert(
            "topology".into(),
            Value::Array(vec![table(u, TOPOLOGY, 1)?]),
        );
    }
    Ok(Value::Object(doc))
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = document(&mut Unstructured::new(data)) else {
        return;
    };
    let Ok(s) = Scenario::from_value(&doc) else {
        return;
    };
    let json = s.to_json();
    let again = Scenario::from_value(&json)
        .unwrap_or_else(|e| panic!("normalised scenario refused: {e}\n{json:#}"));
    assert_eq!(again, s, "round trip changed the scenario");
    let est = s.estimate();
    if est.events < 20_000 && est.peak_packets < 2_000 {
        let mut small = s.clone();
        small.max_events = small.max_events.min(400_000);
        match renolab_core::run(&small, &TraceRequest::default(), true) {
            Ok(_) | Err(renolab_core::RunError::Limit(_)) => {}
            Err(e) => panic!("{e}\n{json:#}"),
        }
    }
});
