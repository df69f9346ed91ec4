//! A link direction's propagation pipe: the packets on its wire or propagating, in order of
//! arrival at the far end, in a [`Ring`].

use crate::packet::PacketId;
use crate::ring::Ring;
use crate::time::SimTime;

/// A packet on the wire or propagating.
#[derive(Debug, Clone, Copy, Default)]
pub struct InFlight {
    /// When it reaches the far end.
    pub arrival: SimTime,
    /// Insertion number of its arrival event, reserved when it started serialising.
    pub seq: u64,
    /// The packet.
    pub id: PacketId,
}

/// The packets in flight on one link direction, earliest arrival first.
#[derive(Debug, Default)]
pub struct Pipe {
    flights: Ring<InFlight>,
}

impl Pipe {
    /// Packets in the pipe.
    #[inline]
    pub fn len(&self) -> usize {
        self.flights.len()
    }

    /// True when no packet is in flight.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.flights.is_empty()
    }

    /// The packet that arrives first.
    #[inline]
    pub fn front(&self) -> Option<&InFlight> {
        self.flights.front()
    }

    /// The packet that arrives last.
    #[inline]
    pub fn back(&self) -> Option<&InFlight> {
        self.flights.back()
    }

    /// Removes the packet that arrives first.
    #[inline]
    pub fn pop_front(&mut self) -> Option<InFlight> {
        self.flights.pop_front()
    }

    /// Removes the packet that arrives first if it arrives at `now` (the arrival event of
    /// a pipe whose head changed since is stale). One test of the length where
    /// [`Pipe::front`] then [`Pipe::pop_front`] took two.
    #[inline]
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<InFlight> {
        let first = *self.front()?;
        if first.arrival != now {
            return None;
        }
        self.flights.drop_front();
        Some(first)
    }

    /// Appends a packet that arrives no earlier than every other.
    #[inline(always)]
    pub fn push_back(&mut self, flight: InFlight) {
        self.flights.push_back(flight);
    }

    /// Inserts a packet after every packet arriving no later than it; returns its position
    /// (0: it is now the first to arrive). For latencies that reorder packets, off the hot
    /// path; a reordered packet usually lands near the back, and only the packets behind it
    /// move.
    pub fn insert_by_arrival(&mut self, flight: InFlight) -> usize {
        // Binary search: the pipe is sorted by arrival.
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.flights.get(mid).arrival <= flight.arrival {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.flights.push_back(flight);
        // Rotate the new entry back into place.
        for i in (lo..self.len() - 1).rev() {
            self.flights.swap(i, i + 1);
        }
        lo
    }

    /// The packets in order of arrival.
    pub fn iter(&self) -> impl Iterator<Item = &InFlight> + '_ {
        self.flights.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flight(arrival: u64, id: u32) -> InFlight {
        InFlight {
            arrival: SimTime(arrival),
            seq: id as u64,
            id: PacketId(id),
        }
    }

    fn ids(pipe: &Pipe) -> Vec<u32> {
        pipe.iter().map(|f| f.id.0).collect()
    }

    #[test]
    fn a_pipe_keeps_arrival_order_as_a_sorted_list_would() {
        // Pushes, reordering insertions and pops, against a list kept sorted by arrival
        // (equal arrivals in insertion order), across the ring's growth and wrap-around.
        let mut pipe = Pipe::default();
        let mut model: Vec<InFlight> = Vec::new();
        let mut state = 12345u64;
        for (step, next_id) in (0..3000u32).zip(0u32..) {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let roll = (state >> 33) % 10;
            let last = model.last().map_or(0, |f| f.arrival.0);
            if roll < 4 || model.is_empty() {
                let f = flight(last + roll, next_id);
                pipe.push_back(f);
                model.push(f);
            } else if roll < 6 {
                let f = flight(last.saturating_sub((state >> 40) % 50), next_id);
                let at = model.partition_point(|g| g.arrival <= f.arrival);
                model.insert(at, f);
                assert_eq!(pipe.insert_by_arrival(f), at, "step {step}");
            } else {
                let popped = pipe.pop_front().map(|f| f.id);
                assert_eq!(popped, Some(model.remove(0).id), "step {step}");
            }
            assert_eq!(pipe.len(), model.len());
            assert_eq!(pipe.front().map(|f| f.id), model.first().map(|f| f.id));
            assert_eq!(pipe.back().map(|f| f.id), model.last().map(|f| f.id));
            assert!(
                pipe.iter().map(|f| f.id).eq(model.iter().map(|f| f.id)),
                "step {step}"
            );
        }
    }

    #[test]
    fn only_a_head_arriving_now_is_popped() {
        let mut pipe = Pipe::default();
        assert!(pipe.pop_arrived(SimTime(10)).is_none());
        pipe.push_back(flight(10, 1));
        pipe.push_back(flight(20, 2));
        assert!(
            pipe.pop_arrived(SimTime(20)).is_none(),
            "not the head's time"
        );
        assert_eq!(pipe.pop_arrived(SimTime(10)).map(|f| f.id.0), Some(1));
        assert_eq!(ids(&pipe), vec![2]);
    }

    #[test]
    fn insertion_by_arrival_goes_after_equal_arrivals() {
        let mut pipe = Pipe::default();
        // Wrap the ring first, so that insertion crosses its end.
        for i in 0..6 {
            pipe.push_back(flight(0, 100 + i));
        }
        for _ in 0..6 {
            pipe.pop_front();
        }
        for (arrival, id) in [(10, 1), (20, 2), (30, 3)] {
            pipe.push_back(flight(arrival, id));
        }
        assert_eq!(pipe.insert_by_arrival(flight(20, 4)), 2);
        assert_eq!(pipe.insert_by_arrival(flight(5, 5)), 0);
        assert_eq!(pipe.insert_by_arrival(flight(40, 6)), 5);
        assert_eq!(ids(&pipe), vec![5, 1, 2, 4, 3, 6]);
    }
}
