//! The sender's one timer (Linux `icsk_pending`): the tail-loss probe, RACK's reordering
//! timer or the retransmission timer, and what each does when it fires (`tcp_timer.c`).

use super::*;

impl LinuxRecovery {
    /// Linux `tcp_set_xmit_timer()`: the loss probe if it applies, else the RTO.
    pub(super) fn set_xmit_timer(
        &mut self,
        s: &mut SenderState,
        now: SimTime,
        advancing_rto: bool,
    ) {
        if !self.schedule_probe(s, now, advancing_rto) {
            self.rearm_rto(s, now);
        }
    }

    /// Linux `tcp_rearm_rto()`.
    pub(super) fn rearm_rto(&mut self, s: &mut SenderState, now: SimTime) {
        if self.segs.packets_out() == 0 {
            s.rto_deadline = None;
            return;
        }
        s.rto_deadline = Some(now + s.rtt.rto());
        self.timer = XmitTimer::Retransmit;
    }

    /// Linux `tcp_schedule_loss_probe()`: in the Open and CWR states, with data out, a
    /// probe 2 SRTT (+ delayed-ACK allowance) from now, not later than the RTO would fire.
    pub(super) fn schedule_probe(
        &mut self,
        s: &mut SenderState,
        now: SimTime,
        advancing_rto: bool,
    ) -> bool {
        if self.segs.packets_out() == 0 || !matches!(self.ca, CaState::Open | CaState::Cwr) {
            return false;
        }
        let pto = probe_timeout(s.rtt.srtt(), self.segs.packets_out(), s.config.rto.min);
        let rto_left = if advancing_rto || self.timer != XmitTimer::Retransmit {
            s.rtt.rto()
        } else {
            s.rto_deadline
                .map_or(s.rtt.rto(), |d| d.saturating_since(now))
        };
        let wait = if rto_left.0 > 0 {
            pto.min(rto_left)
        } else {
            pto
        };
        s.rto_deadline = Some(now + wait);
        self.timer = XmitTimer::LossProbe;
        true
    }

    /// The sender's one timer fired at `now`.
    pub(crate) fn on_timer(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime) {
        match self.timer {
            XmitTimer::LossProbe => {
                s.rto_deadline = None;
                if self.tlp.high_seq.is_some() {
                    self.rearm_rto(s, now);
                } else {
                    self.probe_due = true;
                }
            }
            XmitTimer::Reordering => {
                s.rto_deadline = None;
                // Linux tcp_rack_reo_timeout().
                let before = self.segs.in_flight();
                self.rack_scan(s, now);
                if self.segs.in_flight() != before && self.ca != CaState::Recovery {
                    self.enter_recovery(s, cc, now, false);
                    let ssthresh = cc.ssthresh().whole();
                    let prr = self
                        .prr
                        .on_ack(1, 0, false, self.segs.in_flight(), ssthresh);
                    if let Some(cwnd) = prr.filter(|_| !cc.controls_window()) {
                        cc.set_cwnd(Window::segments(cwnd));
                    }
                }
                self.rearm_rto(s, now);
            }
            XmitTimer::Retransmit => self.on_rto(s, cc, now),
        }
    }

    /// The retransmission timer expired: Linux `tcp_retransmit_timer()` and
    /// `tcp_enter_loss()`.
    pub(super) fn on_rto(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime) {
        if self.segs.packets_out() == 0 {
            s.rto_deadline = None;
            return;
        }
        s.stats.timeouts += 1;
        // tcp_timeout_mark_lost(): the head, and every segment RACK's RTT says is overdue.
        let head = s.snd_una;
        self.segs.mark_lost(head);
        let overdue: Vec<u32> = self
            .segs
            .by_send_time()
            .filter(|(_, r)| self.rack.remaining(now, r.xmit_time, SimDuration::ZERO) <= 0)
            .map(|(seq, _)| seq)
            .collect();
        for seq in overdue {
            self.segs.mark_lost(seq);
        }
        // Reduce ssthresh if that was not done in this window already.
        let new_threshold = self.ca <= CaState::Disorder
            || self.high_seq <= s.snd_una
            || (self.ca == CaState::Loss && self.rto_retransmits == 0);
        let ssthresh = cc.ssthresh();
        let window = cc.cwnd();
        cc.on_congestion(now, Congestion::Timeout, window);
        if !new_threshold {
            cc.set_ssthresh(ssthresh);
        }
        cc.set_cwnd(Window::segments(self.segs.in_flight() + 1));
        self.ca = CaState::Loss;
        self.high_seq = s.snd_max;
        self.tlp.high_seq = None;
        s.phase = Phase::Open;
        // Retransmit the head now and back the timer off.
        s.retransmit_next = Some(head);
        self.rto_retransmits += 1;
        s.rtt.on_timeout();
        s.rto_deadline = Some(now + s.rtt.rto());
        self.timer = XmitTimer::Retransmit;
    }
}
