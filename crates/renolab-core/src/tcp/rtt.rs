//! Round-trip time estimation and the retransmission timeout, per RFC 6298.
//!
//! Times are integer nanoseconds. When a clock granularity G is configured, samples are
//! measured in ticks of G (rounded, at least one tick) as ns-2's `tcpTick_` clock does, and G
//! bounds the variance term (RFC 6298 §2.3: RTO = SRTT + max(G, K*RTTVAR)).

use crate::time::SimDuration;

/// Settings of the retransmission timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s).
    pub initial: SimDuration,
    /// Lower bound (RFC 6298 §2.4: 1 s).
    pub min: SimDuration,
    /// Upper bound (RFC 6298 §2.5: at least 60 s).
    pub max: SimDuration,
    /// Clock granularity G; zero for an exact clock.
    pub granularity: SimDuration,
}

/// SRTT/RTTVAR estimator with exponential back-off.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    config: RtoConfig,
    /// Smoothed RTT, ns; `None` before the first sample.
    srtt: Option<u64>,
    /// RTT variation, ns.
    rttvar: u64,
    /// RTO computed from the estimates, before back-off, ns.
    base_rto: u64,
    /// Number of consecutive back-offs (each doubles the RTO).
    backoff: u32,
}

impl RttEstimator {
    /// An estimator that has seen no sample.
    pub fn new(config: RtoConfig) -> Self {
        RttEstimator {
            config,
            srtt: None,
            rttvar: 0,
            base_rto: config.initial.0,
            backoff: 0,
        }
    }

    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt.map(SimDuration)
    }

    /// RTT variation.
    pub fn rttvar(&self) -> SimDuration {
        SimDuration(self.rttvar)
    }

    /// Current timeout, back-off included, clamped to [min, max].
    pub fn rto(&self) -> SimDuration {
        let backed = self.base_rto.saturating_mul(1u64 << self.backoff.min(30));
        SimDuration(backed.clamp(self.config.min.0, self.config.max.0.max(self.config.min.0)))
    }

    /// Feeds a measured RTT (from a segment that was not retransmitted: Karn's rule is the
    /// caller's job). Clears the back-off (RFC 6298 §5.7 keeps it only until a new sample).
    pub fn on_sample(&mut self, measured: SimDuration) {
        let g = self.config.granularity.0;
        let r = if g > 0 {
            (measured.0 + g / 2) / g * g
        } else {
            measured.0
        }
        .max(g);
        match self.srtt {
            None => {
                // RFC 6298 §2.2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3, beta = 1/4, alpha = 1/8
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(r)) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.base_rto = srtt + g.max(4 * self.rttvar);
        self.backoff = 0;
    }

    /// The timer expired: double the RTO (RFC 6298 §5.5), up to the maximum.
    pub fn on_timeout(&mut self) {
        if self.rto() < self.config.max {
            self.backoff += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(g_ms: u64) -> RtoConfig {
        RtoConfig {
            initial: SimDuration::from_secs(1),
            min: SimDuration::from_millis(200),
            max: SimDuration::from_secs(60),
            granularity: SimDuration::from_millis(g_ms),
        }
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(cfg(0));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.on_sample(SimDuration::from_millis(100));
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
        assert_eq!(e.rttvar(), SimDuration::from_millis(50));
        // 100 + 4 * 50 = 300 ms
        assert_eq!(e.rto(), SimDuration::from_millis(300));
    }

    #[test]
    fn later_samples_are_smoothed() {
        let mut e = RttEstimator::new(cfg(0));
        e.on_sample(SimDuration::from_millis(100));
        e.on_sample(SimDuration::from_millis(200));
        // rttvar = (3*50 + 100)/4 = 62.5; srtt = (700 + 200)/8 = 112.5
        assert_eq!(e.rttvar(), SimDuration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(112_500)));
        assert_eq!(e.rto(), SimDuration::from_micros(362_500));
    }

    #[test]
    fn backoff_doubles_until_the_maximum_and_a_sample_clears_it() {
        let mut e = RttEstimator::new(cfg(0));
        for _ in 0..10 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
        e.on_sample(SimDuration::from_millis(100));
        assert_eq!(e.rto(), SimDuration::from_millis(300));
    }

    #[test]
    fn granularity_quantises_samples_and_floors_the_variance_term() {
        let mut e = RttEstimator::new(cfg(10));
        e.on_sample(SimDuration::from_millis(104));
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
        e.on_sample(SimDuration::from_millis(100));
        e.on_sample(SimDuration::from_millis(100));
        // rttvar shrinks: 50 -> 37.5 -> 28.125; RTO = 100 + 112.5 ms
        assert_eq!(e.rto(), SimDuration::from_micros(212_500));
    }

    #[test]
    fn rto_never_goes_below_the_minimum() {
        let mut e = RttEstimator::new(cfg(0));
        e.on_sample(SimDuration::from_micros(10));
        assert_eq!(e.rto(), SimDuration::from_millis(200));
    }
}
