//! ns-2.35's Vegas (`tcp-vegas.cc` `recv()`) has no fast-recovery phase: it retransmits on
//! the third duplicate ACK, or on any duplicate once the segment's fine-grained timer has
//! expired, lets the controller inflate its window by the duplicates, and takes the
//! inflation back on the next new ACK. After a new ACK that follows a retransmission it may
//! retransmit again at once (`v_worried_`), even a segment never sent. This recovery
//! reproduces that rule; the window arithmetic is the controller's ([`Vegas`]'s ns-2
//! methods). See docs/ns2-behaviour.md §6.

use super::SenderState;
use crate::tcp::cc::{Cc, Vegas};
use crate::tcp::config::SenderConfig;
use crate::time::SimTime;

/// ns-2's Vegas duplicate-ACK rule: no state of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VegasNs2;

fn vegas(cc: &mut Cc) -> &mut Vegas {
    match cc {
        Cc::Vegas(v) => v,
        _ => unreachable!("VegasNs2 is only built for a Vegas controller"),
    }
}

impl VegasNs2 {
    /// Sets the controller and sender to ns-2's artefacts: its per-segment ring of
    /// `window_` records, and no Limited Transmit (ns-2's Vegas recv() never calls
    /// send_one()).
    pub(crate) fn new(config: &mut SenderConfig, cc: &mut Cc) -> Self {
        vegas(cc).reproduce_ns2_artefacts(config.receiver_window);
        config.limited_transmit = false;
        VegasNs2
    }

    /// A duplicate ACK (counted in `s.dupacks`).
    pub(crate) fn on_dup_ack(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime) {
        let threshold = s.config.dupack_threshold;
        let window = s.halving_basis(cc);
        let v = vegas(cc);
        if s.dupacks == threshold || v.segment_expired(now, s.snd_una) {
            // bug_fix_, which Vegas applies only after a timeout: no retransmission until
            // the ACKs pass what was outstanding at the timeout.
            let recovered = s.recover.is_none_or(|r| s.snd_una > r);
            if s.last_loss_was_timeout && !recovered {
                return;
            }
            if v.on_ns2_retransmit(now, window, s.dupacks) {
                s.dupacks = threshold;
            }
            s.stats.fast_retransmits += 1;
            s.last_loss_was_timeout = false;
            s.recover = Some(s.snd_max);
            // reset_rtx_timer(1): unlike Reno's, Vegas's backs the timer off; the RTT timing
            // in progress is abandoned.
            s.rtt.on_timeout();
            s.timed = None;
            s.restart_timer(now);
            s.retransmit_next = Some(s.snd_una);
        } else if s.dupacks > threshold {
            v.on_ns2_dup_ack();
        }
    }

    /// A new ACK after duplicates beyond the threshold ends the inflation.
    pub(crate) fn on_new_ack(&mut self, s: &SenderState, cc: &mut Cc) {
        if s.dupacks > s.config.dupack_threshold {
            vegas(cc).end_ns2_inflation();
        }
    }

    /// ns-2 also "retransmits" the next segment when nothing is outstanding (see
    /// [`Vegas::segment_expired`]), though never one past the end of the data, and counts it
    /// as a third duplicate: more duplicates inflate the window.
    pub(crate) fn check_expired(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime) {
        if s.snd_una < s.limit && vegas(cc).recheck_after_retransmit(now, s.snd_una) {
            s.retransmit_next = Some(s.snd_una);
            s.dupacks = s.config.dupack_threshold;
        }
    }
}
