//! Loss detection: RACK's scan of the scoreboard (RFC 8985 §6.2; Linux `tcp_rack_mark_lost()`
//! in `net/ipv4/tcp_recovery.c`) and the tail-loss probe's acknowledgement.

use super::*;

impl LinuxSender {
    /// Linux `tcp_process_tlp_ack()`.
    pub(super) fn on_tlp_ack(&mut self, now: SimTime, ack: u32, advanced: bool, new_sacks: bool) {
        let Some(high) = self.tlp.high_seq else {
            return;
        };
        if ack < high {
            return;
        }
        if !self.tlp.retransmitted {
            self.tlp.high_seq = None; // a probe of new data was acknowledged
        } else if ack > high {
            // The probe repaired a loss: reduce once, as for a fast recovery that is over.
            self.init_reduction(now, Congestion::RackLoss);
            self.ca = CaState::Cwr;
            self.end_reduction();
            self.try_keep_open();
            if self.cc.controls_window() {
                let event = CcEvent::LossProbeRecovery {
                    delivered: self.rate.delivered,
                    app_limited: self.rate.app_limited_until != 0,
                };
                self.cc.on_event(now, event);
            }
        } else if !advanced && !new_sacks {
            // A pure duplicate: the original and the probe both arrived, no loss.
            self.tlp.high_seq = None;
        }
    }

    /// RACK's loss scan (Linux `tcp_rack_mark_lost()`). Returns true when it armed the
    /// reordering timer.
    pub(super) fn detect_losses(&mut self, now: SimTime) -> bool {
        if !self.rack.advanced {
            return false;
        }
        self.rack.advanced = false;
        let waiting = self.rack_scan(now);
        if let Some(wait) = waiting {
            // Linux adds TCP_TIMEOUT_MIN (2 jiffies) to the reordering wait.
            self.conn.timer = Some(now + SimDuration(wait) + TLP_MIN_EXTRA);
            self.timer = XmitTimer::Reordering;
            return true;
        }
        false
    }

    /// Marks lost every segment sent before RACK's reference that has waited its RTT plus
    /// the reordering window; returns the longest wait left of the others, if any.
    pub(super) fn rack_scan(&mut self, now: SimTime) -> Option<u64> {
        let reo_wnd = self.rack.reordering_window(
            self.ca >= CaState::Recovery,
            self.segs.sacked_out,
            self.reordering,
            self.min_rtt(),
            self.conn.rtt.srtt(),
        );
        let mut lost = Vec::new();
        let mut wait = 0i64;
        for (seq, r) in self.segs.by_send_time() {
            if !sent_after(self.rack.xmit_time, self.rack.seq, r.xmit_time, seq) {
                break;
            }
            let remaining = self.rack.remaining(now, r.xmit_time, reo_wnd);
            if remaining <= 0 {
                lost.push(seq);
            } else {
                wait = wait.max(remaining);
            }
        }
        for seq in lost {
            self.mark_lost(now, seq);
        }
        (wait > 0).then_some(wait as u64)
    }

    /// Deems segment `seq` lost (Linux `tcp_mark_skb_lost()`), and tells a controller that
    /// sets the window itself (BBRv3's `skb_marked_lost` hook).
    pub(super) fn mark_lost(&mut self, now: SimTime, seq: u32) {
        if !self.segs.mark_lost(seq) || !self.cc.controls_window() {
            return;
        }
        let Some(r) = self.segs.get(seq) else {
            return;
        };
        let event = CcEvent::SegmentLost {
            tx_in_flight: r.tx.in_flight,
            // The kernel's u32 counters: the difference wraps.
            lost_since_send: (self.segs.lost as u32).wrapping_sub(r.tx.lost),
            app_limited: r.tx.app_limited,
            delivered: self.rate.delivered,
        };
        self.cc.on_event(now, event);
    }
}
