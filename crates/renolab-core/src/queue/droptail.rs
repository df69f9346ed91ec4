//! DropTail: FIFO that drops arrivals once a packet or byte limit is reached.
//!
//! Two readings of the limit exist. By default it bounds the packets (or bytes) *waiting*.
//! With `counts_transmitting`, it reproduces ns-2.35's `DropTail::enque()` (drop-tail.cc),
//! which refuses an arrival when `length + 1 >= limit_` (packets) or when
//! `byteLength + size >= limit_ * mean_pktsize_` (bytes, `queue_in_bytes_`). ns-2's queue
//! never holds the packet on the wire, so at most `limit - 1` packets wait while one is
//! transmitted: the limit counts the packet being serialised. The test does not look at the
//! link's state: in ns-2 a packet reaching an idle link also passes through `enque()` (and
//! is dequeued at once), so a limit of 1 drops every packet there too, and so it does here.
//!
//! With an ECN threshold `K` it is DCTCP's step-marking switch queue (Alizadeh et al.,
//! SIGCOMM 2010, §3.1; RFC 8257 §3.1): an ECN-capable arrival that finds at least `K`
//! packets (or bytes, with a byte limit) waiting is marked Congestion Experienced; it is
//! still dropped if it does not fit. Packets that are not ECN-capable are never marked.

use super::fifo::Fifo;
use super::{Admit, QueueDrop, Queued};
use crate::time::SimTime;

/// The capacity of a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets wait.
    Packets(u32),
    /// At most this many bytes wait.
    Bytes(u64),
}

impl QueueLimit {
    /// True if a packet of `size` bytes fits in a queue holding `len` packets of `bytes`
    /// bytes in total (the limit bounds what waits, arrival included).
    #[inline]
    pub(crate) fn fits(self, len: usize, bytes: u64, size: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => len < n as usize,
            QueueLimit::Bytes(b) => bytes + size as u64 <= b,
        }
    }
}

/// A FIFO queue with a hard limit.
#[derive(Debug, Clone)]
pub struct DropTail {
    limit: QueueLimit,
    counts_transmitting: bool,
    /// Mark ECN-capable arrivals when this many packets (bytes, with a byte limit) wait.
    ecn_threshold: Option<u64>,
    /// An empty queue accepts every arrival smaller than this many bytes (0: none), worked
    /// out once from the limit: each link direction copies it
    /// ([`super::Queue::bypass_below`]) to decide on every hop that finds an idle wire
    /// without asking the queue.
    accepts_alone_below: u64,
    fifo: Fifo,
}

impl DropTail {
    /// An empty queue with `limit`. With `counts_transmitting`, the limit follows ns-2's
    /// drop-tail.cc and includes the packet on the wire (see the module documentation).
    pub fn new(limit: QueueLimit, counts_transmitting: bool) -> Self {
        // A small start: the ring doubles as the queue first grows and then keeps its
        // size, and a queue that empties starts again at its first slot (`Fifo::pop`), so a
        // queue's memory follows the most it ever held. (Reserving the limit, up to 65,536
        // entries, took 6.2 GB of address space for the 4,002 link directions of 1000 flows,
        // each access link's 100,000-packet queues included.)
        let reserve = match limit {
            QueueLimit::Packets(n) => (n as usize).min(64),
            QueueLimit::Bytes(_) => 64,
        };
        let accepts_alone_below = match (limit, counts_transmitting) {
            (QueueLimit::Packets(n), false) if n >= 1 => u64::MAX,
            (QueueLimit::Packets(n), true) if n >= 2 => u64::MAX,
            (QueueLimit::Packets(_), _) => 0,
            (QueueLimit::Bytes(b), _) => b,
        };
        DropTail {
            limit,
            counts_transmitting,
            ecn_threshold: None,
            accepts_alone_below,
            fifo: Fifo::with_capacity(reserve),
        }
    }

    /// The same queue marking ECN-capable arrivals that find at least `threshold` packets
    /// waiting (bytes, with a byte limit); `threshold` is at least 1.
    pub fn with_ecn_threshold(mut self, threshold: Option<u64>) -> Self {
        debug_assert!(threshold != Some(0));
        self.ecn_threshold = threshold;
        self
    }

    /// True if an arrival to this empty queue at an idle link is always accepted, so the
    /// engine may put it straight on the wire without queueing it.
    #[inline]
    pub fn accepts_when_empty(&self, size: u32) -> bool {
        (size as u64) < self.accepts_alone_below
    }

    /// The bound of [`DropTail::accepts_when_empty`]: an empty queue accepts every arrival
    /// of fewer bytes than this (0: none).
    #[inline]
    pub fn accepts_alone_below(&self) -> u64 {
        self.accepts_alone_below
    }

    /// Appends the packet unless that would exceed the limit, marking it when it is
    /// ECN-capable and the queue at or above the ECN threshold. Neither the time nor the
    /// link's state changes the decision (ns-2's rule ignores them too).
    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Queued,
        _transmitting: bool,
    ) -> Result<Admit, QueueDrop> {
        let fits = if self.counts_transmitting {
            // ns-2 drop-tail.cc, DropTail::enque(): drop when "length + 1 >= qlim_", or in
            // bytes when "byteLength + size >= qlimBytes".
            match self.limit {
                QueueLimit::Packets(n) => self.fifo.len() + 1 < n as usize,
                QueueLimit::Bytes(b) => self.fifo.bytes() + (pkt.size as u64) < b,
            }
        } else {
            self.limit
                .fits(self.fifo.len(), self.fifo.bytes(), pkt.size)
        };
        if !fits {
            return Err(QueueDrop::Overflow);
        }
        let marked = match self.ecn_threshold {
            Some(k) if pkt.ect() => {
                let waiting = match self.limit {
                    QueueLimit::Packets(_) => self.fifo.len() as u64,
                    QueueLimit::Bytes(_) => self.fifo.bytes(),
                };
                waiting >= k
            }
            _ => false,
        };
        pkt.enqueued_at = now;
        self.fifo.push(pkt);
        Ok(if marked { Admit::Marked } else { Admit::Queued })
    }

    /// Removes the head packet.
    #[inline]
    pub fn dequeue(&mut self) -> Option<Queued> {
        self.fifo.pop()
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketId;
    use crate::queue::Queue;

    const T: SimTime = SimTime::ZERO;

    fn pkt(id: u32, size: u32) -> Queued {
        Queued::new(PacketId(id), size, 0)
    }

    #[test]
    fn the_step_threshold_marks_ect_arrivals_that_find_k_packets_waiting() {
        let mut q = DropTail::new(QueueLimit::Packets(4), false).with_ecn_threshold(Some(2));
        let ect = |id| pkt(id, 100).with_ect(true);
        assert_eq!(q.enqueue(T, ect(0), true), Ok(Admit::Queued));
        assert_eq!(q.enqueue(T, ect(1), true), Ok(Admit::Queued));
        assert_eq!(q.enqueue(T, ect(2), true), Ok(Admit::Marked), "2 waiting");
        assert_eq!(
            q.enqueue(T, pkt(3, 100), true),
            Ok(Admit::Queued),
            "not ECT"
        );
        assert_eq!(q.enqueue(T, ect(4), true), Err(QueueDrop::Overflow), "full");
        let _ = q.dequeue();
        let _ = q.dequeue();
        assert_eq!(
            q.enqueue(T, ect(5), true),
            Ok(Admit::Marked),
            "2 waiting again"
        );
        let _ = q.dequeue();
        let _ = q.dequeue();
        assert_eq!(q.enqueue(T, ect(6), true), Ok(Admit::Queued), "1 waiting");
    }

    #[test]
    fn head_id_names_the_packet_the_next_dequeue_hands_on() {
        let mut q = Queue::DropTail(DropTail::new(QueueLimit::Packets(4), false));
        assert_eq!(q.head_id(), None);
        for id in 0..3 {
            assert!(q.enqueue(T, pkt(id, 100), true, &mut |_, _| {}).is_ok());
        }
        while let Some(head) = q.head_id() {
            let next = q.dequeue(T, &mut |_, _| {}).map(|d| d.id);
            assert_eq!(next, Some(head));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn a_byte_limit_makes_the_threshold_bytes() {
        let mut q = DropTail::new(QueueLimit::Bytes(10_000), false).with_ecn_threshold(Some(3000));
        let ect = |id| pkt(id, 1500).with_ect(true);
        assert_eq!(q.enqueue(T, ect(0), true), Ok(Admit::Queued));
        assert_eq!(q.enqueue(T, ect(1), true), Ok(Admit::Queued));
        assert_eq!(
            q.enqueue(T, ect(2), true),
            Ok(Admit::Marked),
            "3000 bytes waiting"
        );
    }

    #[test]
    fn what_an_empty_queue_takes_alone_it_would_enqueue() {
        let limits = [
            QueueLimit::Packets(0),
            QueueLimit::Packets(1),
            QueueLimit::Packets(2),
            QueueLimit::Bytes(0),
            QueueLimit::Bytes(1500),
        ];
        for limit in limits {
            for counts_transmitting in [false, true] {
                for size in [0, 1, 40, 1499, 1500, 1501, u32::MAX] {
                    let mut q = DropTail::new(limit, counts_transmitting);
                    let case = format!("{limit:?}, counts {counts_transmitting}, size {size}");
                    // The rule as it reads from the limit (a byte limit the arrival would
                    // fill exactly still goes through the queue).
                    let rule = match (limit, counts_transmitting) {
                        (QueueLimit::Packets(n), false) => n >= 1,
                        (QueueLimit::Packets(n), true) => n >= 2,
                        (QueueLimit::Bytes(b), _) => (size as u64) < b,
                    };
                    assert_eq!(q.accepts_when_empty(size), rule, "{case}");
                    if rule {
                        assert!(q.enqueue(T, pkt(0, size), false).is_ok(), "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_would_exceed_it() {
        let mut q = DropTail::new(QueueLimit::Packets(2), false);
        assert!(q.enqueue(T, pkt(0, 100), true).is_ok());
        assert!(q.enqueue(T, pkt(1, 100), true).is_ok());
        assert_eq!(q.enqueue(T, pkt(2, 100), true), Err(QueueDrop::Overflow));
        assert_eq!(q.dequeue().map(|p| p.id), Some(PacketId(0)));
        assert!(q.enqueue(T, pkt(3, 100), true).is_ok());
        assert_eq!(
            q.fifo().iter().collect::<Vec<_>>(),
            vec![PacketId(1), PacketId(3)]
        );
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(QueueLimit::Bytes(2500), false);
        assert!(q.enqueue(T, pkt(0, 1500), true).is_ok());
        assert_eq!(q.enqueue(T, pkt(1, 1500), true), Err(QueueDrop::Overflow));
        assert!(q.enqueue(T, pkt(2, 1000), true).is_ok());
        assert_eq!(q.fifo().bytes(), 2500);
    }

    #[test]
    fn counting_the_wire_lets_only_limit_minus_one_packets_wait() {
        let mut q = DropTail::new(QueueLimit::Packets(3), true);
        assert!(q.enqueue(T, pkt(0, 100), true).is_ok());
        assert!(q.enqueue(T, pkt(1, 100), true).is_ok());
        assert_eq!(q.enqueue(T, pkt(2, 100), true), Err(QueueDrop::Overflow));
        assert_eq!(q.fifo().len(), 2);
    }

    #[test]
    fn counting_the_wire_ignores_the_link_state_as_ns2_does() {
        // ns-2 tests "length + 1 >= limit" even for a packet reaching an idle link.
        let mut q = DropTail::new(QueueLimit::Packets(1), true);
        assert_eq!(q.enqueue(T, pkt(0, 100), false), Err(QueueDrop::Overflow));
        let mut q = DropTail::new(QueueLimit::Packets(2), true);
        assert!(q.enqueue(T, pkt(0, 100), false).is_ok());
        assert_eq!(q.enqueue(T, pkt(1, 100), false), Err(QueueDrop::Overflow));
    }

    #[test]
    fn counting_the_wire_in_bytes_refuses_an_arrival_that_reaches_the_limit() {
        let mut q = DropTail::new(QueueLimit::Bytes(2000), true);
        assert!(q.enqueue(T, pkt(0, 1000), true).is_ok());
        assert_eq!(q.enqueue(T, pkt(1, 1000), true), Err(QueueDrop::Overflow));
        assert!(q.enqueue(T, pkt(2, 999), true).is_ok());
    }
}
