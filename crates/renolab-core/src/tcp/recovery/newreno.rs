//! NewReno's fast recovery (RFC 6582; RFC 2582, ns-2.35's `tcp-newreno.cc` and joo2000 for
//! the options): Reno's inflation, but a partial ACK (one that acknowledges some, not all,
//! of what was outstanding when recovery began) retransmits the next hole at once and keeps
//! recovery going until everything outstanding at its start is acknowledged.

use serde_json::{json, Value};

use super::{
    deflate_on_exit, heuristic_allows, past_recover, retransmit_and_inflate, ClassicState,
    LossRecovery,
};
use crate::tcp::cc::{
    AckSample, CongestionControl, OptionDecl, OptionError, OptionKind, OptionReader,
};
use crate::tcp::config::Dialect;
use crate::time::SimTime;

/// When a partial ACK restarts the retransmission timer (RFC 6582 §4.3; RFC 2582 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerReset {
    /// On every partial ACK: recovery continues one segment per RTT however long it takes.
    SlowButSteady,
    /// Only on the first partial ACK: a long recovery ends in a timeout and slow start.
    Impatient,
}

/// Whether duplicate ACKs after a loss event may start another fast retransmit
/// (RFC 6582 §3.2 step 1 and §4.1; the scenario's `careful` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetransmitGuard {
    /// Only once the cumulative ACK covers more than `recover` (RFC 6582 §3.2 step 1;
    /// ns-2's `bug_fix_`; `careful = true`).
    AfterRecover,
    /// Also when cwnd > 1 segment and the ACK is within 4 segments of the highest ACK
    /// seen before the loss event (RFC 6582 §4.1 heuristic; `careful = "less"`).
    Heuristic,
    /// Always (RFC 2582 without the bug fix; `careful = false`): may retransmit the same
    /// window twice.
    Off,
}

/// NewReno's recovery options, with RFC 6582 / ns-2.35 defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewRenoConfig {
    /// Partial window deflation (RFC 6582 §3.2 step 5; ns-2 `partial_window_deflation_`).
    pub partial_window_deflation: bool,
    /// Timer restart policy on partial ACKs.
    pub timer_reset: TimerReset,
    /// Fast retransmit guard after a loss event.
    pub careful: RetransmitGuard,
    /// ns-2 with Hoe's changes (`newreno_changes_ = 1`) also changes how recovery sends: no
    /// window-released segments during recovery, one new segment on every odd duplicate
    /// from the fifth. Set together with the controller's Hoe estimate.
    pub hoe_sending: bool,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig {
            partial_window_deflation: true,
            // RFC 6582 §3.2 step 5 ("if this is the first partial ACK ... reset the
            // retransmit timer") and ns-2's newreno_changes1_ = 1.
            timer_reset: TimerReset::Impatient,
            careful: RetransmitGuard::AfterRecover,
            hoe_sending: false,
        }
    }
}

/// NewReno's recovery state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewRenoRecovery {
    /// Options.
    pub config: NewRenoConfig,
    /// Window inflation in segments (ns-2's `dupwnd_`).
    pub dupwnd: u32,
}

/// `partial_window_deflation`.
pub const PARTIAL_WINDOW_DEFLATION: OptionDecl = OptionDecl {
    name: "partial_window_deflation",
    kind: OptionKind::Bool,
    default: "the profile's (`true`)",
    doc: "a partial ACK deflates the window by the segments it acknowledges, less one",
    source: "RFC 6582 §3.2 step 5; ns-2 `partial_window_deflation_`",
};
/// `timer_reset`.
pub const TIMER_RESET: OptionDecl = OptionDecl {
    name: "timer_reset",
    kind: OptionKind::Choice(&["slow_but_steady", "impatient"]),
    default: "`\"impatient\"`",
    doc: "`\"impatient\"` restarts the retransmission timer on the first partial ACK only, \
          `\"slow_but_steady\"` on every one",
    source: "RFC 6582 §3.2 step 5 and §4.3; ns-2 `newreno_changes1_`",
};
/// `careful`.
pub const CAREFUL: OptionDecl = OptionDecl {
    name: "careful",
    kind: OptionKind::Other("`true`, `\"less\"` or `false`"),
    default: "`true`",
    doc: "no fast retransmit until the ACK passes `recover` (`true`), also within RFC 6582 \
          §4.1's heuristic (`\"less\"`), or always (`false`)",
    source: "RFC 6582 §3.2 step 1 and §4.1; ns-2 `bugFix_`, `lessCareful_`",
};
/// `hoe_sending` (a Python controller's flow; built-in controllers set it from their own
/// options, NewReno's from `ssthresh_estimation`).
pub const HOE_SENDING: OptionDecl = OptionDecl {
    name: "hoe_sending",
    kind: OptionKind::Bool,
    default: "`false`",
    doc: "send as ns-2's NewReno with Hoe's changes: nothing from the window during \
          recovery, a new segment on every odd duplicate from the fifth",
    source: "ns-2 `newreno_changes_ = 1`",
};

impl NewRenoConfig {
    /// The options `options` sets, over RFC 6582's defaults; `partial_window_deflation`
    /// defaults to `deflation` (the profile's), and `hoe_sending` is given.
    pub fn configure(
        options: &dyn OptionReader,
        deflation: bool,
        hoe_sending: bool,
    ) -> Result<Self, OptionError> {
        let defaults = NewRenoConfig::default();
        let timer_reset = match options.choice(&TIMER_RESET)? {
            Some("impatient") => TimerReset::Impatient,
            Some(_) => TimerReset::SlowButSteady,
            None => defaults.timer_reset,
        };
        let careful = match options.value(&CAREFUL) {
            None | Some(Value::Bool(true)) => RetransmitGuard::AfterRecover,
            Some(Value::Bool(false)) => RetransmitGuard::Off,
            Some(Value::String(s)) if s == "less" => RetransmitGuard::Heuristic,
            Some(v) => {
                return Err(options.error(
                    &CAREFUL,
                    format!(
                    "{v} is not allowed; use true (RFC 6582), \"less\" (§4.1 heuristic) or false"
                ),
                ))
            }
        };
        Ok(NewRenoConfig {
            partial_window_deflation: options
                .bool(&PARTIAL_WINDOW_DEFLATION)?
                .unwrap_or(deflation),
            timer_reset,
            careful,
            hoe_sending,
        })
    }

    /// The options as the resolved JSON shows them.
    pub fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![
            (
                PARTIAL_WINDOW_DEFLATION.name,
                json!(self.partial_window_deflation),
            ),
            (
                TIMER_RESET.name,
                json!(match self.timer_reset {
                    TimerReset::SlowButSteady => "slow_but_steady",
                    TimerReset::Impatient => "impatient",
                }),
            ),
            (
                CAREFUL.name,
                match self.careful {
                    RetransmitGuard::AfterRecover => json!(true),
                    RetransmitGuard::Heuristic => json!("less"),
                    RetransmitGuard::Off => json!(false),
                },
            ),
        ]
    }
}

impl NewRenoRecovery {
    /// A recovery with these options.
    pub fn new(config: NewRenoConfig) -> Self {
        NewRenoRecovery { config, dupwnd: 0 }
    }
}

impl<C: CongestionControl> LossRecovery<C> for NewRenoRecovery {
    fn selects_by_window(&self) -> bool {
        true
    }

    fn inflation(&self) -> u32 {
        self.dupwnd
    }

    /// ns-2's NewReno sends little from its window during recovery: at most two segments
    /// per ACK (`send_much(0, 0, 2)`), none at all with Hoe's changes.
    fn burst_limit(&self, s: &ClassicState) -> u32 {
        match (s.config().dialect, s.in_fast_recovery()) {
            (Dialect::Ns2, true) if self.config.hoe_sending => 0,
            (Dialect::Ns2, true) => 2,
            _ => u32::MAX,
        }
    }

    /// The `careful` option: RFC 6582 §3.2 step 1, its §4.1 heuristic, or no guard.
    fn fast_retransmit_allowed(&self, s: &ClassicState, cc: &C) -> bool {
        match self.config.careful {
            RetransmitGuard::AfterRecover => past_recover(s),
            RetransmitGuard::Heuristic => heuristic_allows(s, cc.cwnd()),
            RetransmitGuard::Off => true,
        }
    }

    /// RFC 6582 §3.2 step 2 (as RFC 5681 §3.2 steps 2-3).
    fn on_enter(&mut self, s: &mut ClassicState, _cc: &mut C) {
        self.dupwnd = retransmit_and_inflate(s);
    }

    /// RFC 6582 §3.2 step 3: inflate by one segment per duplicate.
    fn on_dup_ack(&mut self, s: &mut ClassicState, _cc: &mut C, _now: SimTime) -> bool {
        if !s.in_fast_recovery() {
            return false;
        }
        self.dupwnd += 1;
        // ns-2 tcp-newreno.cc with newreno_changes_: a new segment on every odd duplicate
        // ACK from the 5th on, whatever the window.
        if s.config().dialect == Dialect::Ns2
            && self.config.hoe_sending
            && s.dupacks >= 5
            && s.dupacks % 2 == 1
        {
            s.send_new_regardless = true;
        }
        true
    }

    /// RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment, deflate, and
    /// restart the timer as `timer_reset` says. Returns whether the timer restarts.
    fn on_partial_ack(
        &mut self,
        s: &mut ClassicState,
        cc: &mut C,
        acked: u32,
        partial_acks: u32,
    ) -> bool {
        if self.config.partial_window_deflation {
            // The window shrinks by the segments acknowledged, then grows by one; ns-2
            // splits this between cwnd and dupwnd.
            if self.dupwnd > acked {
                self.dupwnd -= acked - 1;
            } else {
                cc.deflate(acked - self.dupwnd);
                self.dupwnd = 1;
            }
        } else {
            self.dupwnd = 0;
        }
        s.retransmit(s.snd_una());
        self.config.timer_reset == TimerReset::SlowButSteady || partial_acks == 1
    }

    /// RFC 6582 §3.2 step 6: full ACK, deflate.
    fn on_exit(&mut self, s: &ClassicState, cc: &mut C, sample: &AckSample) {
        deflate_on_exit(&mut self.dupwnd, s, cc, sample);
    }

    fn on_timeout(&mut self, _s: &mut ClassicState) {
        self.dupwnd = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{Cc, Reno};
    use crate::tcp::window::Window;

    fn recovery(pwd: bool) -> NewRenoRecovery {
        NewRenoRecovery {
            config: NewRenoConfig {
                partial_window_deflation: pwd,
                ..NewRenoConfig::default()
            },
            dupwnd: 5,
        }
    }

    #[test]
    fn partial_deflation_takes_the_acknowledged_segments_from_the_inflation_first() {
        let mut cc = Cc::Reno(Reno::new(10, 100, false));
        let mut r = recovery(true);
        r.deflate_for_test(&mut cc, 3);
        // dupwnd 5 > 3 acknowledged: dupwnd loses 3 - 1 = 2, cwnd untouched.
        assert_eq!((r.dupwnd, cc.cwnd()), (3, Window::segments(10)));
        r.deflate_for_test(&mut cc, 6);
        // dupwnd 3 <= 6: cwnd loses 6 - 3 = 3, dupwnd becomes 1.
        assert_eq!((r.dupwnd, cc.cwnd()), (1, Window::segments(7)));
    }

    #[test]
    fn without_partial_deflation_the_inflation_is_dropped_and_cwnd_kept() {
        let mut cc = Cc::Reno(Reno::new(10, 100, false));
        let mut r = recovery(false);
        r.deflate_for_test(&mut cc, 3);
        assert_eq!((r.dupwnd, cc.cwnd()), (0, Window::segments(10)));
    }

    impl NewRenoRecovery {
        /// The window part of `on_partial_ack`, without a sender.
        fn deflate_for_test(&mut self, cc: &mut Cc, acked: u32) {
            let config = crate::tcp::sender::tests_support::config();
            let mut s = crate::tcp::sender::tests_support::state(config);
            self.on_partial_ack(&mut s, cc, acked, 1);
            assert_eq!(
                s.conn.retransmit_next,
                Some(s.snd_una()),
                "the next hole is resent"
            );
        }
    }
}
