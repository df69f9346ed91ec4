//! Building a scenario's components: specs in, engine components out. Each random component
//! gets its own stream, named after the component. The flows are built here, the links in
//! [`links`] (shared with the emulator).

mod links;

pub use links::{link_dirs, loss};

use super::endpoints::{Endpoints, Flow, TcpEndpoints};
use crate::app::{CbrSink, CbrSource};
use crate::engine::TimerSlot;
use crate::rng::RngStream;
use crate::scenario::{FlowSpec, Start, TcpSpec, Traffic};
use crate::tcp::cc::{BuildContext, Cc, ControllerFactory, Custom, CustomInit};
use crate::tcp::{TcpReceiver, TcpSender, Transfer};
use crate::time::{SimDuration, SimTime};

/// The flow of `spec` (flow number `index`), with its start time drawn if it is random;
/// `controllers` builds its controller if the scenario names a custom one.
pub(super) fn flow(
    seed: u64,
    index: u32,
    spec: &FlowSpec,
    controllers: &mut dyn ControllerFactory,
) -> Flow {
    let mut rng = RngStream::derive(seed, &format!("flow/{}", spec.name));
    let start = match spec.start {
        Start::At(t) => t,
        Start::Uniform { lo, hi } => {
            let span = (hi.0 - lo.0) as u128 + 1;
            SimDuration(lo.0 + ((span * rng.next_u64() as u128) >> 64) as u64)
        }
    };
    let endpoints = match &spec.traffic {
        Traffic::Tcp(tcp) => {
            let custom = tcp.custom.as_ref().map(|c| {
                let init = CustomInit {
                    flow: index,
                    flow_name: &spec.name,
                    reference: &c.reference,
                    args: &c.args,
                    initial_window: tcp.sender.initial_window,
                    initial_ssthresh: tcp.sender.initial_ssthresh,
                    mss: tcp.mss,
                    profile: tcp.profile,
                    dialect: tcp.sender.dialect,
                    pacing: tcp.sender.pacing,
                    start: SimTime::ZERO + start,
                };
                Cc::Custom(Custom::new(controllers.build(&init)))
            });
            Endpoints::Tcp(tcp_endpoints(tcp, custom, &mut rng))
        }
        Traffic::Cbr(cbr) => Endpoints::Cbr {
            source: CbrSource::new(*cbr, rng),
            sink: CbrSink::default(),
        },
    };
    Flow {
        id: index,
        name: spec.name.clone(),
        src: spec.src,
        dst: spec.dst,
        start: SimTime::ZERO + start,
        stop: spec.stop.map(|s| SimTime::ZERO + s),
        endpoints,
        finished: false,
        delays: super::delay::DelayStats::default(),
        rtts: Default::default(),
        traced: None,
        traced_cc: Default::default(),
        ideal_fct: None,
    }
}

/// Flow `id` of a workload, named `name`, between `ends` (source, destination), starting
/// at `start` with TCP settings `tcp`: built as a `[[flow]]` of the same settings is, its
/// random stream `flow/<name>`.
pub(super) fn workload_flow(
    seed: u64,
    id: u32,
    name: String,
    ends: (u32, u32),
    start: SimTime,
    tcp: &TcpSpec,
) -> Flow {
    let spec = FlowSpec {
        name,
        src: ends.0,
        dst: ends.1,
        start: Start::At(start - SimTime::ZERO),
        stop: None,
        traffic: Traffic::Tcp(tcp.clone()),
    };
    flow(seed, id, &spec, &mut crate::tcp::cc::NoCustomControllers)
}

/// The endpoints of TCP flow `t`; `custom` is its controller when the scenario names one
/// from outside the crate.
fn tcp_endpoints(t: &TcpSpec, custom: Option<Cc>, rng: &mut RngStream) -> TcpEndpoints {
    let transfer = Transfer {
        mss: t.mss,
        bytes: t.bytes,
    };
    let mut flow = BuildContext {
        initial_window: t.sender.initial_window,
        initial_ssthresh: t.sender.initial_ssthresh,
        mss: t.mss,
        header_bytes: t.sender.header_bytes,
        receiver_window: t.sender.receiver_window,
        dialect: t.sender.dialect,
        pacing_shift: t.sender.gso.pacing_shift,
        rng: &mut *rng,
    };
    // The controller's configuration is its factory (a custom one comes built).
    let cc = t
        .variant
        .build(&mut flow)
        .or(custom)
        .expect("a custom variant comes with its controller");
    // The phase of ns-2's RTT tick clock (its random `boot_time_`): given, or drawn from
    // the flow's own stream.
    let tick = t.sender.rto.granularity.as_nanos();
    let clock_phase = match t.sender.clock_phase {
        Some(phase) if tick > 0 => phase.as_nanos() % tick,
        _ if tick > 0 => rng.next_u64() % tick,
        _ => 0,
    };
    TcpEndpoints {
        variant: t.variant,
        sender: TcpSender::new(t.sender, transfer, cc, clock_phase),
        receiver: TcpReceiver::new(t.receiver, transfer),
        sender_timer: TimerSlot::default(),
        release_timer: TimerSlot::default(),
        receiver_timer: TimerSlot::default(),
    }
}
