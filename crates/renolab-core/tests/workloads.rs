//! Workloads: flows that arrive as the run goes. A fixed seed creates exactly the flows its
//! stream draws; a flow alone on an empty path completes in its ideal time; no flow beats
//! its ideal time; finished flows are retired, so the flow table stays as small as the
//! number of flows alive at once.

use renolab_core::app::{FlowSizes, PoissonArrivals, SizeCdf};
use renolab_core::rng::RngStream;
use renolab_core::sim::workload::drawn_flows;
use renolab_core::sim::{run, RunOutput};
use renolab_core::time::{SimDuration, SimTime};
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// A dumbbell: two senders, two receivers, a 10 Mb/s bottleneck of 10 ms; `workload` is
/// the `[[workload]]` table's body.
fn dumbbell(workload: &str, duration: &str) -> Scenario {
    let text = format!(
        r#"
simulation = {{ seed = 7{duration} }}
[[link]]
from = "a1"
to = "r1"
rate = "1Gbps"
delay = "1ms"
[[link]]
from = "a2"
to = "r1"
rate = "1Gbps"
delay = "1ms"
[[link]]
name = "neck"
from = "r1"
to = "r2"
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = 100 }}
[[link]]
from = "r2"
to = "b1"
rate = "1Gbps"
delay = "1ms"
[[link]]
from = "r2"
to = "b2"
rate = "1Gbps"
delay = "1ms"
[[workload]]
{workload}
"#
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn run_checked(scenario: &Scenario) -> RunOutput {
    run(scenario, &TraceRequest::default(), true).unwrap()
}

#[test]
fn a_fixed_seed_creates_exactly_the_flows_its_stream_draws() {
    let scenario = dumbbell(
        r#"name = "w"
rate = 50
sizes = { pareto = { mean = "20KB", shape = 1.5 } }
pairs = { from = ["a1", "a2"], to = ["b1", "b2"] }
max_flows = 40"#,
        "",
    );
    let out = run_checked(&scenario);
    assert_eq!(out.flows.len(), 40);
    // The same draws, in the documented order: at each arrival the size, then the pair,
    // then the gap to the next arrival; the first gap from the start.
    let mut rng = RngStream::derive(7, "workload/w");
    let arrivals = PoissonArrivals { per_second: 50.0 };
    let sizes = FlowSizes::Pareto {
        mean: 20_000.0,
        shape: 1.5,
    };
    let pick = |rng: &mut RngStream, n: u128| ((n * rng.next_u64() as u128) >> 64) as usize;
    let mut at = arrivals.gap(&mut rng).as_nanos();
    for (n, row) in out.flows.iter().enumerate() {
        let size = sizes.draw(&mut rng);
        // from = [a1, a2], to = [b1, b2]: never the same node, one draw each.
        let src = ["a1", "a2"][pick(&mut rng, 2)];
        let dst = ["b1", "b2"][pick(&mut rng, 2)];
        assert_eq!(row.flow, format!("w-{n}"));
        assert_eq!((row.src.as_str(), row.dst.as_str()), (src, dst), "flow {n}");
        assert_eq!(row.size_bytes, Some(size), "flow {n}");
        assert_eq!(row.start.0, at, "flow {n}");
        assert_eq!(row.bytes_delivered, size, "flow {n} finished");
        at += arrivals.gap(&mut rng).as_nanos();
    }
    // Same seed, same flows, to the byte; another seed, other flows.
    assert_eq!(run_checked(&scenario).flows, out.flows);
    let mut other = scenario.clone();
    other.seed = 8;
    assert_ne!(run_checked(&other).flows[0].start, out.flows[0].start);
}

#[test]
fn the_flows_drawn_before_a_run_are_the_flows_it_creates() {
    // Two workloads interleaving: what `drawn_flows` draws before the run (for `renolab
    // emulate`) is what the simulation creates, in the order of its ids.
    let mut scenario = dumbbell(
        r#"name = "w"
rate = 50
sizes = "websearch"
pairs = { from = ["a1", "a2"], to = ["b1", "b2"] }
max_flows = 30"#,
        ", duration = \"3s\"",
    );
    let mut second = dumbbell(
        r#"name = "v"
rate = 20
sizes = { fixed = "10KB" }
pairs = [["a2", "b1"]]
start = "0.2s"
stop = "1s""#,
        "",
    )
    .workloads
    .remove(0);
    second.tcp.mss = 1000;
    scenario.workloads.push(second);
    let out = run_checked(&scenario);
    let end = SimTime::ZERO + SimDuration::from_secs(3);
    let drawn = drawn_flows(&scenario, end, usize::MAX);
    assert!(drawn.iter().any(|d| d.workload == 1) && drawn.len() > 30);
    assert_eq!(out.flows.len(), drawn.len());
    for (row, d) in out.flows.iter().zip(&drawn) {
        assert_eq!(row.flow, d.name);
        let ends = (
            scenario.nodes[d.src as usize].as_str(),
            scenario.nodes[d.dst as usize].as_str(),
        );
        assert_eq!((row.src.as_str(), row.dst.as_str()), ends, "{}", d.name);
        assert_eq!(
            (row.start, row.size_bytes),
            (d.arrival, d.tcp.bytes),
            "{}",
            d.name
        );
    }
    // At most as many as asked, the first ones.
    assert_eq!(drawn_flows(&scenario, end, 5), drawn[..5]);
}

#[test]
fn a_flow_alone_on_an_empty_path_completes_in_its_ideal_time() {
    // One flow at a time (a gap of at least 10 s between arrivals at this rate is likely
    // but not sure: max_flows = 1 makes it sure), for sizes in the initial window and
    // beyond it.
    for (profile, size) in [
        ("linux", "10KB"),
        ("linux", "14600B"),
        ("linux", "1MB"),
        ("ns2", "1000B"),
        ("ns2", "100KB"),
    ] {
        let scenario = dumbbell(
            &format!(
                r#"name = "w"
rate = 1
sizes = {{ fixed = "{size}" }}
pairs = [["a1", "b1"]]
profile = "{profile}"
receiver = {{ delayed_ack = false }}
max_flows = 1"#
            ),
            "",
        );
        let out = run_checked(&scenario);
        let row = &out.flows[0];
        let (fct, ideal) = (row.fct_s().unwrap(), row.ideal_fct_s().unwrap());
        // One 1500-byte packet at the 10 Mb/s bottleneck: 1.2 ms.
        let serialisation = 1500.0 * 8.0 / 10e6;
        assert!(
            fct >= ideal && fct - ideal <= serialisation,
            "{profile} {size}: fct {fct} s, ideal {ideal} s"
        );
    }
}

#[test]
fn no_flow_beats_its_ideal_time_under_load_and_finished_flows_are_retired() {
    let scenario = dumbbell(
        r#"name = "web"
load = 0.6
sizes = "websearch"
pairs = { from = ["a1", "a2"], to = ["b1", "b2"] }
mss = 1460
max_flows = 300"#,
        "",
    );
    // The web-search mean is 1.6 MB: at 60 % of 10 Mb/s, about 0.47 flows a second.
    let per_second = scenario.workloads[0].arrivals.per_second;
    let mean = SizeCdf::builtin("websearch").unwrap().mean();
    assert!((per_second - 0.6 * 10e6 / 8.0 / mean).abs() < 1e-9);
    let out = run(&scenario, &TraceRequest::default(), false).unwrap();
    assert_eq!(out.flows.len(), 300);
    let finished: Vec<f64> = out.flows.iter().filter_map(|f| f.slowdown()).collect();
    assert_eq!(finished.len(), 300, "every flow finished");
    assert!(
        finished.iter().all(|&s| s >= 1.0),
        "slowdowns {:?}",
        finished.iter().cloned().fold(f64::INFINITY, f64::min)
    );
    // The flow table held the flows alive at once, not all 300.
    assert!(
        out.summary.peak_flows < 60,
        "peak flows {}",
        out.summary.peak_flows
    );
}

#[test]
fn a_workload_needs_an_end_without_a_duration_and_names_bad_input() {
    let bad = |body: &str| {
        let text = format!(
            "[[link]]\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[workload]]\n{body}\n"
        );
        Scenario::from_toml_str(&text).unwrap_err().to_string()
    };
    let e = bad("name = \"w\"\nrate = 1\nsizes = \"websearch\"\npairs = [[\"a\", \"b\"]]");
    assert!(
        e.contains("simulation.duration") && e.contains("\"w\""),
        "{e}"
    );
    let e =
        bad("name = \"w\"\nrate = 1\nsizes = \"hadoop\"\npairs = [[\"a\", \"b\"]]\nmax_flows = 1");
    assert!(
        e.starts_with("workload[0].sizes") && e.contains("websearch"),
        "{e}"
    );
    let e = bad("name = \"w\"\nsizes = \"websearch\"\npairs = [[\"a\", \"b\"]]\nmax_flows = 1");
    assert!(e.starts_with("workload[0].load: is required"), "{e}");
    let e = bad(
        "name = \"w\"\nrate = 1\nsizes = \"websearch\"\npairs = [[\"a\", \"c\"]]\nmax_flows = 1",
    );
    assert!(e.contains("unknown node \"c\""), "{e}");
    let e = bad("name = \"w\"\nrate = 1\nsizes = { pareto = { mean = \"1KB\", shape = 1.0 } }\npairs = [[\"a\", \"b\"]]\nmax_flows = 1");
    assert!(e.contains("shape") && e.contains("above 1"), "{e}");
}
