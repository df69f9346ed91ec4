//! The network's shared media: packets whose next hop crosses a medium are offered to the
//! sending node's station there, and each medium's steps (one pending [`Event::Medium`]
//! each) deliver packets at the receiving node, drop them after the retry limit, and report
//! what happened on the air to the tracer.
//!
//! The only hooks into the rest of the network are [`Network::at_node`]'s routing of a
//! medium hop to [`Network::enter_medium`], and the event loop's call of
//! [`Network::on_medium`].

use super::{Driver, Network};
use crate::engine::Event;
use crate::net::wifi::{AirTrace, Medium, Outcome, StationSetup};
use crate::net::DIRS_PER_LINK;
use crate::packet::PacketId;
use crate::rng::RngStream;
use crate::scenario::Scenario;
use crate::sim::build;
use crate::time::SimTime;
use crate::trace::{DropCause, HopEvent, Tracer};

/// The media of a network and where their stations are.
#[derive(Debug, Default)]
pub(super) struct Media {
    list: Vec<Medium>,
    /// For each node, the media it is on and its station there.
    stations_of: Vec<Vec<(u32, u32)>>,
    /// The place (trace `link` number) of each medium's first station: stations are
    /// numbered after the link directions, medium by medium.
    bases: Vec<u32>,
}

impl Media {
    /// The media of `scenario`, built with their stations' loss models and backoff streams
    /// (`medium/<name>/<node>/loss/<i>`, `medium/<name>/<node>/backoff`).
    pub(super) fn from_scenario(scenario: &Scenario) -> Self {
        let mut media = Media {
            stations_of: vec![Vec::new(); scenario.nodes.len()],
            ..Media::default()
        };
        let mut next_place = (scenario.links.len() * DIRS_PER_LINK) as u32;
        for (m, spec) in scenario.media.iter().enumerate() {
            media.bases.push(next_place);
            next_place += spec.stations.len() as u32;
            let stations = spec
                .stations
                .iter()
                .enumerate()
                .map(|(position, s)| {
                    let node = &scenario.nodes[s.node as usize];
                    let stream = |what: &str| {
                        RngStream::derive(
                            scenario.seed,
                            &format!("medium/{}/{node}/{what}", spec.name),
                        )
                    };
                    media.stations_of[s.node as usize].push((m as u32, position as u32));
                    StationSetup {
                        node: s.node,
                        limit: s.queue,
                        losses: s
                            .losses
                            .iter()
                            .enumerate()
                            .map(|(i, l)| build::loss(l, &stream, &format!("loss/{i}")))
                            .collect(),
                        rng: stream("backoff"),
                    }
                })
                .collect();
            media
                .list
                .push(Medium::new(spec.name.clone(), spec.mac(), stations));
        }
        media
    }

    /// The media, in scenario order.
    pub(super) fn list(&self) -> &[Medium] {
        &self.list
    }

    /// The place (trace `link` number) of station `station` of medium `medium`.
    fn place(&self, medium: u32, station: u32) -> u32 {
        self.bases[medium as usize] + station
    }

    /// The station of `node` on medium `medium`.
    fn station_of(&self, medium: u32, node: u32) -> u32 {
        self.stations_of[node as usize]
            .iter()
            .find(|(m, _)| *m == medium)
            .map(|&(_, s)| s)
            .expect("a route leaves a medium's node only across that medium")
    }

    /// Records what happens on the air from now on.
    pub(super) fn set_tracing(&mut self, on: bool) {
        for m in &mut self.list {
            m.set_tracing(on);
        }
    }
}

impl Network {
    /// Packet `id` at `node` goes across a medium: route code `code` names the medium and
    /// the receiving station; `node`'s station there queues it (or refuses it, full).
    // Never inlined: in the forwarding code of a network without media it is dead weight
    // (inlined, the reference dumbbell took 3 % more instructions).
    #[inline(never)]
    pub(super) fn enter_medium<D: Driver>(
        driver: &mut D,
        now: SimTime,
        node: u32,
        code: u32,
        id: PacketId,
    ) {
        let (network, _, tracer) = driver.parts();
        let hop = network.routes.medium_hop(code);
        let station = network.media.station_of(hop.medium, node);
        let place = network.media.place(hop.medium, station);
        let packet = *network.pool.get(id);
        if D::Tracer::ENABLED {
            tracer.hop(now, place, HopEvent::Enqueue, &packet, id.0);
        }
        let medium = &mut network.media.list[hop.medium as usize];
        let accepted = medium.offer(now, station, id, &packet, hop.station);
        Network::after_medium(driver, now, hop.medium);
        if !accepted {
            Network::drop_packet(driver, now, id, Some((place, DropCause::Overflow)));
        }
    }

    /// Handles [`Event::Medium`] for medium `m` at `now`: runs its step if the event is the
    /// live one, then carries out what the step decided.
    #[inline(never)]
    pub fn on_medium<D: Driver>(driver: &mut D, now: SimTime, m: u32) {
        let (network, _, _) = driver.parts();
        let medium = &mut network.media.list[m as usize];
        if !medium.timer.fire(now) {
            return; // stale entry, superseded by an earlier one
        }
        if medium.poll_timeout() == Some(now) {
            medium.on_timeout(now, &network.pool);
        }
        Network::after_medium(driver, now, m);
        let (network, _, _) = driver.parts();
        let medium = &mut network.media.list[m as usize];
        let outcomes = medium.take_outcomes();
        for &outcome in &outcomes {
            match outcome {
                Outcome::Deliver { id, to } => {
                    let node = driver.parts().0.media.list[m as usize].node(to);
                    Network::at_node(driver, now, node, id);
                }
                Outcome::RetryDrop { id, station } => {
                    let place = driver.parts().0.media.place(m, station);
                    Network::drop_packet(driver, now, id, Some((place, DropCause::RetryLimit)));
                }
            }
        }
        driver.parts().0.media.list[m as usize].give_back_outcomes(outcomes);
    }

    /// After medium `m` changed at `now`: its event re-armed, what happened on its air
    /// reported.
    fn after_medium<D: Driver>(driver: &mut D, now: SimTime, m: u32) {
        let (network, sched, tracer) = driver.parts();
        let medium = &mut network.media.list[m as usize];
        if let Some(at) = medium.timer.arm(medium.poll_timeout()) {
            sched.schedule(at, Event::Medium { medium: m });
        }
        if !D::Tracer::ENABLED {
            return;
        }
        let base = network.media.bases[m as usize];
        for event in medium.take_trace() {
            match event {
                AirTrace::Attempt {
                    station,
                    packet,
                    uid,
                    retry,
                } => {
                    let event = if retry {
                        HopEvent::Retry
                    } else {
                        HopEvent::Dequeue
                    };
                    tracer.hop(now, base + station, event, &packet, uid);
                }
                AirTrace::Received {
                    station,
                    packet,
                    uid,
                } => tracer.hop(now, base + station, HopEvent::Receive, &packet, uid),
                AirTrace::Queue {
                    station,
                    packets,
                    bytes,
                } => tracer.queue_changed(now, base + station, packets, bytes, f64::NAN),
                AirTrace::Frame(frame) => {
                    let (from, to) = (medium.node(frame.from), medium.node(frame.to));
                    tracer.air_frame(m, &frame, from, to);
                }
            }
        }
    }
}
