//! ns-2.35's Vegas (`tcp-vegas.cc` `recv()`) has no fast-recovery phase: it retransmits on
//! the third duplicate ACK, or on any duplicate once the segment's fine-grained timer has
//! expired, lets the controller inflate its window by the duplicates, and takes the
//! inflation back on the next new ACK. After a new ACK that follows a retransmission it may
//! retransmit again at once (`v_worried_`), even a segment never sent. This recovery
//! reproduces that rule for the Vegas controller it is built with (the sender's type says
//! so: `ClassicSender<Vegas, VegasNs2>`); the window arithmetic is the controller's
//! ([`Vegas`]'s ns-2 methods, in `cc/vegas/ns2.rs`). See docs/ns2-behaviour.md §6.

use super::{past_recover, ClassicState, LossRecovery};
use crate::tcp::cc::Vegas;
use crate::time::SimTime;

/// ns-2's Vegas duplicate-ACK rule: no state of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VegasNs2;

impl LossRecovery<Vegas> for VegasNs2 {
    /// No episodes: a new ACK never waits for a recovery point.
    fn exits_on(&self, _ack: u32, _recover: u32) -> bool {
        true
    }

    /// Never called: every duplicate is this recovery's ([`VegasNs2::on_dup_ack`]).
    fn on_enter(&mut self, _s: &mut ClassicState, _v: &mut Vegas) {}

    /// A duplicate ACK (counted in `s.dupacks`): the third, or any once the segment's
    /// fine-grained timer expired, retransmits; later ones inflate the window.
    fn on_dup_ack(&mut self, s: &mut ClassicState, v: &mut Vegas, now: SimTime) -> bool {
        let threshold = s.config().dupack_threshold;
        let window = s.halving_basis(v);
        if s.dupacks == threshold || v.segment_expired(now, s.snd_una()) {
            // bug_fix_, which Vegas applies only after a timeout: no retransmission until
            // the ACKs pass what was outstanding at the timeout.
            if s.last_loss_was_timeout && !past_recover(s) {
                return true;
            }
            if v.on_ns2_retransmit(now, window, s.dupacks) {
                s.dupacks = threshold;
            }
            s.conn.stats.fast_retransmits += 1;
            s.last_loss_was_timeout = false;
            s.recover = Some(s.snd_max());
            // reset_rtx_timer(1): unlike Reno's, Vegas's backs the timer off; the RTT timing
            // in progress is abandoned.
            s.back_off_timer(now);
            s.retransmit(s.snd_una());
        } else if s.dupacks > threshold {
            v.on_ns2_dup_ack();
        }
        true
    }

    /// A new ACK after duplicates beyond the threshold ends the inflation.
    fn on_new_ack_outside_recovery(&mut self, s: &ClassicState, v: &mut Vegas) {
        if s.dupacks > s.config().dupack_threshold {
            v.end_ns2_inflation();
        }
    }

    /// ns-2 also "retransmits" the next segment when nothing is outstanding (see
    /// [`Vegas::segment_expired`]), though never one past the end of the data, and counts it
    /// as a third duplicate: more duplicates inflate the window.
    fn after_new_ack(&mut self, s: &mut ClassicState, v: &mut Vegas, now: SimTime) {
        if s.snd_una() < s.conn.limit && v.recheck_after_retransmit(now, s.snd_una()) {
            s.retransmit(s.snd_una());
            s.dupacks = s.config().dupack_threshold;
        }
    }
}
