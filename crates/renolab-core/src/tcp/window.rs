//! Congestion-window arithmetic in segments, as fixed point with 32 fractional bits.
//!
//! Like ns-2's one-way agents we count windows in segments, and congestion avoidance grows
//! the window by a fraction of a segment per ACK. Fixed point keeps that exact and
//! platform-independent, so traces of two runs compare equal bit for bit.

use std::fmt;

/// A window in segments, with 32 fractional bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Window(u64);

const FRAC_BITS: u32 = 32;
const ONE: u64 = 1 << FRAC_BITS;

impl Window {
    /// A window of `n` whole segments.
    pub const fn segments(n: u32) -> Self {
        Window((n as u64) << FRAC_BITS)
    }

    /// The usable window: whole segments, rounded down.
    #[inline]
    pub fn whole(self) -> u32 {
        (self.0 >> FRAC_BITS).min(u32::MAX as u64) as u32
    }

    /// The window nearest below `segments` (negative counts as zero): the whole segments of
    /// both agree, as ns-2's `int(cwnd_)` of its double window.
    pub fn from_f64(segments: f64) -> Self {
        // Scaling by a power of two is exact, so the cast truncates exactly.
        Window((segments.max(0.0) * ONE as f64) as u64)
    }

    /// The window as a float, for traces and reports only.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / ONE as f64
    }

    /// Adds `n` whole segments.
    #[inline]
    pub fn plus(self, n: u32) -> Self {
        Window(self.0.saturating_add((n as u64) << FRAC_BITS))
    }

    /// Half this window, keeping the fraction (ns-2's `precisionReduce_`).
    pub fn half(self) -> Self {
        Window(self.0 / 2)
    }

    /// Takes `n` whole segments off, never going below one segment.
    #[inline]
    pub fn minus(self, n: u32) -> Self {
        Window(self.0.saturating_sub((n as u64) << FRAC_BITS).max(ONE))
    }

    /// Congestion avoidance (RFC 5681 §3.1 eq. 3, per ACK): grows by 1/cwnd of a segment, so
    /// that a window's worth of ACKs adds about one segment.
    #[inline]
    pub fn plus_reciprocal(self) -> Self {
        // u64::MAX / w ≈ 2^64 / w = ONE * (ONE / w): one over the window, in fixed point.
        let inc = u64::MAX / self.0.max(1);
        Window(self.0.saturating_add(inc.max(1)))
    }

    /// The larger of two windows.
    pub fn max(self, other: Self) -> Self {
        if self >= other {
            self
        } else {
            other
        }
    }

    /// The smaller of two windows.
    pub fn min(self, other: Self) -> Self {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}", self.as_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_of_acks_adds_about_one_segment() {
        let mut w = Window::segments(10);
        for _ in 0..10 {
            w = w.plus_reciprocal();
        }
        // 1/10 + 1/10.1 + ... slightly under one segment, as in ns-2.
        assert_eq!(w.whole(), 10);
        assert!(w.as_f64() > 10.95 && w.as_f64() < 11.0, "{w}");
        w = w.plus_reciprocal();
        assert_eq!(w.whole(), 11);
    }

    #[test]
    fn whole_rounds_down() {
        assert_eq!(Window::segments(3).plus_reciprocal().whole(), 3);
        assert_eq!(Window::segments(3).plus(2).whole(), 5);
    }
}
