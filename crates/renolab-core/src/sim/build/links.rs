//! Building the links of a scenario: each direction's queue discipline, loss models and extra
//! latency from their specs. The simulator and the emulator both build their links here, so
//! both draw the same losses.

use crate::loss::Ber;
use crate::loss::{DropList, ExtraLatency, GilbertElliott, Loss, LossModel, Periodic, Uniform};
use crate::net::{LinkDir, DIRS_PER_LINK};
use crate::queue::{CoDel, DropTail, DualPi2, FqCoDel, Queue, Red};
use crate::rng::RngStream;
use crate::scenario::{DirSpec, LossKind, LossSpec, QueueSpec, Scenario};

/// Every link direction of `scenario`: direction 2k is link k forward (named as the link),
/// 2k + 1 its reverse (`<name>/rev`).
pub fn link_dirs(scenario: &Scenario) -> Vec<LinkDir> {
    let mut dirs = Vec::with_capacity(scenario.links.len() * DIRS_PER_LINK);
    for link in &scenario.links {
        let (forward, reverse) = (link.name.clone(), format!("{}/rev", link.name));
        dirs.push(link_dir(
            scenario.seed,
            forward,
            link.from,
            link.to,
            &link.forward,
        ));
        dirs.push(link_dir(
            scenario.seed,
            reverse,
            link.to,
            link.from,
            &link.reverse,
        ));
    }
    dirs
}

/// The direction `spec` describes, named `name`, from node `from` to node `to`: its queue
/// discipline and loss models built, each random one with its own stream derived from `seed`
/// and the direction's name (`link/<name>/queue`, `link/<name>/loss/<i>`,
/// `link/<name>/latency`), so that every engine that builds the same scenario draws the same
/// losses.
pub fn link_dir(seed: u64, name: String, from: u32, to: u32, spec: &DirSpec) -> LinkDir {
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
    let losses = spec
        .losses
        .iter()
        .enumerate()
        .map(|(i, l)| loss(l, stream(&format!("loss/{i}"))))
        .collect();
    let latency = spec
        .latency
        .map(|l| ExtraLatency::new(l.dist, l.reorder, stream("latency")));
    LinkDir::new(
        name, from, to, spec.rate, spec.delay, queue, losses, latency,
    )
}

/// The loss model `spec` describes, drawing from `rng` (the component's own stream).
pub fn loss(spec: &LossSpec, rng: RngStream) -> Loss {
    let model = match &spec.kind {
        LossKind::Drop {
            flow,
            segments,
            packets,
        } => LossModel::List(DropList::new(*flow, segments, packets)),
        LossKind::Uniform { p } => LossModel::Uniform(Uniform::new(*p, rng)),
        LossKind::Ber { ber } => LossModel::Ber(Ber::new(*ber, rng)),
        LossKind::GilbertElliott(c) => LossModel::GilbertElliott(GilbertElliott::new(*c, rng)),
        LossKind::Periodic { every, offset } => LossModel::Periodic(Periodic::new(*every, *offset)),
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
    use crate::time::{SimDuration, SimTime};
    use crate::units::BitsPerSec;

    fn lossy(p: f64) -> DirSpec {
        DirSpec {
            rate: BitsPerSec(10_000_000),
            delay: SimDuration::from_millis(5),
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

    fn fates(dir: &mut LinkDir) -> Vec<bool> {
        let packet = Packet {
            flow: 0,
            kind: PacketKind::Data,
            seq: 0,
            size: 1500,
            dst: 1,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: SackBlocks::EMPTY,
            ecn: Ecn::NONE,
        };
        (0..64)
            .map(|_| dir.losses[0].judge(&packet).is_some())
            .collect()
    }

    #[test]
    fn directions_built_from_one_spec_and_seed_draw_the_same_losses() {
        let spec = lossy(0.5);
        let mut a = link_dir(7, "l".into(), 0, 1, &spec);
        let mut b = link_dir(7, "l".into(), 0, 1, &spec);
        let mut other = link_dir(7, "l/rev".into(), 1, 0, &spec);
        let drawn = fates(&mut a);
        assert_eq!(drawn, fates(&mut b));
        assert_ne!(
            drawn,
            fates(&mut other),
            "each direction has its own stream"
        );
        assert_eq!(
            (a.rate, a.delay, a.from, a.to),
            (spec.rate, spec.delay, 0, 1)
        );
    }
}
