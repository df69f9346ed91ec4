//! Property tests over random scenarios: random topologies (2-6 nodes, trees plus extra
//! links), rates from 1 kb/s to 100 Gb/s, delays from 0 to 1 s, buffers of 1 to 10^5
//! packets, every queue discipline, loss model, variant and profile, loss rates including 0
//! and 1, random start times; and the same with an 802.11 medium joining some of the nodes
//! and up to three more (random standard, rates, queues, losses, RTS threshold, retry
//! limits).
//!
//! For every scenario:
//!
//! - the run terminates, and `run(.., check_invariants = true)` audits after every event that
//!   each packet sent is delivered, dropped or in flight, that cwnd >= 1 and ssthresh >= 2
//!   segments, and that the receiver delivered segments in order, each exactly once;
//! - a finished transfer delivered exactly its bytes, an unfinished one no more;
//! - the run is deterministic and the audit does not change it;
//! - the number of packets alive never passed the bound the validation estimated;
//! - when every flow is a finite transfer and a flow's path has no loss model, it completes.
//!
//! Each case is kept small (its duration is shrunk until the estimated events fit a budget),
//! so the default 64 cases take seconds; `PROPTEST_CASES=N` runs more.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};
use serde_json::{json, Value};

use renolab_core::sim::{run, RunError, StopReason};
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// Events a case may be estimated to take after its duration is shrunk.
const EVENT_BUDGET: f64 = 20_000.0;
/// Events x packets alive: what the per-event audit costs.
const AUDIT_BUDGET: f64 = 4e6;

/// How far a case's events may pass their estimate: a run that passes it (the estimate was
/// wrong by far) fails with `simulation.max_events` instead of auditing for hours.
const EVENT_SLACK: u64 = 10;

/// 64 cases unless `PROPTEST_CASES` says otherwise, drawn from a fixed seed so that CI runs
/// the cases a developer ran (`PROPTEST_RNG_SEED=N` explores others); failures are kept (and
/// replayed first) in `tests/properties.proptest-regressions`.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_261_122);
    Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/properties.proptest-regressions",
        ))),
        rng_seed: RngSeed::Fixed(seed),
        ..Config::with_cases(cases)
    }
}

/// A number spread evenly over the decades from 10^lo to 10^hi.
fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo..=hi).prop_map(|e| 10f64.powf(e))
}

fn rate() -> impl Strategy<Value = String> {
    // 1 kb/s to 100 Gb/s.
    log_uniform(3.0, 11.0).prop_map(|r| format!("{}bps", r.round() as u64))
}

fn delay() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just("0s".to_string()),
        1 => Just("1s".to_string()),
        4 => log_uniform(3.0, 9.0).prop_map(|ns| format!("{}ns", ns.round() as u64)),
    ]
}

fn buffer() -> impl Strategy<Value = u64> {
    prop_oneof![
        1 => Just(1u64),
        1 => Just(100_000u64),
        4 => log_uniform(0.0, 5.0).prop_map(|b| b.round() as u64),
    ]
}

fn queue() -> impl Strategy<Value = Value> {
    prop_oneof![
        buffer().prop_map(|limit| json!({"kind": "droptail", "limit": limit})),
        (buffer(), any::<bool>()).prop_map(|(limit, counts)| json!({
            "kind": "droptail", "limit": limit.max(2), "counts_transmitting": counts
        })),
        buffer().prop_map(|b| json!({"kind": "droptail", "limit_bytes": b * 1500})),
        buffer().prop_map(|limit| json!({"kind": "red", "limit": limit})),
        buffer().prop_map(|limit| json!({"kind": "codel", "limit": limit})),
        (buffer(), 1u64..64).prop_map(|(limit, flows)| json!({
            "kind": "fq_codel", "limit": limit, "flows": flows
        })),
    ]
}

fn probability() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64, 0.0..0.1f64]
}

fn loss() -> impl Strategy<Value = Option<Value>> {
    let applies = prop_oneof![Just("all"), Just("data"), Just("ack")];
    prop_oneof![
        6 => Just(None),
        1 => (probability(), applies.clone())
            .prop_map(|(p, a)| Some(json!({"kind": "uniform", "p": p, "applies_to": a}))),
        1 => (0.0..1e-4f64).prop_map(|ber| Some(json!({"kind": "ber", "ber": ber}))),
        1 => (probability(), probability(), probability()).prop_map(|(gb, bg, bad)| {
            Some(json!({"kind": "gilbert_elliott", "p_gb": gb, "p_bg": bg, "loss_bad": bad}))
        }),
        1 => (proptest::collection::vec(0u64..50, 0..6), applies.clone())
            .prop_map(|(packets, a)| Some(json!({"kind": "drop", "packets": packets, "applies_to": a}))),
        1 => (1u64..=200, 0u64..=20, applies)
            .prop_map(|(every, offset, a)| Some(json!({"kind": "periodic", "every": every, "offset": offset, "applies_to": a}))),
    ]
}

fn latency() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        6 => Just(None),
        1 => (0u64..5_000_000, any::<bool>()).prop_map(|(ns, reorder)| Some(json!({
            "kind": "uniform", "min": "0s", "max": format!("{ns}ns"), "reorder": reorder
        }))),
        1 => (0u64..5_000_000, any::<bool>()).prop_map(|(ns, reorder)| Some(json!({
            "kind": "normal", "mean": format!("{ns}ns"), "sd": format!("{}ns", ns / 2), "reorder": reorder
        }))),
    ]
}

/// One direction's settings.
fn direction() -> impl Strategy<Value = Value> {
    (rate(), delay(), queue(), loss(), latency()).prop_map(|(rate, delay, queue, loss, lat)| {
        let mut d = json!({"rate": rate, "delay": delay, "queue": queue});
        if let Some(l) = loss {
            d["loss"] = l;
        }
        if let Some(l) = lat {
            d["latency"] = l;
        }
        d
    })
}

/// Links over `n` nodes: a random tree (so every pair is connected) plus up to two more.
fn links() -> impl Strategy<Value = (usize, Vec<Value>)> {
    (2usize..=6).prop_flat_map(|n| {
        let tree = proptest::collection::vec(any::<prop::sample::Index>(), n - 1);
        let extra = proptest::collection::vec((0..n, 0..n), 0..=2);
        let dirs = proptest::collection::vec((direction(), prop::option::weighted(0.3, direction())), n + 1);
        (Just(n), tree, extra, dirs).prop_map(|(n, tree, extra, dirs)| {
            let mut pairs: Vec<(usize, usize)> =
                tree.iter().enumerate().map(|(i, p)| (p.index(i + 1), i + 1)).collect();
            pairs.extend(extra.into_iter().filter(|(a, b)| a != b));
            let links = pairs
                .into_iter()
                .zip(dirs)
                .enumerate()
                .map(|(k, ((a, b), (fwd, rev)))| {
                    let mut l = json!({"name": format!("l{k}"), "from": format!("n{a}"), "to": format!("n{b}")});
                    if let (Value::Object(m), Value::Object(f)) = (&mut l, fwd) {
                        m.extend(f);
                    }
                    if let Some(r) = rev {
                        l["reverse"] = r;
                    }
                    l
                })
                .collect();
            (n, links)
        })
    })
}

fn start() -> impl Strategy<Value = Value> {
    prop_oneof![
        2 => Just(json!("0s")),
        1 => (0u64..1_000_000_000).prop_map(|ns| json!(format!("{ns}ns"))),
        1 => (0u64..500_000_000, 0u64..500_000_000).prop_map(|(a, b)| json!({
            "uniform": [format!("{a}ns"), format!("{}ns", a + b)]
        })),
    ]
}

/// Some of the TCP options (each present or not), variant-specific ones included.
fn options() -> impl Strategy<Value = serde_json::Map<String, Value>> {
    let common = (
        prop::option::of(1u64..=64),
        prop::option::of(1u64..=10),
        prop::option::of(2u64..=100),
        prop::option::of(1u64..=5),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of((1u64..=2_000_000_000, 0u64..=3)),
        prop::option::of(0u64..=100_000_000),
        prop::option::of(any::<bool>()),
    );
    let newreno = (
        prop::option::of(any::<bool>()),
        prop::option::of(prop_oneof![Just("impatient"), Just("slow_but_steady")]),
        prop::option::of(prop_oneof![
            Just(json!(true)),
            Just(json!(false)),
            Just(json!("less"))
        ]),
        prop::option::of(any::<bool>()),
        prop::option::of(prop_oneof![Just("ns2"), Just("rfc6675")]),
        prop::option::of((0u64..=4, 0u64..=4, 0u64..=4)),
    );
    let cubic = (
        prop::option::of(0.001..=0.999f64),
        prop::option::of(prop_oneof![0.005..=1.0f64, 1.0..=1000.0f64]),
        prop::option::of(any::<bool>()),
        prop::option::of(prop_oneof![Just("linux"), Just("hystart++"), Just("off")]),
    );
    (common, newreno, cubic).prop_map(|(c, v, cu)| {
        let mut o = serde_json::Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                o.insert(k.to_string(), v);
            }
        };
        put("window", c.0.map(|x| json!(x)));
        put("initial_window", c.1.map(|x| json!(x)));
        put("initial_ssthresh", c.2.map(|x| json!(x)));
        put("dupack_threshold", c.3.map(|x| json!(x)));
        put("handshake", c.4.map(|x| json!(x)));
        put("limited_transmit", c.5.map(|x| json!(x)));
        if let Some((min_ns, max_factor)) = c.6 {
            put("min_rto", Some(json!(format!("{min_ns}ns"))));
            put(
                "max_rto",
                Some(json!(format!("{}ns", min_ns << max_factor))),
            );
            put("initial_rto", Some(json!(format!("{min_ns}ns"))));
        }
        put("clock_granularity", c.7.map(|ns| json!(format!("{ns}ns"))));
        put("pacing", c.8.map(|x| json!(x)));
        put("partial_window_deflation", v.0.map(|x| json!(x)));
        put("timer_reset", v.1.map(|x| json!(x)));
        put("careful", v.2);
        put("ssthresh_estimation", v.3.map(|x| json!(x)));
        put("sack_recovery", v.4.map(|x| json!(x)));
        if let Some((a, b, g)) = v.5 {
            put("alpha", Some(json!(a)));
            put("beta", Some(json!(a + b)));
            put("gamma", Some(json!(g)));
        }
        // CUBIC's beta is a fraction: kept apart until the variant is known.
        put("cubic_beta", cu.0.map(|x| json!(x)));
        put("c", cu.1.map(|x| json!(x)));
        put("fast_convergence", cu.2.map(|x| json!(x)));
        put("hystart", cu.3.map(|x| json!(x)));
        o
    })
}

/// A flow between two distinct nodes of `n`; `finite_only` when the scenario has no duration.
fn flow(n: usize, finite_only: bool) -> impl Strategy<Value = Value> {
    let ends = (0..n, 1..n).prop_map(move |(a, k)| (a, (a + k) % n));
    let variant = prop_oneof![
        Just("tahoe"),
        Just("reno"),
        Just("newreno"),
        Just("sack"),
        Just("vegas"),
        Just("cubic")
    ];
    let profile = prop_oneof![
        Just(None),
        Just(Some("rfc")),
        Just(Some("ns2")),
        Just(Some("opnet")),
        Just(Some("linux"))
    ];
    let mss = prop_oneof![1 => Just(1u64), 6 => 100u64..=1460];
    let tcp = (
        variant,
        profile,
        mss,
        1u64..=200,
        Just(!finite_only),
        any::<bool>(),
        any::<bool>(),
        options(),
        prop::option::of((1u64..=4, 0u64..=500_000_000)),
    )
        .prop_map(
            move |(
                variant,
                profile,
                mss,
                segs,
                may_be_unlimited,
                unlimited,
                delack,
                options,
                acks,
            )| {
                let mut f = json!({
                    "variant": variant, "mss": mss,
                    "receiver": {"delayed_ack": delack},
                });
                if let Some((every, timeout)) = acks {
                    f["receiver"]["ack_every"] = json!(every);
                    f["receiver"]["delack_timeout"] = json!(format!("{timeout}ns"));
                }
                if !(may_be_unlimited && unlimited) {
                    f["bytes"] = json!(segs * mss - mss / 2);
                }
                if let Some(p) = profile {
                    f["profile"] = json!(p);
                }
                // Keep only the options of this variant (those of others are errors).
                let own = |k: &str| match k {
                    "partial_window_deflation"
                    | "timer_reset"
                    | "careful"
                    | "ssthresh_estimation" => variant == "newreno",
                    "sack_recovery" => variant == "sack",
                    "alpha" | "beta" | "gamma" => variant == "vegas",
                    "cubic_beta" | "c" | "fast_convergence" | "hystart" => variant == "cubic",
                    _ => true,
                };
                let options: serde_json::Map<String, Value> = options
                    .into_iter()
                    .filter(|(k, _)| own(k))
                    .map(|(k, v)| match k.as_str() {
                        "cubic_beta" => ("beta".to_string(), v),
                        _ => (k, v),
                    })
                    .collect();
                f["options"] = Value::Object(options);
                f
            },
        );
    let cbr = (log_uniform(3.0, 11.0), 28u64..=1500, 0.0..=2.0f64).prop_map(|(r, size, jitter)| {
        json!({"kind": "cbr", "rate": format!("{}bps", r.round() as u64), "packet_bytes": size, "jitter": jitter})
    });
    let traffic = if finite_only {
        tcp.boxed()
    } else {
        prop_oneof![4 => tcp, 1 => cbr].boxed()
    };
    (ends, start(), traffic).prop_map(|((a, b), start, mut f)| {
        f["src"] = json!(format!("n{a}"));
        f["dst"] = json!(format!("n{b}"));
        f["start"] = start;
        f
    })
}

/// A whole scenario document; `timed` scenarios have a duration and may have unlimited and
/// CBR flows, the others only finite transfers and run until they finish.
fn scenario() -> impl Strategy<Value = Value> {
    (links(), any::<bool>(), any::<u64>(), log_uniform(-3.0, 1.0)).prop_flat_map(
        |((n, links), timed, seed, duration_s)| {
            proptest::collection::vec(flow(n, !timed), 1..=4).prop_map(move |flows| {
                let flows: Vec<Value> = flows
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut f)| {
                        f["name"] = json!(format!("f{i}"));
                        f
                    })
                    .collect();
                // No memory or event limit until `small` has shrunk the run.
                let simulation = if timed {
                    json!({"seed": seed, "duration": format!("{}ns", (duration_s * 1e9) as u64 + 1), "max_memory": "1000000GB", "max_events": u64::MAX})
                } else {
                    json!({"seed": seed, "time_limit": "100000s", "max_memory": "1000000GB", "max_events": u64::MAX})
                };
                json!({"simulation": simulation, "link": links.clone(), "flow": flows})
            })
        },
    )
}

/// Validates `doc`, shrinking its duration (giving it one if need be) until its estimate
/// fits the budget, then validates it again under the default memory limit and at most
/// [`EVENT_SLACK`] times the estimated events.
fn small(doc: Value) -> Scenario {
    let mut doc = shrink(doc);
    let events = Scenario::from_value(&doc).map_or(0, |s| s.estimate().events);
    let simulation = doc["simulation"].as_object_mut().unwrap();
    simulation.remove("max_memory");
    simulation.insert(
        "max_events".into(),
        json!((events * EVENT_SLACK).max(10_000)),
    );
    Scenario::from_value(&doc).unwrap_or_else(|e| panic!("invalid scenario: {e}\n{doc:#}"))
}

fn shrink(mut doc: Value) -> Value {
    for _ in 0..10 {
        let s =
            Scenario::from_value(&doc).unwrap_or_else(|e| panic!("invalid scenario: {e}\n{doc:#}"));
        let est = s.estimate();
        let events = est.events as f64;
        let audit = events * (est.peak_packets as f64 + 10.0);
        let scale = (EVENT_BUDGET / events).min(AUDIT_BUDGET / audit);
        if scale >= 1.0 {
            return doc;
        }
        // Too long to run whole (a retransmission timer firing all the time): give it a
        // duration, and shrink that.
        let d = s.duration.unwrap_or(s.time_limit);
        let ns = ((d.0 as f64 * scale) as u64).max(1_000);
        doc["simulation"]["duration"] = json!(format!("{ns}ns"));
        if ns == 1_000 {
            break;
        }
    }
    doc
}

/// A scenario of [`scenario`]'s links joined by a medium: some of their nodes and up to
/// three of its own (`w0`, `w1`, `w2`); each flow starts or ends at one of the medium's own
/// nodes, within the first 100 ms, so that its packets cross the medium.
fn wlan_scenario() -> impl Strategy<Value = Value> {
    (
        scenario(),
        1usize..=3,
        any::<u64>(),
        medium(),
        log_uniform(-1.0, 0.7),
    )
        .prop_flat_map(|(doc, own, mask, medium, duration_s)| {
            let n = doc["link"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|l| [l["from"].to_string(), l["to"].to_string()])
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            let flows = proptest::collection::vec(
                (
                    flow(n + own, false),
                    0..own,
                    any::<bool>(),
                    0u64..100_000_000,
                ),
                1..=4,
            );
            (
                Just(doc),
                Just(n),
                Just(own),
                Just(mask),
                Just(medium),
                Just(duration_s),
                flows,
            )
        })
        .prop_map(|(mut doc, n, own, mask, mut medium, duration_s, flows)| {
            let name = |i: usize| {
                if i < n {
                    format!("n{i}")
                } else {
                    format!("w{}", i - n)
                }
            };
            // At least one node of the links (those the mask picks, else n0).
            let mut nodes: Vec<String> = (0..n).filter(|i| mask >> i & 1 == 1).map(name).collect();
            if nodes.is_empty() {
                nodes.push(name(0));
            }
            nodes.extend((n..n + own).map(name));
            medium["nodes"] = json!(nodes);
            doc["medium"] = json!([medium]);
            doc["simulation"]["duration"] = json!(format!("{}ns", (duration_s * 1e9) as u64));
            doc["simulation"]
                .as_object_mut()
                .unwrap()
                .remove("time_limit");
            doc["flow"] = flows
                .into_iter()
                .enumerate()
                .map(|(i, (mut f, w, outward, start_ns))| {
                    f["name"] = json!(format!("f{i}"));
                    let other: usize = f["dst"].as_str().unwrap()[1..].parse().unwrap();
                    let (mut src, mut dst) = (name(n + w), name(other));
                    if src == dst {
                        dst = name((other + 1) % (n + own));
                    }
                    if !outward {
                        std::mem::swap(&mut src, &mut dst);
                    }
                    f["src"] = json!(src);
                    f["dst"] = json!(dst);
                    f["start"] = json!(format!("{start_ns}ns"));
                    f
                })
                .collect();
            doc
        })
}

/// A medium's settings (its nodes are set by [`wlan_scenario`]).
fn medium() -> impl Strategy<Value = Value> {
    let standard = prop_oneof![
        (Just("802.11b"), 0usize..4, 0usize..4),
        (Just("802.11g"), 0usize..12, 0usize..12),
    ];
    let queue = prop_oneof![
        (1u64..=600).prop_map(|limit| json!({"kind": "droptail", "limit": limit})),
        (1u64..=600).prop_map(|b| json!({"kind": "droptail", "limit_bytes": b * 1500})),
    ];
    (
        standard,
        queue,
        loss(),
        prop::option::of(0u64..=3000),
        1u64..=7,
        1u64..=4,
    )
        .prop_map(|((standard, data, basic), queue, loss, rts, short, long)| {
            let b = ["1Mbps", "2Mbps", "5.5Mbps", "11Mbps"];
            let g = [
                "1Mbps", "2Mbps", "5.5Mbps", "6Mbps", "9Mbps", "11Mbps", "12Mbps", "18Mbps",
                "24Mbps", "36Mbps", "48Mbps", "54Mbps",
            ];
            let rates: &[&str] = if standard == "802.11b" { &b } else { &g };
            let mut m = json!({
                "name": "wlan", "kind": "wifi", "standard": standard,
                "data_rate": rates[data], "basic_rate": rates[basic], "queue": queue,
                "short_retry_limit": short, "long_retry_limit": long,
            });
            if let Some(l) = loss {
                m["loss"] = l;
            }
            if let Some(t) = rts {
                m["rts_threshold"] = json!(t);
            }
            m
        })
}

/// True when no link direction and no medium has a loss model (queues may still drop).
fn loss_free(doc: &Value) -> bool {
    let media = doc
        .get("medium")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    doc["link"].as_array().unwrap().iter().all(|l| {
        l.get("loss").is_none() && l.get("reverse").is_none_or(|r| r.get("loss").is_none())
    }) && media.iter().all(|m| m.get("loss").is_none())
}

fn check(doc: Value) -> Result<(), TestCaseError> {
    let s = small(doc.clone());
    let est = s.estimate();
    let out = match run(&s, &TraceRequest::default(), true) {
        Ok(out) => out,
        Err(RunError::Invariant(v)) => {
            return Err(TestCaseError::fail(format!("{v}\n{doc:#}")));
        }
        Err(e) => return Err(TestCaseError::fail(format!("run failed: {e}\n{doc:#}"))),
    };
    if doc.get("medium").is_some() {
        eprintln!(
            "WLAN frames={} events={}",
            out.stations
                .iter()
                .map(|s| s.stats.frames_sent)
                .sum::<u64>(),
            out.summary.events
        );
    }
    prop_assert!(
        out.summary.peak_packets <= est.peak_packets,
        "{} packets alive at once, above the estimated bound {}",
        out.summary.peak_packets,
        est.peak_packets
    );
    for (spec, f) in s.flows.iter().zip(&out.flows) {
        if let Some(tcp) = spec.tcp() {
            if let Some(bytes) = tcp.bytes {
                prop_assert!(
                    f.bytes_delivered <= bytes,
                    "{}: delivered more than it had",
                    f.flow
                );
                if f.finish.is_some() {
                    prop_assert_eq!(f.bytes_delivered, bytes);
                    prop_assert_eq!(f.segments_delivered, bytes.div_ceil(tcp.mss as u64));
                }
            }
        }
    }
    if s.duration.is_none() && loss_free(&doc) {
        for f in &out.flows {
            prop_assert!(
                f.finish.is_some(),
                "flow {} did not complete on a loss-free path by t = {} ({:?})",
                f.flow,
                out.summary.sim_time,
                out.summary.stop_reason
            );
        }
        prop_assert_eq!(out.summary.stop_reason, StopReason::AllFlowsFinished);
    }
    // Deterministic, and the audit changes nothing.
    let again = run(&s, &TraceRequest::default(), false).unwrap();
    prop_assert_eq!(&again.flows, &out.flows);
    prop_assert_eq!(again.summary.events, out.summary.events);
    Ok(())
}

/// `doc` with every TCP flow running BBR (options of other variants dropped; BBR brings
/// Linux's loss recovery under every profile).
fn all_bbr(doc: Value) -> Value {
    all_of(doc, "bbr")
}

/// `doc` under the `linux` profile with every TCP flow running BBRv3.
fn all_bbr3(doc: Value) -> Value {
    let mut doc = all_of(doc, "bbr3");
    for f in doc["flow"].as_array_mut().unwrap() {
        if !f.get("kind").is_some_and(|k| k == "cbr") {
            f["profile"] = json!("linux");
        }
    }
    doc
}

/// `doc` with every TCP flow running `variant`, the options of other variants dropped.
fn all_of(mut doc: Value, variant: &str) -> Value {
    for f in doc["flow"].as_array_mut().unwrap() {
        if f.get("kind").is_some_and(|k| k == "cbr") {
            continue;
        }
        f["variant"] = json!(variant);
        if let Some(o) = f["options"].as_object_mut() {
            o.retain(|k, _| {
                !matches!(
                    k.as_str(),
                    "partial_window_deflation"
                        | "timer_reset"
                        | "careful"
                        | "ssthresh_estimation"
                        | "sack_recovery"
                        | "alpha"
                        | "beta"
                        | "gamma"
                        | "c"
                        | "fast_convergence"
                        | "hystart"
                )
            });
        }
    }
    doc
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_scenarios_conserve_packets_and_keep_windows_sane(doc in scenario()) {
        check(doc)?;
    }

    #[test]
    fn random_bbr_scenarios_conserve_packets_and_keep_windows_sane(doc in scenario()) {
        check(all_bbr(doc))?;
    }

    #[test]
    fn random_bbr3_scenarios_conserve_packets_and_keep_windows_sane(doc in scenario()) {
        check(all_bbr3(doc))?;
    }

    #[test]
    fn random_wlans_conserve_packets_and_keep_windows_sane(doc in wlan_scenario()) {
        check(doc)?;
    }
}
