use super::*;
use crate::time::{SimDuration, SimTime};

const BASE: &str = r#"
[simulation]
seed = 7
[[link]]
name = "access"
from = "s1"
to = "g1"
rate = "100Mbps"
delay = "1ms"
[[link]]
from = "g1"
to = "r1"
rate = "1Mbps"
delay = "49ms"
queue = { kind = "droptail", limit = 20 }
reverse = { queue = { kind = "droptail", limit_bytes = 3000 } }
[[flow]]
name = "f1"
kind = "tcp"
variant = "reno"
src = "s1"
dst = "r1"
bytes = 100000
mss = 1000
"#;

fn err(toml_text: &str) -> String {
    Scenario::from_toml_str(toml_text).unwrap_err().to_string()
}

#[test]
fn a_valid_scenario_resolves_nodes_links_and_defaults() {
    let s = Scenario::from_toml_str(BASE).unwrap();
    assert_eq!(s.seed, 7);
    assert_eq!(s.nodes, vec!["s1", "g1", "r1"]);
    assert_eq!(s.links[1].name, "g1-r1");
    assert_eq!(
        s.links[1].forward.queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(20),
            counts_transmitting: false,
            ecn_threshold: None,
        }
    );
    assert_eq!(
        s.links[1].reverse.queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Bytes(3000),
            counts_transmitting: false,
            ecn_threshold: None,
        }
    );
    assert_eq!(
        s.links[1].reverse.rate,
        RateSpec::fixed(BitsPerSec(1_000_000)),
        "reverse inherits the rate"
    );
    let flow = &s.flows[0];
    let f = flow.tcp().unwrap();
    assert_eq!(
        (flow.src, flow.dst, f.mss, f.bytes),
        (0, 2, 1000, Some(100_000))
    );
    assert_eq!(f.sender.initial_window, 10, "RFC 6928 for a 1000-byte MSS");
    assert_eq!(f.sender.header_bytes, 40);
    assert!(
        f.receiver.delayed_ack,
        "RFC 5681 §4.2 under the default rfc profile"
    );
}

#[test]
fn profiles_supply_defaults_and_explicit_options_win() {
    let ns2 = BASE
        .replace("seed = 7", "seed = 7\nprofile = \"ns2\"")
        .replace("mss = 1000\n", "");
    let s = Scenario::from_toml_str(&ns2).unwrap();
    let f = s.flows[0].tcp().unwrap();
    assert_eq!(
        (f.mss, f.sender.initial_window, f.sender.receiver_window),
        (1000, 2, 20)
    );
    assert_eq!(
        f.sender.initial_ssthresh, 20,
        "ns-2 starts ssthresh at window_"
    );
    assert_eq!(f.sender.rto.min, SimDuration::from_millis(200));
    assert_eq!(f.sender.rto.initial, SimDuration::from_secs(3));
    assert_eq!(f.sender.rto.granularity, SimDuration::from_millis(10));
    assert!(f.sender.handshake);
    assert_eq!(f.sender.dialect, crate::tcp::Dialect::Ns2);
    assert!(matches!(
        s.links[1].forward.queue,
        QueueSpec::DropTail {
            counts_transmitting: true,
            ..
        }
    ));
    // A per-flow profile and an explicit option override the scenario's.
    let mixed = ns2.replace("mss = 1000", "").replace(
        "variant = \"reno\"",
        "variant = \"reno\"\nprofile = \"opnet\"\noptions = { initial_window = 4 }",
    );
    let mixed = Scenario::from_toml_str(&mixed).unwrap();
    let f = mixed.flows[0].tcp().unwrap();
    assert_eq!(f.profile, "opnet");
    assert_eq!(f.sender.initial_window, 4);
    assert_eq!(f.sender.receiver_window, 65_535 / 1460);
    assert_eq!(f.sender.rto.min, SimDuration::from_millis(500));
}

#[test]
fn variant_options_are_checked_against_the_variant() {
    let with = |variant: &str, opts: &str| {
        BASE.replace(
            "variant = \"reno\"",
            &format!("variant = \"{variant}\"\noptions = {{ {opts} }}"),
        )
    };
    let nr = Scenario::from_toml_str(&with(
        "newreno",
        "timer_reset = \"impatient\", careful = \"less\"",
    ))
    .unwrap();
    assert!(matches!(
        nr.flows[0].tcp().unwrap().sender.recovery,
        crate::tcp::recovery::RecoveryKind::NewReno(crate::tcp::recovery::NewRenoConfig {
            timer_reset: crate::tcp::recovery::TimerReset::Impatient,
            careful: crate::tcp::recovery::RetransmitGuard::Heuristic,
            ..
        })
    ));
    assert!(matches!(
        nr.flows[0].tcp().unwrap().variant,
        Variant::NewReno { .. }
    ));
    assert_eq!(
        err(&with("reno", "alpha = 2")),
        "flow[0].options.alpha: is an option of variant \"vegas\", not \"reno\"; options of reno: \
         initial_window, initial_ssthresh, window, dupack_threshold, min_rto, max_rto, initial_rto, \
         clock_granularity, handshake, limited_transmit, clock_phase, pacing, ecn, gso, min_tso_segs, \
         pacing_shift"
    );
    assert!(err(&with("newreno", "careful = 3"))
        .starts_with("flow[0].options.careful: 3 is not allowed"));
    assert!(err(&with("sack", "sack_recovery = \"fast\"")).contains("allowed: ns2, rfc6675"));
    assert!(err(&with("vegas", "alpha = 4, beta = 2"))
        .starts_with("flow[0].options.beta: (2) must not be below"));
    let round = Scenario::from_toml_str(&with("vegas", "alpha = 2, beta = 4, gamma = 1")).unwrap();
    assert_eq!(Scenario::from_value(&round.to_json()).unwrap(), round);
}

#[test]
fn cubic_takes_its_options_in_the_kernel_units_and_sack_recovery() {
    use crate::tcp::cc::{CubicConfig, HystartMode};
    use crate::tcp::recovery::RecoveryKind;
    let with = |opts: &str| {
        BASE.replace(
            "variant = \"reno\"",
            &format!("variant = \"cubic\"\noptions = {{ {opts} }}"),
        )
    };
    let s = Scenario::from_toml_str(&with("")).unwrap();
    let f = s.flows[0].tcp().unwrap();
    assert_eq!(f.variant, Variant::Cubic(CubicConfig::default()));
    assert_eq!(f.sender.recovery, RecoveryKind::Rfc6675);
    assert!(f.receiver.sack);
    let ns2 = Scenario::from_toml_str(
        &with("").replace("[simulation]", "[simulation]\nprofile = \"ns2\""),
    )
    .unwrap();
    assert_eq!(
        ns2.flows[0].tcp().unwrap().sender.recovery,
        RecoveryKind::Sack
    );
    let s = Scenario::from_toml_str(&with(
        "beta = 0.5, c = 4, fast_convergence = false, hystart = \"hystart++\"",
    ))
    .unwrap();
    assert_eq!(
        s.flows[0].tcp().unwrap().variant,
        Variant::Cubic(CubicConfig {
            beta: 512,
            bic_scale: 410,
            fast_convergence: false,
            hystart: HystartMode::PlusPlus,
        })
    );
    let json = s.to_json();
    let o = &json["flow"][0]["options"];
    assert_eq!(
        (o["beta"].as_f64(), o["c"].as_f64()),
        (Some(0.5), Some(4.00390625))
    );
    assert_eq!(o["hystart"], "hystart++");
    assert_eq!(Scenario::from_value(&json).unwrap(), s);
    // The defaults as the kernel keeps them, and back.
    let d = Scenario::from_toml_str(&with("")).unwrap();
    let o = &d.to_json()["flow"][0]["options"];
    assert_eq!(
        (o["beta"].as_f64(), o["c"].as_f64()),
        (Some(0.7001953125), Some(0.400390625))
    );
    assert_eq!(Scenario::from_value(&d.to_json()).unwrap(), d);
    assert_eq!(
        err(&with("beta = 1.0")),
        "flow[0].options.beta: 1 is out of range; allowed: 0.001 to 0.999"
    );
    assert_eq!(
        err(&with("c = 0")),
        "flow[0].options.c: 0 is out of range; allowed: 0.005 to 1000"
    );
    assert_eq!(
        err(&with("hystart = \"on\"")),
        "flow[0].options.hystart: unknown hystart \"on\"; allowed: linux, hystart++, off"
    );
    assert_eq!(
        err(&with("gamma = 1")),
        "flow[0].options.gamma: is an option of variant \"vegas\", not \"cubic\"; options of cubic: \
         initial_window, initial_ssthresh, window, dupack_threshold, min_rto, max_rto, initial_rto, \
         clock_granularity, handshake, limited_transmit, clock_phase, pacing, ecn, gso, \
         min_tso_segs, pacing_shift, beta, c, fast_convergence, hystart"
    );
}

#[test]
fn a_periodic_loss_takes_a_period_and_an_offset() {
    let with = |loss: &str| {
        BASE.replace(
            "queue = { kind = \"droptail\", limit = 20 }",
            &format!("queue = {{ kind = \"droptail\", limit = 20 }}\nloss = {loss}"),
        )
    };
    let s = Scenario::from_toml_str(&with(
        "{ kind = \"periodic\", every = 100, applies_to = \"data\" }",
    ))
    .unwrap();
    let l = &s.links[1].forward.losses[0];
    assert_eq!(
        l.kind,
        LossKind::Periodic {
            every: 100,
            offset: 0
        }
    );
    assert_eq!(l.applies_to, crate::loss::AppliesTo::Data);
    let json = s.to_json();
    assert_eq!(json["link"][1]["loss"][0]["offset"], 0);
    assert_eq!(Scenario::from_value(&json).unwrap(), s);
    let s =
        Scenario::from_toml_str(&with("{ kind = \"periodic\", every = 10, offset = 3 }")).unwrap();
    assert_eq!(
        s.links[1].forward.losses[0].kind,
        LossKind::Periodic {
            every: 10,
            offset: 3
        }
    );
    assert_eq!(
        err(&with("{ kind = \"periodic\" }")),
        "link[1].loss.every: is required: drop every N-th packet, e.g. 1000"
    );
    assert_eq!(
        err(&with("{ kind = \"periodic\", every = 0 }")),
        "link[1].loss.every: 0 is out of range; allowed: 1 to 18446744073709551615"
    );
    assert!(err(&with("{ kind = \"periodic\", every = 5, p = 0.1 }"))
        .starts_with("link[1].loss.p: unknown key"));
}

#[test]
fn the_normalised_json_round_trips() {
    let s = Scenario::from_toml_str(BASE).unwrap();
    let again = Scenario::from_value(&s.to_json()).unwrap();
    assert_eq!(s, again);
}

#[test]
fn errors_name_the_field_and_the_allowed_values() {
    let bad_rate = BASE.replace("rate = \"1Mbps\"", "rate = \"10 Mbits\"");
    assert_eq!(
        err(&bad_rate),
        "link[1].rate: \"10 Mbits\" is not a rate; use e.g. \"10Mbps\" (bits/s: bps, kbps, Mbps, \
         Gbps, or Mbit, Mbit/s, Mb/s; bytes/s: Bps, KBps, MBps, GBps, or MB/s)"
    );
    // (The crate's tests register the toy controller of `tcp/cc/toy.rs` too; the message of
    // a build without it is docs/errors.md's, which tests/python/test_errors.py checks.)
    let bad_variant = BASE.replace("variant = \"reno\"", "variant = \"renoo\"");
    assert_eq!(
        err(&bad_variant),
        "flow[0].variant: unknown variant \"renoo\"; allowed: tahoe, reno, newreno, sack, vegas, cubic, bbr, dctcp, prague, bbr3, toy, or \"python:<module>:<Class>\" for a Python controller"
    );
    assert!(err(&BASE.replace("\"1Mbps\"", "\"-1Mbps\"")).starts_with("link[1].rate:"));
    assert_eq!(
        err(&BASE.replace("dst = \"r1\"", "dst = \"r9\"")),
        "flow[0].dst: unknown node \"r9\"; nodes (from the links): s1, g1, r1"
    );
    assert!(
        err(&BASE.replace("mss = 1000", "mss = 0")).starts_with("flow[0].mss: 0 is out of range")
    );
    assert!(
        err(&BASE.replace("delay = \"1ms\"", "delay = \"1 fortnight\""))
            .starts_with("link[0].delay:")
    );
    let dup = format!("{BASE}\n[[flow]]\nname = \"f1\"\nsrc = \"s1\"\ndst = \"r1\"\nbytes = 1\n");
    assert_eq!(err(&dup), "flow[1].name: duplicate flow name \"f1\"");
    assert!(
        err(&BASE.replace("[simulation]", "[simulaton]")).starts_with("simulaton: unknown section")
    );
    let opt = format!("{BASE}\n[flow.options]\nmin_rtoo = \"1s\"\n");
    assert!(
        err(&opt).starts_with("flow[0].options.min_rtoo: is not an option"),
        "{}",
        err(&opt)
    );
    let zero_timer = format!("{BASE}\n[flow.options]\nmin_rto = \"0s\"\nmax_rto = \"0s\"\n");
    assert_eq!(
        err(&zero_timer),
        "flow[0].options.max_rto: must be longer than 0s"
    );
}

#[test]
fn unlimited_flows_need_a_duration() {
    let unlimited = BASE.replace("bytes = 100000", "");
    assert!(err(&unlimited).starts_with("simulation.duration: is required"));
    let with_duration = unlimited.replace("seed = 7", "seed = 7\nduration = \"10s\"");
    assert!(Scenario::from_toml_str(&with_duration).is_ok());
}

#[test]
fn disconnected_endpoints_are_refused() {
    let island = format!("{BASE}\n[[link]]\nfrom = \"x\"\nto = \"y\"\nrate = \"1Mbps\"\n")
        .replace("dst = \"r1\"", "dst = \"y\"");
    assert_eq!(
        err(&island),
        "flow[0]: no route from \"s1\" to \"y\": the links do not connect them"
    );
}

#[test]
fn topology_helpers_expand_into_links() {
    let text = r#"
[[topology]]
kind = "dumbbell"
n = 2
access = { rate = "100Mbps", delay = "1ms" }
bottleneck = { rate = "1.6Mbps", delay = "20ms", queue = { kind = "red", limit = 60 } }
[[topology]]
kind = "chain"
nodes = 3
link = { rate = "10Mbps", delay = "10ms" }
[[flow]]
name = "f"
src = "s1"
dst = "d2"
bytes = 1000
"#;
    let s = Scenario::from_toml_str(text).unwrap();
    let names: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "s1-r1",
            "s2-r1",
            "bottleneck",
            "r2-d1",
            "r2-d2",
            "N1-N2",
            "N2-N3"
        ]
    );
    assert!(matches!(s.links[2].forward.queue, QueueSpec::Red(_)));
    assert_eq!(
        s.links[5].forward.rate,
        RateSpec::fixed(BitsPerSec(10_000_000))
    );
    let bad = text.replace("nodes = 3", "nodes = 1");
    assert!(
        err(&bad).starts_with("topology[1].nodes: 1 is out of range"),
        "{}",
        err(&bad)
    );
    // Errors in the expanded links name the topology's own fields...
    let bad = text.replace("\"1.6Mbps\"", "\"1.6 Mbits\"");
    assert!(
        err(&bad).starts_with("topology[0].bottleneck.rate: \"1.6 Mbits\" is not a rate"),
        "{}",
        err(&bad)
    );
    let bad = text.replace("limit = 60", "limit = 0");
    assert!(
        err(&bad).starts_with("topology[0].bottleneck.queue.limit: 0 is out of range"),
        "{}",
        err(&bad)
    );
    let bad = text.replace("\"10ms\" }", "\"-1ms\" }");
    assert!(
        err(&bad).starts_with("topology[1].link.delay:"),
        "{}",
        err(&bad)
    );
    // ... and the scenario's own links keep their index.
    let own = format!("{text}[[link]]\nfrom = \"d1\"\nto = \"x\"\nrate = \"fast\"\n");
    assert!(
        err(&own).starts_with("link[0].rate: \"fast\" is not a rate"),
        "{}",
        err(&own)
    );
}

/// A dumbbell of 3 pairs with `extra` keys, and one flow from s1 to d1.
fn dumbbell(extra: &str) -> std::result::Result<Scenario, String> {
    Scenario::from_toml_str(&format!(
        "[[topology]]\nkind = \"dumbbell\"\nn = 3\n{extra}\n\
         [[flow]]\nname = \"f\"\nsrc = \"s1\"\ndst = \"d1\"\nbytes = 1000\n"
    ))
    .map_err(|e| e.to_string())
}

fn delays(link: &LinkSpec) -> (u64, u64) {
    (
        link.forward.delay.at(SimTime::ZERO).0,
        link.reverse.delay.at(SimTime::ZERO).0,
    )
}

#[test]
fn a_dumbbell_takes_each_sides_access_settings_apart() {
    let s = dumbbell(
        "access = { rate = \"100Mbps\", delay = \"1ms\" }\n\
         receiver_access = { loss = { kind = \"uniform\", p = 0.01 } }\n\
         bottleneck = { rate = \"10Mbps\", delay = \"5ms\" }",
    )
    .unwrap();
    let (senders, receivers) = (&s.links[0..3], &s.links[4..7]);
    // The loss is met once, on the receivers' side; the shared settings reach both sides.
    assert!(senders.iter().all(|l| l.forward.losses.is_empty()));
    assert!(receivers.iter().all(|l| l.forward.losses.len() == 1));
    assert!(s
        .links
        .iter()
        .all(|l| l.name == "bottleneck"
            || l.forward.rate.constant() == Some(BitsPerSec(100_000_000))));
    // Each side alone, without `access`.
    let s = dumbbell(
        "sender_access = { rate = \"1Gbps\" }\nreceiver_access = { rate = \"100Mbps\", delay = \"2ms\" }\n\
         bottleneck = { rate = \"10Mbps\" }",
    )
    .unwrap();
    assert_eq!(
        (s.links[0].forward.rate.constant(), delays(&s.links[0])),
        (Some(BitsPerSec(1_000_000_000)), (0, 0))
    );
    assert_eq!(
        (s.links[4].forward.rate.constant(), delays(&s.links[4])),
        (Some(BitsPerSec(100_000_000)), (2_000_000, 2_000_000))
    );
    let e = dumbbell("sender_access = { rate = \"1Gbps\" }\nbottleneck = { rate = \"10Mbps\" }")
        .unwrap_err();
    assert!(e.starts_with("topology[0].access: is required: a table of link settings (rate, delay, queue, ...) for both sides, or give receiver_access for this side"), "{e}");
    // An error in a side's settings names that side's table.
    let e = dumbbell(
        "access = { rate = \"100Mbps\" }\nsender_access = { rate = \"fast\" }\nbottleneck = { rate = \"10Mbps\" }",
    )
    .unwrap_err();
    assert!(
        e.starts_with("topology[0].sender_access.rate: \"fast\" is not a rate"),
        "{e}"
    );
}

#[test]
fn a_dumbbell_gives_each_pair_its_base_rtt() {
    let s = dumbbell(
        "access = { rate = \"100Mbps\", delay = \"1ms\" }\nrtt = [\"20ms\", \"40ms\", \"80.000001ms\"]\n\
         bottleneck = { rate = \"10Mbps\", delay = \"5ms\" }",
    )
    .unwrap();
    // Bottleneck 2 x 5 ms and receiver side 2 x 1 ms: the sender side makes up the rest.
    assert_eq!(delays(&s.links[0]), (4_000_000, 4_000_000));
    assert_eq!(delays(&s.links[1]), (14_000_000, 14_000_000));
    assert_eq!(
        delays(&s.links[2]),
        (34_000_000, 34_000_001),
        "the odd nanosecond goes back"
    );
    assert_eq!(delays(&s.links[4]), (1_000_000, 1_000_000));
    for (i, rtt) in [20_000_000u64, 40_000_000, 80_000_001].iter().enumerate() {
        let path = [&s.links[i], &s.links[3], &s.links[4 + i]];
        let total: u64 = path
            .iter()
            .map(|l| l.forward.delay.at(SimTime::ZERO).0 + l.reverse.delay.at(SimTime::ZERO).0)
            .sum();
        assert_eq!(total, *rtt);
    }
    // One duration for every pair.
    let s = dumbbell("access = { rate = \"1Gbps\" }\nrtt = \"30ms\"\nbottleneck = { rate = \"1Gbps\", delay = \"5ms\" }").unwrap();
    assert!(s.links[0..3]
        .iter()
        .all(|l| delays(l) == (10_000_000, 10_000_000)));
    for (extra, starts) in [
        ("rtt = \"8ms\"", "topology[0].rtt: 8ms is shorter than the rest of the path, both ways: the bottleneck's and the receiver side's delays add up to 12ms; allowed: at least that"),
        ("rtt = [\"20ms\", \"5ms\", \"20ms\"]", "topology[0].rtt[1]: 5ms is shorter"),
        ("rtt = [\"20ms\"]", "topology[0].rtt: has 1 values for n = 3 senders"),
        ("rtt = [\"20ms\", 20, \"20ms\"]", "topology[0].rtt[1]: expected a duration"),
        ("rtt = \"20ms\"\nsender_access = { delay = \"1ms\" }", "topology[0].rtt: sets the sender side's delays; give `rtt` or sender_access.delay, not both"),
    ] {
        let e = dumbbell(&format!("access = {{ rate = \"100Mbps\", delay = \"1ms\" }}\n{extra}\nbottleneck = {{ rate = \"10Mbps\", delay = \"5ms\" }}")).unwrap_err();
        assert!(e.starts_with(starts), "{extra}: {e}");
    }
}

#[test]
fn a_dumbbell_queue_limit_may_be_given_in_bandwidth_delay_products() {
    let limit = |l: &LinkSpec| match l.forward.queue {
        QueueSpec::DropTail { limit, .. } => limit,
        _ => panic!("droptail"),
    };
    // 10 Mb/s x 40 ms = 50,000 bytes: 33.3 packets of 1500 bytes.
    let s = dumbbell(
        "access = { rate = \"100Mbps\", delay = \"5ms\", queue = { kind = \"droptail\", limit_bytes = \"2bdp\" } }\n\
         bottleneck = { rate = \"10Mbps\", delay = \"10ms\", queue = { kind = \"droptail\", limit = \"1bdp\" }, \
         reverse = { queue = { kind = \"droptail\", limit = \"0.5bdp\" } } }",
    )
    .unwrap();
    assert_eq!(limit(&s.links[3]), QueueLimit::Packets(33));
    assert!(matches!(
        s.links[3].reverse.queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(17),
            ..
        }
    ));
    assert_eq!(limit(&s.links[0]), QueueLimit::Bytes(100_000));
    // With per-pair RTTs (20, 40, 60 ms: mean 40 ms) the same BDP.
    let s = dumbbell(
        "access = { rate = \"100Mbps\", delay = \"1ms\" }\nrtt = [\"20ms\", \"40ms\", \"60ms\"]\n\
         bottleneck = { rate = \"10Mbps\", delay = \"5ms\", queue = { kind = \"red\", limit = \"1bdp\" } }",
    )
    .unwrap();
    assert!(matches!(&s.links[3].forward.queue, QueueSpec::Red(r) if r.limit == 33));
    let e = dumbbell("access = { rate = \"1Gbps\" }\nbottleneck = { rate = \"10Mbps\", delay = \"5ms\", queue = { kind = \"droptail\", limit = \"onebdp\" } }").unwrap_err();
    assert!(e.starts_with("topology[0].bottleneck.queue.limit: \"onebdp\" is not a multiple of the bandwidth-delay product; use e.g. \"1bdp\" or \"0.5bdp\""), "{e}");
    let e = dumbbell("access = { rate = \"1Gbps\" }\nbottleneck = { delay = \"5ms\", queue = { kind = \"droptail\", limit = \"1bdp\" } }").unwrap_err();
    assert!(e.starts_with("topology[0].bottleneck.rate: is required, e.g. \"10Mbps\" (a queue limit in BDPs is resolved against it)"), "{e}");
}

#[test]
fn network_options_reject_bad_values_by_name() {
    let with_link =
        |extra: &str| BASE.replace("delay = \"1ms\"", &format!("delay = \"1ms\"\n{extra}"));
    for (extra, starts) in [
        (
            "queue = { kind = \"red\", min_th = 15, max_th = 5 }",
            "link[0].queue.max_th: (5) must be above min_th",
        ),
        (
            "queue = { kind = \"red\", w_q = 3 }",
            "link[0].queue.w_q: 3 is not allowed",
        ),
        (
            "queue = { kind = \"blue\" }",
            "link[0].queue.kind: unknown kind \"blue\"; allowed: droptail, red, codel, fq_codel",
        ),
        (
            "queue = { kind = \"codel\", target = \"5\" }",
            "link[0].queue.target: \"5\" is not a duration",
        ),
        (
            "loss = { kind = \"ber\", ber = 2 }",
            "link[0].loss.ber: 2 is out of range",
        ),
        (
            "loss = { kind = \"gilbert_elliott\", p_gb = 0.1 }",
            "link[0].loss.p_bg: is required",
        ),
        (
            "loss = { kind = \"uniform\", p = 0.1, applies_to = \"syn\" }",
            "link[0].loss.applies_to: unknown applies_to \"syn\"; allowed: data, ack, all",
        ),
        (
            "latency = { kind = \"uniform\", min = \"2ms\", max = \"1ms\" }",
            "link[0].latency.max: must not be below min",
        ),
        (
            "latency = { kind = \"lognormal\", median = \"20us\", p99 = \"10us\" }",
            "link[0].latency.p99: must not be below median",
        ),
        (
            "latency = { kind = \"lognormal\", median = \"0us\", p99 = \"10us\" }",
            "link[0].latency.median: must be above 0",
        ),
        (
            "latency = { kind = \"pareto\" }",
            "link[0].latency.kind: unknown kind \"pareto\"",
        ),
    ] {
        let e = err(&with_link(extra));
        assert!(e.starts_with(starts), "{extra}: {e}");
    }
    let cbr =
        format!("{BASE}\n[[flow]]\nname = \"u\"\nkind = \"cbr\"\nsrc = \"s1\"\ndst = \"r1\"\n");
    assert_eq!(
        err(&cbr),
        "flow[1].rate: is required for a cbr flow, e.g. \"2Mbps\""
    );
    let start = BASE.replace("mss = 1000", "mss = 1000\nstart = { uniform = [\"5s\"] }");
    assert!(
        err(&start).starts_with("flow[0].start.uniform: expected two durations"),
        "{}",
        err(&start)
    );
    let stop = BASE.replace("mss = 1000", "mss = 1000\nstop = \"5s\"");
    assert!(err(&stop).starts_with("flow[0].stop: is for unlimited flows"));
}

/// The RED configuration of the first link of BASE with `queue` and `profile`.
fn red_of(queue: &str, profile: &str) -> std::result::Result<RedConfig, String> {
    let text = BASE
        .replace("seed = 7", &format!("seed = 7\nprofile = \"{profile}\""))
        .replace(
            "delay = \"1ms\"",
            &format!("delay = \"1ms\"\nqueue = {queue}"),
        );
    let s = Scenario::from_toml_str(&text).map_err(|e| e.to_string())?;
    match s.links[0].forward.queue {
        QueueSpec::Red(c) => Ok(c),
        ref q => panic!("not RED: {q:?}"),
    }
}

#[test]
fn red_counts_packets_outside_the_ns2_profile_unless_told_bytes() {
    let q = "{ kind = \"red\", limit = 100, min_th = 10, max_th = 30 }";
    for profile in ["rfc", "linux", "opnet"] {
        let c = red_of(q, profile).unwrap();
        assert!(!c.queue_in_bytes && !c.bytes, "{profile}: packets");
        assert_eq!(
            (c.limit, c.min_thresh, c.max_thresh),
            (100, Some(10.0), Some(30.0))
        );
    }
    // ns-2's defaults: 500-byte units and byte-mode drops.
    let c = red_of(q, "ns2").unwrap();
    assert!(c.queue_in_bytes && c.bytes);
    // Bytes when the keys say so: thresholds in units of mean_pktsize, the limit exact.
    let c = red_of(
        "{ kind = \"red\", limit_bytes = 150000, min_th_bytes = 15000, max_th_bytes = 45000, mean_pktsize = 1500 }",
        "rfc",
    )
    .unwrap();
    assert!(c.queue_in_bytes && !c.bytes);
    assert_eq!(
        (c.limit_bytes, c.min_thresh, c.max_thresh),
        (Some(150000), Some(10.0), Some(30.0))
    );
    // An explicit queue_in_bytes keeps ns-2's meaning of limit and thresholds.
    let c = red_of(
        "{ kind = \"red\", limit = 60, queue_in_bytes = true }",
        "rfc",
    )
    .unwrap();
    assert!(c.queue_in_bytes);
    assert_eq!(c.limit, 60);
    // Units are not mixed by accident.
    assert_eq!(
        red_of("{ kind = \"red\", limit = 60, min_th_bytes = 5000 }", "rfc").unwrap_err(),
        "link[0].queue.limit: is in packets, but min_th_bytes is in bytes; give RED's limit and thresholds in packets (limit, min_th, max_th) or in bytes (limit_bytes, min_th_bytes, max_th_bytes)"
    );
    assert!(red_of(
        "{ kind = \"red\", limit_bytes = 6000, queue_in_bytes = false }",
        "rfc"
    )
    .unwrap_err()
    .starts_with("link[0].queue.limit_bytes: is in bytes, but queue_in_bytes = false"));
    assert!(red_of(
        "{ kind = \"red\", min_th_bytes = 6000, max_th_bytes = 3000 }",
        "rfc"
    )
    .unwrap_err()
    .starts_with("link[0].queue.max_th_bytes: (3000) must be above min_th_bytes (6000)"));
}

#[test]
fn red_in_packets_round_trips_through_the_normalised_json() {
    for q in [
        "{ kind = \"red\", limit = 100, min_th = 10, max_th = 30 }",
        "{ kind = \"red\", limit_bytes = 150001, min_th_bytes = 15000 }",
    ] {
        let text = BASE.replace("delay = \"1ms\"", &format!("delay = \"1ms\"\nqueue = {q}"));
        let s = Scenario::from_toml_str(&text).unwrap();
        let again = Scenario::from_json_str(&s.to_json().to_string()).unwrap();
        assert_eq!(
            s.links[0].forward.queue, again.links[0].forward.queue,
            "{q}"
        );
    }
}

#[test]
fn dualpi2_takes_the_kernels_defaults_and_its_keys_round_trip() {
    use crate::queue::{DualPi2Config, EcnMask, QueueLimit, StepThresh};
    let with = |q: &str| {
        let text = BASE.replace("delay = \"1ms\"", &format!("delay = \"1ms\"\nqueue = {q}"));
        let s = Scenario::from_toml_str(&text).unwrap();
        let again = Scenario::from_json_str(&s.to_json().to_string()).unwrap();
        assert_eq!(
            s.links[0].forward.queue, again.links[0].forward.queue,
            "{q}"
        );
        match s.links[0].forward.queue {
            QueueSpec::DualPi2(c) => c,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(with("{ kind = \"dualpi2\" }"), DualPi2Config::default());
    let c = with(
        "{ kind = \"dualpi2\", limit_bytes = 1000000, target = \"5ms\", tupdate = \"10ms\", \
         alpha = 0.3, beta = 6.0, step_thresh = 8, min_qlen_step = 2, coupling = 3, \
         drop_overload = false, drop_early = true, c_protection = 30, ecn_mask = \"any_ect\", mtu = 1500 }",
    );
    assert_eq!(
        c,
        DualPi2Config {
            limit: QueueLimit::Bytes(1_000_000),
            target: SimDuration::from_millis(5),
            tupdate: SimDuration::from_millis(10),
            alpha: 0.3,
            beta: 6.0,
            step_thresh: StepThresh::Packets(8),
            min_qlen_step: 2,
            coupling: 3,
            drop_overload: false,
            drop_early: true,
            c_protection: 30,
            ecn_mask: EcnMask::AnyEct,
            mtu: 1500,
        }
    );
    let c = with("{ kind = \"dualpi2\", step_thresh = \"500us\" }");
    assert_eq!(
        c.step_thresh,
        StepThresh::Delay(SimDuration::from_micros(500))
    );
}

fn python_flow(variant: &str, options: &str) -> String {
    BASE.replace(
        "variant = \"reno\"",
        &format!("variant = {variant:?}\n{options}"),
    )
}

#[test]
fn a_python_variant_keeps_its_reference_and_passes_other_options_as_arguments() {
    let text = python_flow(
        "python:controllers/aimd.py:Aimd",
        "options = { gain = 2.5, initial_window = 4, label = \"x\" }",
    );
    let s = Scenario::from_toml_str(&text).unwrap();
    let tcp = s.flows[0].tcp().unwrap();
    assert_eq!(tcp.variant, Variant::Custom);
    let custom = tcp.custom.as_ref().unwrap();
    assert_eq!(custom.reference, "python:controllers/aimd.py:Aimd");
    assert_eq!(
        serde_json::Value::Object(custom.args.clone()),
        serde_json::json!({"gain": 2.5, "label": "x"}),
        "initial_window is the sender's"
    );
    assert_eq!(tcp.sender.initial_window, 4);
    // The normalised scenario writes both back, and reads back the same.
    let json = s.to_json();
    let flow = &json["flow"][0];
    assert_eq!(flow["variant"], "python:controllers/aimd.py:Aimd");
    assert_eq!(flow["options"]["gain"], 2.5);
    assert_eq!(
        flow["recovery"], "reno",
        "a Python controller recovers as reno does"
    );
    assert_eq!(Scenario::from_value(&json).unwrap(), s);
}

#[test]
fn a_python_variant_takes_the_recovery_of_the_profile_and_hoe_sending_under_newreno() {
    let linux = python_flow("python:m:C", "profile = \"linux\"");
    let s = Scenario::from_toml_str(&linux).unwrap();
    assert_eq!(s.flows[0].tcp().unwrap().sender.recovery.name(), "prr");

    let newreno = python_flow(
        "python:m:C",
        "recovery = \"newreno\"\noptions = { hoe_sending = true, careful = false }",
    );
    let s = Scenario::from_toml_str(&newreno).unwrap();
    let tcp = s.flows[0].tcp().unwrap();
    match tcp.sender.recovery {
        crate::tcp::recovery::RecoveryKind::NewReno(c) => {
            assert!(c.hoe_sending);
            assert_eq!(c.careful, crate::tcp::recovery::RetransmitGuard::Off);
        }
        other => panic!("{other:?}"),
    }
    assert!(tcp.custom.as_ref().unwrap().args.is_empty());
    assert_eq!(s.to_json()["flow"][0]["options"]["hoe_sending"], true);

    assert_eq!(
        err(&python_flow(
            "python:m:C",
            "options = { hoe_sending = true }"
        )),
        "flow[0].options.hoe_sending: is an option of recovery \"newreno\", not \"reno\""
    );
}

#[test]
fn a_python_variant_must_name_a_module_and_a_class() {
    for (variant, why) in [
        ("python:Aimd", "names no class"),
        ("python::Aimd", "does not name a module"),
        ("python:my-module:Aimd", "does not name a module"),
        ("python:mymodule:", "does not end in a class name"),
        ("python:mymodule:2fast", "does not end in a class name"),
    ] {
        let message = err(&python_flow(variant, ""));
        assert!(
            message.starts_with(&format!("flow[0].variant: {variant:?} {why}")),
            "{message}"
        );
    }
    for ok in [
        "python:a.b.c:Outer.Inner",
        "python:../x/ctl.py:Aimd",
        "python:_m:_C",
    ] {
        Scenario::from_toml_str(&python_flow(ok, "")).unwrap();
    }
    assert_eq!(
        err(&python_flow("westwood", "")),
        "flow[0].variant: unknown variant \"westwood\"; allowed: tahoe, reno, newreno, sack, vegas, cubic, bbr, dctcp, prague, bbr3, toy, or \"python:<module>:<Class>\" for a Python controller"
    );
}

/// BASE with the second link's `rate = "1Mbps"` replaced by `rate` and `extra` keys added to
/// it.
fn varying(rate: &str, extra: &str) -> String {
    BASE.replace(
        "reverse = { queue = { kind = \"droptail\", limit_bytes = 3000 } }\n",
        "",
    )
    .replace(
        "rate = \"1Mbps\"\ndelay = \"49ms\"",
        &format!("rate = {rate}\ndelay = \"49ms\"\n{extra}"),
    )
}

fn trace_path(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("renolab-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn schedules_outages_and_traces_parse_and_round_trip() {
    let path = trace_path("ok.up", "1\n1\n3\n4\n");
    let text = varying(
        &format!("{{ trace = {path:?} }}"),
        r#"outages = [["12s", "12.2s"], ["27s", "27.05s"]]
reverse = { rate = { schedule = [["0s", "50Mbps"], ["10s", "5Mbps"]] }, delay = { schedule = [["0s", "20ms"], ["15s", "35ms"]] }, loss = { schedule = [["0s", { kind = "uniform", p = 0.0 }], ["15s", { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.5 }]] } }"#,
    );
    let s = Scenario::from_toml_str(&text).unwrap();
    let link = &s.links[1];
    let RateSpec::Trace(t) = &link.forward.rate else {
        panic!("a trace")
    };
    assert_eq!(
        (t.path.as_str(), t.trace.len(), t.trace.period_ms()),
        (path.as_str(), 4, 4)
    );
    // 4 opportunities of 1500 bytes in 4 ms: 12 Mb/s.
    assert_eq!(link.forward.rate.nominal(), BitsPerSec(12_000_000));
    assert_eq!(link.outages.spans().len(), 2);
    let rates = match &link.reverse.rate {
        RateSpec::Schedule(r) => r.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        *rates.at(crate::time::SimTime(10_000_000_000)),
        BitsPerSec(5_000_000)
    );
    assert!(matches!(link.reverse.losses[0].kind, LossKind::Schedule(_)));
    let json = s.to_json();
    assert_eq!(json["link"][1]["rate"]["trace"], path.as_str());
    assert_eq!(json["link"][1]["outages"][1][1], "27050ms");
    assert_eq!(json["link"][1]["reverse"]["delay"]["schedule"][1][0], "15s");
    assert_eq!(Scenario::from_value(&json).unwrap(), s);
    // A fixed link's resolved form is as it always was.
    assert_eq!(json["link"][0]["rate"], "100Mbps");
    assert!(json["link"][0].get("outages").is_none());
}

#[test]
fn bad_schedules_and_outages_name_the_step() {
    let rate = |r: &str| err(&varying(r, ""));
    assert_eq!(
        rate(r#"{ schedule = [["1s", "5Mbps"]] }"#),
        "link[1].rate.schedule[0]: the first step is at 1s; it must be at \"0s\" (the value from the start)"
    );
    assert_eq!(
        rate(r#"{ schedule = [["0s", "5Mbps"], ["2s", "1Mbps"], ["2s", "2Mbps"]] }"#),
        "link[1].rate.schedule[2]: 2s is not after the step before (2s); steps must be in increasing time"
    );
    assert_eq!(
        rate(r#"{ schedule = [["0s", "5 Mbits"]] }"#),
        "link[1].rate.schedule[0][1]: \"5 Mbits\" is not a rate; use e.g. \"10Mbps\" (bits/s: bps, kbps, Mbps, Gbps, or Mbit, Mbit/s, Mb/s; bytes/s: Bps, KBps, MBps, GBps, or MB/s)"
    );
    assert_eq!(
        rate(r#"{ schedule = [] }"#),
        "link[1].rate.schedule: is empty; give at least the value from the start, [\"0s\", ...]"
    );
    assert!(rate(r#"{ schedule = ["0s", "5Mbps"] }"#)
        .starts_with("link[1].rate.schedule[0]: expected a [time, value] step"));
    assert!(rate(r#"{ speed = "1Mbps" }"#).starts_with("link[1].rate.speed: unknown key"));
    assert!(rate(r#"{ }"#).starts_with("link[1].rate: give either `schedule"));
    let extra = |e: &str| err(&varying("\"1Mbps\"", e));
    assert_eq!(
        extra(r#"outages = [["2s", "1s"]]"#),
        "link[1].outages[0]: ends at 1s, not after its start 2s"
    );
    assert_eq!(
        extra(r#"outages = [["1s", "2s"], ["2s", "3s"]]"#),
        "link[1].outages[1]: starts at 2s, before the outage above ends (2s); list outages in order, apart (join touching ones)"
    );
    assert_eq!(
        extra(r#"reverse = { delay = { schedule = [["0s", 5]] } }"#),
        "link[1].reverse.delay.schedule[0][1]: expected a duration with a unit such as \"10ms\", got 5"
    );
    assert_eq!(
        extra(r#"loss = { schedule = [["0s", { schedule = [] }]] }"#),
        "link[1].loss.schedule[0][1].schedule: a scheduled loss model's steps are loss models, not schedules"
    );
    assert!(
        extra(r#"loss = { schedule = [["0s", { kind = "uniform", p = 2 }]] }"#)
            .starts_with("link[1].loss.schedule[0][1].p: 2 is out of range")
    );
    assert!(
        extra(r#"reverse = { outages = [] }"#).starts_with("link[1].reverse.outages: unknown key")
    );
}

#[test]
fn a_bad_trace_gets_one_line_naming_the_file_and_the_line() {
    let trace = |name: &str, text: &str| {
        let path = trace_path(name, text);
        let message = err(&varying(&format!("{{ trace = {path:?} }}"), ""));
        message.replace(&path, "FILE")
    };
    assert_eq!(
        trace("empty", ""),
        "link[1].rate.trace: FILE: has no timestamps; a mahimahi trace has one millisecond timestamp per line"
    );
    assert_eq!(
        trace("letters", "1\n2\n3x\n"),
        "link[1].rate.trace: FILE: line 3: the line is not a whole number of milliseconds"
    );
    assert_eq!(
        trace("fraction", "1\n2.5\n"),
        "link[1].rate.trace: FILE: line 2: \"2.5\" is not a whole number of milliseconds"
    );
    assert_eq!(
        trace("decreasing", "1\n5\n4\n"),
        "link[1].rate.trace: FILE: line 3: 4 is before the line above (5); timestamps must not decrease"
    );
    assert_eq!(
        trace("zero", "0\n0\n"),
        "link[1].rate.trace: FILE: line 2: the last timestamp is 0: a trace must last more than 0 ms (its last timestamp is its period)"
    );
    assert_eq!(
        trace("blank", "1\n\n2\n"),
        "link[1].rate.trace: FILE: line 2: is empty; each line is one timestamp in milliseconds"
    );
    let missing = err(&varying("{ trace = \"/no/such/trace.up\" }", ""));
    assert_eq!(
        missing,
        "link[1].rate.trace: /no/such/trace.up: cannot be read: no such file"
    );
    let dir = std::env::temp_dir().to_string_lossy().into_owned();
    let folder = err(&varying(&format!("{{ trace = {dir:?} }}"), ""));
    assert!(
        folder.ends_with("is not a regular file; a trace is a text file of millisecond timestamps"),
        "{folder}"
    );
    assert!(err(&varying("{ trace = 5 }", "")).starts_with("link[1].rate.trace: expected a string"));
}

#[test]
fn options_ecn_takes_classic_or_accecn_and_accecn_needs_the_linux_profile() {
    let flow = |profile: &str, ecn: &str| {
        format!(
            r#"
[simulation]
duration = "1s"
profile = "{profile}"
[[topology]]
kind = "dumbbell"
n = 1
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
[[flow]]
name = "f"
variant = "cubic"
src = "s1"
dst = "d1"
options = {{ ecn = {ecn} }}
"#
        )
    };
    let s = Scenario::from_toml_str(&flow("linux", "\"accecn\"")).unwrap();
    let tcp = s.flows[0].tcp().unwrap();
    assert!(tcp.sender.ecn && tcp.sender.accecn);
    assert_eq!(tcp.receiver.ecn, crate::tcp::ecn::EchoMode::AccEcn);
    let s = Scenario::from_toml_str(&flow("linux", "\"classic\"")).unwrap();
    let tcp = s.flows[0].tcp().unwrap();
    assert!(tcp.sender.ecn && !tcp.sender.accecn);
    let e = Scenario::from_toml_str(&flow("rfc", "\"accecn\"")).unwrap_err();
    assert!(
        e.to_string().contains("flow[0].options.ecn") && e.to_string().contains("linux"),
        "{e}"
    );
    let e = Scenario::from_toml_str(&flow("linux", "\"l4s\"")).unwrap_err();
    assert!(e.to_string().contains("\"classic\" or \"accecn\""), "{e}");
}

#[test]
fn a_dumbbell_with_a_scheduled_bottleneck_counts_its_first_step() {
    // The pairs' RTTs and the BDP limits read a scheduled rate or delay at its first step.
    let s = dumbbell(
        "access = { rate = \"100Mbps\", delay = \"1ms\" }\nrtt = \"40ms\"\n\
         bottleneck = { rate = { schedule = [[\"0s\", \"10Mbps\"], [\"1s\", \"5Mbps\"]] }, \
         delay = { schedule = [[\"0s\", \"5ms\"], [\"1s\", \"20ms\"]] }, \
         queue = { kind = \"droptail\", limit_bytes = \"1bdp\" } }",
    )
    .unwrap();
    // Bottleneck 2 x 5 ms and receiver side 2 x 1 ms: the sender side makes up the rest.
    assert_eq!(delays(&s.links[0]), (14_000_000, 14_000_000));
    let bottleneck = s.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert!(matches!(
        bottleneck.forward.queue,
        QueueSpec::DropTail {
            limit: crate::queue::QueueLimit::Bytes(50_000),
            ..
        }
    ));
}
