//! Prague's options (`tcp_prague.c`'s module parameters), its declaration, and the hooks
//! through which the Linux sender drives it: `cong_control` on every ACK as Linux's
//! `prague_cong_control()`, the reductions through `set_state`.

use serde_json::{json, Value};

use super::{EcnFallback, Prague, PragueAck, PragueState, RttScaling, INFINITE_SSTHRESH};
use crate::tcp::cc::{
    AckSample, BuildContext, CaState, Cc, CcEvent, Congestion, CongestionControl, Control,
    Declaration, Declared, DefaultRecovery, OptionError, OptionKind, OptionReader, RecoveryRule,
    Requirement, TraceField, TraceKind,
};
use crate::tcp::window::Window;
use crate::time::SimTime;
use crate::units::BitsPerSec;

/// Prague's options, with the defaults of `tcp_prague.c`'s module parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PragueConfig {
    /// `prague_rtt_target`: the RTT below which a flow behaves as if it had it, µs
    /// (default 25 ms, `RTT_TARGET`).
    pub rtt_target_us: u64,
    /// `prague_rtt_transition`: rounds after slow start before the flow becomes
    /// RTT-independent (default 4, `DEFAULT_RTT_TRANSITION`).
    pub rtt_transition: u32,
    /// `prague_rtt_scaling` (v0.6; default `rate`, v0.7's only one).
    pub rtt_scaling: RttScaling,
    /// `prague_alpha_mode`: 0 (default) alpha starts at 0 and the first mark halves the
    /// window; 1 alpha starts at 1.
    pub alpha_mode: u8,
    /// `prague_ecn_fallback` (v0.6; default none).
    pub ecn_fallback: EcnFallback,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            rtt_target_us: 25_000,
            rtt_transition: 4,
            rtt_scaling: RttScaling::Rate,
            alpha_mode: 0,
            ecn_fallback: EcnFallback::None,
        }
    }
}

crate::option_decls! {
    OPTIONS;
    RTT_TARGET_US: "rtt_target_us", OptionKind::Int { min: 0, max: 1_000_000 }, "`25000`",
        "below this RTT (µs) the flow grows and reduces as a flow with this RTT would",
        "`tcp_prague.c` `prague_rtt_target` (`RTT_TARGET`)";
    RTT_TRANSITION: "rtt_transition", OptionKind::Int { min: 0, max: 1000 }, "`4`",
        "round trips after slow start before the RTT independence applies",
        "`tcp_prague.c` `prague_rtt_transition` (`DEFAULT_RTT_TRANSITION`)";
    RTT_SCALING: "rtt_scaling", OptionKind::Choice(&RttScaling::NAMES), "`\"rate\"`",
        "RTT independence: `none` (DCTCP's per-RTT behaviour), `rate` (equal rates below \
         the target), `scalable`, `additive` (as with the target added to the RTT)",
        "`tcp_prague.c` v0.6 `prague_rtt_scaling` (`RTT_CONTROL_*`)";
    ALPHA_MODE: "alpha_mode", OptionKind::Int { min: 0, max: 1 }, "`0`",
        "`0`: alpha starts at 0 and the first mark halves the window; `1`: alpha starts at 1",
        "`tcp_prague.c` `prague_alpha_mode`";
    ECN_FALLBACK: "ecn_fallback", OptionKind::Choice(&EcnFallback::NAMES), "`\"none\"`",
        "classic-ECN bottleneck detection: `none`, `fallback` (respond as a classic flow \
         when the marks look classic), `detect` (estimate only)",
        "`tcp_prague.c` v0.6 `prague_ecn_fallback`";
}

const TRACE: &[TraceField] = &[
    TraceField {
        name: "pacing_rate_bps",
        kind: TraceKind::Number,
        doc: "the pacing rate, bits per second on the wire",
    },
    TraceField {
        name: "alpha",
        kind: TraceKind::Number,
        doc: "Prague's (DCTCP's) EWMA of the fraction of CE-marked segments",
    },
    TraceField {
        name: "frac_cwnd",
        kind: TraceKind::Number,
        doc: "Prague's fractional window, segments",
    },
    TraceField {
        name: "classic_ecn",
        kind: TraceKind::Number,
        doc: "Prague's classic-ECN score, 0 (L4S) to about 1 (classic), with `ecn_fallback`",
    },
];

impl Declared for PragueConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "prague",
        summary: "TCP Prague (RFC 9331 App. A) as the L4S team's `tcp_prague.c`: ECT(1) and \
                  Accurate ECN, a DCTCP-like alpha, a fractional window, pacing, RTT \
                  independence",
        options: OPTIONS,
        trace: TRACE,
        modes: &[],
        profiles: &["linux"],
        recovery: RecoveryRule {
            requires: Some(Requirement {
                recoveries: &["prr"],
                refusal: "cannot run Prague",
                why: " (Linux's loss recovery, whose cong_control hook Prague sets the window \
                      through)",
            }),
            ..RecoveryRule::any(DefaultRecovery::Always("prr"))
        },
        needs_ecn: Some("RFC 9331 §4.3; `tcp_prague.c` TCP_CONG_NEEDS_ECN"),
        wants_ect1: Some("RFC 9331 §4.1, RFC 9768; `tcp_prague.c` TCP_CONG_WANTS_ECT_1"),
        paces: true,
        cong_control: true,
        ns2_sends_syn: true,
    };

    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError> {
        let d = PragueConfig::default();
        Ok(PragueConfig {
            rtt_target_us: options.int(&RTT_TARGET_US)?.unwrap_or(d.rtt_target_us),
            rtt_transition: options
                .int(&RTT_TRANSITION)?
                .map_or(d.rtt_transition, |n| n as u32),
            rtt_scaling: options
                .choice(&RTT_SCALING)?
                .and_then(RttScaling::from_name)
                .unwrap_or(d.rtt_scaling),
            alpha_mode: options.int(&ALPHA_MODE)?.map_or(d.alpha_mode, |n| n as u8),
            ecn_fallback: options
                .choice(&ECN_FALLBACK)?
                .and_then(EcnFallback::from_name)
                .unwrap_or(d.ecn_fallback),
        })
    }

    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![
            (RTT_TARGET_US.name, json!(self.rtt_target_us)),
            (RTT_TRANSITION.name, json!(self.rtt_transition)),
            (RTT_SCALING.name, json!(self.rtt_scaling.name())),
            (ALPHA_MODE.name, json!(self.alpha_mode)),
            (ECN_FALLBACK.name, json!(self.ecn_fallback.name())),
        ]
    }

    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        let mut p = Prague::new(*self, flow.initial_window.max(1));
        p.mtu = flow.mss + flow.header_bytes;
        p.last.mtu = p.mtu;
        Cc::Prague(Box::new(p))
    }
}

/// Microseconds of a duration or time in nanoseconds (the kernel's `tcp_mstamp` unit).
fn us(ns: u64) -> u64 {
    ns / 1000
}

impl Prague {
    /// What `prague_cong_control()` reads, from the sender's sample.
    fn read(&self, s: &AckSample) -> PragueAck {
        PragueAck {
            now_us: us(s.now.0),
            acked_sacked: s.acked + s.sacked,
            ece_delta: s.ce_delta,
            cwnd_limited: s.cwnd_limited,
            // tp->srtt_us holds the smoothed RTT in 1/8 µs.
            srtt_us8: s.srtt.map_or(0, |d| d.0 * 8 / 1000),
            snd_una: s.ack,
            snd_nxt: s.snd_max,
            delivered: s.conn.delivered,
            delivered_ce: s.conn.delivered_ce,
            in_flight: s.in_flight,
            mtu: self.mtu,
            rtt_sample_us: s.rtt.map(|d| us(d.0)),
            min_rtt_us: s.min_rtt.map(|d| us(d.0)),
        }
    }

    /// The stack moved the connection to `state` at `now` (`set_state`).
    #[allow(clippy::wrong_self_convention)] // named after the kernel's hook, not a conversion
    fn to_state(&mut self, now: SimTime, state: PragueState) {
        let a = PragueAck {
            now_us: us(now.0),
            ..self.last
        };
        self.set_state(state, &a);
    }
}

impl CongestionControl for Prague {
    fn cwnd(&self) -> Window {
        Window::segments(self.snd_cwnd())
    }
    fn ssthresh(&self) -> Window {
        match self.snd_ssthresh() {
            INFINITE_SSTHRESH => Window::segments(u32::MAX),
            s => Window::segments(s),
        }
    }
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        Some(BitsPerSec(self.pacing_rate_bytes() * 8))
    }
    fn tso_segs(&self) -> u32 {
        Prague::tso_segs(self)
    }
    fn set_cwnd(&mut self, cwnd: Window) {
        self.set_snd_cwnd(cwnd.whole().max(1));
    }
    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.set_snd_ssthresh(ssthresh.whole().clamp(2, INFINITE_SSTHRESH));
    }
    fn on_ack_sample(&mut self, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.on_rtt_sample(us(rtt.0).max(1));
        }
    }
    fn on_ack(&mut self, _sample: &AckSample) {
        // Prague sets the window in `cong_control`.
    }
    fn on_congestion(&mut self, now: SimTime, event: Congestion, _window: Window) {
        // tcp_init_cwnd_reduction() asks `ssthresh()` (Prague's leaves it), then
        // tcp_set_ca_state() calls `prague_state()`, which reduces.
        let _ = self.ssthresh_hook();
        let state = match event {
            Congestion::Ecn => PragueState::Cwr,
            Congestion::FastRetransmit | Congestion::RackLoss => PragueState::Recovery,
            Congestion::Timeout => PragueState::Loss,
        };
        self.to_state(now, state);
    }
    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        if event == CcEvent::RecoveryEnd {
            self.to_state(now, PragueState::Open);
        }
    }
    fn cong_control(&mut self, sample: &AckSample) -> Control {
        let a = self.read(sample);
        self.last = a;
        if matches!(sample.conn.ca_state, CaState::Open | CaState::Disorder) {
            self.to_state(sample.now, PragueState::Open);
        }
        self.on_prague_ack(&a);
        Control::default()
    }
    fn trace(&self, values: &mut [f64]) {
        values[0] = (self.pacing_rate_bytes() * 8) as f64;
        values[1] = self.alpha();
        values[2] = self.frac_cwnd() as f64 / super::ONE_CWND as f64;
        values[3] = if self.config().ecn_fallback == EcnFallback::None {
            f64::NAN
        } else {
            self.classic_ecn() as f64 / super::classic::MAX_ALPHA as f64
        };
    }
}
