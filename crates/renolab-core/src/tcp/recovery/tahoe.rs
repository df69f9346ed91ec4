//! Tahoe's answer to a loss (Jacobson 1988; ns-2 tcp.cc `dupack_action()`): no fast
//! recovery. After the fast retransmit the sender slow-starts from one segment and goes
//! back to the hole, resending everything after it as the window opens (go-back-N), as
//! after a timeout.

use super::{past_recover, ClassicState, LossRecovery};
use crate::tcp::cc::CongestionControl;
use crate::tcp::window::Window;

/// Go-back-N: no state between losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoBackN;

impl<C: CongestionControl> LossRecovery<C> for GoBackN {
    fn selects_by_window(&self) -> bool {
        true
    }

    /// Episodes end on the first new ACK (there is no fast recovery to stay in).
    fn exits_on(&self, _ack: u32, _recover: u32) -> bool {
        true
    }

    /// ns-2's Tahoe (tcp.cc `dupack_action()`) may fast-retransmit again while its last
    /// loss response was a fast retransmit: its go-back-N duplicates may retransmit again.
    fn fast_retransmit_allowed(&self, s: &ClassicState, _cc: &C) -> bool {
        s.last_loss_was_fast_retransmit || past_recover(s)
    }

    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE)`: whatever threshold the
    /// controller chose, the window restarts from one segment, from the hole on.
    fn on_enter(&mut self, s: &mut ClassicState, cc: &mut C) {
        cc.set_cwnd(Window::segments(1));
        s.conn.snd_nxt = s.conn.snd_una;
    }
}
