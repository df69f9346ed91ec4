//! Tahoe's answer to a loss (Jacobson 1988; ns-2 tcp.cc `dupack_action()`): no fast
//! recovery. After the fast retransmit the sender slow-starts from one segment and goes
//! back to the hole, resending everything after it as the window opens (go-back-N), as
//! after a timeout.

use super::SenderState;
use crate::tcp::cc::{Cc, CongestionControl};
use crate::tcp::window::Window;

/// Go-back-N: no state between losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoBackN;

impl GoBackN {
    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE)`: whatever threshold the
    /// controller chose, the window restarts from one segment, from the hole on.
    pub(crate) fn on_enter(&mut self, s: &mut SenderState, cc: &mut Cc) {
        cc.set_cwnd(Window::segments(1));
        s.snd_nxt = s.snd_una;
    }
}
