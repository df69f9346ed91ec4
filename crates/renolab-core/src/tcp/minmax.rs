//! A windowed running minimum or maximum in constant space: Kathleen Nichols' algorithm as
//! Linux's `lib/win_minmax.c` implements it. It keeps the best, second-best and third-best
//! samples of the window (each later than the one before), so that when the best ages out
//! of the window a good successor is at hand. Linux tracks `min_rtt` with it over
//! `tcp_min_rtt_wlen` (300 s) and BBR its maximum bandwidth over 10 round trips.

/// One kept sample: when (in the caller's time unit) and its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    at: u64,
    value: u64,
}

/// Whether the filter keeps the minimum or the maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The smallest sample of the window.
    Min,
    /// The largest sample of the window.
    Max,
}

/// A windowed running minimum or maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinMax {
    keep: Keep,
    s: [Sample; 3],
    empty: bool,
}

impl MinMax {
    /// An empty filter.
    pub fn new(keep: Keep) -> Self {
        MinMax {
            keep,
            s: [Sample::default(); 3],
            empty: true,
        }
    }

    /// The best value of the window, if any sample was taken.
    pub fn get(&self) -> Option<u64> {
        (!self.empty).then_some(self.s[0].value)
    }

    fn better(&self, a: u64, b: u64) -> bool {
        match self.keep {
            Keep::Min => a <= b,
            Keep::Max => a >= b,
        }
    }

    /// Forgets everything but `value`, taken at `at`.
    pub fn reset(&mut self, at: u64, value: u64) {
        self.s = [Sample { at, value }; 3];
        self.empty = false;
    }

    /// Adds `value` measured at `at` (never decreasing) with a window of `window` time
    /// units; returns the best value of the window.
    pub fn update(&mut self, window: u64, at: u64, value: u64) -> u64 {
        let new = Sample { at, value };
        if self.empty
            || self.better(value, self.s[0].value)
            || at.saturating_sub(self.s[2].at) > window
        {
            self.reset(at, value);
            return value;
        }
        if self.better(value, self.s[1].value) {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.better(value, self.s[2].value) {
            self.s[2] = new;
        }
        self.subwin_update(window, new)
    }

    /// Linux `minmax_subwin_update()`: ages the kept samples out of the window.
    fn subwin_update(&mut self, window: u64, new: Sample) -> u64 {
        let dt = new.at.saturating_sub(self.s[0].at);
        if dt > window {
            // The best sample passed the window: promote the others, and keep the newest
            // as the third.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = new;
            if new.at.saturating_sub(self.s[0].at) > window {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = new;
            }
        } else if self.s[1].at == self.s[0].at && dt > window / 4 {
            // A quarter of the window passed without a second choice: take one.
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].at == self.s[1].at && dt > window / 2 {
            // Half the window passed without a third choice: take one.
            self.s[2] = new;
        }
        self.s[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_holds_for_the_window_then_ages_out() {
        let mut f = MinMax::new(Keep::Min);
        assert_eq!(f.update(10, 0, 50), 50);
        assert_eq!(f.update(10, 3, 40), 40);
        assert_eq!(f.update(10, 6, 60), 40);
        assert_eq!(
            f.update(10, 12, 70),
            40,
            "40 was taken at 3: still in the window"
        );
        // At 14 the 40 is 11 old: the best later sample takes over.
        assert!(f.update(10, 14, 80) > 40);
    }

    #[test]
    fn the_maximum_keeps_the_largest() {
        let mut f = MinMax::new(Keep::Max);
        f.update(10, 0, 5);
        f.update(10, 1, 9);
        assert_eq!(f.update(10, 2, 7), 9);
        assert_eq!(f.get(), Some(9));
    }
}
