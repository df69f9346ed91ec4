//! What an ACK does to the Linux sender (`tcp_ack()`): the scoreboard takes the SACK blocks
//! and the cumulative ACK, the RTT and the delivery rate are measured, RACK marks losses, the
//! congestion state moves (`tcp_fastretrans_alert()`), and PRR or the controller sets the
//! window.

use super::*;

impl LinuxSender {
    // ----- ACK processing (tcp_ack) ------------------------------------------------------

    /// An ACK arrived (the sender checked it acknowledges nothing unsent).
    pub(super) fn process_ack(&mut self, now: SimTime, ack: u32, sack: &SackBlocks, ecn: Ecn) {
        let prior_snd_una = self.conn.snd_una;
        let prior_fack = self.segs.fack.max(prior_snd_una);
        let prior_delivered = self.rate.delivered;
        let prior_lost = self.segs.lost;
        // For a controller with Linux's `cong_control` hook (BBR).
        let (prior_packets, prior_in_flight) = (self.segs.packets_out(), self.segs.in_flight());
        let advanced = ack > prior_snd_una;
        if advanced {
            self.rto_retransmits = 0;
        }
        // tcp_sacktag_write_queue(): newly SACKed segments.
        let min_rtt = self.min_rtt();
        let (mut first_sackt, mut last_sackt) = (None::<SimTime>, None::<SimTime>);
        let mut reordered = false;
        let mut sacked = 0;
        {
            let (segs, rate, rack) = (&mut self.segs, &mut self.rate, &mut self.rack);
            for (start, end) in sack
                .iter()
                .filter(|&(a, b)| a < b && b <= self.conn.snd_max)
            {
                sacked += segs.on_sack(start, end, |seq, r| {
                    rate.on_delivered(seq, r.xmit_time, &r.tx);
                    rack.on_delivered(now, seq, r.xmit_time, r.ever_retransmitted(), min_rtt);
                    if !r.ever_retransmitted() {
                        first_sackt.get_or_insert(r.xmit_time);
                        last_sackt = Some(r.xmit_time);
                        // A never-retransmitted segment below the highest SACKed one
                        // arrived late: reordering (tcp_check_sack_reordering()).
                        reordered |= seq < prior_fack;
                    }
                });
            }
        }
        // tcp_clean_rtx_queue(): cumulatively acknowledged segments.
        let (mut first_ackt, mut last_ackt) = (None::<SimTime>, None::<SimTime>);
        let mut retrans_acked = false;
        let mut acked = 0;
        let mut hole_filler = None;
        if advanced {
            let (segs, rate, rack) = (&mut self.segs, &mut self.rate, &mut self.rack);
            segs.on_cumulative_ack(ack, |seq, r| {
                // Segments SACKed earlier were counted delivered then.
                acked += u32::from(!r.is_sacked());
                hole_filler.get_or_insert(r.xmit_time);
                if r.ever_retransmitted() {
                    retrans_acked = true;
                } else if !r.is_sacked() {
                    first_ackt.get_or_insert(r.xmit_time);
                    last_ackt = Some(r.xmit_time);
                    // A hole below the highest SACKed segment filled by an original
                    // transmission: reordering.
                    reordered |= seq < prior_fack;
                }
                if !r.is_sacked() {
                    rate.on_delivered(seq, r.xmit_time, &r.tx);
                    rack.on_delivered(now, seq, r.xmit_time, r.ever_retransmitted(), min_rtt);
                }
            });
            self.conn.snd_una = ack;
            self.conn.snd_nxt = self.conn.snd_nxt.max(ack);
        }
        if reordered {
            self.rack.reordering_seen = true;
        }
        // tcp_ack_update_rtt(): prefer the cumulative ACK's timing (Karn: not if a
        // retransmission was acknowledged), then the SACKs'; else the timestamp echo of the
        // segment that filled the hole, in milliseconds (TCP_TS_HZ = 1000).
        let seq_rtt = first_ackt
            .filter(|_| !retrans_acked)
            .map(|t| now.saturating_since(t));
        let mut ca_rtt = last_ackt
            .filter(|_| !retrans_acked)
            .map(|t| now.saturating_since(t));
        let sack_rtt = first_sackt.map(|t| now.saturating_since(t));
        if let Some(t) = last_sackt {
            ca_rtt = Some(now.saturating_since(t));
        }
        let mut rtt = seq_rtt.or(sack_rtt);
        if rtt.is_none() && advanced {
            if let Some(t) = hole_filler {
                let ms = (now.saturating_since(t).0 / 1_000_000).max(1);
                rtt = Some(SimDuration::from_millis(ms));
                ca_rtt = rtt;
            }
        }
        if let Some(r) = rtt {
            self.update_min_rtt(now, ca_rtt.unwrap_or(r));
            self.rtt_sample(now, r);
        }
        let delivered = (self.rate.delivered - prior_delivered) as u32;
        // The segments newly reported CE-marked: AccECN's ACE field (`tcp_accecn_process()`),
        // or one for an RFC 3168 ECN-Echo, which is then the congestion signal (FLAG_ECE).
        let ce_delta = self.conn.ecn.on_ack(ecn, delivered);
        let ece = ce_delta > 0;
        if self.conn.ecn.accecn {
            self.delivered_ce += ce_delta as u64;
        }
        let mut sample = AckSample {
            now,
            ack,
            acked,
            sacked,
            snd_max: self.conn.snd_max,
            rtt: ca_rtt,
            srtt: self.conn.rtt.srtt(),
            min_rtt: self.min_rtt(),
            in_flight: self.segs.in_flight(),
            rate: None,
            ece,
            cwnd_limited: self.cwnd_limited(),
            conn: ConnState::default(),
            ce_delta: if self.conn.ecn.accecn { ce_delta } else { 0 },
        };
        if acked + sacked > 0 {
            self.cc.on_ack_sample(&sample);
        }
        let mut set_xmit_timer = advanced
            || sack_rtt.is_some_and(|r| {
                // Re-arm on SACKs only if they measure data sent after the head.
                self.segs
                    .get(self.conn.snd_una)
                    .is_some_and(|h| r > now.saturating_since(h.xmit_time))
            });
        if self.tlp.high_seq.is_some() {
            self.on_tlp_ack(now, ack, advanced, sacked > 0);
        }
        let dupack = !advanced && sacked == 0 && acked == 0;
        let dubious = dupack || sacked > 0 || ece || self.ca != CaState::Open;
        if dubious && self.fast_retransmit_alert(now, prior_snd_una, ece, dupack, advanced) {
            set_xmit_timer = false;
        }
        if set_xmit_timer {
            self.set_xmit_timer(now, true);
        }
        // Linux `tp->lost - lost`: counted, not the change in `lost_out`, which the segments
        // this ACK delivers bring down.
        let newly_lost = (self.segs.lost - prior_lost) as u32;
        sample.rate = self
            .rate
            .on_ack(now, delivered, newly_lost, self.min_rtt(), ca_rtt);
        sample.in_flight = self.segs.in_flight();
        // tcp_cong_control().
        if self.cc.controls_window() {
            // BBR: the controller sets the window on every ACK (not after `no_queue`).
            if prior_packets > 0 {
                sample.conn = ConnState {
                    delivered: self.rate.delivered,
                    delivered_time: self.rate.delivered_time,
                    lost: self.segs.lost,
                    newly_delivered: delivered,
                    newly_lost,
                    prior_in_flight,
                    ca_state: self.ca,
                    next_send: self.conn.pacer.next_send(),
                    delivered_ce: self.delivered_ce,
                };
                if self.cc.cong_control(&sample).app_limited {
                    self.rate.on_app_limited(self.segs.in_flight());
                }
            }
        } else if self.in_reduction() {
            let ssthresh = self.cc.ssthresh().whole();
            if let Some(cwnd) = self.prr.on_ack(
                delivered,
                newly_lost,
                advanced,
                self.segs.in_flight(),
                ssthresh,
            ) {
                self.cc.set_cwnd(Window::segments(cwnd));
            }
        } else if advanced {
            self.cc.on_ack(&sample);
        }
        if self.conn.snd_una == self.conn.snd_max && self.segs.packets_out() == 0 {
            self.conn.timer = None;
        }
    }

    /// Linux `tcp_fastretrans_alert()` for a SACK connection with RACK. Returns true when
    /// RACK armed its reordering timer (the caller then leaves the timer alone).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fast_retransmit_alert(
        &mut self,
        now: SimTime,
        prior_snd_una: u32,
        ece: bool,
        _dupack: bool,
        advanced: bool,
    ) -> bool {
        let _ = prior_snd_una;
        // D. The episode ends when everything outstanding at its start is acknowledged.
        if self.ca != CaState::Open && self.conn.snd_una >= self.high_seq {
            match self.ca {
                CaState::Cwr if self.conn.snd_una != self.high_seq => {
                    self.end_reduction();
                    self.ca = CaState::Open;
                    self.cc.on_event(now, CcEvent::RecoveryEnd);
                }
                CaState::Recovery => {
                    self.ca = CaState::Open;
                    self.end_reduction();
                    self.cc.on_event(now, CcEvent::RecoveryEnd);
                }
                _ => {}
            }
        }
        // E. The state's own processing.
        let mut reo_timer = false;
        match self.ca {
            CaState::Recovery => {
                reo_timer = self.detect_losses(now);
                return reo_timer;
            }
            CaState::Loss => {
                if self.conn.snd_una >= self.high_seq {
                    // Everything outstanding at the timeout is acknowledged.
                    self.ca = CaState::Open;
                    self.cc.on_event(now, CcEvent::RecoveryEnd);
                } else {
                    let prior_retrans = self.segs.retrans_out;
                    reo_timer = self.detect_losses(now);
                    if self.segs.retrans_out >= prior_retrans {
                        return reo_timer;
                    }
                    // A retransmission was lost again: start fast recovery over.
                }
            }
            _ => {}
        }
        let _ = advanced;
        reo_timer |= self.detect_losses(now);
        if self.segs.lost_out == 0 {
            // tcp_try_to_open().
            if ece {
                self.enter_cwr(now);
            }
            if self.ca != CaState::Cwr {
                self.try_keep_open();
            }
            return reo_timer;
        }
        self.enter_recovery(now, ece);
        reo_timer
    }

    /// Linux `tcp_try_keep_open()`: Disorder while SACKs, losses or retransmissions are
    /// outstanding, else Open.
    pub(super) fn try_keep_open(&mut self) {
        let doubtful = self.segs.sacked_out + self.segs.lost_out + self.segs.retrans_out > 0;
        let state = if doubtful {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if self.ca != state {
            self.ca = state;
            self.high_seq = self.conn.snd_max;
        }
    }

    /// Linux `tcp_init_cwnd_reduction()`: the controller picks ssthresh; PRR takes the
    /// window from here.
    pub(super) fn init_reduction(&mut self, now: SimTime, why: Congestion) {
        self.high_seq = self.conn.snd_max;
        self.tlp.high_seq = None;
        self.prr = Prr::begin(self.cc.cwnd().whole());
        let window = self.cc.cwnd();
        self.cc.on_congestion(now, why, window);
        // PRR, not the controller, moves cwnd from its value before the event.
        self.cc.set_cwnd(Window::segments(self.prr.prior_cwnd));
        self.conn.stats.fast_retransmits +=
            matches!(why, Congestion::RackLoss | Congestion::FastRetransmit) as u64;
        // tcp_init_cwnd_reduction() -> tcp_ecn_queue_cwr(): announce it with CWR.
        self.conn.ecn.on_reduction();
    }

    /// Linux `tcp_end_cwnd_reduction()`: the reduction ends at ssthresh.
    pub(super) fn end_reduction(&mut self) {
        if self.cc.controls_window() {
            return; // the controller's own (BBR restores its window)
        }
        let ssthresh = self.cc.ssthresh();
        if ssthresh < Window::segments(u32::MAX) {
            self.cc.set_cwnd(ssthresh);
        }
    }

    /// Linux `tcp_enter_cwr()`: an ECN echo reduces once per window, without undo.
    pub(super) fn enter_cwr(&mut self, now: SimTime) {
        if self.ca < CaState::Cwr {
            self.init_reduction(now, Congestion::Ecn);
            self.ca = CaState::Cwr;
            self.conn.stats.cwnd_reductions += 1;
        }
    }

    /// Linux `tcp_enter_recovery()`.
    pub(super) fn enter_recovery(&mut self, now: SimTime, ece: bool) {
        if !self.in_reduction() {
            let why = if ece {
                Congestion::Ecn
            } else {
                Congestion::RackLoss
            };
            self.init_reduction(now, why);
        }
        self.ca = CaState::Recovery;
    }
}
