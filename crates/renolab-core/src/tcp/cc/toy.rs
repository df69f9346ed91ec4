//! A toy controller that exists only in the crate's tests, registered as any other is (one
//! line in the registry of `cc/mod.rs`, under `#[cfg(test)]`): the proof that a controller
//! is one file. It grows the window by `step` segments per ACK, halves it on congestion, and
//! traces the ACKs it counted.

use serde_json::{json, Value};

use super::{
    halved_ssthresh, AckSample, BuildContext, Cc, Congestion, CongestionControl, Declaration,
    Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind, OptionReader, RecoveryRule,
    TraceField, TraceKind,
};
use crate::tcp::window::Window;
use crate::time::SimTime;

/// `step`: segments added per ACK.
pub const STEP: OptionDecl = OptionDecl {
    name: "step",
    kind: OptionKind::Int { min: 1, max: 10 },
    default: "`1`",
    doc: "segments the window grows by on each ACK",
    source: "renolab's tests",
};

/// The toy's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToyConfig {
    /// Segments per ACK.
    pub step: u32,
}

impl Declared for ToyConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "toy",
        summary: "a test's controller: additive increase by `step`, halving",
        options: &[&STEP],
        trace: &[TraceField {
            name: "toy_acks",
            kind: TraceKind::Number,
            doc: "ACKs the toy counted",
        }],
        modes: &[],
        profiles: &["rfc", "linux"],
        recovery: RecoveryRule::any(DefaultRecovery::Reno),
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError> {
        Ok(ToyConfig {
            step: options.int(&STEP)?.map_or(1, |n| n as u32),
        })
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![(STEP.name, json!(self.step))]
    }
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        Cc::Toy(Toy {
            step: self.step,
            cwnd: Window::segments(flow.initial_window.max(1)),
            ssthresh: Window::segments(flow.initial_ssthresh.max(2)),
            acks: 0,
        })
    }
}

/// The toy controller.
#[derive(Clone, Debug)]
pub struct Toy {
    step: u32,
    cwnd: Window,
    ssthresh: Window,
    acks: u64,
}

impl CongestionControl for Toy {
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
    fn on_ack(&mut self, _sample: &AckSample) {
        self.acks += 1;
        self.cwnd = self.cwnd.plus(self.step);
    }
    fn on_congestion(&mut self, _now: SimTime, _event: Congestion, window: Window) {
        self.ssthresh = halved_ssthresh(window);
        self.cwnd = self.ssthresh;
    }
    fn trace(&self, values: &mut [f64]) {
        values[0] = self.acks as f64;
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::cc::{cc_columns, registry};
    use crate::trace::{TraceRequest, TRACES};
    use crate::Scenario;

    const SCENARIO: &str = r#"
[simulation]
duration = "2s"
[[link]]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 20 }
[[flow]]
name = "f"
src = "a"
dst = "b"
variant = "toy"
options = { step = 2 }
"#;

    #[test]
    fn a_controller_registered_by_one_line_is_parsed_built_run_and_traced() {
        // The registry lists it, with its option.
        assert!(registry::names().contains(&"toy"));
        assert_eq!(
            registry::option("toy", "step").map(|o| o.name),
            Some("step")
        );
        // The scenario names it, its option is read against its declaration...
        let scenario = Scenario::from_toml_str(SCENARIO).expect("a valid scenario");
        let resolved = scenario.to_json().to_string();
        assert!(resolved.contains("\"variant\":\"toy\""), "{resolved}");
        assert!(resolved.contains("\"step\":2"), "{resolved}");
        let bad = SCENARIO.replace("step = 2", "step = 11");
        assert_eq!(
            Scenario::from_toml_str(&bad).unwrap_err().to_string(),
            "flow[0].options.step: 11 is out of range; allowed: 1 to 10"
        );
        // ... and the profiles it declares.
        let ns2 = SCENARIO.replace("[simulation]", "[simulation]\nprofile = \"ns2\"");
        assert_eq!(
            Scenario::from_toml_str(&ns2).unwrap_err().to_string(),
            "flow[0].variant: \"toy\" does not run under profile \"ns2\"; it runs under: rfc, linux"
        );
        // Its field is a column of the cc trace, after the published ones.
        let (_, layout) = TRACES.iter().find(|(n, _)| *n == "cc").expect("cc");
        assert_eq!(layout.last(), Some(&("toy_acks", "<f8")));
        assert_eq!(cc_columns().last().map(|c| c.name), Some("toy_acks"));
        // The run builds it and records what it counted.
        let out = crate::sim::run(&scenario, &TraceRequest::names(&["cc", "cwnd"]), true)
            .expect("the run");
        let acks = out
            .trace_column("cc", "toy_acks")
            .expect("the toy's column");
        assert!(acks.len() > 10, "{} rows", acks.len());
        assert!(acks.windows(2).all(|w| w[1] >= w[0]), "ACKs only add up");
        // It grew by two segments per ACK until the queue overflowed.
        let cwnd = out.cwnd().expect("the cwnd trace").cwnd;
        assert!(cwnd.windows(2).any(|w| w[1] == w[0] + 2.0), "{cwnd:?}");
        assert!(out.flows[0].fast_retransmits + out.flows[0].timeouts > 0);
    }
}
