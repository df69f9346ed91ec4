//! TCP NewReno's window arithmetic: Reno's, plus Hoe's (1996) estimate of the start-up
//! ssthresh (ns-2's `newreno_changes_`). NewReno's partial-ACK handling (RFC 6582) is loss
//! recovery's, [`crate::tcp::recovery::newreno`].

use serde_json::{json, Value};

use super::declare::ALL_PROFILES;
use super::reno::for_flow;
use super::{
    AckSample, BuildContext, Cc, CcEvent, Congestion, CongestionControl, Declaration, Declared,
    DefaultRecovery, OptionDecl, OptionError, OptionKind, OptionReader, RecoveryRule, Reno,
};
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// `ssthresh_estimation`: Hoe's start-up threshold, and ns-2's recovery with it.
pub const SSTHRESH_ESTIMATION: OptionDecl = OptionDecl {
    name: "ssthresh_estimation",
    kind: OptionKind::Bool,
    default: "`false`",
    doc: "Hoe's start-up ssthresh from the first RTT and the spacing of ACKs 2 and 3; with \
          NewReno's recovery, also ns-2's sending in recovery (`hoe_sending`)",
    source: "ns-2 `newreno_changes_ = 1`",
};

/// `variant = "newreno"`'s options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NewRenoCcConfig {
    /// Hoe's start-up ssthresh estimate (ns-2 `newreno_changes_ = 1`).
    pub ssthresh_estimation: bool,
}

impl Declared for NewRenoCcConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "newreno",
        summary: "Reno's window arithmetic with Hoe's start-up threshold; RFC 6582's \
                  NewReno recovery by default",
        options: &[&SSTHRESH_ESTIMATION],
        trace: &[],
        modes: &[],
        profiles: ALL_PROFILES,
        recovery: RecoveryRule {
            sets_recovery_option: Some((&SSTHRESH_ESTIMATION, "hoe_sending")),
            ..RecoveryRule::any(DefaultRecovery::Always("newreno"))
        },
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: true,
    };
    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError> {
        Ok(NewRenoCcConfig {
            ssthresh_estimation: options.bool(&SSTHRESH_ESTIMATION)?.unwrap_or(false),
        })
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![(SSTHRESH_ESTIMATION.name, json!(self.ssthresh_estimation))]
    }
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        let reno = for_flow(flow);
        Cc::NewReno(NewReno {
            reno,
            hoe: self.ssthresh_estimation.then(HoeEstimate::default),
            estimate: None,
        })
    }
}

/// Hoe's estimate: the RTT of the first segment times the bandwidth seen in the spacing of
/// the 2nd and 3rd ACKs, in segments (ns-2 tcp-newreno.cc, `newreno_changes_`).
#[derive(Clone, Debug, Default)]
struct HoeEstimate {
    first_sent: Option<SimTime>,
    acks: u32,
    base_rtt: SimDuration,
    second_ack: SimTime,
}

impl HoeEstimate {
    /// Counts an ACK; on the third returns the estimated threshold in segments.
    fn on_ack(&mut self, now: SimTime) -> Option<u32> {
        self.acks += 1;
        match self.acks {
            1 => {
                self.base_rtt = now.saturating_since(self.first_sent.unwrap_or(now));
                None
            }
            2 => {
                self.second_ack = now;
                None
            }
            3 => {
                let spacing = now.saturating_since(self.second_ack).as_nanos();
                (spacing > 0).then(|| (self.base_rtt.as_nanos() / spacing) as u32)
            }
            _ => None,
        }
    }
}

/// NewReno's window state.
#[derive(Clone, Debug)]
pub struct NewReno {
    reno: Reno,
    hoe: Option<HoeEstimate>,
    estimate: Option<u32>,
}

impl NewReno {
    /// A NewReno controller; `hoe` turns on the start-up ssthresh estimate and
    /// `keep_fraction` is as for [`Reno::new`].
    pub fn new(initial_window: u32, initial_ssthresh: u32, hoe: bool, keep_fraction: bool) -> Self {
        NewReno {
            reno: Reno::new(initial_window, initial_ssthresh, keep_fraction),
            hoe: hoe.then(HoeEstimate::default),
            estimate: None,
        }
    }

    /// The same controller growing by the given rule.
    pub fn with_growth(mut self, growth: super::Growth) -> Self {
        self.reno = self.reno.with_growth(growth);
        self
    }

    /// Hoe's estimate once made, in segments.
    pub fn ssthresh_estimate(&self) -> Option<u32> {
        self.estimate
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> Window {
        self.reno.cwnd()
    }

    fn ssthresh(&self) -> Window {
        self.reno.ssthresh()
    }

    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        let Some(h) = &mut self.hoe else {
            return;
        };
        match event {
            CcEvent::Sent { .. } => {
                h.first_sent.get_or_insert(now);
            }
            // ns-2 counts every ACK from the start, the SYN-ACK included, and times the base
            // RTT from the first packet sent: with a handshake, the SYN (tcp-newreno.cc
            // recv()).
            CcEvent::SynAck { rtt } => {
                h.acks = 1;
                h.base_rtt = rtt;
            }
            _ => {}
        }
    }

    fn set_cwnd(&mut self, cwnd: Window) {
        self.reno.set_cwnd(cwnd);
    }

    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.reno.set_ssthresh(ssthresh);
    }

    fn on_ack(&mut self, sample: &AckSample) {
        if let Some(estimate) = self.hoe.as_mut().and_then(|h| h.on_ack(sample.now)) {
            self.estimate = Some(estimate);
            self.reno.cap_ssthresh(estimate);
            self.hoe = None;
        }
        self.reno.on_ack(sample);
    }

    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        self.hoe = None;
        self.reno.on_congestion(now, event, window);
    }

    fn undo_cwnd(&mut self, now: SimTime) -> Window {
        self.reno.undo_cwnd(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    #[test]
    fn hoe_estimates_the_pipe_from_the_first_rtt_and_ack_spacing() {
        let mut n = NewReno::new(1, 100_000, true, false);
        n.on_event(
            ms(0),
            CcEvent::Sent {
                seq: 0,
                retransmit: false,
            },
        );
        n.on_ack(&AckSample::new(ms(100), 1, 1)); // RTT of segment 0: 100 ms
        n.on_ack(&AckSample::new(ms(200), 2, 1));
        n.on_ack(&AckSample::new(ms(202), 3, 1)); // ACKs 2 ms apart: 50 segments per RTT
        assert_eq!(n.ssthresh_estimate(), Some(50));
        assert_eq!(n.ssthresh(), Window::segments(50));
    }

    #[test]
    fn without_estimation_the_threshold_stays() {
        let mut n = NewReno::new(1, 1000, false, false);
        n.on_event(
            ms(0),
            CcEvent::Sent {
                seq: 0,
                retransmit: false,
            },
        );
        for (i, t) in [100, 200, 202].into_iter().enumerate() {
            n.on_ack(&AckSample::new(ms(t), i as u32 + 1, 1));
        }
        assert_eq!(n.ssthresh(), Window::segments(1000));
    }
}
