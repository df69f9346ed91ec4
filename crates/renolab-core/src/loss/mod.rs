//! Loss models applied to packets as they reach the far end of a link direction (they have
//! used the wire). Several may be stacked on one direction; the first that drops wins.

mod list;

pub use list::DropList;

use crate::net::packet::Packet;
use crate::rng::RngStream;

/// Why a loss model dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    /// A deterministic drop list chose it.
    Scripted,
    /// A random (Bernoulli) loss.
    Random,
}

/// A loss model on a link direction.
#[derive(Debug, Clone)]
pub enum LossModel {
    /// Deterministic drops by flow and segment number, or by packet index on the link.
    List(DropList),
    /// Each packet is lost independently with probability `p`.
    Uniform {
        /// Loss probability.
        p: f64,
        /// The link direction's own random stream.
        rng: RngStream,
    },
}

impl LossModel {
    /// Decides the fate of `packet`; `Some(cause)` drops it.
    #[inline]
    pub fn judge(&mut self, packet: &Packet) -> Option<LossCause> {
        match self {
            LossModel::List(l) => l.judge(packet).then_some(LossCause::Scripted),
            LossModel::Uniform { p, rng } => rng.bernoulli(*p).then_some(LossCause::Random),
        }
    }
}
