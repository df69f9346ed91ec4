//! The network: nodes joined by point-to-point links, each direction with its own output
//! queue and loss models, or by shared wireless media ([`wifi`]), and static shortest-path
//! routes between every pair of nodes.

pub mod link;
pub mod pipe;
pub mod routing;
pub mod wifi;

pub use link::{is_forward, link_of, LinkDir, LinkStats, DIRS_PER_LINK};
pub use routing::{Hop, MediumHop, Routes};
