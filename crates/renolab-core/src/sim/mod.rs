//! The simulation: a scenario's [`Network`] and its flows' endpoints, driven by an event
//! loop on simulated time.
//!
//! One module per job: [`network`] carries packets through links and nodes (it has no
//! endpoints and no clock of its own, so a real-time driver can reuse it), `endpoints` holds
//! what sends and absorbs each flow's packets, `run` is the entry point and the event loop,
//! `audit` the invariant checks, `build` turns scenario specs into components and `results`
//! collects what a run reports. [`Simulation`] composes them: it owns the network, the
//! flows, the scheduler and the tracer, and drives the network ([`Driver`]).
//!
//! Events exist only where something must happen at a later time: the ends of
//! serialisation on busy links and arrivals at the far end of links (the network's), and
//! application starts, stops, constant-bit-rate sends and endpoint timers (the endpoints')
//! (see [`crate::engine`]).

mod audit;
mod build;
pub mod delay;
mod endpoints;
pub mod network;
mod results;
mod run;
pub mod workload;

pub use audit::InvariantViolation;
pub use build::link_dirs;
pub use network::{Driver, FlowCounters, Network};
pub use results::{
    CcSeries, CwndSeries, FlowResult, LinkResult, RunOutput, RunSummary, SeqSeries, StationResult,
    StopReason,
};
pub use run::{run, run_with, RunError, MONITOR_EVERY_EVENTS};

use crate::engine::{Event, Scheduler};
use crate::scenario::Scenario;
use crate::tcp::cc::{ControllerFactory, NoCustomControllers};
use crate::time::SimTime;
use crate::trace::Tracer;
use endpoints::{Endpoints, Flow};

/// A simulation in progress, generic over its tracer so that tracing off costs nothing.
pub struct Simulation<T: Tracer> {
    sched: Scheduler,
    network: Network,
    flows: Vec<Flow>,
    /// Finite flows not finished yet, and workloads still creating flows.
    unfinished: usize,
    /// The workloads, and the slots of their flows.
    workloads: workload::Workloads,
    node_names: Vec<String>,
    seed: u64,
    stop_at: SimTime,
    stop_when_finished: bool,
    check_invariants: bool,
    /// `simulation.max_events`: the run fails when it passes this many events.
    max_events: u64,
    tracer: T,
}

impl<T: Tracer> Simulation<T> {
    /// Builds the network and flows of `scenario`; nothing has happened yet. Panics if a
    /// flow names a custom controller (see [`Simulation::with_controllers`]).
    pub fn new(scenario: &Scenario, tracer: T) -> Self {
        Self::with_controllers(scenario, tracer, &mut NoCustomControllers)
    }

    /// [`Simulation::new`], with `controllers` building the controllers of the flows that
    /// name a custom one (`variant = "python:..."`), in flow order.
    pub fn with_controllers(
        scenario: &Scenario,
        tracer: T,
        controllers: &mut dyn ControllerFactory,
    ) -> Self {
        let mut network = Network::from_scenario(scenario);
        if T::ENABLED {
            network.trace_media();
        }
        let (mut workloads, first_arrivals) = workload::Workloads::new(scenario);
        let flows: Vec<Flow> = (scenario.flows.iter().enumerate())
            .map(|(index, spec)| {
                let mut flow = build::flow(scenario.seed, index as u32, spec, controllers);
                if let Some(tcp) = spec.tcp() {
                    let routes = network.routes();
                    flow.ideal_fct = workloads.paths.ideal_fct(routes, spec.src, spec.dst, tcp);
                }
                flow
            })
            .collect();
        let mut sched = Scheduler::new();
        for (index, flow) in flows.iter().enumerate() {
            let index = index as u32;
            sched.schedule(flow.start, Event::FlowStart { flow: index });
            if let Some(stop) = flow.stop {
                sched.schedule(stop, Event::FlowStop { flow: index });
            }
        }
        let mut unfinished = scenario.flows.iter().filter(|f| f.is_finite()).count();
        for (w, first) in first_arrivals.into_iter().enumerate() {
            if let Some(at) = first {
                sched.schedule(at, Event::WorkloadArrival { workload: w as u32 });
                unfinished += 1;
            }
        }
        let stop_at = SimTime::ZERO + scenario.duration.unwrap_or(scenario.time_limit);
        sched.schedule(stop_at, Event::Stop);
        Simulation {
            sched,
            network,
            flows,
            unfinished,
            workloads,
            node_names: scenario.nodes.clone(),
            seed: scenario.seed,
            stop_at,
            stop_when_finished: scenario.duration.is_none(),
            check_invariants: false,
            max_events: scenario.max_events,
            tracer,
        }
    }
}
