//! Packets: small `Copy` structs in a slab, addressed by a `u32` handle and recycled through a
//! free list, so that steady-state simulation allocates nothing per packet.
//!
//! A packet carries what the simulation needs (flow, kind, sequence numbers in segments, size
//! on the wire); real header bytes are produced only when a trace writes them.

use crate::tcp::sack::SackBlocks;
use crate::time::SimTime;

/// Handle of a packet in the [`PacketPool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketId(pub u32);

/// What a packet is, as far as the endpoints are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP data segment (from the flow's sender to its receiver).
    Data,
    /// A TCP acknowledgement (from the flow's receiver to its sender).
    Ack,
    /// The SYN that opens a connection (sender to receiver).
    Syn,
    /// The receiver's answer to a SYN.
    SynAck,
    /// A UDP datagram of a constant-bit-rate flow.
    Datagram,
}

impl PacketKind {
    /// True for packets that travel from the sender to the receiver.
    pub fn is_forward(self) -> bool {
        matches!(
            self,
            PacketKind::Data | PacketKind::Syn | PacketKind::Datagram
        )
    }
}

/// One packet in the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Index of the flow the packet belongs to.
    pub flow: u32,
    /// Data or ACK.
    pub kind: PacketKind,
    /// Data: the segment number (0-based). ACK: the next segment expected (cumulative ACK).
    pub seq: u32,
    /// Size on the wire, in bytes (payload plus headers).
    pub size: u32,
    /// Destination node index.
    pub dst: u32,
    /// Data: true when this transmission repeats a segment sent before.
    pub retransmit: bool,
    /// When the endpoint emitted it, for one-way latency.
    pub sent_at: SimTime,
    /// ACK: SACK blocks (RFC 2018), empty otherwise.
    pub sack: SackBlocks,
}

/// A slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `packet` and returns its handle, reusing a freed slot when there is one.
    pub fn insert(&mut self, packet: Packet) -> PacketId {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = packet;
                PacketId(i)
            }
            None => {
                self.slots.push(packet);
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    /// The packet behind `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    /// Releases `id` and returns the packet it held.
    pub fn remove(&mut self, id: PacketId) -> Packet {
        self.free.push(id.0);
        self.slots[id.0 as usize]
    }

    /// Packets currently alive (inserted and not removed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots ever allocated: the high-water mark of live packets.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u32) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            seq,
            size: 1500,
            dst: 1,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: SackBlocks::EMPTY,
        }
    }

    #[test]
    fn freed_slots_are_reused() {
        let mut pool = PacketPool::new();
        let a = pool.insert(pkt(1));
        let _b = pool.insert(pkt(2));
        assert_eq!(pool.remove(a).seq, 1);
        let c = pool.insert(pkt(3));
        assert_eq!(c, a, "slot of a reused");
        assert_eq!(pool.get(c).seq, 3);
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.capacity_used(), 2);
    }
}
