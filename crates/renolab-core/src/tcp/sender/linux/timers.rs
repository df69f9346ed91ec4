//! The sender's one timer (Linux `icsk_pending`): the tail-loss probe, RACK's reordering
//! timer or the retransmission timer, and what each does when it fires (`tcp_timer.c`).

use super::*;

impl LinuxSender {
    /// Linux `tcp_set_xmit_timer()`: the loss probe if it applies, else the RTO.
    pub(super) fn set_xmit_timer(&mut self, now: SimTime, advancing_rto: bool) {
        if !self.schedule_probe(now, advancing_rto) {
            self.rearm_rto(now);
        }
    }

    /// Linux `tcp_rearm_rto()`.
    pub(super) fn rearm_rto(&mut self, now: SimTime) {
        if self.segs.packets_out() == 0 {
            self.conn.timer = None;
            return;
        }
        self.conn.timer = Some(now + self.conn.rtt.rto());
        self.timer = XmitTimer::Retransmit;
    }

    /// Linux `tcp_schedule_loss_probe()`: in the Open and CWR states, with data out, a
    /// probe 2 SRTT (+ delayed-ACK allowance) from now, not later than the RTO would fire.
    pub(super) fn schedule_probe(&mut self, now: SimTime, advancing_rto: bool) -> bool {
        if self.segs.packets_out() == 0 || !matches!(self.ca, CaState::Open | CaState::Cwr) {
            return false;
        }
        let pto = probe_timeout(
            self.conn.rtt.srtt(),
            self.segs.packets_out(),
            self.conn.config.rto.min,
        );
        let rto_left = if advancing_rto || self.timer != XmitTimer::Retransmit {
            self.conn.rtt.rto()
        } else {
            self.conn
                .timer
                .map_or(self.conn.rtt.rto(), |d| d.saturating_since(now))
        };
        let wait = if rto_left.0 > 0 {
            pto.min(rto_left)
        } else {
            pto
        };
        self.conn.timer = Some(now + wait);
        self.timer = XmitTimer::LossProbe;
        true
    }

    /// The sender's one timer fired at `now`.
    pub(crate) fn on_timer(&mut self, now: SimTime) {
        match self.timer {
            XmitTimer::LossProbe => {
                self.conn.timer = None;
                if self.tlp.high_seq.is_some() {
                    self.rearm_rto(now);
                } else {
                    self.probe_due = true;
                }
            }
            XmitTimer::Reordering => {
                self.conn.timer = None;
                // Linux tcp_rack_reo_timeout().
                let before = self.segs.in_flight();
                self.rack_scan(now);
                if self.segs.in_flight() != before && self.ca != CaState::Recovery {
                    self.enter_recovery(now, false);
                    let ssthresh = self.cc.ssthresh().whole();
                    let prr = self
                        .prr
                        .on_ack(1, 0, false, self.segs.in_flight(), ssthresh);
                    if let Some(cwnd) = prr.filter(|_| !self.cc.controls_window()) {
                        self.cc.set_cwnd(Window::segments(cwnd));
                    }
                }
                self.rearm_rto(now);
            }
            XmitTimer::Retransmit => self.on_rto(now),
        }
    }

    /// The retransmission timer expired: Linux `tcp_retransmit_timer()` and
    /// `tcp_enter_loss()`.
    pub(super) fn on_rto(&mut self, now: SimTime) {
        if self.segs.packets_out() == 0 {
            self.conn.timer = None;
            return;
        }
        self.conn.stats.timeouts += 1;
        // tcp_timeout_mark_lost(): the head, and every segment RACK's RTT says is overdue.
        let head = self.conn.snd_una;
        self.mark_lost(now, head);
        let overdue: Vec<u32> = self
            .segs
            .by_send_time()
            .filter(|(_, r)| self.rack.remaining(now, r.xmit_time, SimDuration::ZERO) <= 0)
            .map(|(seq, _)| seq)
            .collect();
        for seq in overdue {
            self.mark_lost(now, seq);
        }
        // Reduce ssthresh if that was not done in this window already.
        let new_threshold = self.ca <= CaState::Disorder
            || self.high_seq <= self.conn.snd_una
            || (self.ca == CaState::Loss && self.rto_retransmits == 0);
        let ssthresh = self.cc.ssthresh();
        let window = self.cc.cwnd();
        self.cc.on_congestion(now, Congestion::Timeout, window);
        if !new_threshold {
            self.cc.set_ssthresh(ssthresh);
        }
        self.cc
            .set_cwnd(Window::segments(self.segs.in_flight() + 1));
        self.ca = CaState::Loss;
        self.high_seq = self.conn.snd_max;
        self.tlp.high_seq = None;
        // Retransmit the head now and back the timer off.
        self.conn.retransmit_next = Some(head);
        self.rto_retransmits += 1;
        self.conn.rtt.on_timeout();
        self.conn.timer = Some(now + self.conn.rtt.rto());
        self.timer = XmitTimer::Retransmit;
    }
}
