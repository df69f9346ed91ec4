//! Per-flow one-way delay statistics, as ns-3's FlowMonitor reports them: quantiles from a
//! fixed-size log-bucket histogram ([`LogHistogram`]: within 3.2 %), and the mean jitter.

use crate::histogram::LogHistogram;

/// One-way delays of a flow's data packets that reached the receiver.
#[derive(Debug, Clone, Default)]
pub struct DelayStats {
    /// The delays, ns.
    delays: LogHistogram,
    /// Delay of the previous packet, ns, and the sum of |delay - previous delay|.
    last_ns: u64,
    jitter_sum_ns: u64,
}

impl DelayStats {
    /// Records a packet that took `ns` nanoseconds from sender to receiver.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if self.delays.count() > 0 {
            // ns-3 FlowMonitor: jitterSum += |delay - lastDelay| from the second packet on.
            self.jitter_sum_ns += ns.abs_diff(self.last_ns);
        }
        self.delays.record(ns);
        self.last_ns = ns;
    }

    /// Packets recorded.
    pub fn packets(&self) -> u64 {
        self.delays.count()
    }

    /// The `q`-quantile (0 to 1) of the delays, seconds ([`LogHistogram::quantile_s`]).
    /// `None` before the first packet.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        self.delays.quantile_s(q)
    }

    /// Mean jitter, seconds: the mean of |delay - previous packet's delay| over consecutive
    /// arrivals (ns-3 FlowMonitor's `jitterSum / (rxPackets - 1)`, RFC 3393's IPDV).
    /// `None` with fewer than two packets.
    pub fn jitter_s(&self) -> Option<f64> {
        let packets = self.packets();
        (packets > 1).then(|| self.jitter_sum_ns as f64 / (packets - 1) as f64 * 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(stats.packets(), 3);
    }
}
