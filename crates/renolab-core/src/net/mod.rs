//! The network: nodes joined by point-to-point links, each direction with its own output
//! queue and loss models, or by shared wireless media ([`wifi`]), and static shortest-path
//! routes between every pair of nodes. A link direction's rate, delay and availability may
//! change during a run ([`dynamics`]), its rate following a mahimahi trace
//! ([`opportunities`]).

pub mod dynamics;
pub mod link;
pub mod opportunities;
pub mod pipe;
pub mod routing;
pub mod wifi;

pub use dynamics::{LinkDynamics, Outages, Server};
pub use link::{is_forward, link_of, LinkDir, LinkStats, DIRS_PER_LINK};
pub use opportunities::{DeliveryTrace, TraceServer};
pub use routing::{Hop, MediumHop, Routes};
