//! DCTCP, Data Center TCP (RFC 8257; Alizadeh et al., SIGCOMM 2010), as Linux's
//! `net/ipv4/tcp_dctcp.c` computes it:
//!
//! - The sender counts, per window of data, the segments delivered and those whose ACK
//!   echoed Congestion Experienced (`delivered`, `delivered_ce`). When the cumulative ACK
//!   passes the end of the window (`next_seq`, the highest segment sent when it began), it
//!   updates `alpha <- (1 - g) alpha + g F` with F the fraction marked and g = 1/16
//!   (`dctcp_update_alpha()`, fixed point: alpha in 1/1024ths, `dctcp_shift_g` = 4).
//! - An ECN-Echo reduces the window, once per window, to `cwnd (1 - alpha / 2)`
//!   (`dctcp_ssthresh()`: `max(cwnd - cwnd alpha / 2048, 2)`); alpha starts at 1
//!   (`dctcp_alpha_on_init` = 1024), so the first reduction halves.
//! - A loss halves the window as Reno does (`dctcp_react_to_loss()`, RFC 8257 §3.5);
//!   between reductions the window grows as Reno's (`tcp_reno_cong_avoid()`).
//!
//! The receiver's exact echo is in [`crate::tcp::ecn`]; the once-per-window rule is the
//! sender's (its CWR state under Linux recovery, RFC 3168's rule on the classic path).

use serde_json::Value;

use super::declare::ALL_PROFILES;
use super::reno::for_flow;
use super::{
    AckSample, BuildContext, Cc, Congestion, CongestionControl, Declaration, Declared,
    DefaultRecovery, OptionError, OptionReader, RecoveryRule, Reno,
};
use crate::tcp::window::Window;
use crate::time::SimTime;

/// Linux `DCTCP_MAX_ALPHA`: alpha = 1 in fixed point.
pub const MAX_ALPHA: u32 = 1024;
/// Linux `dctcp_shift_g` (RFC 8257 §4.2: g = 1/16).
pub const SHIFT_G: u32 = 4;

/// DCTCP's state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    reno: Reno,
    /// The fraction of marks, EWMA, in 1/1024ths (`dctcp_alpha`).
    alpha: u32,
    /// The window ends when the cumulative ACK reaches this (`next_seq`).
    next_seq: u32,
    /// Segments delivered, and delivered with ECE, in this window.
    delivered: u32,
    delivered_ce: u32,
}

impl Dctcp {
    /// DCTCP on top of `reno`'s window arithmetic, alpha at 1.
    pub fn new(reno: Reno) -> Self {
        Dctcp {
            reno,
            alpha: MAX_ALPHA,
            next_seq: 0,
            delivered: 0,
            delivered_ce: 0,
        }
    }

    /// Alpha, as a fraction in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / MAX_ALPHA as f64
    }

    /// Alpha in Linux's fixed point (1/1024ths).
    pub fn alpha_fixed(&self) -> u32 {
        self.alpha
    }

    /// Linux `dctcp_update_alpha()`: one EWMA step with the window's fraction of marks.
    fn update_alpha(&mut self) {
        // alpha = (1 - g) alpha: `alpha -= min_not_zero(alpha, alpha >> g)`, so an alpha
        // below 16/1024 whose shift is 0 drops to 0 at once.
        let mut alpha = self.alpha - decay(self.alpha);
        if self.delivered_ce > 0 {
            // + g F, F = delivered_ce / delivered, in 1/1024ths.
            let f = (self.delivered_ce << (10 - SHIFT_G)) / self.delivered.max(1);
            alpha = (alpha + f).min(MAX_ALPHA);
        }
        self.alpha = alpha;
    }
}

/// Linux's `min_not_zero(alpha, alpha >> dctcp_shift_g)`.
fn decay(alpha: u32) -> u32 {
    match alpha >> SHIFT_G {
        0 => alpha,
        d => d.min(alpha),
    }
}

impl CongestionControl for Dctcp {
    fn cwnd(&self) -> Window {
        self.reno.cwnd()
    }
    fn ssthresh(&self) -> Window {
        self.reno.ssthresh()
    }
    fn set_cwnd(&mut self, cwnd: Window) {
        self.reno.set_cwnd(cwnd);
    }
    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.reno.set_ssthresh(ssthresh);
    }

    fn on_ack_sample(&mut self, sample: &AckSample) {
        // tcp_count_delivered(): what this ACK delivered, all of it CE if it echoed.
        let delivered = sample.acked + sample.sacked;
        self.delivered += delivered;
        if sample.ece {
            self.delivered_ce += delivered;
        }
        // "Expired RTT": the cumulative ACK passed the window's end.
        if sample.ack >= self.next_seq {
            self.update_alpha();
            self.next_seq = sample.snd_max;
            self.delivered = 0;
            self.delivered_ce = 0;
        }
    }

    fn on_ack(&mut self, sample: &AckSample) {
        self.reno.on_ack(sample);
    }

    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        match event {
            Congestion::Ecn => {
                // dctcp_ssthresh(): cwnd (1 - alpha / 2), at least 2 segments.
                let cwnd = self.reno.cwnd().whole();
                let ssthresh = (cwnd - ((cwnd as u64 * self.alpha as u64) >> 11) as u32).max(2);
                self.reno.set_ssthresh(Window::segments(ssthresh));
                self.reno.set_cwnd(Window::segments(ssthresh));
            }
            // dctcp_react_to_loss(): max(cwnd / 2, 2), Reno's halving.
            _ => self.reno.on_congestion(now, event, window),
        }
    }

    fn undo_cwnd(&mut self, now: SimTime) -> Window {
        self.reno.undo_cwnd(now)
    }
}

/// `variant = "dctcp"`: no options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DctcpConfig;

impl Declared for DctcpConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "dctcp",
        summary: "DCTCP (RFC 8257) as Linux's `tcp_dctcp.c`: Reno's growth, an ECN-Echo cuts \
                  the window by alpha/2",
        options: &[],
        trace: &[],
        modes: &[],
        profiles: ALL_PROFILES,
        recovery: RecoveryRule::any(DefaultRecovery::Reno),
        // DCTCP always asks for ECN (Linux tcp_ca_needs_ecn()), and cannot do without.
        needs_ecn: Some("RFC 8257"),
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(_: &dyn OptionReader) -> Result<Self, OptionError> {
        Ok(DctcpConfig)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        Cc::Dctcp(Dctcp::new(for_flow(flow)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One window of `n` segments acknowledged one per ACK, the first `marked` with ECE,
    /// ending at segment `end`.
    fn window(d: &mut Dctcp, start: u32, n: u32, marked: u32) -> u32 {
        for i in 0..n {
            let ack = start + i + 1;
            let sample = AckSample {
                snd_max: start + 2 * n,
                ece: i < marked,
                ..AckSample::new(SimTime::ZERO, ack, 1)
            };
            d.on_ack_sample(&sample);
        }
        start + n
    }

    #[test]
    fn alpha_follows_the_ewma_of_the_fraction_of_marks() {
        let mut d = Dctcp::new(Reno::new(10, 100, false));
        // The first ACK closes the (empty) window of the connection's start: alpha decays
        // once with F = 1 (that ACK is marked), staying 1.
        let mut seq = 0;
        let mut exact = 1.0f64;
        let mut fixed = MAX_ALPHA;
        // Windows of 20 segments with 5 marked: F = 1/4. The window boundaries are the
        // snd_max at each window's start, 2n ahead: every other "window" of ACKs closes.
        for _ in 0..400 {
            seq = window(&mut d, seq, 20, 5);
        }
        // Replay the same by the formula: a window closes when ack >= next_seq.
        let mut next_seq = 0u32;
        let (mut delivered, mut ce) = (0u32, 0u32);
        let mut s = 0;
        for _ in 0..400 {
            for i in 0..20u32 {
                let ack = s + i + 1;
                delivered += 1;
                ce += u32::from(i < 5);
                if ack >= next_seq {
                    let f = ce as f64 / delivered as f64;
                    exact = (1.0 - 1.0 / 16.0) * exact + f / 16.0;
                    fixed -= decay(fixed);
                    if ce > 0 {
                        fixed = (fixed + (ce << 6) / delivered).min(MAX_ALPHA);
                    }
                    next_seq = s + 40;
                    delivered = 0;
                    ce = 0;
                }
            }
            s += 20;
        }
        assert_eq!(d.alpha_fixed(), fixed, "Linux's fixed-point recurrence");
        // Each step truncates alpha >> 4 (under 1/1024); over the EWMA's memory of 16
        // steps that keeps alpha up to 16/1024 above the exact value.
        assert!(
            (d.alpha() - exact).abs() <= 16.0 / 1024.0,
            "{} vs exact EWMA {exact}",
            d.alpha()
        );
        // The windows cover 40 ACKs with 10 marked: F = 1/4, and alpha converges to it.
        assert!((exact - 0.25).abs() < 1e-6, "{exact}");
        assert!((d.alpha() - 0.25).abs() <= 16.0 / 1024.0, "{}", d.alpha());
    }

    #[test]
    fn an_ecn_echo_cuts_by_half_alpha_and_a_loss_halves() {
        let mut d = Dctcp::new(Reno::new(100, 1000, false));
        d.alpha = MAX_ALPHA / 4; // alpha = 1/4: cut by 1/8
        d.on_congestion(SimTime::ZERO, Congestion::Ecn, Window::segments(100));
        assert_eq!(d.cwnd(), Window::segments(100 - 100 / 8));
        assert_eq!(d.ssthresh(), Window::segments(88));
        d.on_congestion(
            SimTime::ZERO,
            Congestion::FastRetransmit,
            Window::segments(88),
        );
        assert_eq!(d.cwnd(), Window::segments(44));
        d.alpha = 0;
        d.on_congestion(SimTime::ZERO, Congestion::Ecn, Window::segments(44));
        assert_eq!(d.cwnd(), Window::segments(44), "alpha 0: no cut");
    }
}
