//! Building a scenario's components: specs in, engine components out. Each random component
//! gets its own stream, named after the component. The flows are built here, the links in
//! [`links`] (shared with the emulator).

mod links;

pub use links::{link_dirs, loss};

use super::endpoints::{Endpoints, Flow, TcpEndpoints};
use crate::app::{CbrSink, CbrSource};
use crate::engine::TimerSlot;
use crate::rng::RngStream;
use crate::scenario::{FlowSpec, Start, TcpSpec, Traffic, Variant};
use crate::tcp::cc::{
    Bbr, Cc, ControllerFactory, Cubic, Custom, CustomInit, Dctcp, Growth, NewReno, Reno, Vegas,
};
use crate::tcp::{Dialect, TcpReceiver, TcpSender, Transfer};
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
        name: spec.name.clone(),
        src: spec.src,
        dst: spec.dst,
        start: SimTime::ZERO + start,
        stop: spec.stop.map(|s| SimTime::ZERO + s),
        endpoints,
        finished: false,
        delays: super::delay::DelayStats::default(),
        traced: None,
        traced_cc: Default::default(),
    }
}

/// The endpoints of TCP flow `t`; `custom` is its controller when the scenario names one
/// from outside the crate.
fn tcp_endpoints(t: &TcpSpec, custom: Option<Cc>, rng: &mut RngStream) -> TcpEndpoints {
    let transfer = Transfer {
        mss: t.mss,
        bytes: t.bytes,
    };
    let (iw, ssthresh) = (t.sender.initial_window, t.sender.initial_ssthresh);
    // ns-2 keeps the fraction of W/2 after a fast retransmit (precisionReduce_).
    let keep_fraction = t.sender.dialect == Dialect::Ns2;
    // A Linux host grows its window by segments acknowledged (tcp_reno_cong_avoid()).
    let growth = match t.sender.dialect {
        Dialect::Linux => Growth::Linux,
        Dialect::Rfc | Dialect::Ns2 => Growth::PerAck,
    };
    let cc = match t.variant {
        // Tahoe and SACK are Reno's window arithmetic; what differs is loss recovery's.
        Variant::Tahoe | Variant::Reno | Variant::Sack => {
            Cc::Reno(Reno::new(iw, ssthresh, keep_fraction).with_growth(growth))
        }
        Variant::NewReno {
            ssthresh_estimation,
        } => Cc::NewReno(
            NewReno::new(iw, ssthresh, ssthresh_estimation, keep_fraction).with_growth(growth),
        ),
        Variant::Vegas(c) => {
            let mut vegas = Vegas::new(iw, ssthresh, c);
            if t.sender.dialect == Dialect::Ns2 {
                // ns-2's per-segment ring of `window_` records (docs/ns2-behaviour.md §6).
                vegas.reproduce_ns2_artefacts(t.sender.receiver_window);
            }
            Cc::Vegas(vegas)
        }
        Variant::Dctcp => Cc::Dctcp(Dctcp::new(
            Reno::new(iw, ssthresh, keep_fraction).with_growth(growth),
        )),
        // Linux's slow start counts segments; the RFC senders' count ACKs.
        Variant::Cubic(c) => Cc::Cubic(Cubic::new(iw, ssthresh, t.mss, c).with_growth(growth)),
        // ProbeBW's random phases come from a stream of the flow's own.
        Variant::Bbr(c) => Cc::Bbr(Box::new(Bbr::new(
            c,
            iw,
            t.mss,
            t.sender.header_bytes,
            rng.split(),
        ))),
        Variant::Custom => custom.expect("a custom variant comes with its controller"),
    };
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
