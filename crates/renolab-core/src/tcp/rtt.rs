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

/// The retransmission timer's estimator: RFC 6298 in exact nanoseconds, or ns-2.35's
/// tick-based integer arithmetic.
#[derive(Clone, Debug)]
pub enum RttEstimator {
    /// RFC 6298.
    Rfc6298(Rfc6298),
    /// ns-2.35's `rtt_update()` / `rtt_timeout()` / `rtt_backoff()`.
    Ns2(Ns2Rtt),
    /// Linux's `tcp_rtt_estimator()` / `tcp_set_rto()`.
    Linux(LinuxRtt),
}

impl RttEstimator {
    /// Current timeout, back-off included.
    pub fn rto(&self) -> SimDuration {
        match self {
            RttEstimator::Rfc6298(e) => e.rto(),
            RttEstimator::Ns2(e) => e.rto(),
            RttEstimator::Linux(e) => e.rto(),
        }
    }

    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimDuration> {
        match self {
            RttEstimator::Rfc6298(e) => e.srtt(),
            RttEstimator::Ns2(e) => e.srtt(),
            RttEstimator::Linux(e) => e.srtt(),
        }
    }

    /// Feeds the RTT `measured` for a segment whose ACK arrived at `now`.
    pub fn on_sample(&mut self, now: crate::time::SimTime, measured: SimDuration) {
        match self {
            RttEstimator::Rfc6298(e) => e.on_sample(measured),
            RttEstimator::Ns2(e) => e.on_sample(now, measured),
            // The Linux sender feeds its estimator through `LinuxRtt::on_sample`.
            RttEstimator::Linux(e) => e.on_sample(measured, 0, 0),
        }
    }

    /// The timer expired: back off.
    pub fn on_timeout(&mut self) {
        match self {
            RttEstimator::Rfc6298(e) => e.on_timeout(),
            RttEstimator::Ns2(e) => e.on_timeout(),
            RttEstimator::Linux(e) => e.on_timeout(),
        }
    }

    /// A valid RTT sample ends the back-off (ns-2 clears it on the ACK of a timed segment
    /// even when the sample itself changes nothing).
    pub fn clear_backoff(&mut self) {
        match self {
            RttEstimator::Rfc6298(e) => e.backoff = 0,
            RttEstimator::Ns2(e) => e.backoff = 1,
            RttEstimator::Linux(e) => e.backoff = 0,
        }
    }
}

/// SRTT/RTTVAR estimator with exponential back-off, RFC 6298.
#[derive(Clone, Debug)]
pub struct Rfc6298 {
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

impl Rfc6298 {
    /// An estimator that has seen no sample.
    pub fn new(config: RtoConfig) -> Self {
        Rfc6298 {
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
        // Rounded to the clock's granularity (none when it is 0).
        let r = (measured.0 + g / 2)
            .checked_div(g)
            .map_or(measured.0, |ticks| ticks * g)
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

/// Linux's estimator (`net/ipv4/tcp_input.c` `tcp_rtt_estimator()`, `tcp_set_rto()`), in
/// nanoseconds instead of microseconds: RFC 6298's gains (1/8, 1/4), except that a sample
/// below the smoothed RTT moves the deviation with the finer gain 1/32 (an Eifel-like
/// rule), and the variance term is the largest deviation of the last round trip, never less
/// than the minimum RTO: RTO = SRTT + max(4 x mdev over the last RTT, rto_min). With the
/// first sample R: SRTT = R, RTO = R + max(2R, rto_min). Linux counts timers in jiffies;
/// renolab does not round to them.
#[derive(Clone, Debug)]
pub struct LinuxRtt {
    config: RtoConfig,
    /// Smoothed RTT; 0 before the first sample (Linux `srtt_us`, unscaled here).
    srtt: u64,
    /// Mean deviation x 4 (Linux `mdev_us`).
    mdev: u64,
    /// Largest `mdev` in the current round trip (Linux `mdev_max_us`).
    mdev_max: u64,
    /// The variance term of the RTO (Linux `rttvar_us`), at least `config.min`.
    rttvar: u64,
    /// The round trip ends when `snd_una` passes this (Linux `rtt_seq`).
    rtt_seq: u32,
    /// Consecutive back-offs (Linux `icsk_backoff`).
    backoff: u32,
}

impl LinuxRtt {
    /// An estimator that has seen no sample.
    pub fn new(config: RtoConfig) -> Self {
        LinuxRtt {
            config,
            srtt: 0,
            mdev: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: 0,
            backoff: 0,
        }
    }

    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimDuration> {
        (self.srtt > 0).then_some(SimDuration(self.srtt))
    }

    /// Current timeout: `config.initial` before a sample, else SRTT + rttvar, doubled per
    /// back-off, at most `config.max` (Linux `tcp_set_rto()`, `tcp_bound_rto()`).
    pub fn rto(&self) -> SimDuration {
        let base = if self.srtt == 0 {
            self.config.initial.0
        } else {
            self.srtt + self.rttvar
        };
        SimDuration(
            base.saturating_mul(1u64 << self.backoff.min(30))
                .min(self.config.max.0),
        )
    }

    /// A sample `measured`; `snd_una` and `snd_max` delimit Linux's per-round tracking of
    /// the deviation. Clears the back-off (RFC 6298 §5.7, as `tcp_ack_update_rtt()`).
    pub fn on_sample(&mut self, measured: SimDuration, snd_una: u32, snd_max: u32) {
        let m = measured.0.max(1) as i64;
        let rto_min = self.config.min.0;
        if self.srtt == 0 {
            self.srtt = m as u64;
            self.mdev = 2 * m as u64;
            self.rttvar = self.mdev.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_max;
        } else {
            // Linux keeps srtt x 8 and mdev x 4 in integers; in nanoseconds the rounding
            // of the divisions is immaterial.
            let mut err = m - self.srtt as i64;
            self.srtt = (self.srtt as i64 + err / 8).max(1) as u64;
            if err < 0 {
                err = -err - self.mdev as i64 / 4;
                if err > 0 {
                    err /= 8;
                }
            } else {
                err -= self.mdev as i64 / 4;
            }
            self.mdev = (self.mdev as i64 + err).max(0) as u64;
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) / 4;
                }
                self.rtt_seq = snd_max;
                self.mdev_max = rto_min;
            }
        }
        self.backoff = 0;
    }

    /// The timer expired: double the RTO (Linux `tcp_retransmit_timer()`).
    pub fn on_timeout(&mut self) {
        if self.rto() < self.config.max {
            self.backoff += 1;
        }
    }
}

/// Fixed-point scaling of ns-2's smoothed RTT (`T_SRTT_BITS`) and variance (`T_RTTVAR_BITS`).
const T_SRTT_BITS: u32 = 3;
const T_RTTVAR_BITS: u32 = 2;

/// ns-2.35's RTT estimator (`tcp.cc`): RTTs counted in whole ticks of `tcpTick_` on a clock
/// whose phase is the agent's random `boot_time_`, SRTT kept ×8 and RTTVAR ×4 in integers.
#[derive(Clone, Debug)]
pub struct Ns2Rtt {
    config: RtoConfig,
    /// The agent's clock phase in [0, tick), ns.
    boot_offset: u64,
    /// SRTT in ticks, scaled by 8; 0 before the first sample.
    srtt: i64,
    /// RTTVAR in ticks, scaled by 4.
    rttvar: i64,
    /// `t_rtxcur_`: the RTO before back-off and clamping, ns.
    rtxcur: u64,
    /// `t_backoff_`: 1, 2, 4, ...
    backoff: u64,
}

impl Ns2Rtt {
    /// An estimator with clock phase `boot_offset` (ns, below the tick).
    pub fn new(config: RtoConfig, boot_offset: u64) -> Self {
        Ns2Rtt {
            config,
            boot_offset,
            srtt: 0,
            rttvar: 0,
            rtxcur: config.initial.0,
            backoff: 1,
        }
    }

    fn tick(&self) -> u64 {
        self.config.granularity.0.max(1)
    }

    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimDuration> {
        (self.srtt > 0).then(|| SimDuration((self.srtt as u64 * self.tick()) >> T_SRTT_BITS))
    }

    /// ns-2 `rtt_update()`: the RTT counted in ticks of the agent's clock, then the
    /// integer EWMA (gains 1/8 and 1/4) and `t_rtxcur_ = SRTT + 4 RTTVAR` in ticks.
    pub fn on_sample(&mut self, now: crate::time::SimTime, measured: SimDuration) {
        let tick = self.tick();
        let sent = now.0 - measured.0 + self.boot_offset;
        let tick_offset = sent % tick;
        let ticks = (((measured.0 + tick_offset) / tick) as i64).max(1);
        if self.srtt != 0 {
            let mut delta = ticks - (self.srtt >> T_SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            delta = delta.abs() - (self.rttvar >> T_RTTVAR_BITS);
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = ticks << T_SRTT_BITS;
            self.rttvar = ticks << (T_RTTVAR_BITS - 1);
        }
        // rttvar_exp_ = 2: ((rttvar << (2 + 3 - 2)) + srtt) >> 3, in ticks.
        let rto_ticks =
            ((self.rttvar << (2 + T_SRTT_BITS - T_RTTVAR_BITS)) + self.srtt) >> T_SRTT_BITS;
        self.rtxcur = rto_ticks.max(0) as u64 * tick;
    }

    /// ns-2 `rtt_timeout()` with `rfc2988_` on: the minimum applies before the back-off.
    pub fn rto(&self) -> SimDuration {
        let base = self.rtxcur.max(self.config.min.0);
        let timeout = base.saturating_mul(self.backoff).min(self.config.max.0);
        SimDuration(timeout.max(2 * self.tick()))
    }

    /// ns-2 `rtt_backoff()`: double up to the maximum; past 8 back-offs the SRTT is folded
    /// into the variance and forgotten.
    pub fn on_timeout(&mut self) {
        if self.backoff < 64 || self.rto() < self.config.max {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            self.rttvar += self.srtt >> T_SRTT_BITS;
            self.srtt = 0;
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
        let mut e = Rfc6298::new(cfg(0));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.on_sample(SimDuration::from_millis(100));
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
        assert_eq!(e.rttvar(), SimDuration::from_millis(50));
        // 100 + 4 * 50 = 300 ms
        assert_eq!(e.rto(), SimDuration::from_millis(300));
    }

    #[test]
    fn later_samples_are_smoothed() {
        let mut e = Rfc6298::new(cfg(0));
        e.on_sample(SimDuration::from_millis(100));
        e.on_sample(SimDuration::from_millis(200));
        // rttvar = (3*50 + 100)/4 = 62.5; srtt = (700 + 200)/8 = 112.5
        assert_eq!(e.rttvar(), SimDuration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(112_500)));
        assert_eq!(e.rto(), SimDuration::from_micros(362_500));
    }

    #[test]
    fn backoff_doubles_until_the_maximum_and_a_sample_clears_it() {
        let mut e = Rfc6298::new(cfg(0));
        for _ in 0..10 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
        e.on_sample(SimDuration::from_millis(100));
        assert_eq!(e.rto(), SimDuration::from_millis(300));
    }

    #[test]
    fn granularity_quantises_samples_and_floors_the_variance_term() {
        let mut e = Rfc6298::new(cfg(10));
        e.on_sample(SimDuration::from_millis(104));
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
        e.on_sample(SimDuration::from_millis(100));
        e.on_sample(SimDuration::from_millis(100));
        // rttvar shrinks: 50 -> 37.5 -> 28.125; RTO = 100 + 112.5 ms
        assert_eq!(e.rto(), SimDuration::from_micros(212_500));
    }

    #[test]
    fn rto_never_goes_below_the_minimum() {
        let mut e = Rfc6298::new(cfg(0));
        e.on_sample(SimDuration::from_micros(10));
        assert_eq!(e.rto(), SimDuration::from_millis(200));
    }

    #[test]
    fn linux_starts_at_three_rtts_floored_by_the_minimum_rto() {
        let mut e = LinuxRtt::new(cfg(0));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        // 100 ms: RTO = 100 + max(200, 200) = 300 ms.
        e.on_sample(SimDuration::from_millis(100), 0, 10);
        assert_eq!(e.rto(), SimDuration::from_millis(300));
        // 20 ms path: 20 + max(40, 200) = 220 ms.
        let mut short = LinuxRtt::new(cfg(0));
        short.on_sample(SimDuration::from_millis(20), 0, 10);
        assert_eq!(short.rto(), SimDuration::from_millis(220));
    }

    #[test]
    fn linux_keeps_the_largest_deviation_of_the_round_and_decays_it_after() {
        let mut e = LinuxRtt::new(cfg(0));
        e.on_sample(SimDuration::from_millis(100), 0, 10);
        // Steady samples in later rounds: the variance term decays towards rto_min.
        for round in 1..40u32 {
            e.on_sample(
                SimDuration::from_millis(100),
                10 * round + 1,
                10 * round + 10,
            );
        }
        assert_eq!(e.rto(), SimDuration::from_millis(300), "100 + rto_min 200");
        // A sample 40 ms below SRTT moves the deviation (kept x 4) by 40/8 = 5 ms, not
        // by the 40 ms of the plain rule.
        let before = e.mdev;
        e.on_sample(SimDuration::from_millis(60), 400, 410);
        assert!(
            e.mdev > before && e.mdev <= before + 5_000_000,
            "{before} -> {}",
            e.mdev
        );
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration(2 * (e.srtt + e.rttvar)));
    }

    #[test]
    fn ns2_counts_rtts_in_ticks_of_its_own_clock() {
        let mut e = Ns2Rtt::new(cfg(10), 0);
        assert_eq!(
            e.rto(),
            SimDuration::from_secs(1),
            "initial RTO before any sample"
        );
        // 104 ms from a segment sent on a tick boundary: 10 ticks.
        e.on_sample(
            crate::time::SimTime(1_104_000_000),
            SimDuration::from_millis(104),
        );
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
        // RTO = 10 + 4 * 5 ticks = 300 ms.
        assert_eq!(e.rto(), SimDuration::from_millis(300));
        // The same RTT measured from a segment sent 7 ms into a tick spans 11 ticks.
        let mut late = Ns2Rtt::new(cfg(10), 7_000_000);
        late.on_sample(
            crate::time::SimTime(1_104_000_000),
            SimDuration::from_millis(104),
        );
        assert_eq!(late.srtt(), Some(SimDuration::from_millis(110)));
    }

    #[test]
    fn ns2_applies_the_minimum_before_backing_off() {
        let mut e = Ns2Rtt::new(cfg(10), 0);
        e.on_sample(
            crate::time::SimTime(20_000_000),
            SimDuration::from_millis(20),
        );
        // RTO = 2 + 4*1 ticks = 60 ms < 200 ms minimum.
        assert_eq!(e.rto(), SimDuration::from_millis(200));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_millis(400));
    }
}
