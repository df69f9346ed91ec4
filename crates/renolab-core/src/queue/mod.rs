//! Output queues of link directions.
//!
//! A queue holds the packets *waiting* for the wire; the packet being serialised has left it.
//! `Queue` is a closed enum so the per-packet path dispatches with a `match`, not a vtable.

mod droptail;

pub use droptail::{DropTail, QueueLimit};

use crate::net::packet::PacketId;

/// Why a queue refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDrop {
    /// The queue was full (tail drop).
    Overflow,
}

/// An output queue.
#[derive(Debug, Clone)]
pub enum Queue {
    /// First-in first-out with a hard limit.
    DropTail(DropTail),
}

impl Queue {
    /// Offers a packet of `size` bytes; on refusal the caller drops it.
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, size: u32) -> Result<(), QueueDrop> {
        match self {
            Queue::DropTail(q) => q.enqueue(id, size),
        }
    }

    /// The next packet to send, if any.
    #[inline]
    pub fn dequeue(&mut self) -> Option<PacketId> {
        match self {
            Queue::DropTail(q) => q.dequeue(),
        }
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Queue::DropTail(q) => q.len(),
        }
    }

    /// True when no packet waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Handles of the waiting packets, head first (for audits and traces).
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        match self {
            Queue::DropTail(q) => q.iter(),
        }
    }
}
