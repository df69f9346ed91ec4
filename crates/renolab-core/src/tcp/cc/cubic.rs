//! CUBIC (RFC 9438), in the integer arithmetic of Linux's `net/ipv4/tcp_cubic.c` (v2.3, as
//! in Linux 6.x), so that renolab's windows are the kernel's.
//!
//! After a congestion event the window grows as `W(t) = C (t - K)^3 + W_max`: concave up to
//! the window of the last loss `W_max` (reached `K = cbrt(W_max (1 - beta) / C)` seconds
//! after the reduction), then convex beyond it, probing for more. Three rules bound it:
//! - the Reno-friendly estimate `W_est` (a Reno-like AIMD with `alpha = 3 (1 - beta) /
//!   (1 + beta)`): CUBIC grows at least as fast as it;
//! - the per-ACK cap: at most one segment per two acknowledged (1.5 times per round trip);
//! - fast convergence: a loss below the previous `W_max` lowers `W_max` further, to
//!   `cwnd (1 + beta) / 2`, releasing bandwidth to newer flows.
//!
//! The kernel computes the target `W(t + delay_min)` once per jiffy (or when cwnd changed,
//! at least every `HZ/32`), turns it into `cnt`, "acknowledged segments per one-segment
//! increase", and grows through the same counter as Reno (`tcp_cong_avoid_ai()`,
//! [`linux_cong_avoid_ai`]). Slow start is Linux's `tcp_slow_start()`, ended early by
//! HyStart or HyStart++ ([`super::hystart`]); under the rfc, ns2 and opnet profiles it adds
//! at most one segment per ACK (RFC 5681 §3.1, [`Cubic::with_growth`]), since their senders
//! forget SACK information at a timeout and one cumulative ACK may then cover hundreds of
//! segments.
//!
//! Where RFC 9438 and Linux differ, this follows Linux:
//! - `t + RTT` uses the minimum RTT (`delay_min`), not the smoothed RTT (RFC §4.2);
//! - the concave/convex target below cwnd still grows by one segment per 100 windows
//!   (`cnt = 100 cwnd`) where the RFC holds the window (§4.2);
//! - `W_est` grows by `8/15` of a segment per window (`beta_scale = 15` for beta = 717/1024)
//!   where the RFC has `alpha = 0.529`, and never switches to `alpha = 1` once it passes the
//!   window before the reduction (RFC §4.3 SHOULD);
//! - before the first loss (`W_max` unknown, e.g. after HyStart) the window grows at least
//!   5 % per round trip (`cnt <= 20`);
//! - ssthresh = `beta * min(window, cwnd)`, at least 2 segments also on ECN (RFC: 1):
//!   Linux reduces cwnd, RFC 9438 §4.6 the flight size, which the rfc dialect passes as
//!   `window`. The smaller of the two is Linux's under the linux profile (whose `window`
//!   is cwnd) and never more than was in flight (the RFC's concern), and it leaves out
//!   what Limited Transmit sent (RFC 5681 §3.2 step 2) and, at a timeout after SACK
//!   recovery, the SACKed data that an rfc-dialect flight size still counts (without it a
//!   slow-start overshoot would set ssthresh far above the path and repeat);
//! - undo restores only the window (`tcp_reno_undo_cwnd()`), not `W_max`, `K` or the epoch
//!   (RFC §4.9 MAY);
//! - a timeout forgets everything, `W_max` and the minimum RTT included (`bictcp_reset()`
//!   on `TCP_CA_Loss`); the RFC's "K = 0, W_max = cwnd at the start of congestion
//!   avoidance" (§4.8) is the same curve;
//! - `K`'s cube root is the kernel's table-plus-one-Newton-step approximation (error about
//!   0.2 %), and time advances in jiffies of 1 ms (CONFIG_HZ = 1000).
//!
//! After an idle period (`on_tx_start`) the epoch moves forward by the idle time, so that
//! the window resumes the curve where it left it (RFC 9438 §5.8; Linux
//! `cubictcp_cwnd_event(CA_EVENT_TX_START)`).

use super::hystart::{delay_us, Hystart, HystartMode, SlowStartAck};
use super::reno::{linux_cong_avoid_ai, linux_slow_start, Growth};
use super::{AckSample, Congestion, CongestionControl};
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// Linux `BICTCP_BETA_SCALE`: beta is in units of 1/1024.
pub const BETA_SCALE: u32 = 1024;
/// Linux `BICTCP_HZ`: CUBIC's time is in units of 1/1024 s.
const BICTCP_HZ: u32 = 10;
/// The jiffies per second of the kernel renolab reproduces (CONFIG_HZ).
const HZ: u64 = 1_000;
/// Nanoseconds per jiffy.
const NS_PER_JIFFY: u64 = 1_000_000_000 / HZ;

/// CUBIC's parameters in the kernel's units, with their defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubicConfig {
    /// Multiplicative decrease, in 1/1024 (Linux `beta` = 717: 0.7, RFC 9438 §4.6).
    pub beta: u32,
    /// `C` in 10/1024 segments per s^3 (Linux `bic_scale` = 41: C = 0.4, RFC 9438 §5).
    pub bic_scale: u32,
    /// Fast convergence (RFC 9438 §4.7; Linux `fast_convergence` = 1).
    pub fast_convergence: bool,
    /// The slow-start exit.
    pub hystart: HystartMode,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            beta: 717,
            bic_scale: 41,
            fast_convergence: true,
            hystart: HystartMode::Linux,
        }
    }
}

impl CubicConfig {
    /// The kernel's `beta` for a factor `beta` in (0, 1): the nearest 1/1024, within 1..=1023.
    pub fn beta_from(beta: f64) -> u32 {
        ((beta * BETA_SCALE as f64).round() as u32).clamp(1, BETA_SCALE - 1)
    }

    /// The kernel's `bic_scale` for `c` (segments/s^3): the nearest 10/1024, at least 1.
    pub fn bic_scale_from(c: f64) -> u32 {
        ((c * BETA_SCALE as f64 / 10.0)
            .round()
            .min(u32::MAX as f64 / 10.0) as u32)
            .max(1)
    }

    /// Beta as a fraction (717 → 0.7001953125).
    pub fn beta_f64(self) -> f64 {
        self.beta as f64 / BETA_SCALE as f64
    }

    /// C in segments per s^3 (41 → 0.400390625).
    pub fn c_f64(self) -> f64 {
        self.bic_scale as f64 * 10.0 / BETA_SCALE as f64
    }
}

/// CUBIC's state: Linux's `struct bictcp` plus the window it moves.
#[derive(Clone, Debug)]
pub struct Cubic {
    config: CubicConfig,
    cwnd: Window,
    ssthresh: Window,
    /// Linux `beta_scale`: `W_est` grows one segment per `cwnd * beta_scale / 8` acked.
    beta_scale: u32,
    /// Linux `cube_rtt_scale` = `bic_scale * 10`: C in 1/1024.
    cube_rtt_scale: u32,
    /// Linux `cube_factor` = 2^40 / (`bic_scale * 10`): `K^3` per segment, in 2^-30 s^3.
    cube_factor: u64,
    /// Acknowledged segments per one-segment increase (`cnt`).
    cnt: u32,
    /// `W_max` (`last_max_cwnd`), 0 before the first congestion event.
    last_max_cwnd: u32,
    /// The window when `cnt` was last computed (`last_cwnd`) and when (`last_time`,
    /// jiffies).
    last_cwnd: u32,
    last_time: u64,
    /// The curve's plateau (`bic_origin_point`) and `K` (`bic_K`, 1/1024 s).
    origin_point: u32,
    k: u32,
    /// The minimum RTT (`delay_min`), µs; 0 while unknown.
    delay_min_us: u32,
    /// When the current congestion-avoidance epoch began (`epoch_start`, jiffies); `None`
    /// after a reduction until congestion avoidance resumes.
    epoch_start: Option<u64>,
    /// Segments acknowledged towards the next `W_est` increase (`ack_cnt`).
    ack_cnt: u32,
    /// The Reno-friendly estimate `W_est` (`tcp_cwnd`), segments.
    tcp_cwnd: u32,
    /// Linux `snd_cwnd_cnt`: acknowledged segments toward the next increase.
    ca_count: u32,
    /// The window before the last reduction (Linux `prior_cwnd`), for undo.
    prior_cwnd: Window,
    /// How slow start counts an ACK.
    growth: Growth,
    hystart: Hystart,
}

impl Cubic {
    /// A CUBIC controller with initial window and threshold in segments, for `mss`-byte
    /// segments (HyStart's pacing-rate cushion needs the size).
    pub fn new(initial_window: u32, initial_ssthresh: u32, mss: u32, config: CubicConfig) -> Self {
        let beta = config.beta.clamp(1, BETA_SCALE - 1);
        let scale10 = config.bic_scale.max(1).saturating_mul(10);
        let iw = Window::segments(initial_window.max(1));
        Cubic {
            config,
            cwnd: iw,
            ssthresh: Window::segments(initial_ssthresh.max(2)),
            // cubictcp_register(): 8 (1024 + beta) / 3 / (1024 - beta).
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cube_rtt_scale: scale10,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / scale10 as u64,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin_point: 0,
            k: 0,
            delay_min_us: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            ca_count: 0,
            prior_cwnd: iw,
            growth: Growth::Linux,
            hystart: Hystart::new(config.hystart, mss),
        }
    }

    /// The same controller with slow start growing by `growth`: [`Growth::Linux`] (the
    /// default) adds the segments each ACK acknowledges (`tcp_slow_start()`);
    /// [`Growth::PerAck`] adds at most one segment per ACK (RFC 5681 §3.1, as renolab's
    /// Reno under the rfc and ns2 profiles). Congestion avoidance counts segments either
    /// way (RFC 9438 §4.3 `segments_acked`, Linux `tcp_cong_avoid_ai()`).
    pub fn with_growth(mut self, growth: Growth) -> Self {
        self.growth = growth;
        self
    }

    /// The parameters.
    pub fn config(&self) -> CubicConfig {
        self.config
    }

    /// `W_max`, segments (0 before the first congestion event).
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }

    /// `K`, the time from the epoch's start to the plateau.
    pub fn k(&self) -> SimDuration {
        SimDuration((self.k as u64 * 1_000_000_000) >> BICTCP_HZ)
    }

    /// The Reno-friendly estimate `W_est`, segments.
    pub fn w_est(&self) -> u32 {
        self.tcp_cwnd
    }

    /// The minimum RTT measured, once there is one.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        (self.delay_min_us > 0).then(|| SimDuration::from_micros(self.delay_min_us as u64))
    }

    /// True while HyStart++ is in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.hystart.in_css()
    }

    /// Linux `bictcp_update()`: recomputes `cnt` for a window of `cwnd` at `now`, having
    /// counted `acked` more segments towards `W_est`.
    fn update(&mut self, now: SimTime, cwnd: u32, acked: u32) {
        let jiffies = jiffies(now);
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd && jiffies.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // "The CUBIC function can update ca->cnt at most once per jiffy."
        if !(self.epoch_start.is_some() && jiffies == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = jiffies;
            let epoch = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(jiffies);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k = 0;
                        self.origin_point = cwnd;
                    } else {
                        // K = cbrt((W_max - cwnd) / C), in 1/1024 s.
                        let gap = (self.last_max_cwnd - cwnd) as u64;
                        self.k = cubic_root(self.cube_factor.saturating_mul(gap));
                        self.origin_point = self.last_max_cwnd;
                    }
                    jiffies
                }
            };
            // t + delay_min, in 1/1024 s.
            let t_jiffies = jiffies.saturating_sub(epoch) + usecs_to_jiffies(self.delay_min_us);
            let t = (t_jiffies << BICTCP_HZ) / HZ;
            let k = self.k as u64;
            // C (t - K)^3 in segments. The kernel's u64 holds this for windows below a
            // million segments; beyond, this saturates where the kernel would wrap (and
            // |t - K| is capped at 2^39/1024 s, 17 years, to keep the cube in a u128).
            let offs = t.abs_diff(k).min(1 << 39) as u128;
            let delta = ((self.cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ))
                .min(u32::MAX as u128) as u32;
            let target = if t < k {
                self.origin_point.saturating_sub(delta)
            } else {
                self.origin_point.saturating_add(delta)
            };
            self.cnt = if target > cwnd {
                cwnd / (target - cwnd)
            } else {
                // "very small increment"
                cwnd.saturating_mul(100)
            };
            // Before the first loss: at least 5 % per round trip.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        // The Reno-friendly region: W_est grows one segment per cwnd * beta_scale / 8
        // acknowledged (alpha = 3 (1 - beta) / (1 + beta) per window); CUBIC is at least as
        // fast.
        let per_segment = ((cwnd as u64 * self.beta_scale as u64) >> 3).clamp(1, u32::MAX as u64);
        let per_segment = per_segment as u32;
        if self.ack_cnt > per_segment {
            let n = (self.ack_cnt - 1) / per_segment;
            self.ack_cnt -= n * per_segment;
            self.tcp_cwnd = self.tcp_cwnd.saturating_add(n);
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
        // "The maximum rate of cwnd increase CUBIC allows is 1 packet per 2 packets ACKed,
        // meaning cwnd grows at 1.5x per RTT."
        self.cnt = self.cnt.max(2);
    }

    /// Linux `bictcp_reset()` and `bictcp_hystart_reset()` (entering `TCP_CA_Loss`).
    fn reset(&mut self, now: SimTime) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin_point = 0;
        self.k = 0;
        self.delay_min_us = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.hystart.on_congestion(now, true);
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> Window {
        self.cwnd
    }

    fn ssthresh(&self) -> Window {
        self.ssthresh
    }

    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd.max(Window::segments(1));
    }

    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.max(Window::segments(2));
    }

    /// Linux `cubictcp_acked()`: the minimum RTT, and HyStart in slow start.
    fn on_ack_sample(&mut self, sample: &AckSample) {
        let now = jiffies(sample.now);
        // "Discard delay samples right after fast recovery": for a second after the epoch
        // began.
        if self.epoch_start.is_some_and(|e| now.saturating_sub(e) < HZ) {
            return;
        }
        if let Some(rtt) = sample.rtt {
            let delay = delay_us(rtt);
            if self.delay_min_us == 0 || delay < self.delay_min_us {
                self.delay_min_us = delay;
            }
        }
        let (cwnd, ssthresh) = (self.cwnd.whole(), self.ssthresh.whole());
        if cwnd < ssthresh {
            let exit = self.hystart.on_ack(&SlowStartAck {
                now: sample.now,
                ack: sample.ack,
                snd_max: sample.snd_max,
                rtt: sample.rtt,
                srtt: sample.srtt,
                in_flight: sample.in_flight,
                cwnd,
                ssthresh,
                delay_min_us: self.delay_min_us,
            });
            if exit {
                self.ssthresh = Window::segments(cwnd.max(2));
            }
        }
    }

    /// Linux `cubictcp_cong_avoid()`.
    fn on_ack(&mut self, sample: &AckSample) {
        if !sample.cwnd_limited {
            return;
        }
        let mut cwnd = self.cwnd.whole();
        let mut acked = sample.acked + sample.sacked;
        if self.cwnd < self.ssthresh {
            if self.growth == Growth::PerAck {
                // A cumulative ACK after a timeout may cover hundreds of segments the
                // receiver held (the scoreboard is cleared, RFC 2018 §8): one segment.
                acked = acked.min(1);
            }
            let in_css = self.hystart.in_css();
            let credit = self.hystart.slow_start_credit(acked);
            let left;
            (cwnd, left) = linux_slow_start(cwnd, self.ssthresh.whole(), credit);
            self.cwnd = Window::segments(cwnd);
            // What slow start did not use goes on to congestion avoidance (none in CSS,
            // whose quarter segments are not acknowledged segments).
            acked = if in_css { 0 } else { left };
            if acked == 0 {
                return;
            }
        }
        self.update(sample.now, cwnd, acked);
        cwnd = linux_cong_avoid_ai(cwnd, &mut self.ca_count, self.cnt, acked);
        self.cwnd = Window::segments(cwnd);
    }

    /// Linux `cubictcp_recalc_ssthresh()` (and the loss state's reset on a timeout).
    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        self.prior_cwnd = self.cwnd;
        let cwnd = self.cwnd.whole();
        let beta = self.config.beta.clamp(1, BETA_SCALE - 1) as u64;
        self.epoch_start = None;
        // W_max, lowered further by fast convergence if this loss came below the last.
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.config.fast_convergence {
            (cwnd as u64 * (BETA_SCALE as u64 + beta) / (2 * BETA_SCALE as u64)) as u32
        } else {
            cwnd
        };
        let basis = window.whole().min(cwnd) as u64;
        let reduced = (basis * beta / BETA_SCALE as u64) as u32;
        self.ssthresh = Window::segments(reduced.max(2));
        // tcp_init_cwnd_reduction() and tcp_enter_loss(): the increase counter restarts.
        self.ca_count = 0;
        match event {
            Congestion::Timeout => {
                // tcp_enter_loss(): the loss window, then cubictcp_state(TCP_CA_Loss)
                // forgets the curve, the minimum RTT and HyStart's verdict.
                self.cwnd = Window::segments(1);
                self.reset(now);
            }
            _ => {
                self.cwnd = self.ssthresh;
                self.hystart.on_congestion(now, false);
            }
        }
    }

    fn on_undo(&mut self, _now: SimTime) {
        // tcp_reno_undo_cwnd(): max(cwnd, prior_cwnd).
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// Linux `cubictcp_cwnd_event(CA_EVENT_TX_START)`: after `idle`, shift the epoch by it
    /// ("keep cwnd growth to cubic curve"), never past now.
    fn on_tx_start(&mut self, now: SimTime, idle: SimDuration) {
        let Some(epoch) = self.epoch_start else {
            return;
        };
        let now_j = jiffies(now);
        let sent_j = jiffies(SimTime(now.as_nanos().saturating_sub(idle.as_nanos())));
        let delta = now_j - sent_j;
        if delta > 0 {
            self.epoch_start = Some((epoch + delta).min(now_j));
        }
    }
}

/// The kernel's clock: whole jiffies since the start.
fn jiffies(t: SimTime) -> u64 {
    t.as_nanos() / NS_PER_JIFFY
}

/// Linux `usecs_to_jiffies()`: rounded up.
fn usecs_to_jiffies(us: u32) -> u64 {
    (us as u64 * 1_000).div_ceil(NS_PER_JIFFY)
}

/// Linux `cubic_root()`: the cube root of `a` from a 64-entry table of the top bits and one
/// Newton-Raphson step (average error 0.195 %). The table is the kernel's (hand-refined
/// `cbrt(x << 18) - 1`).
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let bits = 64 - a.leading_zeros(); // fls64()
    if bits < 7 {
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((bits * 84) >> 8) - 1;
    let top = (a >> (b * 3)) as usize;
    let x = ((V[top] as u32 + 10) << b) >> 6;
    // x = (2x + a / x^2) / 3, with x (x - 1) for x^2 and 341/1024 for 1/3.
    let x = (2 * x).wrapping_add((a / (x as u64 * (x as u64 - 1))) as u32);
    x.wrapping_mul(341) >> 10
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    fn sample(now: SimTime, acked: u32) -> AckSample {
        AckSample::new(now, 0, acked)
    }

    /// A controller in congestion avoidance at `cwnd` (ssthresh below it), hystart off.
    fn cubic(cwnd: u32, config: CubicConfig) -> Cubic {
        let mut c = Cubic::new(
            cwnd,
            2,
            1000,
            CubicConfig {
                hystart: HystartMode::Off,
                ..config
            },
        );
        c.ssthresh = Window::segments(2);
        c
    }

    /// Drives `c` with one ACK of `per_ack` segments every `step_us` until `until`, as a
    /// sender with a full window would: returns cwnd at each ms listed in `probes`.
    fn drive(
        c: &mut Cubic,
        from: SimTime,
        until: SimTime,
        step_us: u64,
        probes: &[u64],
    ) -> Vec<u32> {
        let mut out = Vec::new();
        let mut t = from;
        let mut next = probes.iter().peekable();
        while t < until {
            c.on_ack(&sample(t, 1));
            while next.peek().is_some_and(|&&p| at_ms(p) <= t) {
                out.push(c.cwnd().whole());
                next.next();
            }
            t += SimDuration::from_micros(step_us);
        }
        out
    }

    #[test]
    fn the_cube_root_is_within_a_percent() {
        for a in [
            1u64,
            7,
            63,
            64,
            1000,
            12345,
            1 << 30,
            2_681_735_677 * 300,
            u64::MAX / 3,
        ] {
            let exact = (a as f64).cbrt();
            let got = cubic_root(a) as f64;
            assert!(
                (got - exact).abs() <= 0.01 * exact + 1.0,
                "cbrt({a}) = {got}, not {exact}"
            );
        }
        // The kernel's own results (its cubic_root() compiled as is): K for W_max - cwnd =
        // 30 segments at C = 0.4 is cbrt(75) s = 4318.4/1024 s exactly, 4316 in the kernel.
        let c = Cubic::new(10, 10, 1000, CubicConfig::default());
        assert_eq!(c.cube_factor, 2_681_735_677);
        let kernel = [
            (c.cube_factor * 30, 4316),
            (c.cube_factor * 120, 6852),
            (c.cube_factor * 300, 9294),
            (1000, 10),
            (12345, 23),
            (1 << 30, 1024),
            (u64::MAX / 3, 1_832_142),
        ];
        for (a, root) in kernel {
            assert_eq!(cubic_root(a), root, "cbrt({a})");
        }
    }

    #[test]
    fn a_loss_at_w_max_leaves_seven_tenths_of_it() {
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        // 100 * 717 / 1024 = 70.
        assert_eq!(
            (c.cwnd(), c.ssthresh()),
            (Window::segments(70), Window::segments(70))
        );
        assert_eq!(c.w_max(), 100);
    }

    /// W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta) / C), within one segment,
    /// on a path of 100 ms minimum RTT whose window is always full (an ACK per segment, the
    /// window's worth per RTT).
    #[test]
    fn the_window_follows_the_cubic_curve() {
        let w_max = 400u32;
        let mut c = cubic(w_max, CubicConfig::default());
        c.delay_min_us = 100_000;
        c.on_congestion(
            at_ms(0),
            Congestion::FastRetransmit,
            Window::segments(w_max),
        );
        let start = c.cwnd().whole();
        assert_eq!(start, 280);
        let (cc, beta) = (c.config().c_f64(), c.config().beta_f64());
        let k = (w_max as f64 * (1.0 - beta) / cc).cbrt();
        assert!((k - 6.69).abs() < 0.01, "K = {k}");
        // ACKs every 100 ms / cwnd; probe every second up to 10 s, beyond K.
        let probes: Vec<u64> = (1..=10).map(|s| s * 1000).collect();
        let mut t = at_ms(0);
        let mut seen = Vec::new();
        let mut next = 0;
        while next < probes.len() {
            let cwnd = c.cwnd().whole();
            c.on_ack(&sample(t, 1));
            t += SimDuration::from_nanos(100_000_000 / cwnd as u64);
            if t >= at_ms(probes[next]) {
                seen.push((probes[next], c.cwnd().whole()));
                next += 1;
            }
        }
        for (ms, cwnd) in seen {
            // The window aims at W(t + RTT) and gets there within the round trip: compare
            // with the curve between t and t + RTT.
            let s = ms as f64 / 1000.0;
            let w = |s: f64| cc * (s - k).powi(3) + w_max as f64;
            let (lo, hi) = (w(s).min(w(s + 0.1)), w(s).max(w(s + 0.1)));
            assert!(
                cwnd as f64 >= lo - 1.0 && cwnd as f64 <= hi + 1.0,
                "t = {s} s: cwnd {cwnd}, W(t) = {:.1}, W(t + RTT) = {:.1}",
                w(s),
                w(s + 0.1)
            );
        }
    }

    #[test]
    fn the_reduction_takes_the_smaller_of_the_flight_and_the_window() {
        // A flight below cwnd (the application sent less): 0.7 of the flight (RFC 9438).
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(50));
        assert_eq!(c.ssthresh(), Window::segments(35));
        // A flight above cwnd (Limited Transmit's segments, or SACKed data still counted at
        // a timeout): 0.7 of cwnd (Linux).
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::Timeout, Window::segments(5000));
        assert_eq!(c.ssthresh(), Window::segments(70));
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_loss_below_it() {
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        assert_eq!(c.w_max(), 100);
        // The next loss comes at 90 < W_max: W_max = 90 * (1024 + 717) / 2048 = 76.
        c.set_cwnd(Window::segments(90));
        c.on_congestion(at_ms(1), Congestion::FastRetransmit, Window::segments(90));
        assert_eq!(c.w_max(), 76);
        // Without fast convergence W_max is the window at the loss.
        let mut slow = cubic(
            100,
            CubicConfig {
                fast_convergence: false,
                ..CubicConfig::default()
            },
        );
        slow.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        slow.set_cwnd(Window::segments(90));
        slow.on_congestion(at_ms(1), Congestion::FastRetransmit, Window::segments(90));
        assert_eq!(slow.w_max(), 90);
    }

    /// At a small BDP (10 ms RTT, W_max 20) the cubic curve is slower than Reno's AIMD: the
    /// Reno-friendly estimate governs, adding about alpha = 8/15 segments per window.
    #[test]
    fn the_reno_friendly_estimate_governs_at_small_bdp() {
        let mut c = cubic(20, CubicConfig::default());
        c.delay_min_us = 10_000;
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(20));
        assert_eq!(c.cwnd().whole(), 14);
        // 30 windows of ACKs, each window in 10 ms: 300 ms. The curve alone: K = 2.47 s, so
        // W(0.31 s) is still about 14 + 0.2; W_est gains 30 * 8/15 = 16 segments.
        let mut t = at_ms(0);
        for _ in 0..30 {
            let cwnd = c.cwnd().whole();
            for _ in 0..cwnd {
                c.on_ack(&sample(t, 1));
                t += SimDuration::from_nanos(10_000_000 / cwnd as u64);
            }
        }
        let cwnd = c.cwnd().whole();
        assert!(c.w_est() >= 24, "W_est {}", c.w_est());
        assert!(
            (c.w_est() as i64 - cwnd as i64).abs() <= 1,
            "cwnd {cwnd} tracks W_est {}",
            c.w_est()
        );
        let curve = c.config().c_f64() * (t.as_secs_f64() + 0.01 - 2.47f64).powi(3) + 20.0;
        assert!(cwnd as f64 > curve + 5.0, "cwnd {cwnd}, curve {curve:.1}");
    }

    #[test]
    fn one_ack_grows_the_window_by_at_most_half_what_it_acknowledges() {
        // Far in the convex region the target is huge: cnt would be 0; the cap makes it 2.
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        c.on_ack(&sample(at_ms(1), 1)); // the epoch begins
        c.on_ack(&sample(at_ms(60_000), 1)); // a minute later: W(t) >> cwnd
        assert_eq!(c.cnt, 2);
        let before = c.cwnd().whole();
        c.on_ack(&sample(at_ms(60_001), 40));
        assert_eq!(c.cwnd().whole(), before + 20);
    }

    #[test]
    fn centuries_into_an_epoch_the_target_saturates_without_overflow() {
        let mut c = cubic(u32::MAX / 4, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, c.cwnd());
        c.on_ack(&sample(at_ms(1), 1));
        let before = c.cwnd().whole();
        c.on_ack(&sample(SimTime(u64::MAX / 2), 1000));
        assert_eq!(c.cnt, 2);
        assert_eq!(c.cwnd().whole(), before + 500);
    }

    #[test]
    fn an_idle_period_shifts_the_epoch() {
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        c.on_ack(&sample(at_ms(5), 1));
        assert_eq!(c.epoch_start, Some(5));
        // Sending resumes at 3 s after 2.5 s without sending: the curve resumes where it
        // was at 0.5 s.
        c.on_tx_start(at_ms(3_000), SimDuration::from_millis(2_500));
        assert_eq!(c.epoch_start, Some(2_505));
        // Never beyond now.
        c.on_tx_start(at_ms(3_000), SimDuration::from_secs(100));
        assert_eq!(c.epoch_start, Some(3_000));
        // No epoch (in slow start, or after a reduction): nothing to shift.
        let mut fresh = cubic(10, CubicConfig::default());
        fresh.on_tx_start(at_ms(3_000), SimDuration::from_secs(1));
        assert_eq!(fresh.epoch_start, None);
    }

    #[test]
    fn the_curve_after_an_idle_period_continues_where_it_stopped() {
        let probes = [1_000, 2_000];
        let mut busy = cubic(100, CubicConfig::default());
        busy.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        let a = drive(&mut busy, at_ms(0), at_ms(2_001), 1_000, &probes);
        let mut idle = cubic(100, CubicConfig::default());
        idle.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        let b1 = drive(&mut idle, at_ms(0), at_ms(1_001), 1_000, &probes[..1]);
        // 5 s idle, then the second second.
        idle.on_tx_start(at_ms(6_001), SimDuration::from_millis(5_000));
        let b2 = drive(&mut idle, at_ms(6_001), at_ms(7_001), 1_000, &[7_000]);
        assert_eq!(a, [b1[0], b2[0]]);
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_and_forgets_the_curve() {
        let mut c = cubic(100, CubicConfig::default());
        c.delay_min_us = 50_000;
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        c.on_congestion(at_ms(1), Congestion::Timeout, Window::segments(70));
        assert_eq!(c.cwnd(), Window::segments(1));
        assert_eq!(c.ssthresh(), Window::segments(49));
        assert_eq!((c.w_max(), c.min_rtt()), (0, None));
    }

    #[test]
    fn slow_start_counts_segments_up_to_ssthresh_then_the_curve_takes_over() {
        let mut c = Cubic::new(
            10,
            13,
            1000,
            CubicConfig {
                hystart: HystartMode::Off,
                ..CubicConfig::default()
            },
        );
        c.on_ack(&sample(at_ms(1), 2));
        assert_eq!(c.cwnd().whole(), 12);
        c.on_ack(&sample(at_ms(2), 4)); // 1 to reach 13, 3 for congestion avoidance
        assert_eq!(c.cwnd().whole(), 13);
        assert_eq!(c.epoch_start, Some(2), "the epoch begins");
        // No loss yet: W_max is 0, so cnt <= 20 (5 % per round trip).
        assert!(c.cnt <= 20);
    }

    #[test]
    fn per_ack_slow_start_adds_one_segment_whatever_an_ack_covers() {
        let cfg = CubicConfig {
            hystart: HystartMode::Off,
            ..CubicConfig::default()
        };
        let mut c = Cubic::new(10, 100, 1000, cfg).with_growth(Growth::PerAck);
        c.on_ack(&sample(at_ms(1), 2));
        // After a timeout, one ACK may cover what the receiver held.
        c.on_ack(&sample(at_ms(2), 300));
        assert_eq!(c.cwnd().whole(), 12);
        let mut linux = Cubic::new(10, 100, 1000, cfg);
        linux.on_ack(&sample(at_ms(1), 300));
        // tcp_slow_start() stops at ssthresh; the other 210 segments go to congestion
        // avoidance, one segment per 20 before any loss (cnt <= 20).
        assert_eq!(linux.cwnd().whole(), 110);
    }

    #[test]
    fn growth_waits_while_not_cwnd_limited() {
        let mut c = cubic(50, CubicConfig::default());
        let mut s = sample(at_ms(1), 10);
        s.cwnd_limited = false;
        c.on_ack(&s);
        assert_eq!((c.cwnd().whole(), c.epoch_start), (50, None));
    }

    #[test]
    fn undo_restores_the_window_before_the_reduction() {
        let mut c = cubic(100, CubicConfig::default());
        c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
        c.on_undo(at_ms(1));
        assert_eq!(c.cwnd(), Window::segments(100));
    }

    #[test]
    fn options_round_to_the_kernel_units() {
        assert_eq!(CubicConfig::beta_from(0.7), 717);
        assert_eq!(CubicConfig::bic_scale_from(0.4), 41);
        let d = CubicConfig::default();
        assert_eq!(CubicConfig::beta_from(d.beta_f64()), d.beta);
        assert_eq!(CubicConfig::bic_scale_from(d.c_f64()), d.bic_scale);
        // beta_scale: 8 * 1741 / 3 / 307 = 15.
        assert_eq!(Cubic::new(1, 2, 1000, d).beta_scale, 15);
    }

    #[test]
    fn hystart_sets_ssthresh_to_the_window_when_the_ack_train_is_long() {
        let mut c = Cubic::new(32, u32::MAX, 1000, CubicConfig::default());
        let ack = |now: SimTime, ack: u32, rtt: Option<u64>| AckSample {
            rtt: rtt.map(SimDuration::from_millis),
            snd_max: 64,
            ..AckSample::new(now, ack, 1)
        };
        // The first ACK gives the minimum RTT (100 ms); then ACKs 1 ms apart.
        c.on_ack_sample(&ack(at_ms(100), 1, Some(100)));
        for i in 1..=51u32 {
            c.on_ack_sample(&ack(at_ms(100 + i as u64), 1 + i, None));
        }
        assert_eq!(c.ssthresh(), Window::segments(32));
    }
}
