//! The networks of the studies: CBR/UDP, RED, bit errors, bursty loss, extra latency, random
//! starts and stops, checked on whole scenarios.

use renolab_core::sim::{run, RunOutput};
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// Runs with conservation and window invariants audited after every event.
fn go(text: &str) -> RunOutput {
    let s = Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &TraceRequest::default(), true).expect("run with invariant checks")
}

/// Runs without the per-event audit (for long statistical runs).
fn go_fast(text: &str) -> RunOutput {
    run(
        &Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}")),
        &TraceRequest::default(),
        false,
    )
    .unwrap()
}

fn link_row<'a>(out: &'a RunOutput, name: &str) -> &'a renolab_core::sim::LinkResult {
    out.links.iter().find(|l| l.link == name).unwrap()
}

#[test]
fn cbr_alone_delivers_its_rate_within_a_tenth_of_a_percent() {
    let out = go(r#"
[simulation]
duration = "10s"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "cbr"
kind = "cbr"
src = "a"
dst = "b"
rate = "3Mbps"
packet_bytes = 1000
"#);
    let f = &out.flows[0];
    // Packets sent in [0, 10 s) that arrived by 10 s (the last ones are still in flight).
    let rate = f.bytes_delivered as f64 * 8.0 / 10.0;
    assert!((rate - 3e6).abs() / 3e6 < 0.001, "{rate}");
    assert_eq!((f.drops, f.variant), (0, "cbr"));
    // One-way latency of a CBR packet on an idle link: serialisation + propagation.
    let expected = 1000.0 * 8.0 / 10e6 + 0.005;
    assert!((f.mean_latency_s.unwrap() - expected).abs() < 1e-9);
}

#[test]
fn a_cbr_flow_above_the_bottleneck_rate_starves_tcp_without_breaking_conservation() {
    let out = go(r#"
[simulation]
duration = "20s"
[[link]]
from = "s"
to = "r1"
rate = "100Mbps"
delay = "1ms"
[[link]]
name = "bottleneck"
from = "r1"
to = "r2"
rate = "2Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 20 }
[[link]]
from = "r2"
to = "d"
rate = "100Mbps"
delay = "1ms"
[[flow]]
name = "tcp"
src = "s"
dst = "d"
[[flow]]
name = "udp"
kind = "cbr"
src = "s"
dst = "d"
rate = "3Mbps"
packet_bytes = 1000
start = "2s"
"#);
    let tcp = &out.flows[0];
    let udp = &out.flows[1];
    // Before the CBR starts TCP has the link; afterwards it gets almost nothing.
    assert!(
        tcp.bytes_delivered < (2e6 / 8.0 * 3.0) as u64,
        "{}",
        tcp.bytes_delivered
    );
    assert!(tcp.timeouts > 3, "TCP backs off under the flood");
    assert!(udp.drops > 1000);
    assert!(
        link_row(&out, "bottleneck").utilisation > 0.9,
        "{}",
        link_row(&out, "bottleneck").utilisation
    );
}

#[test]
fn red_drops_early_before_the_queue_overflows() {
    let flows: String = (1..=5)
        .map(|i| {
            format!(
                "[[flow]]\nname = \"f{i}\"\nsrc = \"s\"\ndst = \"d\"\nstart = \"{}ms\"\n",
                i * 100
            )
        })
        .collect();
    let out = go(&format!(
        r#"
[simulation]
duration = "30s"
[[link]]
from = "s"
to = "g"
rate = "100Mbps"
delay = "1ms"
[[link]]
name = "red"
from = "g"
to = "d"
rate = "1.6Mbps"
delay = "20ms"
queue = {{ kind = "red", limit = 60, min_th = 5, max_th = 15, max_p = 0.1, byte_mode = false, queue_in_bytes = false, gentle = false }}
{flows}"#
    ));
    let red = link_row(&out, "red");
    // The slowly moving average lets start-up bursts reach the hard limit a few times; after
    // that RED's early drops do the work.
    assert!(
        red.stats.early_drops > 5 * red.stats.overflow_drops,
        "{:?}",
        red.stats
    );
    assert!(red.utilisation > 0.9);
}

#[test]
fn bit_errors_drop_the_expected_fraction_and_a_seed_repeats_them() {
    let text = r#"
[simulation]
duration = "60s"
seed = 7
[[link]]
from = "a"
to = "b"
rate = "1Gbps"
delay = "1ms"
queue = { kind = "droptail", limit = 10000 }
loss = { kind = "ber", ber = 1e-6, applies_to = "data" }
[[flow]]
name = "cbr"
kind = "cbr"
src = "a"
dst = "b"
rate = "400Mbps"
packet_bytes = 1500
"#;
    let out = go_fast(text);
    let f = &out.flows[0];
    let n = f.segments_sent as f64;
    let p = 1.0 - (1.0f64 - 1e-6).powi(12_000);
    let lost = f.drops as f64;
    let sigma = (n * p * (1.0 - p)).sqrt();
    assert!(
        (lost - n * p).abs() < 3.0 * sigma,
        "lost {lost} of {n}, expected {} ± {sigma}",
        n * p
    );
    assert_eq!(link_row(&out, "a-b").stats.bit_error_drops, f.drops);
    assert_eq!(
        go_fast(text).flows[0].drops,
        f.drops,
        "same seed, same drops"
    );
}

#[test]
fn gilbert_elliott_losses_come_in_bursts_at_the_stationary_rate() {
    let out = go_fast(
        r#"
[simulation]
duration = "100s"
[[link]]
from = "a"
to = "b"
rate = "100Mbps"
delay = "1ms"
loss = { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.25 }
[[flow]]
name = "cbr"
kind = "cbr"
src = "a"
dst = "b"
rate = "8Mbps"
packet_bytes = 1000
"#,
    );
    let f = &out.flows[0];
    let rate = f.drops as f64 / f.segments_sent as f64;
    let expected = 0.01 / (0.01 + 0.25);
    assert!((rate - expected).abs() < 0.006, "{rate} vs {expected}");
}

#[test]
fn losses_restricted_to_acks_never_touch_data() {
    let out = go(r#"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
loss = { kind = "uniform", p = 0.2, applies_to = "ack" }
[[flow]]
name = "f"
src = "a"
dst = "b"
bytes = 500000
"#);
    let f = &out.flows[0];
    assert_eq!(f.data_drops, 0);
    assert!(f.ack_drops > 10);
    assert_eq!(f.bytes_delivered, 500_000);
}

#[test]
fn extra_latency_adds_to_every_packet_and_keeps_order_unless_asked() {
    let out = go(r#"
[simulation]
duration = "2s"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
latency = { kind = "fixed", delay = "1ms" }
[[flow]]
name = "cbr"
kind = "cbr"
src = "a"
dst = "b"
rate = "1Mbps"
packet_bytes = 1000
"#);
    let expected = 1000.0 * 8.0 / 10e6 + 0.006;
    assert!((out.flows[0].mean_latency_s.unwrap() - expected).abs() < 1e-9);
    // Random latency with reordering: TCP copes, every packet is accounted for.
    let out = go(r#"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
latency = { kind = "normal", mean = "2ms", sd = "2ms", reorder = true }
[[flow]]
name = "f"
src = "a"
dst = "b"
bytes = 300000
"#);
    assert_eq!(out.flows[0].bytes_delivered, 300_000);
}

#[test]
fn a_random_start_is_drawn_from_the_flows_own_stream() {
    let base = r#"
[simulation]
seed = 3
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "late"
src = "a"
dst = "b"
bytes = 10000
start = { uniform = ["50s", "51s"] }
"#;
    let one = go(base);
    let t = one.flows[0].first_send.unwrap().as_secs_f64();
    assert!((50.0..=51.0).contains(&t), "{t}");
    // Another flow does not change this flow's draw.
    let two = go(&format!("{base}\n[[flow]]\nname = \"other\"\nsrc = \"a\"\ndst = \"b\"\nbytes = 1000\nstart = {{ uniform = [\"0s\", \"1s\"] }}\n"));
    assert_eq!(two.flows[0].first_send, one.flows[0].first_send);
    // Another seed does.
    let three = go(&base.replace("seed = 3", "seed = 4"));
    assert_ne!(three.flows[0].first_send, one.flows[0].first_send);
}

#[test]
fn an_unlimited_flow_stops_offering_data_at_its_stop_time() {
    let out = run(
        &Scenario::from_toml_str(
            r#"
[simulation]
duration = "10s"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "f"
src = "a"
dst = "b"
stop = "2s"
"#,
        )
        .unwrap(),
        &TraceRequest::names(&["seq"]),
        true,
    )
    .unwrap();
    let seq = out.seq().unwrap();
    let last_send = (0..seq.time_ns.len())
        .filter(|&i| seq.event[i] == 0)
        .map(|i| seq.time_ns[i])
        .max()
        .unwrap();
    assert!(last_send <= 2_000_000_000, "{last_send}");
    assert!(out.flows[0].throughput_bps() < 10e6);
}
