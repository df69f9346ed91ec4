//! What the sender sends next and the bookkeeping of each transmission (Linux
//! `tcp_xmit_retransmit_queue()`, `tcp_write_xmit()`, `tcp_event_new_data_sent()`).

use super::*;

impl LinuxSender {
    /// What to send next at `now`, if anything: the loss probe, a lost segment, new data
    /// (unless the next GSO buffer waits for a whole one, `tcp_tso_should_defer()`), with
    /// the size of the GSO buffer it opens. `max_segs` is 0 inside a buffer, else
    /// `NEW_BUFFER`.
    pub(crate) fn next_segment(&mut self, now: SimTime, max_segs: u32) -> Option<(u32, u32)> {
        if self.probe_due {
            self.probe_due = false;
            // Linux tcp_send_loss_probe(): new data if the receiver's window allows,
            // regardless of cwnd; else the last segment sent.
            let seq = if self.conn.new_data_allowed() {
                self.tlp.retransmitted = false;
                self.conn.take_new_segment()
            } else {
                self.tlp.retransmitted = true;
                self.conn.snd_max.checked_sub(1)?
            };
            self.probes += 1;
            self.tlp.high_seq = Some(self.conn.snd_max.max(seq + 1));
            self.burst_ended_with_probe = true;
            return Some((seq, max_segs));
        }
        let cwnd = self.cc.cwnd().whole().max(1);
        if self.segs.in_flight() >= cwnd {
            self.burst_cwnd_limited = true;
            return None;
        }
        if let Some(seq) = self.segs.next_lost() {
            return Some((seq, max_segs));
        }
        if self.conn.new_data_allowed() {
            let mut max_segs = max_segs;
            if max_segs == NEW_BUFFER {
                max_segs = self.tso_segs();
                if max_segs > 1 && self.tso_should_defer(now, max_segs) {
                    return None;
                }
            }
            return Some((self.conn.take_new_segment(), max_segs));
        }
        None
    }

    /// Segment `seq` left at `now` (Linux `tcp_event_new_data_sent()`, `tcp_rate_skb_sent()`,
    /// the retransmit queue's timer rule).
    pub(crate) fn on_sent(&mut self, now: SimTime, seq: u32, retransmit: bool) {
        if !retransmit && self.segs.packets_out() == 0 {
            if let Some(last) = self.last_send {
                let idle = now.saturating_since(last);
                // Slow start after idle (Linux tcp_slow_start_after_idle_check() and
                // tcp_cwnd_restart(), RFC 7661 §4.1's older rule): halve per RTO of idle
                // time, down to the initial window.
                let rto = self.conn.rtt.rto();
                // Not for a controller with Linux's `cong_control` hook (BBR).
                if idle > rto && !self.cc.controls_window() {
                    let restart = self.conn.config.initial_window.min(self.cc.cwnd().whole());
                    let mut cwnd = self.cc.cwnd().whole();
                    let mut left = idle.0;
                    while left > rto.0 && cwnd > restart {
                        left -= rto.0;
                        cwnd >>= 1;
                    }
                    // tcp_current_ssthresh(): at least 3/4 of the window before the idle.
                    let before = self.cc.cwnd().whole();
                    let ssthresh = self
                        .cc
                        .ssthresh()
                        .max(Window::segments(before / 2 + before / 4));
                    self.cc.set_ssthresh(ssthresh);
                    self.cc.set_cwnd(Window::segments(cwnd.max(restart)));
                }
                self.cc.on_event(now, CcEvent::TxStart { idle });
            }
        }
        // In flight with this segment: a new one or a retransmission adds one.
        let in_flight = self.segs.in_flight() + 1;
        let snapshot = self
            .rate
            .on_sent(now, self.segs.packets_out(), in_flight, self.segs.lost);
        let head_retransmitted = retransmit && seq == self.conn.snd_una;
        self.segs.on_sent(seq, now, snapshot);
        if self.in_reduction() {
            self.prr.on_sent();
        }
        self.last_send = Some(now);
        self.sent_in_burst += 1;
        if head_retransmitted && self.timer != XmitTimer::Reordering {
            self.conn.timer = Some(now + self.conn.rtt.rto());
            self.timer = XmitTimer::Retransmit;
        } else if !retransmit
            && (self.segs.packets_out() == 1 || self.timer == XmitTimer::LossProbe)
        {
            self.rearm_rto(now);
        }
    }

    /// The sending opportunity is over (the end of Linux's `tcp_write_xmit()`): cwnd
    /// validation, the application-limited mark, and the loss probe.
    pub(crate) fn on_burst_end(&mut self, now: SimTime) {
        let sent = self.sent_in_burst;
        let limited = self.burst_cwnd_limited;
        let probe = self.burst_ended_with_probe;
        self.sent_in_burst = 0;
        self.burst_cwnd_limited = false;
        self.burst_ended_with_probe = false;
        if sent > 0 || limited {
            // tcp_cwnd_validate().
            let packets_out = self.segs.packets_out();
            if self.conn.snd_una >= self.cwnd_usage_seq
                || limited
                || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
            {
                self.is_cwnd_limited = limited;
                self.max_packets_out = packets_out;
                self.cwnd_usage_seq = self.conn.snd_max;
            }
        }
        if !limited
            && !self.conn.new_data_allowed()
            && self.conn.snd_nxt >= self.conn.limit
            && self.segs.lost_out == 0
            && self.segs.in_flight() < self.cc.cwnd().whole()
        {
            // tcp_rate_check_app_limited(): the application, not the network, limits.
            self.rate.on_app_limited(self.segs.in_flight());
        }
        if sent > 0 && !probe {
            self.schedule_probe(now, false);
        }
    }
}
