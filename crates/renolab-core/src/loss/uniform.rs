//! Uniform (Bernoulli) loss: every packet is lost independently with the same probability.

use crate::rng::RngStream;

/// Drops each packet independently with probability `p`.
#[derive(Debug, Clone)]
pub struct Uniform {
    p: f64,
    rng: RngStream,
}

impl Uniform {
    /// Loss probability `p` (0 never drops, 1 always), drawing from `rng`, the link
    /// direction's own stream.
    pub fn new(p: f64, rng: RngStream) -> Self {
        Uniform { p, rng }
    }

    /// The loss probability.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// True if the next packet is lost; one draw per packet.
    #[inline]
    pub fn judge(&mut self) -> bool {
        self.rng.bernoulli(self.p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loss_fraction_is_p_within_three_sigma() {
        let mut u = Uniform::new(0.02, RngStream::derive(9, "uniform"));
        let n = 200_000;
        let lost = (0..n).filter(|_| u.judge()).count() as f64;
        let sigma = (n as f64 * 0.02 * 0.98).sqrt();
        assert!((lost - n as f64 * 0.02).abs() < 3.0 * sigma, "{lost}");
    }

    #[test]
    fn zero_never_drops_and_one_always_does() {
        let mut never = Uniform::new(0.0, RngStream::derive(1, "u"));
        let mut always = Uniform::new(1.0, RngStream::derive(1, "u"));
        assert!((0..10_000).all(|_| !never.judge() && always.judge()));
    }
}
