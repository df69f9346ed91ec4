//! Every variant on deterministic paths: drop exactly these segments, then check
//! retransmissions, timeouts, cwnd and ssthresh, and the recovery dynamics of joo2000 and
//! lee2001 exactly.

use renolab_core::sim::SeqSeries;
use renolab_core::sim::{run, RunOutput};
use renolab_core::trace::SeqEvent;
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// A 10 Mb/s link with 50 ms each way and a buffer that never overflows; one flow of
/// `segments` 1000-byte segments (+40 header bytes), initial window 1, no delayed ACK.
fn path(variant: &str, segments: u32, drops: &[u32], options: &str) -> Scenario {
    path_with(variant, segments, drops, "", options)
}

/// As [`path`], with extra keys for the `[[flow]]` table (e.g. a profile).
fn path_with(
    variant: &str,
    segments: u32,
    drops: &[u32],
    flow_keys: &str,
    options: &str,
) -> Scenario {
    let drops = drops
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!(
        r#"
[[link]]
from = "s"
to = "r"
rate = "10Mbps"
delay = "50ms"
queue = {{ kind = "droptail", limit = 100000 }}
loss = {{ kind = "drop", flow = "f", segments = [{drops}] }}

[[flow]]
name = "f"
variant = "{variant}"
src = "s"
dst = "r"
bytes = {bytes}
mss = 1000
receiver = {{ delayed_ack = false }}
{flow_keys}

[flow.options]
initial_window = 1
min_rto = "200ms"
{options}
"#,
        bytes = segments as u64 * 1000
    );
    Scenario::from_toml_str(&text).expect("valid scenario")
}

fn go(s: &Scenario) -> RunOutput {
    run(s, &TraceRequest::names(&["cwnd", "seq"]), true).expect("run with invariant checks")
}

/// (fast retransmits, timeouts, retransmits) of the only flow.
fn counts(out: &RunOutput) -> (u64, u64, u64) {
    let f = &out.flows[0];
    assert!(f.finish.is_some(), "flow finished");
    (f.fast_retransmits, f.timeouts, f.retransmits)
}

/// (time, cwnd, ssthresh) rows of the cwnd trace.
fn cwnd_rows(out: &RunOutput) -> Vec<(u64, f64, f64)> {
    let c = &out.cwnd().unwrap();
    (0..c.time_ns.len())
        .map(|i| (c.time_ns[i], c.cwnd[i], c.ssthresh[i]))
        .collect()
}

fn events(out: &RunOutput) -> Vec<(u64, SeqEvent, u32)> {
    let s: &SeqSeries = &out.seq().unwrap();
    let decode = |e: u8| match e {
        0 => SeqEvent::Sent,
        1 => SeqEvent::Retransmitted,
        2 => SeqEvent::Acked,
        3 => SeqEvent::Dropped,
        _ => SeqEvent::AckDropped,
    };
    (0..s.time_ns.len())
        .map(|i| (s.time_ns[i], decode(s.event[i]), s.seq[i]))
        .collect()
}

fn retransmission_times(out: &RunOutput) -> Vec<(u64, u32)> {
    events(out)
        .iter()
        .filter(|e| e.1 == SeqEvent::Retransmitted)
        .map(|e| (e.0, e.2))
        .collect()
}

/// Segments outstanding just before `t`: highest sent + 1 - last cumulative ACK.
fn flight_before(out: &RunOutput, t: u64) -> u32 {
    let ev = events(out);
    let sent = ev
        .iter()
        .filter(|e| e.0 < t && e.1 == SeqEvent::Sent)
        .map(|e| e.2)
        .max()
        .unwrap()
        + 1;
    let acked = ev
        .iter()
        .filter(|e| e.0 < t && e.1 == SeqEvent::Acked)
        .map(|e| e.2)
        .max()
        .unwrap_or(0);
    sent - acked
}

/// RFC 5681's FlightSize at the fast retransmit at `t`: the flight before it without the
/// two new segments Limited Transmit (RFC 3042, on in the default profile) sent on the
/// first two duplicate ACKs, which "MUST NOT be included" (§3.2 step 2).
fn flight_at_fast_retransmit(out: &RunOutput, t: u64) -> u32 {
    flight_before(out, t) - 2
}

const RTT_NS: u64 = 100_000_000;

// ----- one loss -------------------------------------------------------------------------

#[test]
fn one_loss_sends_tahoe_back_to_slow_start() {
    let out = go(&path("tahoe", 300, &[100], "initial_ssthresh = 20"));
    assert_eq!(counts(&out), (1, 0, 1));
    let (t_rtx, _) = retransmission_times(&out)[0];
    let flight = flight_at_fast_retransmit(&out, t_rtx) as f64;
    let after = cwnd_rows(&out).into_iter().find(|r| r.0 >= t_rtx).unwrap();
    assert_eq!(
        (after.1, after.2),
        (1.0, (flight / 2.0).floor()),
        "cwnd 1, ssthresh FlightSize/2"
    );
}

#[test]
fn one_loss_halves_reno_newreno_and_sack_without_timeout() {
    for variant in ["reno", "newreno", "sack"] {
        let out = go(&path(variant, 300, &[100], "initial_ssthresh = 20"));
        assert_eq!(counts(&out), (1, 0, 1), "{variant}");
        let (t_rtx, _) = retransmission_times(&out)[0];
        let ssthresh = (flight_at_fast_retransmit(&out, t_rtx) / 2) as f64;
        let rows = cwnd_rows(&out);
        let at = rows.iter().find(|r| r.0 >= t_rtx).unwrap();
        assert_eq!(
            at.2, ssthresh,
            "{variant}: ssthresh = FlightSize/2 (RFC 5681 eq. 4)"
        );
        // After recovery the window is back to ssthresh and grows linearly from there.
        let exit = rows
            .iter()
            .find(|r| r.0 >= t_rtx && r.1 <= ssthresh)
            .unwrap();
        assert_eq!(
            exit.1, ssthresh,
            "{variant}: cwnd = ssthresh after recovery"
        );
    }
}

// ----- two losses in one window -----------------------------------------------------------

#[test]
fn two_losses_make_reno_wait_for_a_timeout() {
    // Reno leaves fast recovery on the partial ACK for the first loss; the duplicates for
    // the second are for data sent before the loss event, which the careful rule
    // (RFC 6582 §3.2 step 1, ns-2's bug_fix_) refuses to fast-retransmit: the RTO fires.
    let out = go(&path("reno", 300, &[100, 102], "initial_ssthresh = 20"));
    let (fr, to, rtx) = counts(&out);
    assert_eq!((fr, to), (1, 1));
    assert!(rtx >= 2);
}

#[test]
fn two_losses_cost_newreno_two_rtts_and_no_timeout() {
    let out = go(&path("newreno", 300, &[100, 102], "initial_ssthresh = 20"));
    assert_eq!(counts(&out), (1, 0, 2));
    let r = retransmission_times(&out);
    assert_eq!((r[0].1, r[1].1), (100, 102));
    // The second hole is retransmitted one RTT after the first (on the partial ACK).
    let gap = r[1].0 - r[0].0;
    assert!((RTT_NS..RTT_NS + 10_000_000).contains(&gap), "{gap}");
}

#[test]
fn two_losses_cost_sack_about_one_rtt() {
    for mode in ["ns2", "rfc6675"] {
        let opts = format!("initial_ssthresh = 20\nsack_recovery = \"{mode}\"");
        let out = go(&path("sack", 300, &[100, 102], &opts));
        assert_eq!(counts(&out), (1, 0, 2), "{mode}");
        let r = retransmission_times(&out);
        let gap = r[1].0 - r[0].0;
        assert!(
            gap < RTT_NS / 2,
            "{mode}: both holes retransmitted within one RTT ({gap} ns)"
        );
    }
}

// ----- many losses in one window: NewReno's d RTTs and joo2000 Table 1 ---------------------

/// Drops `d` segments of the slow-start round that starts at segment 63 (window 64).
fn many_drops(d: u32) -> Vec<u32> {
    (0..d).map(|i| 70 + i).collect()
}

struct Episode {
    /// joo2000's W: the window at loss detection halved (ssthresh after the fast
    /// retransmit). Its analysis idealises slow start so that the window at detection is
    /// exactly twice the window at which the first dropped segment left; in a real slow
    /// start it is one less (2W - 1), so the halved window is what the formulas need.
    w: u32,
    /// New segments sent between consecutive partial ACKs (N_1, N_2, ...).
    new_per_rtt: Vec<u32>,
    /// Segments sent at the instant recovery ended.
    burst: u32,
    /// Duration of recovery in RTTs (rounded).
    rtts: u64,
}

/// joo2000's analysis (and its simulations) use ns-2, whose loss response halves cwnd rather
/// than the flight size: run under the ns-2 profile, with the path's own settings.
fn newreno_episode(d: u32, pwd: bool) -> (Episode, RunOutput) {
    let drops = many_drops(d);
    // ns-2.1b5 as joo2000 ran it: Slow-but-Steady timer, no Limited Transmit.
    let opts = format!(
        "partial_window_deflation = {pwd}\ntimer_reset = \"slow_but_steady\"\nlimited_transmit = false\n\
         window = 100000\ninitial_ssthresh = 100000\nhandshake = false"
    );
    let out = go(&path_with(
        "newreno",
        3000,
        &drops,
        "profile = \"ns2\"",
        &opts,
    ));
    let ev = events(&out);
    assert_eq!(counts(&out).1, 0, "d = {d}: no timeout");
    let rtx: Vec<(u64, u32)> = retransmission_times(&out);
    let t_fr = rtx[0].0;
    let w = cwnd_rows(&out).iter().find(|r| r.0 >= t_fr).unwrap().2 as u32;
    let recover = ev
        .iter()
        .filter(|e| e.0 <= t_fr && e.1 == SeqEvent::Sent)
        .map(|e| e.2)
        .max()
        .unwrap()
        + 1;
    let t_end = ev
        .iter()
        .find(|e| e.1 == SeqEvent::Acked && e.2 >= recover)
        .unwrap()
        .0;
    // RTT-periods end at each partial ACK (the times of the later retransmissions).
    let mut bounds: Vec<u64> = rtx.iter().map(|r| r.0).collect();
    bounds.push(t_end);
    let new_per_rtt = bounds
        .windows(2)
        .map(|b| {
            ev.iter()
                .filter(|e| e.1 == SeqEvent::Sent && e.0 >= b[0] && e.0 < b[1])
                .count() as u32
        })
        .collect();
    let burst = ev
        .iter()
        .filter(|e| e.0 == t_end && e.1 == SeqEvent::Sent)
        .count() as u32;
    let rtts = ((t_end - t_fr) as f64 / RTT_NS as f64).round() as u64;
    (
        Episode {
            w,
            new_per_rtt,
            burst,
            rtts,
        },
        out,
    )
}

#[test]
fn newreno_needs_d_rtts_for_d_losses_in_one_window() {
    for d in [5, 10, 40] {
        let (ep, out) = newreno_episode(d, true);
        assert_eq!(counts(&out), (1, 0, d as u64), "d = {d}");
        assert_eq!(ep.rtts, d as u64, "d = {d}: recovery lasts d RTTs");
    }
}

#[test]
fn newreno_with_pwd_sends_joo2000s_new_packets_and_a_burst_of_one() {
    for d in [5, 10, 40] {
        let (ep, _) = newreno_episode(d, true);
        let expected: Vec<u32> = (1..=d).map(|k| (ep.w + k - 1).saturating_sub(d)).collect();
        assert_eq!(
            ep.new_per_rtt, expected,
            "d = {d}, W = {}: N_k = max(0, W - d + k - 1)",
            ep.w
        );
        assert_eq!(ep.burst, 1, "d = {d}: burst after recovery");
    }
}

#[test]
fn newreno_without_pwd_bursts_at_most_a_window() {
    for d in [5, 10, 40] {
        let (ep, _) = newreno_episode(d, false);
        assert!(ep.burst <= ep.w, "d = {d}: burst {} > W {}", ep.burst, ep.w);
        assert!(
            ep.new_per_rtt.iter().skip(1).all(|&n| n < ep.w),
            "{:?}",
            ep.new_per_rtt
        );
        let total: u32 = ep.new_per_rtt.iter().sum();
        assert!(total < 2 * ep.w, "total new {total} < 2W");
    }
}

// ----- Vegas --------------------------------------------------------------------------------

#[test]
fn vegas_settles_with_alpha_to_beta_segments_queued_and_no_loss() {
    // 10 Mb/s bottleneck behind a fast access link, 100 ms RTT, a buffer far larger than
    // Vegas will use, 40 s of unlimited transfer.
    let text = r#"
[simulation]
duration = "40s"
[[link]]
from = "s"
to = "g"
rate = "100Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = 10000 }
[[link]]
from = "g"
to = "r"
rate = "10Mbps"
delay = "49ms"
queue = { kind = "droptail", limit = 1000 }
[[flow]]
name = "v"
variant = "vegas"
src = "s"
dst = "r"
mss = 1000
receiver = { delayed_ack = false }
options = { initial_window = 2, alpha = 1, beta = 3, gamma = 1 }
"#;
    let out = go(&Scenario::from_toml_str(text).unwrap());
    let f = &out.flows[0];
    assert_eq!(f.drops, 0, "Vegas never fills the buffer");
    assert_eq!(f.retransmits, 0);
    // Backlog at the bottleneck from each RTT sample: (RTT - base RTT) x rate / packet.
    let ev = events(&out);
    let mut sent = std::collections::HashMap::new();
    let mut samples = Vec::new();
    for &(t, e, s) in &ev {
        match e {
            SeqEvent::Sent => {
                sent.insert(s, t);
            }
            SeqEvent::Acked => {
                if let Some(&t0) = sent.get(&(s - 1)) {
                    samples.push((t, t - t0));
                }
            }
            _ => {}
        }
    }
    let base = samples.iter().map(|s| s.1).min().unwrap();
    let pkt_ns = 1040 * 8 * 100; // 1040 bytes at 10 Mb/s
    let settled: Vec<f64> = samples
        .iter()
        .filter(|s| s.0 > 20_000_000_000)
        .map(|s| (s.1 - base) as f64 / pkt_ns as f64)
        .collect();
    let mean = settled.iter().sum::<f64>() / settled.len() as f64;
    assert!(
        (1.0..=3.0).contains(&mean),
        "mean backlog {mean:.2} segments"
    );
    assert!(settled.iter().all(|&q| q <= 4.0), "backlog stays near beta");
}
