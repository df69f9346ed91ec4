//! Custom controllers (`variant = "python:..."`) through `sim::run_with`: the factory sees
//! each flow's settings, a controller that does what a built-in does gives the built-in's
//! run, a failing controller unwinds to the caller, and `run` refuses such a scenario.

use renolab_core::sim::{run, run_with, RunError, RunOutput};
use renolab_core::tcp::cc::{
    AckSample, Congestion, CongestionControl, ControllerFactory, CustomInit, Growth, Reno,
};
use renolab_core::tcp::{Dialect, Window};
use renolab_core::time::SimTime;
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// Two flows over a 10 Mb/s bottleneck with a 30-packet buffer: losses, fast retransmits
/// and (under ns2, with a small buffer) timeouts.
fn dumbbell(variant: &str, profile: &str) -> Scenario {
    let text = format!(
        r#"
[simulation]
profile = "{profile}"
[[link]]
from = "s1"
to = "g1"
rate = "100Mbps"
delay = "1ms"
[[link]]
from = "s2"
to = "g1"
rate = "100Mbps"
delay = "1ms"
[[link]]
name = "bottleneck"
from = "g1"
to = "g2"
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = 30 }}
[[link]]
from = "g2"
to = "r1"
rate = "100Mbps"
delay = "1ms"
[[flow]]
name = "a"
variant = "{variant}"
src = "s1"
dst = "r1"
bytes = 3000000
options = {{ window = 1000 }}
[[flow]]
name = "b"
variant = "{variant}"
src = "s2"
dst = "r1"
bytes = 2000000
start = "0.3s"
options = {{ window = 1000 }}
"#
    );
    Scenario::from_toml_str(&text).expect("valid scenario")
}

/// Builds the built-in Reno for every flow, as `sim/build.rs` does, and records what it
/// was told.
#[derive(Default)]
struct RenoFactory {
    seen: Vec<(u32, String, String, u32, u32, &'static str, SimTime)>,
}

impl ControllerFactory for RenoFactory {
    fn build(&mut self, init: &CustomInit<'_>) -> Box<dyn CongestionControl + Send> {
        self.seen.push((
            init.flow,
            init.flow_name.to_string(),
            init.reference.to_string(),
            init.initial_window,
            init.mss,
            init.profile,
            init.start,
        ));
        let growth = match init.dialect {
            Dialect::Linux => Growth::Linux,
            _ => Growth::PerAck,
        };
        let keep_fraction = init.dialect == Dialect::Ns2;
        Box::new(
            Reno::new(init.initial_window, init.initial_ssthresh, keep_fraction)
                .with_growth(growth),
        )
    }
}

fn same_flows(a: &RunOutput, b: &RunOutput) {
    assert_eq!(a.flows.len(), b.flows.len());
    for (x, y) in a.flows.iter().zip(&b.flows) {
        assert_eq!(
            (
                x.finish,
                x.retransmits,
                x.timeouts,
                x.fast_retransmits,
                x.drops,
                x.segments_sent
            ),
            (
                y.finish,
                y.retransmits,
                y.timeouts,
                y.fast_retransmits,
                y.drops,
                y.segments_sent
            ),
            "flow {}",
            x.flow
        );
    }
    assert_eq!(a.summary.events, b.summary.events);
}

#[test]
fn a_custom_controller_doing_renos_arithmetic_runs_as_the_builtin_reno() {
    for profile in ["ns2", "rfc", "linux"] {
        let builtin = run(&dumbbell("reno", profile), &TraceRequest::default(), true).unwrap();
        let mut factory = RenoFactory::default();
        let custom = run_with(
            &dumbbell("python:my.controllers:Reno", profile),
            &TraceRequest::default(),
            true,
            &mut factory,
            &mut |_, _| true,
        )
        .unwrap();
        same_flows(&builtin, &custom);
        assert!(
            builtin.flows[0].retransmits > 0,
            "{profile}: the path loses"
        );
        assert_eq!(custom.flows[0].variant, "python");
        let iw = if profile == "ns2" { 2 } else { 10 };
        let mss = match profile {
            "ns2" => 1000,
            "linux" => 1448, // 1460 less the timestamp option
            _ => 1460,
        };
        assert_eq!(
            factory.seen,
            vec![
                (
                    0,
                    "a".into(),
                    "python:my.controllers:Reno".into(),
                    iw,
                    mss,
                    profile,
                    SimTime::ZERO
                ),
                (
                    1,
                    "b".into(),
                    "python:my.controllers:Reno".into(),
                    iw,
                    mss,
                    profile,
                    SimTime(300_000_000)
                ),
            ],
            "{profile}"
        );
    }
}

#[test]
fn run_refuses_a_scenario_with_a_custom_controller() {
    let err = run(
        &dumbbell("python:m:C", "rfc"),
        &TraceRequest::default(),
        false,
    )
    .unwrap_err();
    assert_eq!(
        err,
        RunError::Controller(
            "flow[0].variant: \"python:m:C\" is a Python controller: run the scenario from Python (renolab run, Scenario.run)".into()
        )
    );
}

/// Fails on its fifth ACK by unwinding with its own payload.
struct Failing {
    cwnd: Window,
    acks: u32,
}

#[derive(Debug, PartialEq)]
struct Failed(SimTime);

impl CongestionControl for Failing {
    fn cwnd(&self) -> Window {
        self.cwnd
    }
    fn ssthresh(&self) -> Window {
        Window::segments(u32::MAX)
    }
    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd;
    }
    fn set_ssthresh(&mut self, _: Window) {}
    fn on_ack(&mut self, sample: &AckSample) {
        self.acks += 1;
        if self.acks == 5 {
            std::panic::resume_unwind(Box::new(Failed(sample.now)));
        }
        self.cwnd = self.cwnd.plus(1);
    }
    fn on_congestion(&mut self, _: SimTime, _: Congestion, _: Window) {}
}

struct FailingFactory;

impl ControllerFactory for FailingFactory {
    fn build(&mut self, _: &CustomInit<'_>) -> Box<dyn CongestionControl + Send> {
        Box::new(Failing {
            cwnd: Window::segments(1),
            acks: 0,
        })
    }
}

#[test]
fn a_failing_controller_unwinds_to_the_caller_with_its_payload() {
    let scenario = dumbbell("python:m:C", "rfc");
    let outcome = std::panic::catch_unwind(|| {
        run_with(
            &scenario,
            &TraceRequest::default(),
            false,
            &mut FailingFactory,
            &mut |_, _| true,
        )
    });
    let payload = outcome.expect_err("the run unwinds");
    let failed = payload
        .downcast_ref::<Failed>()
        .expect("the controller's payload");
    assert!(failed.0 > SimTime::ZERO);
}

// -- The worked example of docs/extending.md: the Python AIMD ported to Rust ----------------

/// AIMD: additive increase, multiplicative decrease (examples/python_cc.py's `Aimd`, with
/// a gain), ported hook by hook. Its arithmetic is the prototype's, in floats, rounded to
/// the window's resolution where the prototype's values reach the engine: the port then
/// runs bit for bit as the prototype.
#[derive(Clone, Debug)]
struct Aimd {
    cwnd: Window,
    ssthresh: Window,
    gain: f64,
}

impl Aimd {
    /// `on_start`: the initial threshold is the flow's, the window 10 segments.
    fn new(initial_ssthresh: u32, gain: f64) -> Self {
        Aimd {
            cwnd: Window::segments(10),
            ssthresh: Window::segments(initial_ssthresh.max(2)),
            gain,
        }
    }
}

impl CongestionControl for Aimd {
    fn cwnd(&self) -> Window {
        self.cwnd
    }
    fn ssthresh(&self) -> Window {
        self.ssthresh
    }
    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd.max(Window::segments(1));
    }
    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.max(Window::segments(2));
    }
    fn on_ack(&mut self, sample: &AckSample) {
        let (cwnd, acked) = (self.cwnd.as_f64(), sample.acked as f64);
        let next = if self.cwnd < self.ssthresh {
            cwnd + acked
        } else {
            cwnd + self.gain * acked / cwnd
        };
        self.cwnd = Window::from_f64(next);
    }
    fn on_congestion(&mut self, _now: SimTime, event: Congestion, _window: Window) {
        self.ssthresh = Window::from_f64((self.cwnd.as_f64() / 2.0).max(2.0));
        self.cwnd = match event {
            Congestion::Timeout => Window::segments(1),
            _ => self.ssthresh,
        };
    }
}

struct AimdFactory;

impl ControllerFactory for AimdFactory {
    fn build(&mut self, init: &CustomInit<'_>) -> Box<dyn CongestionControl + Send> {
        let gain = init
            .args
            .get("gain")
            .and_then(|g| g.as_f64())
            .unwrap_or(1.0);
        Box::new(Aimd::new(init.initial_ssthresh, gain))
    }
}

/// The figures tests/python/test_python_cc.py expects of the Python AIMD on the same scenario.
const AIMD_FINISH_NS: [u64; 2] = [9_293_691_200, 8_067_116_800];
const AIMD_RETRANSMITS: [u64; 2] = [238, 187];
const AIMD_TIMEOUTS: [u64; 2] = [5, 4];
const AIMD_EVENTS: u64 = 22_916;

#[test]
fn the_aimd_ported_to_rust_runs_as_its_python_prototype() {
    let text = include_str!("../../../tests/scenarios/aimd_port.toml");
    let scenario = Scenario::from_toml_str(text).unwrap();
    let out = run_with(
        &scenario,
        &TraceRequest::default(),
        true,
        &mut AimdFactory,
        &mut |_, _| true,
    )
    .unwrap();
    let finish: Vec<u64> = out.flows.iter().map(|f| f.finish.unwrap().0).collect();
    let retransmits: Vec<u64> = out.flows.iter().map(|f| f.retransmits).collect();
    let timeouts: Vec<u64> = out.flows.iter().map(|f| f.timeouts).collect();
    assert_eq!(finish, AIMD_FINISH_NS);
    assert_eq!(retransmits, AIMD_RETRANSMITS);
    assert_eq!(timeouts, AIMD_TIMEOUTS);
    assert_eq!(out.summary.events, AIMD_EVENTS);
}
