//! Running a scenario: the public entry point [`run`], the event loop, and why a run can
//! fail ([`RunError`]).

use super::{results, InvariantViolation, Network, RunOutput, Simulation, StopReason};
use crate::engine::Event;
use crate::scenario::Scenario;
use crate::tcp::cc::{ControllerFactory, NoCustomControllers};
use crate::trace::{NoTrace, PcapFlow, PcapSet, Recorder, TraceRequest, Tracer};

/// Runs `scenario` to the end, recording what `traces` asks for.
///
/// With `check_invariants`, packet conservation and the window bounds are audited after
/// every event (slow; for tests). A scenario whose flows name a custom controller
/// (`variant = "python:..."`) needs [`run_with`]: here it is refused.
pub fn run(
    scenario: &Scenario,
    traces: &TraceRequest,
    check_invariants: bool,
) -> Result<RunOutput, RunError> {
    if let Some((i, flow)) = scenario
        .flows
        .iter()
        .enumerate()
        .find(|(_, f)| f.custom_cc().is_some())
    {
        let reference = &flow.custom_cc().expect("found").reference;
        return Err(RunError::Controller(format!(
            "flow[{i}].variant: {reference:?} is a Python controller: run the scenario from Python (renolab run, Scenario.run)"
        )));
    }
    run_with(scenario, traces, check_invariants, &mut NoCustomControllers)
}

/// [`run`], with `controllers` building the controllers of the flows that name a custom
/// one, before the run starts. A controller that fails ends the run by unwinding with its
/// own payload ([`crate::tcp::cc::custom`]).
pub fn run_with(
    scenario: &Scenario,
    traces: &TraceRequest,
    check_invariants: bool,
    controllers: &mut dyn ControllerFactory,
) -> Result<RunOutput, RunError> {
    check_trace_sizes(scenario, traces)?;
    if traces.is_empty() {
        let mut sim = Simulation::with_controllers(scenario, NoTrace, controllers);
        sim.check_invariants = check_invariants;
        return Ok(sim.run_to_end()?.0);
    }
    let pcap = match &traces.pcap_dir {
        Some(dir) => Some(pcap_set(scenario, dir).map_err(RunError::Trace)?),
        None => None,
    };
    let recorder = Recorder::new(traces, pcap).map_err(RunError::BadTrace)?;
    let mut sim = Simulation::with_controllers(scenario, recorder, controllers);
    sim.check_invariants = check_invariants;
    let (mut out, recorder) = sim.run_to_end()?;
    out.traces = recorder.finish().map_err(RunError::Trace)?;
    Ok(out)
}

/// Refuses, before the run, an in-memory trace that the run's estimate says cannot fit.
fn check_trace_sizes(scenario: &Scenario, traces: &TraceRequest) -> Result<(), RunError> {
    if traces.dir.is_some() || traces.names.is_empty() {
        return Ok(());
    }
    let limit = traces
        .memory_limit
        .unwrap_or(crate::trace::DEFAULT_MEMORY_LIMIT);
    let estimate = scenario.estimate();
    for name in &traces.names {
        match estimate.trace_bytes(name) {
            Some(bytes) if bytes > limit => {
                return Err(RunError::Limit(format!(
                    "trace {name}: the run would record about {bytes} bytes, more than the in-memory trace limit of {limit} bytes; write traces to a directory (trace_dir, or the command line's --out) or raise the limit"
                )))
            }
            // Unknown names are left to the recorder, which lists the allowed ones.
            _ => {}
        }
    }
    Ok(())
}

fn pcap_set(scenario: &Scenario, dir: &std::path::Path) -> Result<PcapSet, String> {
    use crate::net::headers::UDP_IP_HEADER_BYTES;
    use crate::scenario::Traffic;
    use crate::trace::pcap::{flow_source, node_ip, TCP_SERVER_PORT, UDP_SINK_PORT};
    let flows = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(index, flow)| {
            let (udp, mss, bytes, header_bytes, sack) = match &flow.traffic {
                Traffic::Tcp(t) => (
                    false,
                    t.mss,
                    t.bytes,
                    t.sender.header_bytes,
                    t.receiver.sack,
                ),
                Traffic::Cbr(c) => (true, c.packet_bytes, None, UDP_IP_HEADER_BYTES, false),
            };
            let (src_ip, src_port) = flow_source(index, flow.src);
            PcapFlow {
                src_ip,
                dst_ip: node_ip(flow.dst),
                src_port,
                dst_port: if udp { UDP_SINK_PORT } else { TCP_SERVER_PORT },
                udp,
                mss,
                bytes,
                header_bytes,
                sack,
            }
        })
        .collect();
    let names: Vec<String> = scenario.links.iter().map(|l| l.name.clone()).collect();
    PcapSet::create(dir, &names, flows)
}

/// Why a run could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A trace name that does not exist.
    BadTrace(String),
    /// A trace could not be written or outgrew its limit.
    Trace(String),
    /// An invariant check failed (a bug in the engine).
    Invariant(InvariantViolation),
    /// The run would pass, or passed, a limit (`simulation.max_events`, the in-memory trace
    /// limit).
    Limit(String),
    /// A flow's controller cannot run here (a Python controller outside Python).
    Controller(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::BadTrace(m) => write!(f, "trace: {m}"),
            RunError::Trace(m) => write!(f, "{m}"),
            RunError::Invariant(v) => write!(f, "{v}"),
            RunError::Limit(m) | RunError::Controller(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<InvariantViolation> for RunError {
    fn from(v: InvariantViolation) -> Self {
        RunError::Invariant(v)
    }
}

impl<T: Tracer> Simulation<T> {
    /// Runs until the stop time (or, without a duration, until every flow has finished).
    /// Returns the results and the tracer with whatever it recorded.
    pub fn run_to_end(mut self) -> Result<(RunOutput, T), RunError> {
        let wall = std::time::Instant::now();
        let stop_reason = if self.stop_when_finished && self.unfinished == 0 {
            StopReason::AllFlowsFinished
        } else if self.check_invariants {
            self.event_loop::<true>()?
        } else {
            self.event_loop::<false>()?
        };
        if self.check_invariants {
            self.audit()?;
        }
        let out = results::collect(&self, stop_reason, wall.elapsed().as_secs_f64());
        Ok((out, self.tracer))
    }

    /// Handles events until the run ends, auditing the invariants after each one if `AUDIT`.
    // `AUDIT` a constant: the loop of ordinary runs then neither tests it at every event nor
    // holds the audit's call and error path (2 % fewer instructions on the reference
    // dumbbell, callgrind).
    fn event_loop<const AUDIT: bool>(&mut self) -> Result<StopReason, RunError> {
        while let Some((now, event)) = self.sched.pop() {
            if self.sched.events_fired() > self.max_events {
                return Err(RunError::Limit(format!(
                    "simulation.max_events: the run passed {} events at t = {now} s; raise simulation.max_events or shorten the run",
                    self.max_events
                )));
            }
            match event {
                Event::TxEnd { dir } => Network::on_tx_end(self, now, dir),
                Event::Arrive { dir } => Network::on_arrive(self, now, dir),
                Event::FlowStart { flow } => self.on_flow_start(now, flow),
                Event::FlowStop { flow } => self.on_flow_stop(now, flow),
                Event::CbrSend { flow } => self.on_cbr_send(now, flow),
                Event::SenderTimer { flow } => self.on_sender_timer(now, flow),
                Event::ReceiverTimer { flow } => self.on_receiver_timer(now, flow),
                Event::Stop if self.stop_when_finished => return Ok(StopReason::TimeLimit),
                Event::Stop => return Ok(StopReason::Duration),
            }
            if AUDIT {
                self.audit()?;
            }
            if self.stop_when_finished && self.unfinished == 0 {
                return Ok(StopReason::AllFlowsFinished);
            }
        }
        Ok(StopReason::TimeLimit)
    }
}
