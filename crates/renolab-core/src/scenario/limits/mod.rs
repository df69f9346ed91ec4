//! Limits checked before a run: a scenario that could not finish in a sensible number of
//! events, or could exhaust memory, is refused while it is validated, with an error naming
//! the field that makes it so.
//!
//! The checks are cheap (a few passes over links and flows, with the routes validation
//! computes anyway) and deliberately rough: [`Estimate::events`] assumes no losses and no
//! retransmissions, and flows that cross the same link share it fairly ([`share`]), so it
//! errs low and refuses only scenarios that are absurd on their face (a 100 Gb/s path for
//! 10^6 s); the engine also counts events as it runs and stops a run that passes
//! `simulation.max_events` anyway. [`Estimate::peak_packets`] errs high: it is what queues,
//! wires and windows could hold at once, the windows no larger than the bottleneck they
//! share lets them grow, the packet slab's worst case. On the benchmark dumbbells, 1 to 1000
//! flows, both are within a factor of five of the run (`tests.rs`).

mod estimate;
mod flow_load;
mod share;
#[cfg(test)]
mod tests;

pub use estimate::Estimate;

use super::{QueueSpec, Result, Scenario, ScenarioError};
use crate::net::Routes;

/// Default `simulation.max_events`: ten billion, hours of work at the engine's speed.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000_000;
/// Default `simulation.max_memory`: 8 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;
/// Smallest `simulation.max_memory`: 1 MiB.
pub const MIN_MAX_MEMORY: u64 = 1 << 20;
/// Most links a scenario may have.
pub const MAX_LINKS: usize = 100_000;
/// Most nodes: routing keeps a next-hop table of nodes² entries (4 bytes each; stub hosts
/// aside), so 20 000 routers already take 1.6 GB.
pub const MAX_NODES: usize = 20_000;
/// Most flows a scenario may have.
pub const MAX_FLOWS: usize = 1_000_000;
/// Most shared media a scenario may have.
pub const MAX_MEDIA: usize = 100_000;
// Events carry a flow or link-direction index in a few bits of the scheduler's key.
const _: () = assert!(MAX_FLOWS <= crate::engine::MAX_EVENT_INDEX as usize);
const _: () =
    assert!(crate::net::DIRS_PER_LINK * MAX_LINKS <= crate::engine::MAX_EVENT_INDEX as usize);
const _: () = assert!(MAX_MEDIA <= crate::engine::MAX_EVENT_INDEX as usize);
// The pcap writer's node addresses leave the second octet 0, and the flows' address groups
// fit in it (`trace::pcap::flow_source`).
const _: () = assert!(MAX_NODES < 1 << 16);
const _: () = assert!((MAX_FLOWS as u64) / (crate::trace::pcap::PORTS_PER_ADDRESS as u64) < 1 << 8);

/// Bytes in binary units (`"8.0 GiB"`).
fn human_bytes(b: f64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    match b {
        _ if b >= 1024.0 * GIB => format!("{:.1} TiB", b / (1024.0 * GIB)),
        _ if b >= GIB => format!("{:.1} GiB", b / GIB),
        _ if b >= MIB => format!("{:.1} MiB", b / MIB),
        _ => format!("{:.0} bytes", b),
    }
}

/// Seconds, without trailing zeros (`"0.5"`, `"1000000"`).
fn human_secs(s: f64) -> String {
    let text = format!("{s:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Number of nodes, links and flows: refused above the caps before anything is allocated
/// per node pair.
pub(in crate::scenario) fn check_counts(
    nodes: usize,
    links: usize,
    media: usize,
    flows: usize,
) -> Result<()> {
    if links > MAX_LINKS {
        return Err(ScenarioError::new(
            "link",
            format!("{links} links is more than the {MAX_LINKS} allowed"),
        ));
    }
    if media > MAX_MEDIA {
        return Err(ScenarioError::new(
            "medium",
            format!("{media} media is more than the {MAX_MEDIA} allowed"),
        ));
    }
    if nodes > MAX_NODES {
        return Err(ScenarioError::new(
            "link",
            format!(
                "the links join {nodes} nodes, more than the {MAX_NODES} allowed (routing keeps a table of nodes x nodes)"
            ),
        ));
    }
    if flows > MAX_FLOWS {
        return Err(ScenarioError::new(
            "flow",
            format!("{flows} flows is more than the {MAX_FLOWS} allowed"),
        ));
    }
    Ok(())
}

impl Scenario {
    /// Refuses a scenario whose estimate passes `max_events` or `max_memory`.
    pub(in crate::scenario) fn check_limits(&self, routes: &Routes) -> Result<()> {
        self.check_byte_limits(routes)?;
        let est = self.estimate_with(routes);
        if let Some((field, why)) = est.segments_blame.clone() {
            return Err(ScenarioError::new(field, why));
        }
        if est.events > self.max_events {
            let (field, why, _) = est.events_blame.clone().unwrap_or_default();
            return Err(ScenarioError::new(
                field,
                format!(
                    "the run would take about {:.2e} events ({why}), more than simulation.max_events = {}; shorten the run or raise simulation.max_events",
                    est.events as f64, self.max_events
                ),
            ));
        }
        self.check_memory_estimate(
            &est,
            self.max_memory,
            &format!(
                "simulation.max_memory = {}",
                human_bytes(self.max_memory as f64)
            ),
            "make it smaller or raise simulation.max_memory",
        )
    }

    /// Refuses a scenario whose estimated memory passes what this machine has `available`
    /// (bytes) when it leaves `simulation.max_memory` at its default: the default is the
    /// smaller of [`DEFAULT_MAX_MEMORY`] and the machine's available memory, which only the
    /// caller can measure (the core knows no machine).
    pub fn check_available_memory(&self, available: u64) -> Result<()> {
        if available >= self.max_memory {
            return Ok(());
        }
        self.check_memory_estimate(
            &self.estimate(),
            available,
            &format!(
                "the {} this machine has available (simulation.max_memory defaults to the smaller of 8 GiB and that)",
                human_bytes(available as f64)
            ),
            "make it smaller, free memory, or set simulation.max_memory to try anyway",
        )
    }

    fn check_memory_estimate(
        &self,
        est: &Estimate,
        limit: u64,
        what: &str,
        remedy: &str,
    ) -> Result<()> {
        if est.memory_bytes > limit {
            let (field, why) = est.memory_blame.clone().unwrap_or_else(|| {
                let section = if self.links.is_empty() {
                    "medium"
                } else {
                    "link"
                };
                (section.to_string(), format!("{} nodes", self.nodes.len()))
            });
            return Err(ScenarioError::new(
                field,
                format!(
                    "the run could need about {} of memory ({why}), more than {what}; {remedy}",
                    human_bytes(est.memory_bytes as f64),
                ),
            ));
        }
        Ok(())
    }

    /// Refuses a byte limit smaller than a packet some flow sends through the queue: every
    /// one of those would be dropped (`limit_bytes = 1` drops all traffic, silently).
    fn check_byte_limits(&self, routes: &Routes) -> Result<()> {
        use crate::net::{is_forward, link_of};
        use crate::scenario::{QueueLimit, Traffic};
        let places = estimate::Places::new(self);
        let dirs = (self.links.len() * crate::net::DIRS_PER_LINK) as u32;
        for f in &self.flows {
            let (data, ack) = match &f.traffic {
                Traffic::Tcp(t) => (
                    u64::from(t.mss) + u64::from(t.sender.header_bytes),
                    Some(u64::from(t.receiver.ack_bytes)),
                ),
                Traffic::Cbr(c) => (u64::from(c.packet_bytes), None),
            };
            let paths = [
                (places.path(routes, f.src, f.dst), Some(data)),
                (places.path(routes, f.dst, f.src), ack),
            ];
            for (path, size) in paths {
                let Some(size) = size else { continue };
                for d in path.into_iter().filter(|&d| d < dirs) {
                    let limit = match &places.get(d).queue {
                        QueueSpec::DropTail { limit, .. } => *limit,
                        QueueSpec::CoDel(c) => c.limit,
                        QueueSpec::FqCoDel(c) => c.limit,
                        QueueSpec::DualPi2(c) => c.limit,
                        // RED in byte mode lets one packet in whatever its size.
                        QueueSpec::Red(_) => continue,
                    };
                    if let QueueLimit::Bytes(bytes) = limit {
                        if bytes < size {
                            let link = link_of(d) as usize;
                            let side = if is_forward(d) { "" } else { ".reverse" };
                            return Err(ScenarioError::new(
                                format!("link[{link}]{side}.queue.limit_bytes"),
                                format!(
                                    "{bytes} byte{} cannot hold one {size}-byte packet of flow {:?}, which would all be dropped; allowed: at least {size}",
                                    if bytes == 1 { "" } else { "s" },
                                    f.name
                                ),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
