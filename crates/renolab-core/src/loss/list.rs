//! Deterministic drops, for tests and scripted scenarios ("drop exactly these packets").

use crate::packet::{Packet, PacketKind};

/// Drops chosen data segments of one flow, or chosen packets by their index on the link.
///
/// A segment listed once is dropped on its first transmission only, so its retransmission
/// gets through; listing it twice drops the first two transmissions, and so on.
#[derive(Debug, Clone, Default)]
pub struct DropList {
    flow: Option<u32>,
    /// (segment, transmissions still to drop), sorted by segment.
    segments: Vec<(u32, u32)>,
    /// 0-based indices of packets crossing this link direction, sorted.
    packets: Vec<u64>,
    seen: u64,
}

impl DropList {
    /// Drops the listed segments of `flow` and the listed packet indices.
    pub fn new(flow: Option<u32>, segments: &[u32], packets: &[u64]) -> Self {
        let mut counted: Vec<(u32, u32)> = Vec::new();
        let mut sorted = segments.to_vec();
        sorted.sort_unstable();
        for s in sorted {
            match counted.last_mut() {
                Some((last, n)) if *last == s => *n += 1,
                _ => counted.push((s, 1)),
            }
        }
        let mut packets = packets.to_vec();
        packets.sort_unstable();
        packets.dedup();
        DropList {
            flow,
            segments: counted,
            packets,
            seen: 0,
        }
    }

    /// True if `packet` is to be dropped.
    pub fn judge(&mut self, packet: &Packet) -> bool {
        let index = self.seen;
        self.seen += 1;
        if self.packets.binary_search(&index).is_ok() {
            return true;
        }
        if packet.kind != PacketKind::Data || Some(packet.flow) != self.flow {
            return false;
        }
        match self.segments.binary_search_by_key(&packet.seq, |&(s, _)| s) {
            Ok(i) if self.segments[i].1 > 0 => {
                self.segments[i].1 -= 1;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn data(flow: u32, seq: u32) -> Packet {
        Packet {
            flow,
            kind: PacketKind::Data,
            seq,
            size: 1000,
            dst: 0,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: crate::packet::sack::SackBlocks::EMPTY,
            ecn: crate::packet::Ecn::NONE,
        }
    }

    #[test]
    fn a_listed_segment_is_dropped_once_per_listing() {
        let mut l = DropList::new(Some(0), &[5, 7, 7], &[]);
        assert!(!l.judge(&data(0, 4)));
        assert!(l.judge(&data(0, 5)));
        assert!(!l.judge(&data(0, 5)), "retransmission passes");
        assert!(!l.judge(&data(1, 7)), "other flow");
        assert!(l.judge(&data(0, 7)));
        assert!(l.judge(&data(0, 7)));
        assert!(!l.judge(&data(0, 7)));
    }

    #[test]
    fn packet_indices_count_every_packet_on_the_link() {
        let mut l = DropList::new(None, &[], &[1]);
        assert!(!l.judge(&data(3, 0)));
        assert!(l.judge(&data(3, 1)));
        assert!(!l.judge(&data(3, 2)));
    }
}
