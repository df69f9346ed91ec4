//! How late the emulator hands packets to the kernels: a histogram of lateness (the wall
//! clock at the departure minus the departure's scheduled time), fixed-size so recording
//! never allocates.

/// Width of a bucket, nanoseconds.
const BUCKET_NS: u64 = 1_000;
/// Buckets: 1 us each up to 100 ms; later departures share the last one (the maximum is
/// kept exactly).
const BUCKETS: usize = 100_000;

/// Lateness of departures, with a 1 us resolution.
#[derive(Clone, Debug)]
pub struct Lateness {
    counts: Vec<u64>,
    count: u64,
    max_ns: u64,
    sum_ns: u128,
}

/// Summary figures of a [`Lateness`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatenessSummary {
    /// Departures measured.
    pub count: u64,
    /// Median, microseconds (upper edge of its 1 us bucket).
    pub median_us: f64,
    /// 99th percentile, microseconds (upper edge of its bucket).
    pub p99_us: f64,
    /// Largest, microseconds (exact).
    pub max_us: f64,
    /// Mean, microseconds.
    pub mean_us: f64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            counts: vec![0; BUCKETS],
            count: 0,
            max_ns: 0,
            sum_ns: 0,
        }
    }
}

impl Lateness {
    /// Records one departure `ns` nanoseconds after its schedule.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let bucket = ((ns / BUCKET_NS) as usize).min(BUCKETS - 1);
        self.counts[bucket] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
        self.sum_ns += ns as u128;
    }

    /// The upper edge of the bucket holding the `q`-quantile, microseconds.
    fn quantile_us(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        // The smallest bucket whose cumulative count reaches ceil(q * n).
        let rank = ((q * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let edge = (i as u64 + 1) * BUCKET_NS;
                return edge.min(self.max_ns.max(1)) as f64 / 1e3;
            }
        }
        self.max_ns as f64 / 1e3
    }

    /// Median, 99th percentile, maximum and mean.
    pub fn summary(&self) -> LatenessSummary {
        LatenessSummary {
            count: self.count,
            median_us: self.quantile_us(0.5),
            p99_us: self.quantile_us(0.99),
            max_us: self.max_ns as f64 / 1e3,
            mean_us: if self.count == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.count as f64 / 1e3
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_from_the_buckets_and_the_maximum_is_exact() {
        let mut l = Lateness::default();
        for us in 0..100u64 {
            l.record(us * 1_000 + 500); // 0.5 us, 1.5 us, ... 99.5 us
        }
        l.record(250_000_000); // 250 ms: beyond the last bucket
        let s = l.summary();
        assert_eq!(s.count, 101);
        assert_eq!(s.median_us, 51.0, "51st value lies in bucket [50, 51) us");
        assert_eq!(s.p99_us, 100.0);
        assert_eq!(s.max_us, 250_000.0);
    }

    #[test]
    fn an_empty_histogram_reports_zeros() {
        let s = Lateness::default().summary();
        assert_eq!(
            (s.count, s.median_us, s.p99_us, s.max_us),
            (0, 0.0, 0.0, 0.0)
        );
    }
}
