//! Running a scenario: the public entry point [`run`], the event loop, and why a run can
//! fail ([`RunError`]).

use super::{results, InvariantViolation, Network, RunOutput, Simulation, StopReason};
use crate::engine::Event;
use crate::scenario::Scenario;
use crate::tcp::cc::{ControllerFactory, NoCustomControllers};
use crate::time::SimTime;
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
    run_with(
        scenario,
        traces,
        check_invariants,
        &mut NoCustomControllers,
        &mut |_, _| true,
    )
}

/// Events between two calls of a run's monitor: few enough that a run stops within
/// milliseconds of being asked to (10^6 to 10^7 events a second), many enough that the
/// call is lost in the noise (one test of the event counter per event; callgrind on the
/// reference dumbbell: docs/benchmarks.md).
pub const MONITOR_EVERY_EVENTS: u64 = 1 << 10;

/// [`run`], with `controllers` building the controllers of the flows that name a custom
/// one, before the run starts, and calling `monitor(now, events)` every
/// [`MONITOR_EVERY_EVENTS`] events: it may show progress, and stops the run by returning
/// false (a stopped run returns what it collected so far, with
/// [`StopReason::Interrupted`]). A controller that fails ends the run by unwinding with its
/// own payload ([`crate::tcp::cc::custom`]).
pub fn run_with(
    scenario: &Scenario,
    traces: &TraceRequest,
    check_invariants: bool,
    controllers: &mut dyn ControllerFactory,
    monitor: &mut dyn FnMut(SimTime, u64) -> bool,
) -> Result<RunOutput, RunError> {
    check_trace_sizes(scenario, traces)?;
    if traces.is_empty() {
        let mut sim = Simulation::with_controllers(scenario, NoTrace, controllers);
        sim.check_invariants = check_invariants;
        return Ok(sim.run_monitored(monitor)?.0);
    }
    let pcap = match &traces.pcap_dir {
        Some(dir) => {
            let names = scenario.links.iter().map(|l| l.name.as_str());
            crate::trace::pcap::check_file_names(
                names.chain(scenario.media.iter().map(|m| m.name.as_str())),
            )
            .map_err(RunError::Output)?;
            Some(pcap_set(scenario, dir).map_err(RunError::Trace)?)
        }
        None => None,
    };
    let recorder = Recorder::new(traces, pcap).map_err(RunError::BadTrace)?;
    let mut sim = Simulation::with_controllers(scenario, recorder, controllers);
    sim.check_invariants = check_invariants;
    let (mut out, recorder) = sim.run_monitored(monitor)?;
    (out.traces, out.trace_failures) = recorder.finish();
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
    use crate::packet::headers::UDP_IP_HEADER_BYTES;
    use crate::scenario::Traffic;
    use crate::trace::pcap::{flow_source, node_ip, UDP_SINK_PORT};
    let flows = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(index, flow)| match &flow.traffic {
            Traffic::Tcp(t) => pcap_tcp_flow(index as u32, flow.src, flow.dst, t),
            Traffic::Cbr(c) => {
                let (src_ip, src_port) = flow_source(index, flow.src);
                PcapFlow {
                    src_ip,
                    dst_ip: node_ip(flow.dst),
                    src_port,
                    dst_port: UDP_SINK_PORT,
                    udp: true,
                    mss: c.packet_bytes,
                    bytes: None,
                    header_bytes: UDP_IP_HEADER_BYTES,
                    sack: false,
                }
            }
        })
        .collect();
    let names: Vec<String> = scenario.links.iter().map(|l| l.name.clone()).collect();
    let mut set = PcapSet::create(dir, &names, flows)?;
    let media: Vec<String> = scenario.media.iter().map(|m| m.name.clone()).collect();
    set.add_media(dir, &media)?;
    Ok(set)
}

/// What a capture needs of TCP flow `id` from `src` to `dst` (a `[[flow]]`'s, or a
/// workload's at its arrival).
pub(super) fn pcap_tcp_flow(id: u32, src: u32, dst: u32, t: &crate::scenario::TcpSpec) -> PcapFlow {
    use crate::trace::pcap::{flow_source, node_ip, TCP_SERVER_PORT};
    let (src_ip, src_port) = flow_source(id as usize, src);
    PcapFlow {
        src_ip,
        dst_ip: node_ip(dst),
        src_port,
        dst_port: TCP_SERVER_PORT,
        udp: false,
        mss: t.mss,
        bytes: t.bytes,
        header_bytes: t.sender.header_bytes,
        sack: t.receiver.sack,
    }
}

/// Why a run could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A trace name that does not exist.
    BadTrace(String),
    /// A trace or pcap file could not be created (a trace that fails later is cut short
    /// instead: [`RunOutput::trace_failures`]).
    Trace(String),
    /// An invariant check failed (a bug in the engine).
    Invariant(InvariantViolation),
    /// The run would pass, or passed, a limit (`simulation.max_events`, the in-memory trace
    /// limit).
    Limit(String),
    /// A flow's controller cannot run here (a Python controller outside Python).
    Controller(String),
    /// Outputs that cannot be written as asked (pcap files of two links would be one file).
    Output(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::BadTrace(m) => write!(f, "trace: {m}"),
            RunError::Trace(m) => write!(f, "{m}"),
            RunError::Invariant(v) => write!(f, "{v}"),
            RunError::Limit(m) | RunError::Controller(m) | RunError::Output(m) => write!(f, "{m}"),
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
    pub fn run_to_end(self) -> Result<(RunOutput, T), RunError> {
        self.run_monitored(&mut |_, _| true)
    }

    /// [`Self::run_to_end`], calling `monitor(now, events)` every [`MONITOR_EVERY_EVENTS`]
    /// events; the run stops ([`StopReason::Interrupted`]) when it returns false.
    pub fn run_monitored(
        mut self,
        monitor: &mut dyn FnMut(SimTime, u64) -> bool,
    ) -> Result<(RunOutput, T), RunError> {
        let wall = std::time::Instant::now();
        let stop_reason = if self.stop_when_finished && self.unfinished == 0 {
            StopReason::AllFlowsFinished
        } else if self.check_invariants {
            self.event_loop::<true>(monitor)?
        } else {
            self.event_loop::<false>(monitor)?
        };
        if self.check_invariants {
            self.audit()?;
        }
        let retired = std::mem::take(&mut self.workloads.retired);
        let out = results::collect(&self, retired, stop_reason, wall.elapsed().as_secs_f64());
        Ok((out, self.tracer))
    }

    /// Handles events until the run ends, auditing the invariants after each one if `AUDIT`.
    // `AUDIT` a constant: the loop of ordinary runs then neither tests it at every event nor
    // holds the audit's call and error path (2 % fewer instructions on the reference
    // dumbbell, callgrind).
    fn event_loop<const AUDIT: bool>(
        &mut self,
        monitor: &mut dyn FnMut(SimTime, u64) -> bool,
    ) -> Result<StopReason, RunError> {
        while let Some((now, event)) = self.sched.pop() {
            let fired = self.sched.events_fired();
            if fired > self.max_events {
                return Err(RunError::Limit(format!(
                    "simulation.max_events: the run passed {} events at t = {now} s; raise simulation.max_events or shorten the run",
                    self.max_events
                )));
            }
            match event {
                Event::TxEnd { dir } => Network::on_tx_end(self, now, dir),
                Event::Arrive { dir } => Network::on_arrive(self, now, dir),
                // A scenario's flows: the slot is the flow; timers name the slot.
                Event::FlowStart { flow } => self.on_flow_start(now, flow as usize),
                Event::FlowStop { flow } => self.on_flow_stop(now, flow as usize),
                Event::CbrSend { flow } => self.on_cbr_send(now, flow as usize),
                Event::SenderTimer { flow } => self.on_sender_timer(now, flow as usize),
                Event::ReceiverTimer { flow } => self.on_receiver_timer(now, flow as usize),
                Event::WorkloadArrival { workload } => self.on_workload_arrival(now, workload),
                Event::Stop if self.stop_when_finished => return Ok(StopReason::TimeLimit),
                Event::Stop => return Ok(StopReason::Duration),
                Event::Medium { medium } => Network::on_medium(self, now, medium),
            }
            if AUDIT {
                self.audit()?;
            }
            if self.stop_when_finished && self.unfinished == 0 {
                return Ok(StopReason::AllFlowsFinished);
            }
            if fired % MONITOR_EVERY_EVENTS == 0 && !monitor(now, fired) {
                return Ok(StopReason::Interrupted);
            }
        }
        Ok(StopReason::TimeLimit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = r#"
[simulation]
duration = "30s"
[[link]]
from = "s"
to = "d"
rate = "10Mbps"
delay = "10ms"
[[flow]]
name = "f"
src = "s"
dst = "d"
"#;

    #[test]
    fn a_monitor_sees_progress_and_can_stop_the_run() {
        let scenario = Scenario::from_toml_str(LONG).unwrap();
        let mut calls = Vec::new();
        let out = run_with(
            &scenario,
            &TraceRequest::names(&["cwnd"]),
            false,
            &mut NoCustomControllers,
            &mut |now, events| {
                calls.push((now, events));
                now < SimTime::ZERO + crate::time::SimDuration::from_secs(2)
            },
        )
        .unwrap();
        assert_eq!(out.summary.stop_reason, StopReason::Interrupted);
        assert_eq!(out.summary.stop_reason.name(), "interrupted");
        // Called every MONITOR_EVERY_EVENTS events, with the time rising.
        assert!(calls.len() > 1);
        assert!(calls.iter().all(|&(_, e)| e % MONITOR_EVERY_EVENTS == 0));
        assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
        // The results are those of the run so far.
        let stopped = out.summary.sim_time.as_secs_f64();
        assert!((2.0..2.5).contains(&stopped), "stopped at {stopped} s");
        assert!(out.flows[0].bytes_delivered > 0);
        assert!(!out.cwnd().unwrap().time_ns.is_empty());
        // A monitor that never stops changes nothing.
        let full = run(&scenario, &TraceRequest::default(), false).unwrap();
        let watched = run_with(
            &scenario,
            &TraceRequest::default(),
            false,
            &mut NoCustomControllers,
            &mut |_, _| true,
        )
        .unwrap();
        assert_eq!(full.flows, watched.flows);
        assert_eq!(full.summary.stop_reason, StopReason::Duration);
    }
}
