//! L4S end to end: TCP Prague (ECT(1), Accurate ECN) and CUBIC through a DualPI2
//! bottleneck, run with the engine's invariant checks (conservation with marks), and a
//! Prague flow alone on a classic ECN queue.

use renolab_core::sim::{run, RunOutput};
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// The scenario file of a dumbbell of two flows (access 1 Gb/s, 0.5 ms; bottleneck 100 Mb/s,
/// 9 ms, `queue`).
fn dumbbell_text(queue: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
seed = 1
duration = "{duration}"
profile = "linux"

[[topology]]
kind = "dumbbell"
n = 2
access = {{ rate = "1Gbps", delay = "0.5ms" }}
bottleneck = {{ rate = "100Mbps", delay = "9ms", queue = {queue} }}
{flows}
"#
    )
}

fn dumbbell(queue: &str, flows: &str, duration: &str) -> Scenario {
    Scenario::from_toml_str(&dumbbell_text(queue, flows, duration))
        .unwrap_or_else(|e| panic!("{e}"))
}

const PRAGUE_AND_CUBIC: &str = r#"
[[flow]]
name = "cubic"
variant = "cubic"
src = "s2"
dst = "d2"

[[flow]]
name = "prague"
variant = "prague"
src = "s1"
dst = "d1"
start = "1s"
"#;

fn go(s: &Scenario) -> RunOutput {
    run(s, &TraceRequest::names(&["cwnd"]), true).expect("run with invariant checks")
}

#[test]
fn prague_and_cubic_share_a_dualpi2_bottleneck_each_in_its_queue() {
    let out = go(&dumbbell(r#"{ kind = "dualpi2" }"#, PRAGUE_AND_CUBIC, "8s"));
    let (cubic, prague) = (&out.flows[0], &out.flows[1]);
    assert_eq!(prague.variant, "prague");
    let bottleneck = out.links.iter().find(|l| l.link == "bottleneck").unwrap();
    let dual = bottleneck.dual;
    // Prague's ECT(1) packets are the L queue's, CUBIC's Not-ECT the classic queue's.
    // (Packets still queued or on the wire at the end are not counted yet.)
    let (l, c) = (dual.l_packets, dual.c_packets);
    assert!(
        l <= prague.segments_sent && l + 200 >= prague.segments_sent,
        "{dual:?} {prague:?}"
    );
    assert!(
        c <= cubic.segments_sent && c + 200 >= cubic.segments_sent,
        "{dual:?} {cubic:?}"
    );
    assert!(dual.l_marks > 0 && dual.c_drops > 0, "{dual:?}");
    assert_eq!(
        dual.c_marks, 0,
        "CUBIC without ECN is dropped, never marked"
    );
    // Prague learns the marks through AccECN and reduces for them, not for losses.
    assert!(
        prague.ecn_marks > 0 && prague.cwnd_reductions > 0,
        "{prague:?}"
    );
    assert_eq!(prague.retransmits, 0, "{prague:?}");
    // Both get a real share of the 100 Mb/s (the balance is docs/variants/l4s.md's).
    let rate = |f: &renolab_core::sim::FlowResult, secs: f64| f.bytes_delivered as f64 * 8.0 / secs;
    assert!(
        rate(prague, 7.0) > 10e6 && rate(cubic, 8.0) > 10e6,
        "{prague:?} {cubic:?}"
    );
    // The window stays finite and at least Prague's minimum of two segments.
    let cwnd = out.cwnd().unwrap();
    for i in 0..cwnd.time_ns.len() {
        if cwnd.flow[i] == 1 && cwnd.time_ns[i] > 1_100_000_000 {
            assert!(
                cwnd.cwnd[i].is_finite() && cwnd.cwnd[i] >= 2.0,
                "{}",
                cwnd.cwnd[i]
            );
        }
    }
}

#[test]
fn prague_needs_accurate_ecn() {
    let flows = r#"
[[flow]]
name = "p"
variant = "prague"
src = "s1"
dst = "d1"
options = { ecn = true }
"#;
    let text = dumbbell_text(r#"{ kind = "dualpi2" }"#, flows, "1s");
    let e = Scenario::from_toml_str(&text).unwrap_err().to_string();
    assert!(
        e.contains("flow[0].options.ecn") && e.contains("\"accecn\""),
        "{e}"
    );
}
