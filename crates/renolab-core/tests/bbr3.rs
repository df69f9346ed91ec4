//! BBRv3 on whole scenarios through the Linux sender: its modes and ProbeBW's four phases on a
//! single flow, Startup's exit and the lower bounds on scripted losses, the upper bound on
//! a shallow buffer, and the flaw of BBRv1 it was built to fix (four flows on a 0.5-BDP
//! buffer).

use renolab_core::sim::{run, RunOutput};
use renolab_core::tcp::cc::cc_modes;
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// The path of the measurements of docs/variants/bbr3.md: 50 Mb/s, 18 ms one way at the
/// bottleneck and 1 ms on each access link (a 40 ms round trip), 1500-byte packets.
const BDP: f64 = 50e6 * 0.040 / 8.0 / 1500.0;

/// A Linux dumbbell of `variants` over that path with a DropTail buffer of `buffer`
/// packets, for `duration`; `access_loss` (a `loss = ...` line) goes on the first flow's
/// access link, where its drops act as the bottleneck's would for that flow.
fn dumbbell(variants: &[&str], buffer: u32, duration: &str, access_loss: &str) -> Scenario {
    let mut text = format!(
        r#"
[simulation]
seed = 1
duration = "{duration}"
profile = "linux"

[[link]]
name = "bottleneck"
from = "g1"
to = "g2"
rate = "50Mbps"
delay = "18ms"
queue = {{ kind = "droptail", limit = {buffer} }}
"#
    );
    for (i, variant) in variants.iter().enumerate() {
        let loss = if i == 0 { access_loss } else { "" };
        text += &format!(
            r#"
[[link]]
from = "s{i}"
to = "g1"
rate = "1Gbps"
delay = "1ms"
{loss}

[[link]]
from = "g2"
to = "r{i}"
rate = "1Gbps"
delay = "1ms"

[[flow]]
name = "f{i}"
variant = "{variant}"
src = "s{i}"
dst = "r{i}"
start = "{start}ms"
"#,
            start = 10 * i
        );
    }
    Scenario::from_toml_str(&text).expect("valid scenario")
}

fn go(s: &Scenario) -> RunOutput {
    run(s, &TraceRequest::names(&["cc", "cwnd"]), true).expect("run with invariant checks")
}

/// The `cc` trace's rows of flow 0: time (s), mode name, and the named columns.
struct Rows {
    time: Vec<f64>,
    mode: Vec<&'static str>,
    columns: Vec<Vec<f64>>,
}

fn rows(out: &RunOutput, columns: &[&str]) -> Rows {
    let cc = out.cc().expect("the cc trace");
    let values: Vec<Vec<f64>> = columns
        .iter()
        .map(|c| out.trace_column("cc", c).expect("a cc column"))
        .collect();
    let mut r = Rows {
        time: vec![],
        mode: vec![],
        columns: vec![vec![]; columns.len()],
    };
    for i in (0..cc.time_ns.len()).filter(|&i| cc.flow[i] == 0 && cc.mode[i] != 255) {
        r.time.push(cc.time_ns[i] as f64 / 1e9);
        r.mode.push(cc_modes()[cc.mode[i] as usize]);
        for (k, v) in values.iter().enumerate() {
            r.columns[k].push(v[i]);
        }
    }
    r
}

/// The modes of `rows` in order, each with when it began (s).
fn timeline(rows: &Rows) -> Vec<(f64, &'static str)> {
    let mut out: Vec<(f64, &'static str)> = vec![];
    for (t, m) in rows.time.iter().zip(&rows.mode) {
        if out.last().is_none_or(|l| l.1 != *m) {
            out.push((*t, m));
        }
    }
    out
}

#[test]
fn a_single_flow_runs_startup_drain_probe_bws_four_phases_and_probe_rtt_at_half_the_bdp() {
    let out = go(&dumbbell(&["bbr3"], 167, "12s", ""));
    let r = rows(&out, &["phase", "inflight_hi"]);
    let modes: Vec<&str> = timeline(&r).iter().map(|m| m.1).collect();
    // Drain hands over to ProbeBW_DOWN, which here ends on the same ACK (with GSO buffers
    // the flight at Drain's end is already at DOWN's target; without them DOWN lasted 2 ms),
    // so the trace's first ProbeBW row is CRUISE; the next cycle shows all four.
    assert_eq!(
        &modes[..7],
        &[
            "startup",
            "drain",
            "probe_bw_cruise",
            "probe_bw_refill",
            "probe_bw_up",
            "probe_bw_down",
            "probe_bw_cruise"
        ],
        "{modes:?}"
    );
    // The phase column numbers ProbeBW's phases as the kernel does; none outside ProbeBW.
    for (m, p) in r.mode.iter().zip(&r.columns[0]) {
        let expected = match *m {
            "probe_bw_up" => 0.0,
            "probe_bw_down" => 1.0,
            "probe_bw_cruise" => 2.0,
            "probe_bw_refill" => 3.0,
            _ => f64::NAN,
        };
        assert!(p.to_bits() == expected.to_bits(), "{m} {p}");
    }
    // The first probe waits 2 to 3 s after DOWN began; ProbeRTT comes 5 s after the SYN's
    // RTT without a lower one.
    let t = timeline(&r);
    let probe = t[4].0 - t[2].0;
    assert!((2.0..3.1).contains(&probe), "{t:?}");
    let probe_rtt = t.iter().find(|m| m.1 == "probe_rtt").expect("a ProbeRTT").0;
    assert!((5.0..5.3).contains(&probe_rtt), "{t:?}");
    // ProbeRTT holds cwnd at half the BDP (plus v3's quantization budget, a few segments).
    let cwnd = out.cwnd().unwrap();
    let end = t.iter().find(|m| m.0 > probe_rtt).unwrap().0;
    // The window in force just before ProbeRTT ends.
    let held = (0..cwnd.time_ns.len())
        .filter(|&i| cwnd.flow[i] == 0 && (cwnd.time_ns[i] as f64 / 1e9) < end - 0.01)
        .map(|i| cwnd.cwnd[i])
        .next_back()
        .unwrap();
    assert!(
        (BDP / 2.0..BDP / 2.0 + 8.0).contains(&held),
        "cwnd in ProbeRTT {held}, BDP {BDP}"
    );
    // Startup overflowed the 1-BDP buffer: the upper bound is set, near the pipe's 2 BDP.
    let hi = r.columns[1].iter().rev().find(|v| !v.is_nan()).copied();
    assert!(
        hi.is_some_and(|h| (1.5 * BDP..2.2 * BDP).contains(&h)),
        "{hi:?}"
    );
    // It fills the link.
    let f = &out.flows[0];
    let goodput = f.bytes_delivered as f64 * 8.0 / 12.0;
    assert!(goodput > 0.9 * 50e6 * 1448.0 / 1500.0, "{goodput}");
}

#[test]
fn scripted_losses_in_startup_end_it_before_the_bandwidth_plateaus_and_set_inflight_hi() {
    // A deep buffer: without losses Startup ends on the plateau.
    let clean = go(&dumbbell(&["bbr3"], 2000, "3s", ""));
    let clean_rows = rows(&clean, &["inflight_hi"]);
    let clean_drain = timeline(&clean_rows)[1];
    assert_eq!(clean_drain.1, "drain");
    assert!(
        clean_rows.columns[0].iter().all(|v| v.is_nan()),
        "no loss, no bound"
    );
    // Every fourth of segments 90 to 166 dropped: 20 losses in Startup's fifth round (10 %
    // of its flight), each found by its own ACK, six and more loss events in a round.
    let drops: Vec<String> = (90..170).step_by(4).map(|s| s.to_string()).collect();
    let loss = format!(
        "loss = {{ kind = \"drop\", flow = \"f0\", segments = [{}] }}",
        drops.join(", ")
    );
    let lossy = go(&dumbbell(&["bbr3"], 2000, "3s", &loss));
    let r = rows(&lossy, &["inflight_hi"]);
    let t = timeline(&r);
    assert_eq!((t[0].1, t[1].1), ("startup", "drain"), "{t:?}");
    assert!(
        t[1].0 < clean_drain.0 - 0.04,
        "ended on loss at {} s, on the plateau at {} s",
        t[1].0,
        clean_drain.0
    );
    // inflight_hi is set when Startup ends on loss: the larger of the BDP estimate and the
    // last round's delivered volume (66 segments: 65 before GSO buffers, which deliver the
    // round's last buffer whole).
    let at_drain = r.time.iter().position(|&s| s >= t[1].0).unwrap();
    assert_eq!(r.columns[0][at_drain], 66.0);
    assert!((0.26..0.27).contains(&t[1].0), "{t:?}");
    assert_eq!(lossy.flows[0].retransmits, 20);
}

#[test]
fn a_loss_while_cruising_bounds_the_flight_and_the_rate_from_below_at_0_7() {
    // The flow cruises from 0.57 s to 3.1 s on a 2-BDP buffer; segment 9000 leaves at
    // about 2.4 s.
    let loss = "loss = { kind = \"drop\", flow = \"f0\", segments = [9000] }";
    let out = go(&dumbbell(&["bbr3"], 334, "4s", loss));
    let r = rows(&out, &["inflight_lo", "bw_lo_bps", "bw_hi_bps"]);
    let first = r.columns[0]
        .iter()
        .position(|v| v.is_finite())
        .expect("a lower bound after the loss");
    let mode = r.mode[first];
    assert_eq!(mode, "probe_bw_cruise", "the loss came outside probing");
    // inflight_lo = max(inflight_latest, 0.7 x cwnd): here the window of 340 cut to 238.
    assert_eq!(r.columns[0][first], 238.0);
    // bw_lo = max(bw_latest, 0.7 x max_bw): within [0.7, 1] of bw_hi.
    let (bw_lo, bw_hi) = (r.columns[1][first], r.columns[2][first]);
    assert!(
        bw_lo >= 180.0 / 256.0 * bw_hi - 1.0 && bw_lo <= bw_hi,
        "bw_lo {bw_lo} bw_hi {bw_hi}"
    );
    // Probing resets the bounds: by the next REFILL they are gone.
    let refill = (first..r.mode.len())
        .find(|&i| r.mode[i] == "probe_bw_refill")
        .expect("a probe after the loss");
    assert!(r.columns[0][refill].is_nan() && r.columns[1][refill].is_nan());
    assert_eq!(out.flows[0].retransmits, 1);
}

/// Retransmitted over sent segments of all flows.
fn retransmitted(out: &RunOutput) -> f64 {
    let retx: u64 = out.flows.iter().map(|f| f.retransmits).sum();
    let sent: u64 = out.flows.iter().map(|f| f.segments_sent).sum();
    retx as f64 / sent as f64
}

#[test]
fn four_flows_on_half_a_bdp_of_buffer_retransmit_under_3_percent_where_bbr_v1_does_not() {
    let buffer = (BDP / 2.0).round() as u32;
    let v3 = go(&dumbbell(&["bbr3"; 4], buffer, "8s", ""));
    let v1 = go(&dumbbell(&["bbr"; 4], buffer, "8s", ""));
    let (r3, r1) = (retransmitted(&v3), retransmitted(&v1));
    assert!(r3 < 0.03, "BBRv3 retransmits {r3}");
    assert!(r1 > 0.05, "BBRv1 retransmits {r1}");
    // Both fill the link.
    for out in [&v3, &v1] {
        let bytes: u64 = out.flows.iter().map(|f| f.bytes_delivered).sum();
        assert!(bytes as f64 * 8.0 / 8.0 > 0.85 * 50e6 * 1448.0 / 1500.0);
    }
}
