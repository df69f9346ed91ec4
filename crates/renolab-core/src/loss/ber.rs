//! Bit errors: each bit on the wire is flipped independently with probability `ber`, and a
//! packet with any flipped bit is lost.
//!
//! A packet of `S` bytes is therefore lost with probability `1 - (1 - ber)^(8 S)`, computed
//! as `-expm1(8 S ln1p(-ber))` so that it stays accurate when `ber` is tiny (the naive form
//! loses all its digits below `ber` ~ 1e-16). ns-2's `ErrorModel` with `unit byte` and rate
//! `1 - (1 - ber)^8` gives the same per-packet probability (see NS2-NOTES.md).

use crate::rng::RngStream;

/// Loses packets with the probability that at least one of their bits is in error.
#[derive(Debug, Clone)]
pub struct Ber {
    ber: f64,
    /// `ln(1 - ber)`, the log-probability that one bit survives.
    ln_keep: f64,
    rng: RngStream,
}

impl Ber {
    /// Bit error rate `ber` in [0, 1], drawing from `rng`, the link direction's own stream.
    pub fn new(ber: f64, rng: RngStream) -> Self {
        Ber {
            ber,
            ln_keep: (-ber).ln_1p(),
            rng,
        }
    }

    /// The bit error rate.
    pub fn ber(&self) -> f64 {
        self.ber
    }

    /// Probability that a packet of `size` bytes has at least one bit in error.
    pub fn packet_loss_probability(&self, size: u32) -> f64 {
        -(8.0 * size as f64 * self.ln_keep).exp_m1()
    }

    /// True if a packet of `size` bytes (on the wire) is corrupted; one draw per packet.
    #[inline]
    pub fn judge(&mut self, size: u32) -> bool {
        let p = self.packet_loss_probability(size);
        self.rng.bernoulli(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_full_packets_lose_the_expected_fraction_within_three_sigma() {
        let mut b = Ber::new(1e-7, RngStream::derive(3, "link/x/loss/0"));
        let n = 1_000_000u32;
        let p = 1.0 - (1.0f64 - 1e-7).powi(12_000);
        let lost = (0..n).filter(|_| b.judge(1500)).count() as f64;
        let sigma = (n as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (lost - n as f64 * p).abs() < 3.0 * sigma,
            "{lost} vs {}",
            n as f64 * p
        );
    }

    #[test]
    fn the_same_seed_drops_the_same_packets() {
        let pattern = |seed| {
            let mut b = Ber::new(1e-6, RngStream::derive(seed, "link/x/loss/0"));
            (0..10_000).map(|_| b.judge(1500)).collect::<Vec<_>>()
        };
        assert_eq!(pattern(11), pattern(11));
        assert_ne!(pattern(11), pattern(12));
        assert!(pattern(11).contains(&true));
    }

    #[test]
    fn tiny_error_rates_keep_full_precision() {
        // 1 - (1 - 1e-15)^12000 = 12000e-15 - C(12000, 2) 1e-30 + ...
        let b = Ber::new(1e-15, RngStream::derive(1, "x"));
        let n = 12_000.0;
        let series = n * 1e-15 - n * (n - 1.0) / 2.0 * 1e-30;
        let p = b.packet_loss_probability(1500);
        assert!(((p - series) / series).abs() < 1e-12, "{p} vs {series}");
    }

    #[test]
    fn zero_ber_never_drops_and_larger_packets_are_more_exposed() {
        let mut none = Ber::new(0.0, RngStream::derive(1, "x"));
        assert!((0..1000).all(|_| !none.judge(1500)));
        let b = Ber::new(1e-6, RngStream::derive(1, "x"));
        assert!(b.packet_loss_probability(40) < b.packet_loss_probability(1500));
    }
}
