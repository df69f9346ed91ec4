//! The first-in first-out store that DropTail, RED and CoDel share: packets in arrival order
//! and their total size.

use std::collections::VecDeque;

use super::Queued;
use crate::packet::PacketId;

/// Waiting packets, head first, with their total size.
#[derive(Debug, Clone, Default)]
pub struct Fifo {
    packets: VecDeque<Queued>,
    bytes: u64,
}

impl Fifo {
    /// An empty FIFO with room for `capacity` packets before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        Fifo {
            packets: VecDeque::with_capacity(capacity),
            bytes: 0,
        }
    }

    /// Appends a packet.
    #[inline]
    pub fn push(&mut self, pkt: Queued) {
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
    }

    /// Removes the head packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let head = self.packets.pop_front()?;
        self.bytes -= head.size as u64;
        Some(head)
    }

    /// The head packet, if any.
    #[inline]
    pub fn head(&self) -> Option<&Queued> {
        self.packets.front()
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// True when no packet waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Waiting packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.packets.iter().map(|p| p.id)
    }
}
