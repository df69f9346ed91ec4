//! Extra per-packet latency on a link direction (not a loss: it delays packets).
//!
//! Each packet gets an extra delay drawn from a distribution, on top of the link's fixed
//! propagation delay. A draw below zero is clamped to zero (the distribution is censored
//! at 0, not resampled), so with a normal distribution whose mean is close to zero the
//! mean extra delay is larger than `mean`.
//!
//! When `allow_reordering` is false the direction must stay FIFO: [`ExtraLatency::arrival`]
//! then holds a packet back until the previous one has arrived.

use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// Distribution of the extra latency of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatencyDist {
    /// The same extra delay for every packet (no randomness).
    Fixed(SimDuration),
    /// Uniform over `[lo, hi]`, at nanosecond resolution.
    Uniform {
        /// Smallest extra delay.
        lo: SimDuration,
        /// Largest extra delay.
        hi: SimDuration,
    },
    /// Normal with `mean` and standard deviation `sd`, clamped at zero.
    Normal {
        /// Mean before clamping.
        mean: SimDuration,
        /// Standard deviation.
        sd: SimDuration,
    },
    /// Log-normal with the given `median` and 99th percentile `p99` (`p99 >= median > 0`):
    /// `median * exp(sigma * Z)` with `sigma = ln(p99 / median) / z99`. A skewed, heavy-tailed
    /// delay such as a host's: most packets a few microseconds late, a few a millisecond.
    LogNormal {
        /// Median extra delay.
        median: SimDuration,
        /// 99th percentile of the extra delay.
        p99: SimDuration,
    },
}

/// The standard normal's 99th percentile (its quantile function at 0.99).
pub const Z99: f64 = 2.326_347_874_040_841;

impl LatencyDist {
    /// `sigma` of a [`LatencyDist::LogNormal`]: the deviation of the log of the delay.
    pub fn log_sigma(median: SimDuration, p99: SimDuration) -> f64 {
        (p99.0 as f64 / median.0 as f64).ln() / Z99
    }
}

/// Extra latency of a link direction: a distribution, its random stream, and whether
/// packets may overtake one another.
#[derive(Debug, Clone)]
pub struct ExtraLatency {
    dist: LatencyDist,
    allow_reordering: bool,
    rng: RngStream,
}

impl ExtraLatency {
    /// Draws from `dist` with `rng` (the direction's own stream). Without
    /// `allow_reordering`, arrivals are kept in order (see [`ExtraLatency::arrival`]).
    pub fn new(dist: LatencyDist, allow_reordering: bool, rng: RngStream) -> Self {
        ExtraLatency {
            dist,
            allow_reordering,
            rng,
        }
    }

    /// The distribution.
    pub fn dist(&self) -> LatencyDist {
        self.dist
    }

    /// Whether a packet may arrive before one sent earlier.
    pub fn allows_reordering(&self) -> bool {
        self.allow_reordering
    }

    /// One extra delay. `Fixed` draws nothing; `Uniform` one 64-bit draw; `Normal` and
    /// `LogNormal` two uniform draws (Box-Muller, the second variate is discarded).
    pub fn draw(&mut self) -> SimDuration {
        match self.dist {
            LatencyDist::Fixed(d) => d,
            LatencyDist::Uniform { lo, hi } => {
                let (lo, hi) = (lo.0.min(hi.0), lo.0.max(hi.0));
                // Multiply-shift ("Lemire") reduction of 64 random bits onto [0, span].
                let span = (hi - lo) as u128 + 1;
                let offset = (span * self.rng.next_u64() as u128) >> 64;
                SimDuration(lo + offset as u64)
            }
            LatencyDist::Normal { mean, sd } => {
                let ns = mean.0 as f64 + sd.0 as f64 * self.standard_normal();
                SimDuration(ns.max(0.0).round() as u64)
            }
            LatencyDist::LogNormal { median, p99 } => {
                let sigma = LatencyDist::log_sigma(median, p99);
                let ns = median.0 as f64 * (sigma * self.standard_normal()).exp();
                // Saturating: a draw past u64's nanoseconds (585 years) is as good as none.
                SimDuration(ns.round() as u64)
            }
        }
    }

    /// A standard normal variate from two uniform draws (Box-Muller).
    fn standard_normal(&mut self) -> f64 {
        let u1 = 1.0 - self.rng.next_f64(); // (0, 1]: ln is finite
        let u2 = self.rng.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Arrival time of a packet that would arrive at `earliest` without extra latency,
    /// when the previous packet of the direction arrives at `last_arrival`:
    /// `earliest + draw`, and with reordering off no earlier than `last_arrival`.
    pub fn arrival(&mut self, earliest: SimTime, last_arrival: SimTime) -> SimTime {
        let t = earliest + self.draw();
        if self.allow_reordering {
            t
        } else {
            t.max(last_arrival)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn latency(dist: LatencyDist, allow_reordering: bool) -> ExtraLatency {
        ExtraLatency::new(
            dist,
            allow_reordering,
            RngStream::derive(4, "link/x/latency"),
        )
    }

    /// Mean and standard error of the mean of `n` draws, in nanoseconds.
    fn sample(l: &mut ExtraLatency, n: usize) -> (f64, f64, u64) {
        let xs: Vec<u64> = (0..n).map(|_| l.draw().0).collect();
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let var = xs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        (mean, (var / n as f64).sqrt(), *xs.iter().min().unwrap())
    }

    #[test]
    fn fixed_latency_is_always_the_same() {
        let mut l = latency(LatencyDist::Fixed(SimDuration::from_millis(3)), false);
        assert!((0..100).all(|_| l.draw() == SimDuration::from_millis(3)));
    }

    #[test]
    fn uniform_latency_has_the_midpoint_mean_within_three_sigma() {
        let (lo, hi) = (2 * MS, 10 * MS);
        let dist = LatencyDist::Uniform {
            lo: SimDuration(lo),
            hi: SimDuration(hi),
        };
        let mut l = latency(dist, true);
        let n = 100_000;
        let (mean, _, min) = sample(&mut l, n);
        let sigma = (hi - lo) as f64 / 12f64.sqrt() / (n as f64).sqrt();
        assert!(
            (mean - (lo + hi) as f64 / 2.0).abs() < 3.0 * sigma,
            "{mean}"
        );
        assert!(min >= lo);
        assert!((0..10_000).all(|_| l.draw().0 <= hi));
    }

    #[test]
    fn normal_latency_has_its_mean_within_three_sigma() {
        let dist = LatencyDist::Normal {
            mean: SimDuration::from_millis(10),
            sd: SimDuration::from_millis(2),
        };
        let mut l = latency(dist, true);
        let n = 100_000;
        let (mean, _, _) = sample(&mut l, n);
        let sigma = 2.0 * MS as f64 / (n as f64).sqrt();
        assert!((mean - 10.0 * MS as f64).abs() < 3.0 * sigma, "{mean}");
    }

    #[test]
    fn lognormal_latency_has_its_median_and_99th_percentile() {
        let (median, p99) = (20_000u64, 300_000u64); // 20 us and 300 us
        let dist = LatencyDist::LogNormal {
            median: SimDuration(median),
            p99: SimDuration(p99),
        };
        let mut l = latency(dist, true);
        let n = 100_000;
        let mut xs: Vec<u64> = (0..n).map(|_| l.draw().0).collect();
        xs.sort_unstable();
        // Order statistics: the empirical quantiles of 100,000 draws are within 2 %
        // (median) and 5 % (99th percentile) of the true ones with overwhelming probability.
        let m = xs[n / 2] as f64;
        let q = xs[n * 99 / 100] as f64;
        assert!((m / median as f64 - 1.0).abs() < 0.02, "median {m}");
        assert!((q / p99 as f64 - 1.0).abs() < 0.05, "p99 {q}");
        // Skewed: the mean is median * exp(sigma^2 / 2), above the median.
        let sigma = LatencyDist::log_sigma(SimDuration(median), SimDuration(p99));
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let expected = median as f64 * (sigma * sigma / 2.0).exp();
        assert!((mean / expected - 1.0).abs() < 0.05, "{mean} vs {expected}");
    }

    #[test]
    fn normal_latency_is_clamped_at_zero_not_resampled() {
        // Mean 0: half the draws clamp to 0; E[max(0, X)] = sd / sqrt(2 pi) and
        // Var = sd^2 (1/2 - 1/(2 pi)).
        let sd = MS as f64;
        let dist = LatencyDist::Normal {
            mean: SimDuration::ZERO,
            sd: SimDuration(MS),
        };
        let mut l = latency(dist, true);
        let n = 100_000;
        let (mean, _, _) = sample(&mut l, n);
        let expected = sd / std::f64::consts::TAU.sqrt();
        let var = sd * sd * (0.5 - 1.0 / std::f64::consts::TAU);
        let sigma = (var / n as f64).sqrt();
        assert!(
            (mean - expected).abs() < 3.0 * sigma,
            "{mean} vs {expected}"
        );
    }

    #[test]
    fn without_reordering_arrivals_never_go_backwards() {
        let dist = LatencyDist::Uniform {
            lo: SimDuration::ZERO,
            hi: SimDuration::from_millis(20),
        };
        let mut fifo = latency(dist, false);
        let mut last = SimTime::ZERO;
        for k in 0..10_000u64 {
            let earliest = SimTime(k * MS);
            let t = fifo.arrival(earliest, last);
            assert!(t >= last && t >= earliest);
            last = t;
        }
        // The clamp is exactly max(earliest + draw, last_arrival).
        let mut a = latency(dist, false);
        let mut b = latency(dist, false);
        let late = SimTime(500 * MS);
        let drawn = SimTime(10 * MS) + b.draw();
        assert_eq!(a.arrival(SimTime(10 * MS), late), drawn.max(late));
    }

    #[test]
    fn with_reordering_a_packet_may_overtake_the_previous_one() {
        let dist = LatencyDist::Uniform {
            lo: SimDuration::ZERO,
            hi: SimDuration::from_millis(20),
        };
        let mut l = latency(dist, true);
        let mut last = SimTime::ZERO;
        let mut overtakes = 0;
        for k in 0..1_000u64 {
            let t = l.arrival(SimTime(k * MS), last);
            if t < last {
                overtakes += 1;
            }
            last = last.max(t);
        }
        assert!(overtakes > 0);
    }
}
