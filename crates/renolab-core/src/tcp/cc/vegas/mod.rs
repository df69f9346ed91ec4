//! TCP Vegas (Brakmo & Peterson, 1994/1995), as ns-2.35's `Agent/TCP/Vegas` runs it.
//!
//! Once per round trip Vegas compares the rate it expects with the rate it gets: `expect =
//! (in flight + 1) / BaseRTT`, `actual = segments sent in the last round / that round's mean
//! RTT`; `delta = (expect - actual) * BaseRTT`, rounded, is its estimate in segments of its
//! own data waiting in queues.
//! - Slow start doubles the window only every other round (one segment per ACK in the
//!   growing rounds), so that the rounds in between measure a steady window; it ends for
//!   good (ssthresh 2) with a one-eighth cut when `delta > gamma`.
//! - Congestion avoidance: `delta > beta` takes one segment off at once; `delta < alpha`
//!   adds `1/cwnd` per ACK through the next round; otherwise the window holds.
//! - Either grows only while the window is in use (at most two segments of it idle).
//! - Loss: a fine-grained per-segment timeout lets the sender retransmit on the first
//!   duplicate ACK ([`Vegas::segment_expired`]) and on the two new ACKs that follow a
//!   retransmission ([`Vegas::recheck_after_retransmit`]); a retransmission cuts the window by a
//!   quarter (to 2 from at most 3, by half for a segment already retransmitted), once per
//!   window of data. A coarse timeout restarts from two segments.
//!
//! Both dialects follow this rule, ns-2's `tcp-vegas.cc` (a port of the Arizona / USC
//! implementation): it is a faithful reading of the paper (every other round in slow start,
//! expected against actual rate once per round, linear change in congestion avoidance, the
//! quarter cut), and its details are those of the implementation the studies ran. They
//! matter and are kept exactly:
//! - the RTT sample of the ACK that ends a round counts towards the next round, and a round
//!   without samples lasts the time since it began;
//! - the first ACK sets BaseRTT to the time since the first send, and its round does not
//!   grow;
//! - "in flight + 1" is ns-2's `t_seqno_ - last_ack_`, taken before the ACK's own sends: it
//!   counts the segment just acknowledged. One segment less lowers `delta` by one, and on a
//!   fast path slow start then lasts rounds longer;
//! - the window is a double like ns-2's, so that its fractions add up to the same whole
//!   segments.
//!
//! Under the rfc dialect the sender recovers from losses as Reno does (its own inflation by
//! duplicate ACKs), with this controller's cut. The ns-2 dialect
//! ([`Vegas::reproduce_ns2_artefacts`]) instead drives ns-2's duplicate-ACK handling
//! (inflation of this window by the duplicates, deflation on the next new ACK) through
//! [`Vegas::on_ns2_retransmit`], [`Vegas::on_ns2_dup_ack`] and [`Vegas::end_ns2_inflation`],
//! and adds what is an artefact of ns-2's bookkeeping. ns-2 keeps a ring of `window_`
//! per-segment records with send times relative to the first send:
//! - a record reading 0 means "none", so segments sent at the first instant give no sample;
//! - an ACK whose range wraps around the ring clears none of the records it covers, so the
//!   segments later sent into those slots count as retransmitted (no sample; a loss of one
//!   halves the window);
//! - the slot of a segment not sent yet is read too (a cleared one as "1 s before the first
//!   send"), so after a retransmission the segment that follows an ACK of everything is
//!   "expired" and sent twice.
//!
//! See docs/ns2-behaviour.md §6.

mod ns2;

use std::collections::VecDeque;

use serde_json::{json, Value};

use super::declare::ALL_PROFILES;
use super::{
    halved_ssthresh, AckSample, BuildContext, Cc, CcEvent, Congestion, CongestionControl,
    Declaration, Declared, DefaultRecovery, OptionDecl, OptionError, OptionKind, OptionReader,
    RecoveryRule,
};
use crate::tcp::config::Dialect;
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// Thresholds are whole segments, up to a million.
const THRESHOLD: OptionKind = OptionKind::Int {
    min: 0,
    max: 1_000_000,
};

/// `alpha`: grow below it.
pub const ALPHA: OptionDecl = OptionDecl {
    name: "alpha",
    kind: THRESHOLD,
    default: "`1`",
    doc: "segments queued below which congestion avoidance grows the window",
    source: "ns-2 `v_alpha_`",
};
/// `beta`: shrink above it.
pub const BETA: OptionDecl = OptionDecl {
    name: "beta",
    kind: THRESHOLD,
    default: "`3`",
    doc: "segments queued above which congestion avoidance shrinks the window (not below \
          alpha)",
    source: "ns-2 `v_beta_`",
};
/// `gamma`: leave slow start above it.
pub const GAMMA: OptionDecl = OptionDecl {
    name: "gamma",
    kind: THRESHOLD,
    default: "`1`",
    doc: "segments queued above which slow start ends",
    source: "ns-2 `v_gamma_`",
};

impl Declared for VegasConfig {
    const DECLARATION: &'static Declaration = &Declaration {
        name: "vegas",
        summary: "TCP Vegas (Brakmo & Peterson 1994), as ns-2.35 runs it: expected against \
                  actual rate once per round trip",
        options: &[&ALPHA, &BETA, &GAMMA],
        trace: &[],
        modes: &[],
        profiles: ALL_PROFILES,
        recovery: RecoveryRule::any(DefaultRecovery::Always("reno")),
        needs_ecn: None,
        wants_ect1: None,
        paces: false,
        cong_control: false,
        ns2_sends_syn: false,
    };
    fn configure(options: &dyn OptionReader) -> Result<Self, OptionError> {
        let d = VegasConfig::default();
        let int = |o: &OptionDecl, default: u32| -> Result<u32, OptionError> {
            Ok(options.int(o)?.map_or(default, |n| n as u32))
        };
        let (alpha, beta, gamma) = (
            int(&ALPHA, d.alpha)?,
            int(&BETA, d.beta)?,
            int(&GAMMA, d.gamma)?,
        );
        if beta < alpha {
            return Err(options.error(&BETA, format!("({beta}) must not be below alpha ({alpha})")));
        }
        Ok(VegasConfig { alpha, beta, gamma })
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![
            (ALPHA.name, json!(self.alpha)),
            (BETA.name, json!(self.beta)),
            (GAMMA.name, json!(self.gamma)),
        ]
    }
    /// Under the ns-2 dialect, with ns-2's per-segment ring of `window_` records.
    fn build(&self, flow: &mut BuildContext<'_>) -> Cc {
        let mut vegas = Vegas::new(flow.initial_window, flow.initial_ssthresh, *self);
        if flow.dialect == Dialect::Ns2 {
            vegas.reproduce_ns2_artefacts(flow.receiver_window);
        }
        Cc::Vegas(vegas)
    }
}

/// Vegas's thresholds in segments (ns-2 `v_alpha_`, `v_beta_`, `v_gamma_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VegasConfig {
    /// Grow when fewer than this many segments are queued.
    pub alpha: u32,
    /// Shrink when more than this many segments are queued.
    pub beta: u32,
    /// Leave slow start when more than this many segments are queued.
    pub gamma: u32,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 1,
            beta: 3,
            gamma: 1,
        }
    }
}

/// What Vegas remembers of a segment it sent.
#[derive(Clone, Copy, Debug)]
struct Sent {
    /// Last transmission.
    at: SimTime,
    /// Transmissions so far (in the ns-2 dialect possibly plus a stale count).
    transmissions: u32,
}

/// The fine-grained retransmission timeout: Jacobson's estimator on the exact clock, in
/// seconds (ns-2 `v_sa_` = 8 × smoothed RTT, `v_sd_` = 4 × mean deviation, `v_timeout_`).
#[derive(Clone, Copy, Debug)]
struct FineTimer {
    sa: f64,
    sd: f64,
    timeout: f64,
}

/// Vegas's state.
#[derive(Clone, Debug)]
pub struct Vegas {
    config: VegasConfig,
    /// Segments, a double as ns-2's `cwnd_`.
    cwnd: f64,
    ssthresh: u32,
    /// ns-2 dialect: the slots of ns-2's per-segment ring.
    ns2_ring: Option<u32>,
    /// When the first segment left (ns-2 `firstsent_`).
    origin: Option<SimTime>,
    /// Oldest unacknowledged segment.
    first_seq: u32,
    /// Next segment to send (ns-2 `t_seqno_`); behind the highest sent after a timeout.
    next_seq: u32,
    /// Segments `first_seq ..` sent so far.
    sent: VecDeque<Sent>,
    /// ns-2 dialect: acknowledged segments whose ring slot was left uncleared, with their
    /// records, oldest first.
    uncleared: VecDeque<(u32, Sent)>,
    /// Smallest RTT seen, seconds: the path with empty queues.
    base_rtt: f64,
    /// `None` until the first ACK.
    fine: Option<FineTimer>,
    /// The current round ends with the ACK of this segment (ns-2 `v_begseq_`)...
    round_seq: u32,
    /// ...and began then (ns-2 `v_begtime_`).
    round_began: SimTime,
    /// The round's RTT samples so far, seconds.
    rtt_sum: f64,
    rtt_count: u32,
    /// Growth per new ACK decided at the end of the last round (ns-2 `v_incr_`).
    increment: f64,
    /// Slow start grows in rounds where this is set (ns-2 `v_inc_flag_`).
    growing_round: bool,
    /// When the window was last cut for a loss (ns-2 `t_cwnd_changed_`).
    cut_at: SimTime,
    /// The window the last cut left, before inflation by duplicate ACKs (ns-2
    /// `v_newcwnd_`). 0 before the first cut, as ns-2's field (never initialised, in
    /// practice zero): deflating to it stalls sending until the timer fires.
    cut_window: f64,
    /// New ACKs after a retransmission still to be checked for expired segments (ns-2
    /// `v_worried_`).
    rechecks_left: u32,
}

impl Vegas {
    /// A Vegas controller.
    pub fn new(initial_window: u32, initial_ssthresh: u32, config: VegasConfig) -> Self {
        Vegas {
            config,
            cwnd: initial_window.max(1) as f64,
            ssthresh: initial_ssthresh.max(2),
            ns2_ring: None,
            origin: None,
            first_seq: 0,
            next_seq: 0,
            sent: VecDeque::new(),
            uncleared: VecDeque::new(),
            base_rtt: f64::INFINITY,
            fine: None,
            round_seq: 0,
            round_began: SimTime::ZERO,
            rtt_sum: 0.0,
            rtt_count: 0,
            increment: 0.0,
            // The first ACK ends round 0 and clears this: slow start first grows in round 2.
            growing_round: true,
            cut_at: SimTime::ZERO,
            cut_window: 0.0,
            rechecks_left: 0,
        }
    }

    fn end_of_sent(&self) -> u32 {
        self.first_seq + self.sent.len() as u32
    }

    fn record(&self, seq: u32) -> Option<Sent> {
        let i = seq.checked_sub(self.first_seq)?;
        self.sent.get(i as usize).copied()
    }

    /// True if segment `seq` has been out at least the fine-grained timeout: Vegas then
    /// retransmits it on the first duplicate ACK.
    ///
    /// In the ns-2 dialect the ring slot of a segment not sent yet is read as well: an
    /// uncleared slot gives the send time of the segment before, a cleared one "1 s before
    /// the first send"; so the segment after a cumulative ACK of everything is nearly always
    /// "expired", and after a retransmission ([`Self::recheck_after_retransmit`]) ns-2 sends it
    /// twice.
    pub fn segment_expired(&self, now: SimTime, seq: u32) -> bool {
        let Some(fine) = self.fine else {
            return false;
        };
        let elapsed = match (self.record(seq), self.origin) {
            (Some(s), _) => secs(now.saturating_since(s.at)),
            (None, Some(origin)) if self.ns2_ring.is_some() && seq == self.end_of_sent() => {
                match self.stale_slot(seq) {
                    Some(s) => secs(now.saturating_since(s.at)),
                    None => secs(now.saturating_since(origin)) + 1.0,
                }
            }
            _ => return false,
        };
        elapsed >= fine.timeout
    }

    /// On the first two new ACKs after a retransmission: true if segment `seq` (the one
    /// after the new cumulative ACK) has outlived its fine-grained timeout and should be
    /// retransmitted at once (ns-2 tcp-vegas.cc, `v_worried_`).
    pub fn recheck_after_retransmit(&mut self, now: SimTime, seq: u32) -> bool {
        if self.rechecks_left == 0 {
            return false;
        }
        self.rechecks_left -= 1;
        let expired = self.segment_expired(now, seq);
        if !expired {
            self.rechecks_left = 0;
        }
        expired
    }

    /// The lost segment `first_seq` is retransmitted on duplicate ACKs. Backs off the fine
    /// timer and decides the cut from `window` (what may be outstanding, ns-2's `window()`);
    /// returns the cut window, if the lost segment left after the last cut, and whether this
    /// is its first retransmission.
    fn loss(&mut self, now: SimTime, window: Window) -> (Option<f64>, bool) {
        self.rechecks_left = 2.min(self.next_seq + 1 - self.first_seq);
        let lost = self.record(self.first_seq);
        let again = lost.is_some_and(|s| s.transmissions > 1);
        if let Some(f) = &mut self.fine {
            if again {
                f.timeout *= 2.0;
            } else {
                f.timeout += f.timeout / 8.0;
            }
        }
        // One cut per window of data: only for a segment sent after the last cut.
        if lost.is_none_or(|s| s.at <= self.cut_at) {
            return (None, !again);
        }
        let win = window.whole();
        let win = if win <= 3 {
            2
        } else if again {
            win / 2
        } else {
            win - win / 4
        };
        self.cut_at = now;
        (Some(win as f64), !again)
    }

    /// Any ACK, duplicates included: the first starts the fine-grained timer and BaseRTT
    /// from the time since the first send (one round trip).
    pub fn on_any_ack(&mut self, now: SimTime) {
        if self.fine.is_some() {
            return;
        }
        let rtt = secs(now.saturating_since(self.origin.unwrap_or(now)));
        self.base_rtt = rtt;
        let (sa, sd) = (8.0 * rtt, rtt);
        self.fine = Some(FineTimer {
            sa,
            sd,
            timeout: (sa / 4.0 + sd) / 2.0,
        });
    }

    /// The end of a round: compare the expected and actual rates and decide the growth per
    /// ACK for the next round. `last_acked` is the segment just acknowledged.
    fn end_round(&mut self, now: SimTime, last_acked: u32) {
        let rtt = if self.rtt_count > 0 {
            self.rtt_sum / self.rtt_count as f64
        } else {
            secs(now.saturating_since(self.round_began))
        };
        self.rtt_sum = 0.0;
        self.rtt_count = 0;
        let sent_in_round = self.next_seq.saturating_sub(self.round_seq);
        if rtt > 0.0 {
            // With one segment in flight the round measures the path alone.
            if rtt < self.base_rtt || sent_in_round <= 1 {
                self.base_rtt = rtt;
            }
            let actual = sent_in_round as f64 / rtt;
            // In flight + 1: the segment just acknowledged counts (module doc).
            let expect = (self.next_seq - last_acked) as f64 / self.base_rtt;
            // Rounded to the nearest segment; the cast truncates towards zero as C's int().
            let delta = ((expect - actual) * self.base_rtt + 0.5) as i64;
            if self.cwnd < self.ssthresh as f64 {
                self.growing_round = !self.growing_round;
                self.increment = 0.0;
                if self.growing_round {
                    if delta > self.config.gamma as i64 {
                        // Queues are building: leave slow start, giving back part of the
                        // last doubling.
                        self.ssthresh = 2;
                        self.cwnd = (self.cwnd - self.cwnd / 8.0).max(2.0);
                    } else {
                        self.increment = 1.0;
                    }
                }
            } else if delta > self.config.beta as i64 {
                self.cwnd = (self.cwnd - 1.0).max(2.0);
                self.increment = 0.0;
            } else if delta < self.config.alpha as i64 {
                self.increment = 1.0 / self.cwnd;
            } else {
                self.increment = 0.0;
            }
        }
        self.round_seq = self.next_seq;
        self.round_began = now;
    }

    /// Forgets segments `first_seq .. ack`; returns the record of the last of them.
    fn acknowledge(&mut self, ack: u32) -> Option<Sent> {
        // ns-2 clears the records of the acknowledged range only if the range does not wrap
        // around its ring.
        let wraps = self
            .ns2_ring
            .is_some_and(|m| self.first_seq % m > (ack - 1) % m);
        let mut last = None;
        while self.first_seq < ack {
            let Some(s) = self.sent.pop_front() else {
                break;
            };
            if wraps {
                self.uncleared.push_back((self.first_seq, s));
            }
            last = Some(s);
            self.first_seq += 1;
        }
        self.first_seq = self.first_seq.max(ack);
        last
    }

    fn on_rtt_sample(&mut self, rtt: f64) {
        self.rtt_sum += rtt;
        self.rtt_count += 1;
        if rtt <= 0.0 {
            return;
        }
        self.base_rtt = self.base_rtt.min(rtt);
        if let Some(f) = &mut self.fine {
            let err = rtt - f.sa / 8.0;
            f.sa += err;
            f.sd += err.abs() - f.sd / 4.0;
            f.timeout = (f.sa / 4.0 + f.sd) / 2.0;
            f.timeout += f.timeout / 16.0;
        }
    }
}

impl Vegas {
    /// Segment `seq` left at `now`.
    fn on_sent(&mut self, now: SimTime, seq: u32) {
        if self.origin.is_none() {
            self.origin = Some(now);
            self.cut_at = now;
            self.round_began = now;
        }
        if seq == self.next_seq {
            self.next_seq += 1;
        }
        if seq < self.end_of_sent() {
            if let Some(s) = seq
                .checked_sub(self.first_seq)
                .and_then(|i| self.sent.get_mut(i as usize))
            {
                s.at = now;
                s.transmissions += 1;
            }
            return;
        }
        while self.end_of_sent() <= seq {
            // An uncleared slot still counts the transmissions of the segment before.
            let slot = self.end_of_sent();
            let stale = match self.stale_slot(slot) {
                Some(s) => {
                    self.uncleared.pop_front();
                    s.transmissions
                }
                None => 0,
            };
            self.sent.push_back(Sent {
                at: now,
                transmissions: stale + 1,
            });
        }
    }
}

/// A duration in seconds, as ns-2's double clock.
fn secs(d: SimDuration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

impl CongestionControl for Vegas {
    fn cwnd(&self) -> Window {
        Window::from_f64(self.cwnd)
    }

    fn ssthresh(&self) -> Window {
        Window::segments(self.ssthresh)
    }

    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd.as_f64().max(1.0);
    }

    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.whole().max(2);
    }

    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        match event {
            CcEvent::Sent { seq, .. } => self.on_sent(now, seq),
            CcEvent::DupAck => self.on_any_ack(now),
            _ => {}
        }
    }

    fn on_ack(&mut self, sample: &AckSample) {
        let (now, ack) = (sample.now, sample.ack);
        let origin = self.origin.unwrap_or(now);
        self.on_any_ack(now);
        self.next_seq = self.next_seq.max(ack);
        let last_acked = ack - 1;
        let acked = self.acknowledge(ack);
        if last_acked >= self.round_seq {
            self.end_round(now, last_acked);
        }
        if self.increment == 1.0 && self.cwnd >= self.ssthresh as f64 {
            self.increment = 0.0;
        }
        // Grow only while at most two segments of the window lie unused (counted as for
        // `expect`: in flight + 1).
        let used = (self.next_seq - last_acked) as f64;
        if self.increment > 0.0 && self.cwnd - used <= 2.0 {
            self.cwnd += self.increment;
        }
        // Sampled after the round's end: the sample belongs to the next round.
        if let Some(s) = acked {
            let first_instant = self.ns2_ring.is_some() && s.at == origin;
            if s.transmissions == 1 && !first_instant {
                self.on_rtt_sample(secs(now.saturating_since(s.at)));
            }
        }
    }

    fn on_congestion(&mut self, now: SimTime, event: Congestion, window: Window) {
        if event != Congestion::Timeout {
            if let (Some(w), _) = self.loss(now, window) {
                self.cwnd = w;
                self.ssthresh = 2;
            }
            return;
        }
        self.ssthresh = halved_ssthresh(window).whole();
        // ns-2's v_slowstart_: restart from two segments.
        self.cwnd = 2.0;
        self.cut_window = 0.0;
        self.cut_at = now;
        self.next_seq = self.first_seq;
    }

    fn deflate(&mut self, segments: u32) {
        self.cwnd = (self.cwnd - segments as f64).max(1.0);
    }
}

#[cfg(test)]
mod tests;
