//! Building the links of a scenario: each direction's queue discipline, loss models, extra
//! latency, and what varies on it (scheduled rate and delay, a mahimahi trace, outages) from
//! their specs. The simulator and the emulator both build their links here, so both draw the
//! same losses.

use crate::loss::{
    Ber, DropList, ExtraLatency, GilbertElliott, Loss, LossModel, Periodic, ScheduledLoss, Uniform,
};
use crate::net::{LinkDir, LinkDynamics, Outages, Server, TraceServer, DIRS_PER_LINK};
use crate::queue::{CoDel, DropTail, DualPi2, FqCoDel, Queue, Red};
use crate::rng::RngStream;
use crate::scenario::{DirSpec, LossKind, LossSpec, QueueSpec, RateSpec, Scenario};
use crate::schedule::Schedule;
use crate::time::SimTime;

/// Every link direction of `scenario`: direction 2k is link k forward (named as the link),
/// 2k + 1 its reverse (`<name>/rev`). The simulator and the emulator build their links
/// here, so both draw the same losses.
pub fn link_dirs(scenario: &Scenario) -> Vec<LinkDir> {
    let mut dirs = Vec::with_capacity(scenario.links.len() * DIRS_PER_LINK);
    for link in &scenario.links {
        let reverse = format!("{}/rev", link.name);
        dirs.push(link_dir(
            scenario.seed,
            link.name.clone(),
            (link.from, link.to),
            &link.forward,
            &link.outages,
        ));
        dirs.push(link_dir(
            scenario.seed,
            reverse,
            (link.to, link.from),
            &link.reverse,
            &link.outages,
        ));
    }
    dirs
}

/// The direction `spec` describes, named `name`, between `ends` (from, to), down during
/// `outages`: its queue discipline and loss models built, each random one with its own
/// stream derived from `seed` and the direction's name (`link/<name>/queue`,
/// `link/<name>/loss/<i>`, `link/<name>/latency`), so that every engine that builds the same
/// scenario draws the same losses.
fn link_dir(
    seed: u64,
    name: String,
    ends: (u32, u32),
    spec: &DirSpec,
    outages: &Outages,
) -> LinkDir {
    let stream = |what: &str| RngStream::derive(seed, &format!("link/{name}/{what}"));
    let queue = match spec.queue {
        QueueSpec::DropTail {
            limit,
            counts_transmitting,
            ecn_threshold,
        } => Queue::DropTail(
            DropTail::new(limit, counts_transmitting).with_ecn_threshold(ecn_threshold),
        ),
        QueueSpec::Red(config) => Queue::Red(Red::new(config, stream("queue"))),
        QueueSpec::CoDel(config) => Queue::CoDel(CoDel::new(config)),
        QueueSpec::FqCoDel(config) => Queue::FqCoDel(FqCoDel::new(config, stream("queue"))),
        QueueSpec::DualPi2(config) => Queue::DualPi2(DualPi2::new(config, stream("queue"))),
    };
    let losses = (spec.losses.iter().enumerate())
        .map(|(i, l)| loss(l, &stream, &format!("loss/{i}")))
        .collect();
    let latency = spec
        .latency
        .map(|l| ExtraLatency::new(l.dist, l.reorder, stream("latency")));
    let delay = *spec.delay.at(SimTime::ZERO);
    let dir = LinkDir::new(
        name,
        ends.0,
        ends.1,
        spec.rate.nominal(),
        delay,
        queue,
        losses,
        latency,
    );
    let server = match &spec.rate {
        RateSpec::Schedule(rates) if rates.is_constant() => None,
        RateSpec::Schedule(rates) => Some(Server::Rate(rates.clone())),
        RateSpec::Trace(t) => Some(Server::Trace(TraceServer::new(t.trace.clone()))),
    };
    if server.is_none() && spec.delay.is_constant() && outages.is_empty() {
        return dir;
    }
    dir.with_dynamics(LinkDynamics {
        server: server.unwrap_or_else(|| Server::Rate(Schedule::constant(spec.rate.nominal()))),
        delay: spec.delay.clone(),
        outages: outages.clone(),
    })
}

/// The loss model `spec` describes, its random draws from `stream(what)` (a scheduled
/// model's steps from `stream("<what>/<k>")`).
pub fn loss(spec: &LossSpec, stream: &dyn Fn(&str) -> RngStream, what: &str) -> Loss {
    let model = match &spec.kind {
        LossKind::Drop {
            flow,
            segments,
            packets,
        } => LossModel::List(DropList::new(*flow, segments, packets)),
        LossKind::Uniform { p } => LossModel::Uniform(Uniform::new(*p, stream(what))),
        LossKind::Ber { ber } => LossModel::Ber(Ber::new(*ber, stream(what))),
        LossKind::GilbertElliott(c) => {
            LossModel::GilbertElliott(GilbertElliott::new(*c, stream(what)))
        }
        LossKind::Periodic { every, offset } => LossModel::Periodic(Periodic::new(*every, *offset)),
        LossKind::Schedule(models) => {
            let mut k = 0;
            let built = models.map(|m| {
                let step = loss(m, stream, &format!("{what}/{k}"));
                k += 1;
                step
            });
            LossModel::Scheduled(Box::new(ScheduledLoss::new(built)))
        }
    };
    Loss::new(model, spec.applies_to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::AppliesTo;
    use crate::packet::sack::SackBlocks;
    use crate::packet::{Ecn, Packet, PacketKind};
    use crate::queue::QueueLimit;
    use crate::time::SimDuration;
    use crate::units::BitsPerSec;

    fn lossy(p: f64) -> DirSpec {
        DirSpec {
            rate: RateSpec::fixed(BitsPerSec(10_000_000)),
            delay: Schedule::constant(SimDuration::from_millis(5)),
            queue: QueueSpec::DropTail {
                limit: QueueLimit::Packets(10),
                counts_transmitting: false,
                ecn_threshold: None,
            },
            losses: vec![LossSpec {
                kind: LossKind::Uniform { p },
                applies_to: AppliesTo::All,
            }],
            latency: None,
        }
    }

    /// A 1500-byte data packet.
    fn data_packet() -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            seq: 0,
            size: 1500,
            dst: 1,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: SackBlocks::EMPTY,
            ecn: Ecn::NONE,
        }
    }

    fn fates(dir: &mut LinkDir) -> Vec<bool> {
        let packet = data_packet();
        (0..64)
            .map(|_| dir.losses[0].judge(SimTime::ZERO, &packet).is_some())
            .collect()
    }

    #[test]
    fn directions_built_from_one_spec_and_seed_draw_the_same_losses() {
        let spec = lossy(0.5);
        let none = Outages::default();
        let mut a = link_dir(7, "l".into(), (0, 1), &spec, &none);
        let mut b = link_dir(7, "l".into(), (0, 1), &spec, &none);
        let mut other = link_dir(7, "l/rev".into(), (1, 0), &spec, &none);
        let drawn = fates(&mut a);
        assert_eq!(drawn, fates(&mut b));
        assert_ne!(
            drawn,
            fates(&mut other),
            "each direction has its own stream"
        );
        assert_eq!(
            (a.rate, a.delay, a.from, a.to),
            (BitsPerSec(10_000_000), SimDuration::from_millis(5), 0, 1)
        );
        assert!(!a.varies(), "a fixed direction has no dynamics");
    }

    #[test]
    fn a_direction_varies_only_when_something_in_it_does() {
        let mut spec = lossy(0.0);
        let none = Outages::default();
        assert!(!link_dir(1, "l".into(), (0, 1), &spec, &none).varies());
        let down = Outages::new(vec![(SimTime(1), SimTime(2))]);
        let dir = link_dir(1, "l".into(), (0, 1), &spec, &down);
        assert!(dir.varies() && dir.judges_arrivals());
        spec.delay = Schedule::new(vec![
            (SimTime::ZERO, SimDuration(1)),
            (SimTime(5), SimDuration(2)),
        ]);
        assert!(link_dir(1, "l".into(), (0, 1), &spec, &none).varies());
    }

    #[test]
    fn each_step_of_a_scheduled_loss_draws_from_its_own_stream() {
        let stream = |what: &str| RngStream::derive(3, &format!("link/l/{what}"));
        let step = |p: f64| LossSpec {
            kind: LossKind::Uniform { p },
            applies_to: AppliesTo::All,
        };
        let scheduled = LossSpec {
            kind: LossKind::Schedule(Schedule::new(vec![
                (SimTime::ZERO, step(0.5)),
                (SimTime(10), step(0.5)),
            ])),
            applies_to: AppliesTo::All,
        };
        let mut built = loss(&scheduled, &stream, "loss/0");
        let mut first = loss(&step(0.5), &stream, "loss/0/0");
        let mut second = loss(&step(0.5), &stream, "loss/0/1");
        let packet = data_packet();
        for _ in 0..32 {
            assert_eq!(
                built.judge(SimTime(0), &packet),
                first.judge(SimTime(0), &packet)
            );
        }
        for _ in 0..32 {
            assert_eq!(
                built.judge(SimTime(10), &packet),
                second.judge(SimTime(10), &packet)
            );
        }
    }
}
