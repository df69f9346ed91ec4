//! A fixed-size log-linear histogram of durations in nanoseconds, for the quantiles a run
//! reports: one-way delays and RTT samples per flow, queueing delays per link direction.
//!
//! The layout is HdrHistogram's: below [`SUB_BUCKETS`] ns every nanosecond has its own
//! bucket (a queueing delay of 0 is read as exactly 0); above, each power of two of
//! nanoseconds is cut into [`SUB_BUCKETS`] equal buckets, so a quantile read at its bucket's
//! midpoint is within 1 / (2 x [`SUB_BUCKETS`]) = 3.125 % of the true value. Quantiles are
//! clamped to the smallest and largest value, which are exact, as is the mean (from the
//! exact sum). The counts are allocated once, with the histogram, and never grow:
//! recording a value is a few branch-free instructions and three additions, and costs no
//! allocation (a run's hot path may record one per packet).

/// Buckets per power of two (2^[`SUB_BITS`]).
const SUB_BITS: u32 = 4;
/// Buckets per power of two; also the values below which every nanosecond has a bucket.
pub const SUB_BUCKETS: u64 = 1 << SUB_BITS;
/// Values at or above 2^[`TOP_BIT`] ns (about 4.9 hours) share the last bucket.
const TOP_BIT: u32 = 44;
/// Buckets: one per nanosecond below SUB_BUCKETS, then SUB_BUCKETS per power of two from
/// 2^SUB_BITS to 2^TOP_BIT ns.
const BUCKETS: usize = SUB_BUCKETS as usize + (((TOP_BIT - SUB_BITS) as usize) << SUB_BITS);

/// Counts of durations in log-linear buckets, with their exact count, sum, minimum and
/// maximum.
#[derive(Debug, Clone)]
pub struct LogHistogram {
    /// Count per bucket ([`bucket`]); an array, so that indexing it needs no bounds check.
    counts: Box<[u32; BUCKETS]>,
    /// Values recorded.
    count: u64,
    /// Their sum, ns.
    sum_ns: u128,
    /// Smallest and largest value, ns (quantiles are clamped to them).
    min_ns: u64,
    max_ns: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram {
            counts: Box::new([0; BUCKETS]),
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }
}

/// The bucket of `ns`: one per nanosecond below SUB_BUCKETS, then SUB_BUCKETS per power of
/// two, the top clamped.
#[inline]
fn bucket(ns: u64) -> usize {
    if ns < SUB_BUCKETS {
        return ns as usize;
    }
    let v = ns.min((1 << TOP_BIT) - 1);
    let top = 63 - v.leading_zeros();
    let sub = (v >> (top - SUB_BITS)) & (SUB_BUCKETS - 1);
    SUB_BUCKETS as usize + (((top - SUB_BITS) as usize) << SUB_BITS) + sub as usize
}

/// The values bucket `index` holds, `[low, high)` ns (the last holds more).
fn bucket_range(index: usize) -> (u64, u64) {
    let Some(index) = (index as u64).checked_sub(SUB_BUCKETS) else {
        return (index as u64, index as u64 + 1);
    };
    let top = (index >> SUB_BITS) as u32 + SUB_BITS;
    let width = 1u64 << (top - SUB_BITS);
    let low = (1u64 << top) + (index & (SUB_BUCKETS - 1)) * width;
    (low, low + width)
}

impl LogHistogram {
    /// Bytes a histogram holds on the heap (its counts: 2.6 kB), for the memory estimate.
    pub const HEAP_BYTES: usize = std::mem::size_of::<[u32; BUCKETS]>();

    /// Records a duration of `ns` nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let count = &mut self.counts[bucket(ns)];
        *count = count.saturating_add(1);
        self.count += 1;
        self.sum_ns += ns as u128;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Records `n` durations of zero at once (packets that never waited, say).
    pub fn record_zeros(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.counts[0] = self.counts[0].saturating_add(n.min(u32::MAX as u64) as u32);
        self.count += n;
        self.min_ns = 0;
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mean of the values, seconds (exact but for the float); `None` before the first.
    pub fn mean_s(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64 * 1e-9)
    }

    /// The `q`-quantile (0 to 1) of the values, seconds, nearest rank: the midpoint of the
    /// bucket holding the `ceil(q * n)`-th smallest value, clamped to the smallest and
    /// largest value. `None` before the first value.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (index, &count) in self.counts.iter().enumerate() {
            seen += count as u64;
            if seen >= rank {
                let (low, high) = bucket_range(index);
                let mid = (low as f64 + (high - 1) as f64) / 2.0;
                let ns = mid.clamp(self.min_ns as f64, self.max_ns as f64);
                return Some(ns * 1e-9);
            }
        }
        Some(self.max_ns as f64 * 1e-9) // only if a bucket count saturated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order_and_contain_it() {
        let mut last = 0;
        for ns in (0..100_000u64).chain([1 << 30, (1 << 44) - 1]) {
            let b = bucket(ns);
            assert!(b >= last, "buckets rise with the value");
            last = b;
            let (low, high) = bucket_range(b);
            assert!(
                low <= ns && ns < high,
                "{ns} in bucket {b} = [{low}, {high})"
            );
        }
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(15), 15);
        assert_eq!(bucket(16), 16);
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn a_bucket_is_one_nanosecond_or_at_most_a_sixteenth_of_its_values() {
        for b in 0..BUCKETS {
            let (low, high) = bucket_range(b);
            assert!(
                high - low == 1 || (high - low) * SUB_BUCKETS <= low,
                "bucket {b}: [{low}, {high})"
            );
        }
    }

    #[test]
    fn quantiles_are_within_the_stated_relative_error_and_the_mean_is_exact() {
        let mut h = LogHistogram::default();
        // 1000 values from 10 ms to 19.99 ms: p50 is 14.99 ms, p99 19.89 ms.
        for i in 0..1000u64 {
            h.record(10_000_000 + i * 10_000);
        }
        let p50 = h.quantile_s(0.5).unwrap();
        let p99 = h.quantile_s(0.99).unwrap();
        assert!((p50 / 14.99e-3 - 1.0).abs() <= 1.0 / 32.0, "p50 {p50}");
        assert!((p99 / 19.89e-3 - 1.0).abs() <= 1.0 / 32.0, "p99 {p99}");
        assert_eq!(h.quantile_s(1.0), Some(19.99e-3));
        assert!((h.mean_s().unwrap() - 14.995e-3).abs() < 1e-15);
        assert_eq!(h.count(), 1000);
    }

    #[test]
    fn zeros_and_small_values_are_exact() {
        let mut h = LogHistogram::default();
        assert_eq!((h.mean_s(), h.quantile_s(0.5)), (None, None));
        h.record_zeros(6);
        h.record(7);
        h.record(3_000_000);
        h.record(5_000_000);
        // 9 values: the median (5th) is 0, p99 the largest.
        assert_eq!(h.quantile_s(0.5), Some(0.0));
        assert_eq!(h.quantile_s(7.0 / 9.0), Some(7.0 * 1e-9));
        assert_eq!(h.quantile_s(0.99), Some(5e-3));
        assert!((h.mean_s().unwrap() - 8_000_007e-9 / 9.0).abs() < 1e-18);
    }
}
