//! Per-flow one-way delay statistics, as ns-3's FlowMonitor reports them: quantiles from a
//! fixed-size log-bucket histogram, and the mean jitter.
//!
//! The histogram is log-linear (as HdrHistogram's): each power of two of nanoseconds is cut
//! into [`SUB_BUCKETS`] equal buckets, so a quantile read at its bucket's midpoint is within
//! 1 / (2 * [`SUB_BUCKETS`]) = 3.125 % of the true delay. Quantiles are clamped to the
//! smallest and largest delay, which are exact. The histogram is allocated with the flow
//! and never grows: recording a delay is a few branch-free instructions and an increment.

/// Buckets per power of two (2^[`SUB_BITS`]).
const SUB_BITS: u32 = 4;
/// Buckets per power of two.
pub const SUB_BUCKETS: u64 = 1 << SUB_BITS;
/// Delays below 2^SUB_BITS ns share the first bucket, delays at or above 2^[`TOP_BIT`] ns
/// (about 4.9 hours) the last.
const TOP_BIT: u32 = 44;
/// Buckets in a histogram: SUB_BUCKETS per power of two from 2^SUB_BITS to 2^TOP_BIT ns.
const BUCKETS: usize = ((TOP_BIT - SUB_BITS) as usize) << SUB_BITS;

/// One-way delays of a flow's data packets that reached the receiver.
#[derive(Debug, Clone)]
pub struct DelayStats {
    /// Count per bucket ([`bucket`]); an array, so that indexing it needs no bounds check.
    counts: Box<[u32; BUCKETS]>,
    /// Delays recorded.
    packets: u64,
    /// Smallest and largest delay, ns (quantiles are clamped to them).
    min_ns: u64,
    max_ns: u64,
    /// Delay of the previous packet, ns, and the sum of |delay - previous delay|.
    last_ns: u64,
    jitter_sum_ns: u64,
}

impl Default for DelayStats {
    fn default() -> Self {
        DelayStats {
            counts: Box::new([0; BUCKETS]),
            packets: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            last_ns: 0,
            jitter_sum_ns: 0,
        }
    }
}

/// The bucket of `ns`: SUB_BUCKETS buckets per power of two, the ends clamped.
#[inline]
fn bucket(ns: u64) -> usize {
    let v = ns.clamp(SUB_BUCKETS, (1 << TOP_BIT) - 1);
    let top = 63 - v.leading_zeros();
    let sub = (v >> (top - SUB_BITS)) & (SUB_BUCKETS - 1);
    (((top - SUB_BITS) as usize) << SUB_BITS) + sub as usize
}

/// The delays bucket `index` holds, `[low, high)` ns (the ends hold more).
fn bucket_range(index: usize) -> (u64, u64) {
    let index = index as u64;
    let top = (index >> SUB_BITS) as u32 + SUB_BITS;
    let width = 1u64 << (top - SUB_BITS);
    let low = (1u64 << top) + (index & (SUB_BUCKETS - 1)) * width;
    (low, low + width)
}

impl DelayStats {
    /// Records a packet that took `ns` nanoseconds from sender to receiver.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if self.packets > 0 {
            // ns-3 FlowMonitor: jitterSum += |delay - lastDelay| from the second packet on.
            self.jitter_sum_ns += ns.abs_diff(self.last_ns);
        }
        let count = &mut self.counts[bucket(ns)];
        *count = count.saturating_add(1);
        self.packets += 1;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
        self.last_ns = ns;
    }

    /// Packets recorded.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// The `q`-quantile (0 to 1) of the delays, seconds, nearest rank: the midpoint of the
    /// bucket holding the `ceil(q * n)`-th smallest delay, clamped to the smallest and
    /// largest delay. `None` before the first packet.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if self.packets == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.packets as f64).ceil() as u64).max(1);
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

    /// Mean jitter, seconds: the mean of |delay - previous packet's delay| over consecutive
    /// arrivals (ns-3 FlowMonitor's `jitterSum / (rxPackets - 1)`, RFC 3393's IPDV).
    /// `None` with fewer than two packets.
    pub fn jitter_s(&self) -> Option<f64> {
        (self.packets > 1).then(|| self.jitter_sum_ns as f64 / (self.packets - 1) as f64 * 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_delay_in_order_and_contain_it() {
        let mut last = 0;
        for ns in (16..100_000u64).chain([1 << 30, (1 << 44) - 1]) {
            let b = bucket(ns);
            assert!(b >= last, "buckets rise with the delay");
            last = b;
            let (low, high) = bucket_range(b);
            assert!(
                low <= ns && ns < high,
                "{ns} in bucket {b} = [{low}, {high})"
            );
        }
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn a_bucket_is_at_most_a_sixteenth_of_its_delays() {
        for b in 0..BUCKETS {
            let (low, high) = bucket_range(b);
            assert!(
                (high - low) * SUB_BUCKETS <= low,
                "bucket {b}: [{low}, {high})"
            );
        }
    }

    #[test]
    fn quantiles_are_within_the_stated_relative_error() {
        let mut stats = DelayStats::default();
        // 1000 delays from 10 ms to 19.99 ms: p50 is 14.99 ms, p99 19.89 ms.
        for i in 0..1000u64 {
            stats.record(10_000_000 + i * 10_000);
        }
        let p50 = stats.quantile_s(0.5).unwrap();
        let p99 = stats.quantile_s(0.99).unwrap();
        assert!((p50 / 14.99e-3 - 1.0).abs() <= 1.0 / 32.0, "p50 {p50}");
        assert!((p99 / 19.89e-3 - 1.0).abs() <= 1.0 / 32.0, "p99 {p99}");
        // The largest delay is exact: its bucket's midpoint is clamped to it.
        assert_eq!(stats.quantile_s(1.0), Some(19.99e-3));
        let p0 = stats.quantile_s(0.0).unwrap();
        assert!(p0 >= 10e-3 && p0 / 10e-3 - 1.0 <= 1.0 / 32.0, "p0 {p0}");
    }

    #[test]
    fn jitter_is_the_mean_difference_of_consecutive_delays() {
        let mut stats = DelayStats::default();
        assert_eq!((stats.quantile_s(0.5), stats.jitter_s()), (None, None));
        stats.record(1000);
        assert_eq!(stats.jitter_s(), None);
        stats.record(1400);
        stats.record(1200);
        // |1400 - 1000| + |1200 - 1400| = 600 ns over 2 differences.
        assert!((stats.jitter_s().unwrap() - 300e-9).abs() < 1e-18);
        let p50 = stats.quantile_s(0.5).unwrap();
        assert!((p50 / 1200e-9 - 1.0).abs() <= 1.0 / 32.0, "p50 {p50}");
    }
}
