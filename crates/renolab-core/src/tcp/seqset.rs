//! A set of segment numbers as a sliding bitmap: the receiver's out-of-order buffer and the
//! sender's SACK scoreboard. It reuses its words as the window slides, so steady state
//! allocates nothing.

use std::collections::VecDeque;

/// Set of received segment numbers above the cumulative point, as a sliding bitmap.
/// Reuses its words as the window slides, so steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SeqSet {
    words: VecDeque<u64>,
    /// Segment number of bit 0 of `words[0]` divided by 64.
    first_word: u32,
    len: u32,
}

impl SeqSet {
    /// Adds `seq`; returns false if it was already present.
    pub fn insert(&mut self, seq: u32) -> bool {
        let w = seq / 64;
        self.cover_words(w, w);
        let i = (w - self.first_word) as usize;
        let bit = 1u64 << (seq % 64);
        let fresh = self.words[i] & bit == 0;
        self.words[i] |= bit;
        self.len += fresh as u32;
        fresh
    }

    /// Grows the bitmap so that it holds words `first..=last`.
    fn cover_words(&mut self, first: u32, last: u32) {
        if self.words.is_empty() {
            self.first_word = first;
        }
        if first < self.first_word {
            for _ in first..self.first_word {
                self.words.push_front(0);
            }
            self.first_word = first;
        }
        let need = (last - self.first_word) as usize + 1;
        if self.words.len() < need {
            self.words.resize(need, 0);
        }
    }

    /// Removes `seq`; returns whether it was present. Drops leading empty words.
    pub fn remove(&mut self, seq: u32) -> bool {
        let w = seq / 64;
        if w < self.first_word || (w - self.first_word) as usize >= self.words.len() {
            return false;
        }
        let i = (w - self.first_word) as usize;
        let bit = 1u64 << (seq % 64);
        let present = self.words[i] & bit != 0;
        self.words[i] &= !bit;
        self.len -= present as u32;
        while self.words.front() == Some(&0) {
            self.words.pop_front();
            self.first_word += 1;
        }
        present
    }

    /// True when `seq` is in the set.
    pub fn contains(&self, seq: u32) -> bool {
        let w = seq / 64;
        w >= self.first_word
            && self
                .words
                .get((w - self.first_word) as usize)
                .is_some_and(|x| x & (1 << (seq % 64)) != 0)
    }

    /// The maximal run of consecutive members containing `seq`, as `[start, end)`;
    /// `None` if `seq` is not a member. A word at a time: a loss episode's runs are
    /// thousands of segments long and the receiver asks for three on every ACK.
    pub fn run_around(&self, seq: u32) -> Option<(u32, u32)> {
        if !self.contains(seq) {
            return None;
        }
        Some((
            self.prev_absent_below(seq).wrapping_add(1),
            self.next_absent_at_or_after(seq),
        ))
    }

    /// The largest non-member below `seq` (which must be a member, so that one exists
    /// at or above `first_word * 64 - 1`), as a wrapping `u32`: `u32::MAX` stands for -1.
    fn prev_absent_below(&self, seq: u32) -> u32 {
        let mut w = seq / 64;
        let below = (1u64 << (seq % 64)) - 1;
        let mut bits = !self.word(w) & below;
        while bits == 0 {
            if w == 0 {
                return u32::MAX;
            }
            w -= 1;
            bits = !self.word(w);
        }
        w * 64 + 63 - bits.leading_zeros()
    }

    /// Adds every segment of `[lo, hi)`; returns how many were not members. A word at a
    /// time, as a SACK block may cover thousands of segments.
    pub fn insert_range(&mut self, lo: u32, hi: u32) -> u32 {
        if lo >= hi {
            return 0;
        }
        let (first, last) = (lo / 64, (hi - 1) / 64);
        self.cover_words(first, last);
        let mut fresh = 0;
        for w in first..=last {
            let from = if w == first { lo % 64 } else { 0 };
            let to = if w == last { (hi - 1) % 64 } else { 63 };
            let mask = (!0u64 >> (63 - to)) & (!0u64 << from);
            let word = &mut self.words[(w - self.first_word) as usize];
            fresh += (mask & !*word).count_ones();
            *word |= mask;
        }
        self.len += fresh;
        fresh
    }

    /// Removes every member below `seq`.
    pub fn clear_below(&mut self, seq: u32) {
        let w = seq / 64;
        while !self.words.is_empty() && self.first_word < w {
            let word = self.words.pop_front().unwrap_or(0);
            self.len -= word.count_ones();
            self.first_word += 1;
        }
        if self.first_word == w {
            if let Some(word) = self.words.front_mut() {
                let below = *word & ((1u64 << (seq % 64)) - 1);
                self.len -= below.count_ones();
                *word &= !below;
            }
        }
        while self.words.front() == Some(&0) {
            self.words.pop_front();
            self.first_word += 1;
        }
    }

    /// The smallest member at or above `seq`, if any.
    pub fn next_at_or_after(&self, seq: u32) -> Option<u32> {
        let mut w = (seq / 64).max(self.first_word);
        let mut mask = if w == seq / 64 {
            !0u64 << (seq % 64)
        } else {
            !0u64
        };
        while let Some(&word) = self.words.get((w - self.first_word) as usize) {
            let bits = word & mask;
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros());
            }
            w += 1;
            mask = !0;
        }
        None
    }

    /// The largest member, if any.
    pub fn max(&self) -> Option<u32> {
        let (i, word) = self
            .words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)?;
        Some((self.first_word + i as u32) * 64 + 63 - word.leading_zeros())
    }

    /// The bitmap word holding segments `64 w .. 64 w + 64` (zero outside the stored range).
    fn word(&self, w: u32) -> u64 {
        w.checked_sub(self.first_word)
            .and_then(|i| self.words.get(i as usize).copied())
            .unwrap_or(0)
    }

    /// The `n`-th largest member (`n` = 1 is the largest), if there are that many.
    pub fn nth_largest(&self, n: u32) -> Option<u32> {
        let mut left = n;
        for (i, &word) in self.words.iter().enumerate().rev() {
            let ones = word.count_ones();
            if left > ones {
                left -= ones;
                continue;
            }
            let mut bits = word;
            for _ in 1..left {
                bits &= !(1u64 << (63 - bits.leading_zeros()));
            }
            return Some((self.first_word + i as u32) * 64 + 63 - bits.leading_zeros());
        }
        None
    }

    /// Members in `[lo, hi)` that are not members of `other` (pass an empty set to count
    /// all members), a word at a time.
    pub fn count_in_range_not_in(&self, other: &SeqSet, lo: u32, hi: u32) -> u32 {
        if lo >= hi || self.is_empty() {
            return 0;
        }
        let first = (lo / 64).max(self.first_word);
        let last = ((hi - 1) / 64).min(self.first_word + self.words.len() as u32 - 1);
        if first > last {
            return 0;
        }
        let mut count = 0;
        for w in first..=last {
            let mut bits = self.word(w) & !other.word(w);
            if w == lo / 64 {
                bits &= !0u64 << (lo % 64);
            }
            if w == (hi - 1) / 64 {
                bits &= !0u64 >> (63 - (hi - 1) % 64);
            }
            count += bits.count_ones();
        }
        count
    }

    /// The smallest number at or above `seq` that is not a member.
    pub fn next_absent_at_or_after(&self, seq: u32) -> u32 {
        let mut w = seq / 64;
        let mut bits = !self.word(w) & (!0u64 << (seq % 64));
        while bits == 0 {
            w += 1;
            bits = !self.word(w);
        }
        w * 64 + bits.trailing_zeros()
    }

    /// Number of segments in the set.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_set_slides_without_losing_members() {
        let mut s = SeqSet::default();
        assert!(s.insert(200));
        assert!(s.insert(5));
        assert!(!s.insert(5));
        assert!(s.contains(200) && s.contains(5) && !s.contains(6));
        assert!(s.remove(5));
        assert!(s.contains(200));
        assert_eq!(s.len(), 1);
        assert!(s.remove(200));
        assert!(s.is_empty());
    }

    #[test]
    fn ranges_and_runs_agree_with_one_segment_at_a_time() {
        // Runs and ranges across word boundaries, at the edges of the deque and inside it.
        let ranges = [
            (5, 6),
            (60, 70),
            (128, 320),
            (0, 3),
            (63, 65),
            (300, 400),
            (1000, 1001),
        ];
        let mut fast = SeqSet::default();
        let mut slow = SeqSet::default();
        for (lo, hi) in ranges {
            let expected = (lo..hi).filter(|&x| slow.insert(x)).count() as u32;
            assert_eq!(fast.insert_range(lo, hi), expected, "[{lo}, {hi})");
            assert_eq!(fast.len(), slow.len());
        }
        for x in 0..1100 {
            assert_eq!(fast.contains(x), slow.contains(x), "{x}");
            let naive = slow.contains(x).then(|| {
                let mut a = x;
                while a > 0 && slow.contains(a - 1) {
                    a -= 1;
                }
                let mut b = x + 1;
                while slow.contains(b) {
                    b += 1;
                }
                (a, b)
            });
            assert_eq!(fast.run_around(x), naive, "{x}");
        }
        assert_eq!(fast.insert_range(10, 10), 0);
    }

    #[test]
    fn runs_are_found_around_a_member() {
        let mut s = SeqSet::default();
        for x in [3, 4, 5, 7, 64, 65] {
            s.insert(x);
        }
        assert_eq!(s.run_around(4), Some((3, 6)));
        assert_eq!(s.run_around(7), Some((7, 8)));
        assert_eq!(s.run_around(65), Some((64, 66)));
        assert_eq!(s.run_around(6), None);
        assert_eq!(s.next_at_or_after(6), Some(7));
        assert_eq!(s.next_at_or_after(8), Some(64));
        assert_eq!(s.next_at_or_after(66), None);
        assert_eq!(s.max(), Some(65));
        s.clear_below(5);
        assert_eq!(s.len(), 4);
        assert!(!s.contains(4) && s.contains(5));
        s.clear_below(65);
        assert_eq!((s.len(), s.max()), (1, Some(65)));
    }

    #[test]
    fn word_at_a_time_queries_agree_with_a_scan() {
        let mut a = SeqSet::default();
        let mut b = SeqSet::default();
        let members: Vec<u32> = (100..700).filter(|x| x % 3 == 0 || x % 7 == 0).collect();
        for &x in &members {
            a.insert(x);
            if x % 2 == 0 {
                b.insert(x);
            }
        }
        let scan_count = |lo: u32, hi: u32| {
            (lo..hi)
                .filter(|&x| a.contains(x) && !b.contains(x))
                .count() as u32
        };
        for (lo, hi) in [
            (0, 1000),
            (100, 101),
            (127, 129),
            (128, 192),
            (150, 650),
            (5, 5),
        ] {
            assert_eq!(
                a.count_in_range_not_in(&b, lo, hi),
                scan_count(lo, hi),
                "{lo}..{hi}"
            );
        }
        let empty = SeqSet::default();
        assert_eq!(a.count_in_range_not_in(&empty, 0, 1000), a.len());
        for n in [1, 2, 3, 64, 200, members.len() as u32] {
            assert_eq!(
                a.nth_largest(n),
                Some(members[members.len() - n as usize]),
                "{n}"
            );
        }
        assert_eq!(a.nth_largest(members.len() as u32 + 1), None);
        for seq in [0, 99, 102, 126, 127, 699, 700] {
            let scan = (seq..).find(|&x| !a.contains(x)).unwrap();
            assert_eq!(a.next_absent_at_or_after(seq), scan, "{seq}");
        }
    }
}
