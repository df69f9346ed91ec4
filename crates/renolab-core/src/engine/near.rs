//! The scheduler's near-future heap: a binary min-heap of `u128` keys whose pop leaves the
//! root in place until the next push or pop.
//!
//! Nearly every event schedules another while it is handled (a transmission's end the next
//! one, an arrival the next hop's): that push takes the popped root's place and sifts it to
//! where it belongs, where a pop then a push would sift down to the bottom, back up, and up
//! again for the push: 2.2 % fewer instructions on the reference dumbbell (callgrind). (The
//! same with a heap of our own, sifting down to a leaf and back up, cost 7.6 % more than std's
//! heap; sifting down with early exit and unchecked indexing about what std's does.)
//!
//! Keys are unique (the scheduler's insertion numbers see to it), so any valid heap of the
//! same keys pops them in the same order: the layout never decides an order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// See the module documentation.
#[derive(Debug, Default)]
pub(super) struct NearHeap {
    /// The keys, `Reverse`d: std's heap is a max-heap.
    keys: BinaryHeap<Reverse<u128>>,
    /// The root was popped and is no longer pending; the next push or pop replaces or
    /// removes it.
    taken: bool,
}

impl NearHeap {
    /// A heap of `keys`, in any order.
    pub(super) fn from_vec(keys: Vec<u128>) -> NearHeap {
        // `Reverse<u128>` is `repr(transparent)`: the map compiles to nothing.
        let keys: Vec<Reverse<u128>> = keys.into_iter().map(Reverse).collect();
        NearHeap {
            keys: BinaryHeap::from(keys),
            taken: false,
        }
    }

    /// The pending keys, in no order, leaving the heap empty (its allocation goes with
    /// them).
    pub(super) fn take_vec(&mut self) -> Vec<u128> {
        self.settle();
        let keys = std::mem::take(&mut self.keys).into_vec();
        keys.into_iter().map(|Reverse(key)| key).collect()
    }

    /// Number of pending keys.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.keys.len() - self.taken as usize
    }

    /// True when nothing is pending.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The earliest pending key.
    pub(super) fn peek(&self) -> Option<u128> {
        let keys = self.keys.as_slice();
        let first = if self.taken {
            // The popped root's children hold the earliest key left.
            keys.get(1..keys.len().min(3))?.iter().max()
        } else {
            keys.first()
        };
        first.map(|&Reverse(key)| key)
    }

    /// Removes and returns the earliest pending key (it stays at the root until the next
    /// push or pop).
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<u128> {
        self.settle();
        let &Reverse(key) = self.keys.peek()?;
        self.taken = true;
        Some(key)
    }

    /// Adds `key`. Any key may take a popped root's place, one earlier than the popped key
    /// included (an insertion number reserved before it): the sift down puts it where it
    /// belongs.
    #[inline(always)]
    pub(super) fn push(&mut self, key: u128) {
        if self.taken {
            self.taken = false;
            // `PeekMut` sifts the new root down when dropped.
            if let Some(mut root) = self.keys.peek_mut() {
                *root = Reverse(key);
            }
        } else {
            self.keys.push(Reverse(key));
        }
    }

    /// Removes a popped root still in place.
    #[inline(always)]
    fn settle(&mut self) {
        if self.taken {
            self.taken = false;
            self.keys.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_whatever_the_pushes() {
        let mut rng = crate::rng::RngStream::derive(30, "near heap");
        let mut heap = NearHeap::default();
        let mut reference = std::collections::BTreeSet::new();
        let mut floor = 0u128;
        for _ in 0..20_000 {
            let r = rng.next_u64();
            if r % 3 == 0 {
                let expected = reference.pop_first();
                assert_eq!(heap.pop(), expected);
                floor = expected.unwrap_or(floor);
            } else {
                // Mostly later than the last pop, sometimes earlier (a reserved number).
                let key = if r % 17 == 0 {
                    floor.saturating_sub((r >> 40) as u128)
                } else {
                    floor + (r >> 50) as u128
                };
                if reference.insert(key) {
                    heap.push(key);
                }
            }
            assert_eq!(heap.len(), reference.len());
            assert_eq!(heap.peek(), reference.first().copied());
        }
        let rest = heap.take_vec();
        assert_eq!(rest.len(), reference.len());
        let heap = NearHeap::from_vec(rest);
        assert_eq!(heap.peek(), reference.first().copied());
    }
}
