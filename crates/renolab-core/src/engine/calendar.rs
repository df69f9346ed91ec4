//! The far side of the scheduler once many events are pending: a calendar queue (R. Brown,
//! "Calendar queues", CACM 31(10), 1988) in front of the near-future heap.
//!
//! Time is cut into slots of `2^shift` ns. The slot being worked through lives in the
//! scheduler's small binary heap; the next `slots - 1` slots are buckets of unsorted keys
//! (one push each, no ordering work until the bucket is reached); anything later waits in an
//! overflow heap (retransmission timers, mostly) and moves into its bucket when the window
//! reaches it. A bitmap of non-empty buckets skips empty slots a word at a time. When the
//! near heap runs dry, the next non-empty bucket becomes the near heap (one O(n) heapify).
//!
//! Keys are the scheduler's `u128`s (`time << 64 | seq << 24 | event`), so the order is the
//! heap's exactly: the heap always holds every key earlier than any bucket's, and inside the
//! heap the full key decides. Equal times fall in one slot, hence in one heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::near::NearHeap;

/// Aim for about this many events fired per slot. Fewer, and pushes into buckets (and their
/// later loads) cost more than the shallower near heap saves; on the 1000-flow case of
/// docs/benchmarks.md (callgrind, 0.6 s) 8 took 925.8 M instructions, 32 877.2 M, 128
/// 865.6 M, 512 882.1 M. What pays is keeping the far future (arrivals behind long links,
/// retransmission timers) out of the heap, not a tiny heap.
const TARGET_PER_SLOT: u64 = 128;
/// Fewer events than this between two checks say too little about the rate.
const MIN_EVENTS_FOR_RATE: u64 = 128;
/// Fewest and most slots in the window (powers of two; the bitmap wants at least 64).
const MIN_SLOTS: usize = 64;
const MAX_SLOTS: usize = 1 << 14;

/// The buckets and the overflow of a calendar queue; see the module documentation.
#[derive(Debug)]
pub(super) struct Calendar {
    /// Slot width is `1 << shift` ns.
    shift: u32,
    /// Absolute slot (time >> shift) whose keys are in the near heap.
    current: u64,
    /// `slots - 1`: bucket index of an absolute slot is `slot & mask`.
    mask: u64,
    buckets: Vec<Vec<u128>>,
    /// Bit `i` set when `buckets[i]` is non-empty.
    occupied: Vec<u64>,
    /// Keys at or beyond `current + slots`.
    overflow: BinaryHeap<Reverse<u128>>,
    /// Keys in buckets and overflow.
    len: usize,
}

/// Where a key goes: the near heap, or somewhere in the calendar.
pub(super) enum Placed {
    Near,
    Calendar,
}

#[inline]
fn time_of(key: u128) -> u64 {
    (key >> 64) as u64
}

/// Slot width (as a power of two) at which `events` fired in `elapsed` ns make
/// [`TARGET_PER_SLOT`] a slot; `None` if too few fired to tell.
pub(super) fn slot_shift_for_rate(events: u64, elapsed: u64) -> Option<u32> {
    if events < MIN_EVENTS_FOR_RATE {
        return None;
    }
    let width = (elapsed.saturating_mul(TARGET_PER_SLOT) / events).max(1);
    Some(63 - width.leading_zeros())
}

/// Slot width (as a power of two) from how densely `keys` (at least two, in any order; this
/// reorders them) crowd the near future: the guess before any rate has been measured.
pub(super) fn slot_shift_for_keys(keys: &mut [u128], now: u64) -> u32 {
    let k = (4 * TARGET_PER_SLOT as usize).min(keys.len() - 1).max(1);
    let reach = time_of(*keys.select_nth_unstable(k).1)
        .saturating_sub(now)
        .max(1);
    let width = (reach.saturating_mul(TARGET_PER_SLOT) / k as u64).max(1);
    63 - width.leading_zeros()
}

impl Calendar {
    /// A calendar for `keys` (in any order, all at or after `now`) with slots of `2^shift`
    /// ns, its buckets taken from `spare` (an earlier calendar's, emptied, so that a re-layout
    /// allocates no bucket it had before). The keys are placed; those of the current slot,
    /// for the near heap, are left in `keys`, in no order.
    pub(super) fn build(
        keys: &mut Vec<u128>,
        now: u64,
        shift: u32,
        mut spare: Vec<Vec<u128>>,
    ) -> Calendar {
        let n = keys.len();
        // The window covers three quarters of the keys, within bounds, and no more than four
        // slots a key: a few dozen keys, half of them timers a second ahead, would otherwise
        // get thousands of buckets, allocated at each rebuild and scanned at the next (1 % of
        // the reference dumbbell, whose slot width is re-chosen about 30 times in 5 s). The
        // quantile is selected, not sorted for: the order of keys within a bucket never
        // matters (each becomes a heap), and a sort of the ~2,000 pending keys was two
        // thirds of a re-layout's cost at 1000 flows (callgrind).
        let quantile = *keys.select_nth_unstable(n * 3 / 4).1;
        let span = time_of(quantile).saturating_sub(now) >> shift;
        let span = span.min(MAX_SLOTS as u64).min(4 * n as u64);
        let slots = ((span + 2).next_power_of_two() as usize).clamp(MIN_SLOTS, MAX_SLOTS);
        debug_assert!(spare.iter().all(Vec::is_empty));
        spare.resize_with(slots, Vec::new);
        let mut cal = Calendar {
            shift,
            current: now >> shift,
            mask: slots as u64 - 1,
            buckets: spare,
            occupied: vec![0; slots / 64],
            overflow: BinaryHeap::new(),
            len: 0,
        };
        keys.retain(|&key| matches!(cal.place(key), Placed::Near));
        cal
    }

    /// The (empty) buckets, for the next calendar to reuse.
    pub(super) fn into_buckets(self) -> Vec<Vec<u128>> {
        debug_assert_eq!(self.len, 0);
        self.buckets
    }

    /// Slot width as a power of two.
    pub(super) fn shift(&self) -> u32 {
        self.shift
    }

    /// First time after the current slot: keys before it belong in the near heap.
    pub(super) fn horizon(&self) -> u64 {
        let end = ((self.current as u128 + 1) << self.shift).min(u64::MAX as u128);
        end as u64
    }

    /// Keys in the buckets and the overflow.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Puts `key` in its bucket or the overflow, or says it belongs in the near heap.
    #[inline(always)]
    pub(super) fn place(&mut self, key: u128) -> Placed {
        let slot = time_of(key) >> self.shift;
        if slot <= self.current {
            return Placed::Near;
        }
        if slot - self.current <= self.mask {
            let index = (slot & self.mask) as usize;
            self.buckets[index].push(key);
            self.occupied[index / 64] |= 1 << (index % 64);
        } else {
            self.overflow.push(Reverse(key));
        }
        self.len += 1;
        Placed::Calendar
    }

    /// Advances to the next slot holding keys and swaps its bucket with the (empty) near
    /// heap. False when nothing is pending.
    pub(super) fn advance(&mut self, near: &mut NearHeap) -> bool {
        debug_assert!(near.is_empty());
        if let Some(slot) = self.next_occupied() {
            self.current = slot;
            let index = (slot & self.mask) as usize;
            self.occupied[index / 64] &= !(1 << (index % 64));
            let keys = std::mem::take(&mut self.buckets[index]);
            self.len -= keys.len();
            // The near heap's empty allocation goes back to the bucket, so no slot ever
            // allocates twice for the same load.
            self.buckets[index] = std::mem::replace(near, NearHeap::from_vec(keys)).take_vec();
        } else if let Some(&Reverse(first)) = self.overflow.peek() {
            self.current = time_of(first) >> self.shift;
        } else {
            return false;
        }
        // The window moved: overflow keys it now covers go to their buckets (or the heap).
        while let Some(&Reverse(key)) = self.overflow.peek() {
            let slot = time_of(key) >> self.shift;
            if slot - self.current > self.mask {
                break;
            }
            self.overflow.pop();
            self.len -= 1;
            if let Placed::Near = self.place(key) {
                near.push(key);
            }
        }
        true
    }

    /// Time of the earliest key in the calendar (the near heap being empty).
    pub(super) fn peek_time(&self) -> Option<u64> {
        let bucket = self.next_occupied().map(|slot| {
            let keys = &self.buckets[(slot & self.mask) as usize];
            time_of(*keys.iter().min().expect("occupied bucket"))
        });
        bucket.or_else(|| self.overflow.peek().map(|&Reverse(key)| time_of(key)))
    }

    /// Every key in the calendar, in no order, leaving it empty. Only the buckets the bitmap
    /// marks are visited: a window has up to four slots a key, most of them empty.
    pub(super) fn drain_into(&mut self, out: &mut Vec<u128>) {
        for (w, word) in self.occupied.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                out.append(&mut self.buckets[w * 64 + bits.trailing_zeros() as usize]);
                bits &= bits - 1;
            }
        }
        out.extend(self.overflow.drain().map(|Reverse(key)| key));
        self.len = 0;
    }

    /// The nearest slot after the current one whose bucket holds keys.
    fn next_occupied(&self) -> Option<u64> {
        let words = self.occupied.len();
        let start = ((self.current + 1) & self.mask) as usize;
        let mut w = start / 64;
        let mut word = self.occupied[w] & (!0u64 << (start % 64));
        // One more word than there are: the start word again, for its bits below `start`.
        for _ in 0..=words {
            if word != 0 {
                let index = (w * 64) as u64 + word.trailing_zeros() as u64;
                return Some(self.current + (index.wrapping_sub(self.current) & self.mask));
            }
            w = if w + 1 == words { 0 } else { w + 1 };
            word = self.occupied[w];
        }
        None
    }
}
