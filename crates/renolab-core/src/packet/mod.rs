//! Packets: small `Copy` structs in a slab, addressed by a `u32` handle and recycled through a
//! free list, so that steady-state simulation allocates nothing per packet.
//!
//! A packet carries what the simulation needs (flow, kind, sequence numbers in segments, size
//! on the wire); real header bytes are produced only when a trace writes them.

pub mod headers;
pub mod sack;

use crate::prefetch::prefetch;
use crate::time::SimTime;
use sack::SackBlocks;

/// Handle of a packet in the [`PacketPool`] (the default, 0, only fills unused ring slots).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

/// The IP header's two-bit ECN field (RFC 3168 §5), with its values as on the wire.
///
/// ECT(1) is the L4S identifier (RFC 9331 §4): an L4S sender sets it, and a dual-queue AQM
/// (RFC 9332) classifies ECT(1) and CE into its low-latency queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Codepoint {
    /// Not ECN-Capable Transport, `00`: a queue may only drop it.
    #[default]
    NotEct = 0b00,
    /// ECN-Capable Transport (1), `01`: the L4S identifier.
    Ect1 = 0b01,
    /// ECN-Capable Transport (0), `10`: classic ECN (RFC 3168).
    Ect0 = 0b10,
    /// Congestion Experienced, `11`: set by a queue on an ECN-capable packet.
    Ce = 0b11,
}

impl Codepoint {
    /// The codepoint of the two low bits of `field`.
    #[inline]
    pub fn from_bits(field: u8) -> Codepoint {
        match field & 0b11 {
            0b00 => Codepoint::NotEct,
            0b01 => Codepoint::Ect1,
            0b10 => Codepoint::Ect0,
            _ => Codepoint::Ce,
        }
    }

    /// The two bits, as on the wire.
    #[inline]
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// ECN-capable: ECT(0), ECT(1) or CE (a queue may mark it instead of dropping it).
    #[inline]
    pub fn is_ect(self) -> bool {
        self != Codepoint::NotEct
    }
}

/// Names of the codepoints, indexed by [`Codepoint::bits`] (the `hops` trace's `ecn` codes).
pub const CODEPOINT_NAMES: [&str; 4] = ["not_ect", "ect1", "ect0", "ce"];

/// The ECN bits a packet carries: the IP header's ECN field (RFC 3168 §5) and the TCP
/// header's ECE and CWR flags (§6.1) and AE flag (RFC 9768 §3.2.2, Accurate ECN; the three
/// together are its ACE counter), packed in one byte so that [`Packet`] does not grow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ecn(u8);

impl Ecn {
    /// Not-ECT, no TCP flag: what every packet carries unless its endpoints negotiated ECN.
    pub const NONE: Ecn = Ecn(0);
    /// The ECN field's codepoints (RFC 3168 §5): Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11.
    const FIELD: u8 = 0b11;
    const ECT0: u8 = 0b10;
    const CE: u8 = 0b11;
    /// TCP ECN-Echo (RFC 3168 §6.1), TCP Congestion Window Reduced, and Accurate ECN's AE
    /// (RFC 9768 §3.2.2: the bit that was the experimental NS flag).
    const ECE: u8 = 1 << 2;
    const CWR: u8 = 1 << 3;
    const AE: u8 = 1 << 4;

    /// The two-bit IP ECN field, as on the wire (pcap, tshark's `ip.dsfield.ecn`).
    #[inline]
    pub fn field(self) -> u8 {
        self.0 & Self::FIELD
    }
    /// The IP ECN field as a [`Codepoint`].
    #[inline]
    pub fn codepoint(self) -> Codepoint {
        Codepoint::from_bits(self.0)
    }
    /// With the IP field set to `codepoint`.
    pub fn with_codepoint(self, codepoint: Codepoint) -> Ecn {
        Ecn((self.0 & !Self::FIELD) | codepoint.bits())
    }
    /// With the IP field set to ECT(1), the L4S identifier (RFC 9331 §4).
    pub fn with_ect1(self) -> Ecn {
        self.with_codepoint(Codepoint::Ect1)
    }
    /// The TCP AE flag (RFC 9768 §3.2.2).
    #[inline]
    pub fn ae(self) -> bool {
        self.0 & Self::AE != 0
    }
    /// The three-bit ACE field of Accurate ECN, AE (most significant), CWR, ECE (RFC 9768
    /// §3.2.2): on a SYN-ACK the handshake's answer, on later ACKs the receiver's count of
    /// CE-marked packets modulo 8.
    #[inline]
    pub fn ace(self) -> u8 {
        (self.ae() as u8) << 2 | (self.cwr() as u8) << 1 | self.ece() as u8
    }
    /// With the TCP AE, CWR and ECE flags set from the three low bits of `ace` (RFC 9768
    /// §3.2.2: AE the most significant).
    pub fn with_ace(self, ace: u8) -> Ecn {
        // ECE, CWR and AE are bits 2, 3 and 4: the counter's bits shifted by two.
        Ecn((self.0 & !(Self::AE | Self::CWR | Self::ECE)) | (ace & 0b111) << 2)
    }
    /// ECN-Capable Transport: ECT(0), ECT(1) or CE.
    #[inline]
    pub fn is_ect(self) -> bool {
        self.field() != 0
    }
    /// Congestion Experienced.
    #[inline]
    pub fn is_ce(self) -> bool {
        self.field() == Self::CE
    }
    /// The TCP ECN-Echo flag.
    #[inline]
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }
    /// The TCP Congestion Window Reduced flag.
    #[inline]
    pub fn cwr(self) -> bool {
        self.0 & Self::CWR != 0
    }
    /// With the IP field set to ECT(0), the codepoint RFC 3168 §6.1.1 senders use.
    pub fn with_ect0(self) -> Ecn {
        Ecn((self.0 & !Self::FIELD) | Self::ECT0)
    }
    /// With the IP field set to CE (a queue's mark; only an ECT packet may get it).
    pub fn with_ce(self) -> Ecn {
        Ecn(self.0 | Self::CE)
    }
    /// With the TCP ECE flag set to `on`.
    pub fn with_ece(self, on: bool) -> Ecn {
        Ecn((self.0 & !Self::ECE) | if on { Self::ECE } else { 0 })
    }
    /// With the TCP CWR flag set to `on`.
    pub fn with_cwr(self, on: bool) -> Ecn {
        Ecn((self.0 & !Self::CWR) | if on { Self::CWR } else { 0 })
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
    /// The IP ECN field and the TCP ECE/CWR flags.
    pub ecn: Ecn,
}

/// A slot of the pool: a packet and what the network keeps beside it.
///
/// 64 bytes, aligned to a cache line, so that a packet's every access touches one line
/// rather than the two an 8-byte-aligned slab straddles half the time (L1 data misses at
/// 1,000 flows 6.17 M -> 6.05 M, cachegrind; the same instructions).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Slot {
    packet: Packet,
    /// Time the packet has spent waiting in link queues so far, ns (outside [`Packet`], which
    /// the endpoints and tracers copy, and which has no room left in its 56 bytes).
    waited_ns: u64,
}

/// A slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl PacketPool {
    /// Bytes of one slot: a packet and its waiting time (for the memory estimate).
    pub const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `packet` and returns its handle, reusing a freed slot when there is one.
    pub fn insert(&mut self, packet: Packet) -> PacketId {
        let slot = Slot {
            packet,
            waited_ns: 0,
        };
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                PacketId(i)
            }
            None => {
                self.slots.push(slot);
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    /// The packet behind `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize].packet
    }

    /// Asks the CPU to bring packet `id`'s slot into its caches: it is about to be read.
    ///
    /// Once a bottleneck's queue holds thousands of packets from many flows, the slots
    /// touched between two visits of the same packet no longer fit the L2 cache, and each
    /// hop's first read of its packet waits for memory. The caller knows the next packet a
    /// link will hand on (the next in its pipe, the next in its queue) one transmission
    /// before it is needed: time enough for the line to arrive.
    #[inline(always)]
    pub fn prefetch(&self, id: PacketId) {
        // No bounds check: the address is only a hint (`wrapping_add` makes a pointer
        // without reading through it).
        prefetch(self.slots.as_ptr().wrapping_add(id.0 as usize));
    }

    /// The packet behind `id`, to change (a queue's CE mark).
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize].packet
    }

    /// Adds `ns` to the time packet `id` has waited in queues.
    #[inline]
    pub fn add_wait(&mut self, id: PacketId, ns: u64) {
        self.slots[id.0 as usize].waited_ns += ns;
    }

    /// Time packet `id` has waited in queues so far, ns.
    #[inline]
    pub fn waited_ns(&self, id: PacketId) -> u64 {
        self.slots[id.0 as usize].waited_ns
    }

    /// Releases `id` and returns the packet it held.
    pub fn remove(&mut self, id: PacketId) -> Packet {
        self.take(id).0
    }

    /// Releases `id` and returns the packet it held and the time it waited in queues, ns.
    #[inline]
    pub fn take(&mut self, id: PacketId) -> (Packet, u64) {
        self.free.push(id.0);
        let slot = &self.slots[id.0 as usize];
        (slot.packet, slot.waited_ns)
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
            ecn: Ecn::NONE,
        }
    }

    #[test]
    fn ecn_bits_do_not_grow_the_packet() {
        // 56 bytes with or without the ECN byte: it fills padding.
        assert_eq!(std::mem::size_of::<Packet>(), 56);
        // With its waiting time, one cache line.
        assert_eq!(std::mem::size_of::<Slot>(), std::mem::align_of::<Slot>());
        let e = Ecn::NONE.with_ect0();
        assert!(e.is_ect() && !e.is_ce() && e.field() == 0b10);
        let e = e.with_ce().with_ece(true).with_cwr(true);
        assert!(e.is_ce() && e.field() == 0b11 && e.ece() && e.cwr());
        assert!(!e.with_ece(false).ece() && e.with_ece(false).is_ce());
    }

    #[test]
    fn codepoints_are_the_wire_bits_and_ect1_is_ecn_capable() {
        for bits in 0..4 {
            let cp = Codepoint::from_bits(bits);
            assert_eq!(cp.bits(), bits);
            assert_eq!(Ecn::NONE.with_codepoint(cp).field(), bits);
            assert_eq!(cp.is_ect(), bits != 0, "{}", CODEPOINT_NAMES[bits as usize]);
        }
        let e = Ecn::NONE.with_ect1();
        assert_eq!(
            (e.codepoint(), e.is_ect(), e.is_ce()),
            (Codepoint::Ect1, true, false)
        );
        assert_eq!(e.with_ce().codepoint(), Codepoint::Ce, "CE replaces ECT(1)");
    }

    #[test]
    fn the_ace_field_is_ae_cwr_ece_and_leaves_the_ip_field_alone() {
        let e = Ecn::NONE.with_ect1().with_ace(0b101);
        assert_eq!(
            (e.ae(), e.cwr(), e.ece(), e.ace()),
            (true, false, true, 0b101)
        );
        assert_eq!(e.codepoint(), Codepoint::Ect1);
        for ace in 0..8 {
            assert_eq!(e.with_ace(ace).ace(), ace);
        }
        assert_eq!(e.with_ace(0b1010).ace(), 0b010, "three bits only");
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

    #[test]
    fn a_packet_keeps_its_waiting_time_until_its_slot_is_reused() {
        let mut pool = PacketPool::new();
        let a = pool.insert(pkt(1));
        pool.add_wait(a, 30);
        pool.add_wait(a, 12);
        assert_eq!(pool.waited_ns(a), 42);
        pool.remove(a);
        let b = pool.insert(pkt(2));
        assert_eq!((b, pool.waited_ns(b)), (a, 0));
        assert_eq!(PacketPool::SLOT_BYTES, 64);
    }
}
