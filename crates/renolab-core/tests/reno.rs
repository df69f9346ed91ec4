//! Whole-scenario tests of TCP Reno on deterministic paths: exact timings and counts.

use renolab_core::sim::{run, RunOutput};
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// One 1 Mb/s link with 50 ms each way (RTT 100 ms plus serialisation), a huge buffer, and
/// one Reno flow of `bytes` in 1000-byte segments (+40 bytes of header), initial window 1.
fn one_link(bytes: u64, extra_link: &str, extra_options: &str) -> Scenario {
    let text = format!(
        r#"
[[link]]
name = "path"
from = "s1"
to = "r1"
rate = "1Mbps"
delay = "50ms"
queue = {{ kind = "droptail", limit = 100000 }}
{extra_link}

[[flow]]
name = "f1"
variant = "reno"
src = "s1"
dst = "r1"
bytes = {bytes}
mss = 1000
header_bytes = 40
receiver = {{ delayed_ack = false }}

[flow.options]
initial_window = 1
{extra_options}
"#
    );
    Scenario::from_toml_str(&text).expect("valid scenario")
}

fn run_traced(s: &Scenario) -> RunOutput {
    run(s, &TraceRequest::names(&["cwnd"]), true).expect("run")
}

/// Serialisation time of `bytes` at 1 Mb/s, ns.
fn tx_ns(bytes: u64) -> u64 {
    bytes * 8 * 1_000
}

#[test]
fn an_8_mib_transfer_takes_slow_start_rounds_plus_serialisation() {
    let bytes: u64 = 8 * 1024 * 1024;
    let out = run_traced(&one_link(bytes, "", ""));
    let f = &out.flows[0];

    let n = bytes.div_ceil(1000);
    let last_payload = bytes - (n - 1) * 1000;
    let t_data = tx_ns(1040);
    let t_ack = tx_ns(40);
    let d = 50_000_000;
    // A slow-start round lasts one RTT of the first segment while the link still idles
    // between bursts: the window w_k = 2^k with w_k * t_data < rtt0.
    let rtt0 = t_data + d + t_ack + d;
    let mut k = 0;
    let mut sent_before = 0;
    while (1u64 << k) * t_data < rtt0 {
        sent_before += 1u64 << k;
        k += 1;
    }
    // From round k on the link never idles: the rest is back-to-back serialisation.
    let expected = k * rtt0 + (n - sent_before - 1) * t_data + tx_ns(last_payload + 40) + d;

    assert_eq!(f.bytes_delivered, bytes);
    assert_eq!((f.retransmits, f.timeouts, f.drops), (0, 0, 0));
    let measured = f.finish.unwrap().0 - f.first_send.unwrap().0;
    assert_eq!(measured, expected, "k = {k} rounds, rtt0 = {rtt0} ns");
}

#[test]
fn one_dropped_segment_is_fast_retransmitted_once_and_cwnd_halves() {
    let drop = r#"loss = { kind = "drop", flow = "f1", segments = [40] }"#;
    let out = run_traced(&one_link(200_000, drop, "initial_ssthresh = 20"));
    let f = &out.flows[0];
    assert_eq!(f.bytes_delivered, 200_000);
    assert_eq!((f.retransmits, f.fast_retransmits, f.timeouts), (1, 1, 0));
    assert_eq!(f.data_drops, 1);

    let trace = out.cwnd().unwrap();
    // Find the halving: ssthresh drops below 20 exactly once.
    let halvings: Vec<usize> = (1..trace.ssthresh.len())
        .filter(|&i| trace.ssthresh[i] < trace.ssthresh[i - 1])
        .collect();
    assert_eq!(halvings.len(), 1, "one congestion event");
    let i = halvings[0];
    let cwnd_before = trace.cwnd[i - 1];
    // Reno: ssthresh = FlightSize / 2 (RFC 5681 eq. 4). Limited Transmit (RFC 3042, on by
    // default) sent two more segments on the first two duplicate ACKs, which "MUST NOT be
    // included" (§3.2 step 2): the flight is W.
    let ssthresh = trace.ssthresh[i];
    assert_eq!(ssthresh, (cwnd_before.floor() / 2.0).floor());
    // The controller's window is ssthresh at once; the window the sender may fill is
    // inflated by the three duplicate ACKs (RFC 5681 §3.2 step 3).
    assert_eq!(trace.cwnd[i], ssthresh);
    assert_eq!(trace.inflated_cwnd[i], ssthresh + 3.0);
    // Recovery ends with the window deflated to ssthresh.
    let exit = (i..trace.inflated_cwnd.len())
        .find(|&j| trace.inflated_cwnd[j] == ssthresh)
        .expect("deflation");
    assert!(trace.inflated_cwnd[i..exit].iter().all(|&c| c > ssthresh));
    assert!(trace.cwnd[i..exit].iter().all(|&c| c == ssthresh));
    // Outside recovery the two agree.
    assert!((0..i).all(|j| trace.cwnd[j] == trace.inflated_cwnd[j]));
}

#[test]
fn every_packet_is_delivered_dropped_or_in_flight_at_every_event() {
    // check_invariants = true audits conservation after each event; random and scripted
    // losses and a shallow queue exercise every path, including timeouts.
    let losses = r#"
loss = [{ kind = "drop", flow = "f1", segments = [3, 4, 5, 6, 30] }, { kind = "uniform", p = 0.02 }]
reverse = { loss = { kind = "uniform", p = 0.02 } }
"#;
    let s = one_link(300_000, losses, "");
    let out = run(&s, &TraceRequest::default(), true).expect("conservation holds");
    let f = &out.flows[0];
    assert_eq!(
        f.bytes_delivered, 300_000,
        "the transfer completes despite losses"
    );
    assert!(
        f.timeouts >= 1,
        "four losses in a row in slow start need a timeout"
    );
    assert_eq!(f.data_drops + f.ack_drops, f.drops);
}

#[test]
fn the_same_seed_gives_identical_results_and_another_seed_differs() {
    let lossy = r#"loss = { kind = "uniform", p = 0.01 }"#;
    let mut s = one_link(500_000, lossy, "");
    let strip = |mut o: RunOutput| {
        o.summary.core_wall_time_s = 0.0;
        o
    };
    let a = strip(run(&s, &TraceRequest::names(&["cwnd"]), false).unwrap());
    let b = strip(run(&s, &TraceRequest::names(&["cwnd"]), false).unwrap());
    assert_eq!(a, b);
    s.seed = 2;
    let c = strip(run(&s, &TraceRequest::names(&["cwnd"]), false).unwrap());
    assert_ne!(a.flows, c.flows);
}

#[test]
fn an_unlimited_flow_runs_for_the_duration() {
    let text = r#"
[simulation]
duration = "5s"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 20 }
[[flow]]
name = "bulk"
src = "a"
dst = "b"
"#;
    let out = run(
        &Scenario::from_toml_str(text).unwrap(),
        &TraceRequest::default(),
        false,
    )
    .unwrap();
    let f = &out.flows[0];
    assert_eq!(f.finish, None);
    assert_eq!(out.summary.sim_time.0, 5_000_000_000);
    // A 20-packet buffer forces losses; the flow still fills most of the 10 Mb/s link.
    assert!(f.drops > 0);
    assert!(f.throughput_bps() > 7e6, "{}", f.throughput_bps());
}
