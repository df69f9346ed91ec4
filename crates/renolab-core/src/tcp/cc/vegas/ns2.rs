//! What Vegas does only to reproduce ns-2.35 (`tcp-vegas.cc`, docs/ns2-behaviour.md §6):
//! the window arithmetic of ns-2's own duplicate-ACK rule (which
//! [`crate::tcp::recovery::VegasNs2`] applies), and the artefacts of ns-2's per-segment
//! ring of `window_` records (see the module documentation of [`super`]).

use super::{Sent, Vegas};
use crate::tcp::window::Window;
use crate::time::SimTime;

impl Vegas {
    /// Follow ns-2 in what the module doc lists as its artefacts; its ring has `slots`
    /// records (`window_`, the receiver window).
    pub fn reproduce_ns2_artefacts(&mut self, slots: u32) {
        self.ns2_ring = Some(slots.max(1));
    }

    /// ns-2 dialect: the uncleared record still in the ring slot of unsent segment `seq`.
    pub(super) fn stale_slot(&self, seq: u32) -> Option<Sent> {
        let m = self.ns2_ring?;
        match self.uncleared.front() {
            Some(&(old, s)) if old.checked_add(m) == Some(seq) => Some(s),
            _ => None,
        }
    }

    /// ns-2 dialect: segment `first_seq` is retransmitted on the `dupacks`-th duplicate
    /// ACK. A cut window is inflated by the duplicates so far (ns-2's `cwnd_ = v_newcwnd_ +
    /// dupacks_`). Returns true if this is the segment's first retransmission.
    pub fn on_ns2_retransmit(&mut self, now: SimTime, window: Window, dupacks: u32) -> bool {
        let (cut, first) = self.loss(now, window);
        if let Some(w) = cut {
            self.cut_window = w;
            self.cwnd = w + dupacks as f64;
        }
        first
    }

    /// ns-2 dialect: a duplicate ACK beyond the threshold inflates the window by one.
    pub fn on_ns2_dup_ack(&mut self) {
        self.cwnd += 1.0;
    }

    /// ns-2 dialect: the first new ACK after duplicates beyond the threshold takes the
    /// inflation back, and slow start is over.
    pub fn end_ns2_inflation(&mut self) {
        if self.cwnd > self.cut_window {
            self.cwnd = self.cut_window;
            self.ssthresh = 2;
        }
    }
}
