//! Vegas's fine-grained loss detection (Brakmo & Peterson 1995 §3.1; ns-2 `tcp-vegas.cc`):
//! Vegas times every segment it sends, and retransmits on the first duplicate ACK a segment
//! that has been out longer than its fine-grained timeout, and on the two new ACKs that
//! follow a retransmission, one whose timer has expired. Outside the ns-2 dialect (whose
//! own rule is [`super::vegas_ns2`]) this wraps the recovery the flow runs, which does the
//! rest; the timing is the [`Vegas`] controller's, which the sender's type
//! (`ClassicSender<Vegas, FineTimer<R>>`) gives it.

use super::{ClassicState, LossRecovery, Selection};
use crate::tcp::cc::{AckSample, Vegas};
use crate::time::SimTime;

/// Recovery `R` with Vegas's fine-grained loss detection.
#[derive(Clone, Debug)]
pub struct FineTimer<R>(pub R);

impl<R: LossRecovery<Vegas>> LossRecovery<Vegas> for FineTimer<R> {
    /// A duplicate ACK retransmits a segment out longer than its fine-grained timeout.
    fn retransmits_early(&self, s: &ClassicState, v: &Vegas, now: SimTime) -> bool {
        v.segment_expired(now, s.snd_una())
    }

    /// The first two new ACKs after a retransmission retransmit a segment whose
    /// fine-grained timer has expired (ns-2's `v_worried_`).
    fn after_new_ack(&mut self, s: &mut ClassicState, v: &mut Vegas, now: SimTime) {
        let (una, max) = (s.snd_una(), s.snd_max());
        if una < max && v.recheck_after_retransmit(now, una) {
            s.retransmit(una);
        }
    }

    // The rest is the wrapped recovery's.

    fn uses_sack(&self) -> bool {
        self.0.uses_sack()
    }
    fn inflation(&self) -> u32 {
        self.0.inflation()
    }
    fn counts_dup_ack(&self, fresh_sacks: u32) -> bool {
        self.0.counts_dup_ack(fresh_sacks)
    }
    fn burst_limit(&self, s: &ClassicState) -> u32 {
        self.0.burst_limit(s)
    }
    fn exits_on(&self, ack: u32, recover: u32) -> bool {
        self.0.exits_on(ack, recover)
    }
    fn fast_retransmit_allowed(&self, s: &ClassicState, v: &Vegas) -> bool {
        self.0.fast_retransmit_allowed(s, v)
    }
    fn sack_says_lost(&self, s: &ClassicState, seq: u32) -> bool {
        self.0.sack_says_lost(s, seq)
    }
    fn on_enter(&mut self, s: &mut ClassicState, v: &mut Vegas) {
        self.0.on_enter(s, v)
    }
    fn on_dup_ack(&mut self, s: &mut ClassicState, v: &mut Vegas, now: SimTime) -> bool {
        self.0.on_dup_ack(s, v, now)
    }
    fn on_partial_ack(
        &mut self,
        s: &mut ClassicState,
        v: &mut Vegas,
        acked: u32,
        partial_acks: u32,
    ) -> bool {
        self.0.on_partial_ack(s, v, acked, partial_acks)
    }
    fn on_exit(&mut self, s: &ClassicState, v: &mut Vegas, sample: &AckSample) {
        self.0.on_exit(s, v, sample)
    }
    fn on_new_ack_outside_recovery(&mut self, s: &ClassicState, v: &mut Vegas) {
        self.0.on_new_ack_outside_recovery(s, v)
    }
    fn on_timeout(&mut self, s: &mut ClassicState) {
        self.0.on_timeout(s)
    }
    fn select(&mut self, s: &mut ClassicState, cwnd: u32) -> Selection {
        self.0.select(s, cwnd)
    }
}
