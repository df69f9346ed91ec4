//! Gilbert-Elliott burst loss: a two-state Markov chain (good, bad) stepped once per packet,
//! with a loss probability in each state.
//!
//! Order of the two steps, per packet: the packet is judged with the loss probability of the
//! *current* state, then the chain makes its transition, which applies from the next packet
//! on. The chain starts in the good state, so the first packet is judged as good. Linux
//! netem's Gilbert-Elliott model (`loss_gilb_ell()`) has the same effect: it draws the
//! transition first but judges the packet with the state it started in.
//!
//! With `loss_good = 0` and `loss_bad = 1` (the Gilbert model), losses come in bursts whose
//! length is geometric with mean `1 / p_bg`, separated by gaps of mean `1 / p_gb`. The
//! long-run loss rate is `pi_g loss_good + pi_b loss_bad` with the stationary probabilities
//! `pi_b = p_gb / (p_gb + p_bg)` and `pi_g = 1 - pi_b`.

use crate::rng::RngStream;

/// Parameters of the Gilbert-Elliott chain; all are probabilities in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliottConfig {
    /// Probability of moving from good to bad, per packet.
    pub p_gb: f64,
    /// Probability of moving from bad to good, per packet.
    pub p_bg: f64,
    /// Loss probability of a packet in the good state (default 0).
    pub loss_good: f64,
    /// Loss probability of a packet in the bad state (default 1).
    pub loss_bad: f64,
}

impl GilbertElliottConfig {
    /// The Gilbert model: no loss in the good state, every packet lost in the bad one.
    pub fn gilbert(p_gb: f64, p_bg: f64) -> Self {
        GilbertElliottConfig {
            p_gb,
            p_bg,
            loss_good: 0.0,
            loss_bad: 1.0,
        }
    }

    /// Long-run fraction of time (packets) spent in the bad state, `p_gb / (p_gb + p_bg)`
    /// (0 if the chain never moves).
    pub fn stationary_bad(&self) -> f64 {
        let moves = self.p_gb + self.p_bg;
        if moves == 0.0 {
            0.0
        } else {
            self.p_gb / moves
        }
    }

    /// Long-run loss rate, `pi_g loss_good + pi_b loss_bad`.
    pub fn stationary_loss_rate(&self) -> f64 {
        let pi_b = self.stationary_bad();
        (1.0 - pi_b) * self.loss_good + pi_b * self.loss_bad
    }

    /// Checks that every parameter is a probability; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("p_gb", self.p_gb),
            ("p_bg", self.p_bg),
            ("loss_good", self.loss_good),
            ("loss_bad", self.loss_bad),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{name} must be a probability in [0, 1], got {v}"));
            }
        }
        Ok(())
    }
}

/// A Gilbert-Elliott loss process.
#[derive(Debug, Clone)]
pub struct GilbertElliott {
    config: GilbertElliottConfig,
    bad: bool,
    rng: RngStream,
}

impl GilbertElliott {
    /// A chain in the good state, drawing from `rng`, the link direction's own stream.
    pub fn new(config: GilbertElliottConfig, rng: RngStream) -> Self {
        GilbertElliott {
            config,
            bad: false,
            rng,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &GilbertElliottConfig {
        &self.config
    }

    /// True while the chain is in the bad state (the state the next packet is judged in).
    pub fn is_bad(&self) -> bool {
        self.bad
    }

    /// True if the next packet is lost. Two draws per packet, always: the loss, then the
    /// transition.
    #[inline]
    pub fn judge(&mut self) -> bool {
        let c = &self.config;
        let (loss, leave) = if self.bad {
            (c.loss_bad, c.p_bg)
        } else {
            (c.loss_good, c.p_gb)
        };
        let lost = self.rng.bernoulli(loss);
        if self.rng.bernoulli(leave) {
            self.bad = !self.bad;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(config: GilbertElliottConfig, seed: u64) -> GilbertElliott {
        GilbertElliott::new(config, RngStream::derive(seed, "link/x/loss/0"))
    }

    #[test]
    fn the_long_run_loss_rate_matches_the_stationary_formula_within_three_sigma() {
        let c = GilbertElliottConfig {
            p_gb: 0.01,
            p_bg: 0.2,
            loss_good: 0.001,
            loss_bad: 0.6,
        };
        let mut ge = chain(c, 1);
        let n = 2_000_000u32;
        let lost = (0..n).filter(|_| ge.judge()).count() as f64;
        // Asymptotic variance per packet of a Markov-modulated Bernoulli sequence: the
        // Bernoulli noise, plus the state's variance inflated by the chain's memory,
        // (1 + lambda) / (1 - lambda) with lambda = 1 - p_gb - p_bg.
        let pi_b = c.stationary_bad();
        let pi_g = 1.0 - pi_b;
        let noise =
            pi_g * c.loss_good * (1.0 - c.loss_good) + pi_b * c.loss_bad * (1.0 - c.loss_bad);
        let lambda = 1.0 - c.p_gb - c.p_bg;
        let state =
            pi_g * pi_b * (c.loss_bad - c.loss_good).powi(2) * (1.0 + lambda) / (1.0 - lambda);
        let sigma = (n as f64 * (noise + state)).sqrt();
        let expected = n as f64 * c.stationary_loss_rate();
        assert!(
            (lost - expected).abs() < 3.0 * sigma,
            "{lost} vs {expected} ± {sigma}"
        );
    }

    #[test]
    fn bursts_last_one_over_p_bg_packets_on_average() {
        let c = GilbertElliottConfig::gilbert(0.02, 0.25);
        let mut ge = chain(c, 2);
        let mut bursts = Vec::new();
        let mut run = 0u32;
        for _ in 0..2_000_000 {
            if ge.judge() {
                run += 1;
            } else if run > 0 {
                bursts.push(run);
                run = 0;
            }
        }
        let k = bursts.len() as f64;
        let mean = bursts.iter().map(|&b| b as f64).sum::<f64>() / k;
        // Geometric burst length: mean 1/p, variance (1 - p)/p^2.
        let p = c.p_bg;
        let sigma = ((1.0 - p) / (p * p) / k).sqrt();
        assert!(
            (mean - 1.0 / p).abs() < 3.0 * sigma,
            "{mean} vs {} ± {sigma}",
            1.0 / p
        );
    }

    #[test]
    fn the_first_packet_is_judged_in_the_good_state() {
        // Good never loses, and the chain always moves: good, bad, good, bad...
        let mut ge = chain(GilbertElliottConfig::gilbert(1.0, 1.0), 3);
        let pattern: Vec<bool> = (0..6).map(|_| ge.judge()).collect();
        assert_eq!(pattern, [false, true, false, true, false, true]);
    }

    #[test]
    fn validation_rejects_non_probabilities() {
        let mut c = GilbertElliottConfig::gilbert(0.1, 0.5);
        assert!(c.validate().is_ok());
        c.loss_bad = 1.5;
        assert!(c.validate().unwrap_err().contains("loss_bad"));
    }
}
