//! DropTail: FIFO that drops arrivals once a packet or byte limit is reached.

use std::collections::VecDeque;

use super::QueueDrop;
use crate::net::packet::PacketId;

/// The capacity of a DropTail queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets wait.
    Packets(u32),
    /// At most this many bytes wait.
    Bytes(u64),
}

/// A FIFO queue with a hard limit.
#[derive(Debug, Clone)]
pub struct DropTail {
    limit: QueueLimit,
    fifo: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

impl DropTail {
    /// An empty queue with `limit`.
    pub fn new(limit: QueueLimit) -> Self {
        let reserve = match limit {
            QueueLimit::Packets(n) => (n as usize).min(1 << 16),
            QueueLimit::Bytes(_) => 64,
        };
        DropTail {
            limit,
            fifo: VecDeque::with_capacity(reserve),
            bytes: 0,
        }
    }

    /// Appends the packet unless that would exceed the limit.
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, size: u32) -> Result<(), QueueDrop> {
        let fits = match self.limit {
            QueueLimit::Packets(n) => self.fifo.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + size as u64 <= b,
        };
        if !fits {
            return Err(QueueDrop::Overflow);
        }
        self.fifo.push_back((id, size));
        self.bytes += size as u64;
        Ok(())
    }

    /// Removes the head packet.
    #[inline]
    pub fn dequeue(&mut self) -> Option<PacketId> {
        let (id, size) = self.fifo.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    /// True when no packet waits.
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Waiting packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.fifo.iter().map(|&(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_drops_the_arrival_that_would_exceed_it() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(PacketId(0), 100).is_ok());
        assert!(q.enqueue(PacketId(1), 100).is_ok());
        assert_eq!(q.enqueue(PacketId(2), 100), Err(QueueDrop::Overflow));
        assert_eq!(q.dequeue(), Some(PacketId(0)));
        assert!(q.enqueue(PacketId(3), 100).is_ok());
        assert_eq!(q.iter().collect::<Vec<_>>(), vec![PacketId(1), PacketId(3)]);
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(QueueLimit::Bytes(2500));
        assert!(q.enqueue(PacketId(0), 1500).is_ok());
        assert_eq!(q.enqueue(PacketId(1), 1500), Err(QueueDrop::Overflow));
        assert!(q.enqueue(PacketId(2), 1000).is_ok());
        assert_eq!(q.bytes(), 2500);
    }
}
