//! A first-in first-out ring of small `Copy` entries: what a link direction's propagation
//! pipe and a FIFO queue store.
//!
//! Power-of-two capacity rather than a `VecDeque`: every packet hop pushes one entry and
//! pops one, and masking an index is cheaper than `VecDeque`'s wrap-around arithmetic and
//! out-of-line growth check (−3 % instructions on the reference run, for the pipe). Each push
//! also asks for the cache line a few slots ahead (see [`LOOK_AHEAD`]).

use crate::prefetch::prefetch;

/// Slots ahead of a push whose cache line the push asks for: 4 entries of 24 bytes are 96
/// bytes, so the line the next pushes write is on its way before they reach it. A bottleneck's
/// pipe and queue hold thousands of entries, written once per lap around the ring; at 1000
/// flows the stores into the rings were 8 % of the run's time (`perf`, timer sampling),
/// each a write to a line that had left the caches since the last lap.
const LOOK_AHEAD: usize = 4;

/// Entries in order, oldest first; grows by doubling (at least 8 slots), never shrinks.
#[derive(Debug, Clone, Default)]
pub struct Ring<T> {
    /// Slots; the live ones are `head .. head + len`, modulo the capacity (0 or a power of
    /// two).
    slots: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Ring<T> {
    /// An empty ring with room for `capacity` entries (rounded up to a power of two) before
    /// it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        let slots = match capacity {
            0 => Vec::new(),
            n => vec![T::default(); n.next_power_of_two()],
        };
        Ring {
            slots,
            head: 0,
            len: 0,
        }
    }

    /// Entries held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entries it holds before it grows.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The `i`-th entry, oldest first; `i` must be below [`Ring::len`].
    #[inline]
    pub fn get(&self, i: usize) -> &T {
        debug_assert!(i < self.len);
        &self.slots[(self.head + i) & self.mask()]
    }

    /// The oldest entry.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| self.get(0))
    }

    /// The newest entry.
    #[inline]
    pub fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| self.get(self.len - 1))
    }

    /// Removes the oldest entry.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let first = self.slots[self.head];
        self.drop_front();
        Some(first)
    }

    /// Forgets the oldest entry of a ring that has one.
    #[inline(always)]
    pub fn drop_front(&mut self) {
        debug_assert!(self.len > 0);
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
    }

    /// Appends an entry.
    #[inline(always)]
    pub fn push_back(&mut self, entry: T) {
        if self.len == self.slots.len() {
            self.grow();
        }
        let at = (self.head + self.len) & self.mask();
        self.slots[at] = entry;
        self.len += 1;
        // Only a hint: the slot's address wraps like an index would.
        prefetch(
            self.slots
                .as_ptr()
                .wrapping_add((at + LOOK_AHEAD) & self.mask()),
        );
    }

    /// Swaps the `i`-th and `j`-th entries, oldest first (both below [`Ring::len`]).
    pub fn swap(&mut self, i: usize, j: usize) {
        debug_assert!(i < self.len && j < self.len);
        let (head, mask) = (self.head, self.mask());
        self.slots.swap((head + i) & mask, (head + j) & mask);
    }

    /// Makes an empty ring start again at its first slot, which the caches are likelier to
    /// hold than the slot it reached.
    #[inline]
    pub fn restart(&mut self) {
        debug_assert!(self.len == 0);
        self.head = 0;
    }

    /// The entries, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }

    /// Doubles the capacity (at least 8 slots), unwrapping the ring to start at slot 0.
    #[cold]
    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(8);
        let mut slots = Vec::with_capacity(capacity);
        slots.extend(self.iter().copied());
        slots.resize(capacity, T::default());
        self.slots = slots;
        self.head = 0;
    }

    /// Index of the oldest entry's slot (tests check where a ring restarts).
    #[cfg(test)]
    pub(crate) fn head_slot(&self) -> usize {
        self.head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn a_ring_is_first_in_first_out_across_growth_and_wrap_around() {
        let mut ring = Ring::default();
        let mut expected = VecDeque::new();
        let mut next = 0u32;
        // Interleave pushes and pops so that the ring wraps and grows several times.
        for round in 0..50u32 {
            for _ in 0..(round % 7 + 1) {
                ring.push_back(next);
                expected.push_back(next);
                next += 1;
            }
            for _ in 0..(round % 5) {
                assert_eq!(ring.pop_front(), expected.pop_front());
            }
            assert_eq!(ring.len(), expected.len());
            assert_eq!(ring.front().copied(), expected.front().copied());
            assert_eq!(ring.back().copied(), expected.back().copied());
            assert!(ring.iter().copied().eq(expected.iter().copied()));
        }
        assert!(ring.capacity().is_power_of_two() && ring.capacity() >= expected.len());
        while let Some(v) = ring.pop_front() {
            assert_eq!(Some(v), expected.pop_front());
        }
        assert!(ring.is_empty() && expected.is_empty());
    }

    #[test]
    fn capacity_rounds_up_to_a_power_of_two_and_holds_that_many_without_growing() {
        assert_eq!(Ring::<u8>::with_capacity(0).capacity(), 0);
        let mut ring = Ring::with_capacity(5);
        assert_eq!(ring.capacity(), 8);
        for v in 0..8u8 {
            ring.push_back(v);
        }
        assert_eq!(ring.capacity(), 8, "eight fit");
        ring.push_back(8);
        assert_eq!(ring.capacity(), 16);
        assert!(ring.iter().copied().eq(0..9));
    }

    #[test]
    fn swap_exchanges_entries_by_age_across_the_wrap() {
        let mut ring = Ring::with_capacity(4);
        for v in 0..4u8 {
            ring.push_back(v);
        }
        ring.pop_front();
        ring.pop_front();
        ring.push_back(4);
        ring.push_back(5); // slots [4, 5, 2, 3], head at 2
        ring.swap(0, 3);
        assert!(ring.iter().copied().eq([5, 3, 4, 2]));
    }

    #[test]
    fn an_emptied_ring_restarts_at_its_first_slot() {
        let mut ring = Ring::with_capacity(8);
        for v in 0..3u8 {
            ring.push_back(v);
        }
        while ring.pop_front().is_some() {}
        assert_eq!(ring.head_slot(), 3);
        ring.restart();
        assert_eq!(ring.head_slot(), 0);
        ring.push_back(7);
        assert_eq!(ring.front(), Some(&7));
    }
}
