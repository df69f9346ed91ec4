//! What the classic sender does with an arriving ACK and with its retransmission timer:
//! classify the ACK (new data, partial, duplicate), measure, and hand the classified event
//! to the controller and the loss recovery.

use super::{ClassicSender, Episode};
use crate::packet::sack::SackBlocks;
use crate::tcp::cc::{AckSample, CcEvent, Congestion, CongestionControl};
use crate::tcp::config::Dialect;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::window::Window;
use crate::time::SimTime;

impl<C: CongestionControl, R: LossRecovery<C>> ClassicSender<C, R> {
    /// The SYN-ACK arrived: the connection is open (its RTT is the first sample).
    pub fn on_syn_ack(&mut self, now: SimTime) {
        if let Some(since_first_syn) = self.s.conn.on_syn_ack(now) {
            self.cc.on_event(
                now,
                CcEvent::SynAck {
                    rtt: since_first_syn,
                },
            );
            self.s.conn.opened();
        }
    }

    /// Processes a cumulative ACK that carries ECN-Echo if `ece` (heeded only when ECN was
    /// negotiated).
    #[inline]
    pub fn on_ack_ecn(&mut self, now: SimTime, ack: u32, sack: &SackBlocks, ece: bool) {
        let s = &mut self.s;
        if !s.conn.is_open() || ack > s.conn.snd_max {
            return; // acknowledges data never sent: ignore (RFC 9293 §3.10.7.4)
        }
        let ece = ece && s.conn.ecn.enabled;
        let fresh_sacks = if self.recovery.uses_sack() {
            // A block reaching past the highest segment sent reports data never sent: it is
            // invalid and ignored whole (as Linux's tcp_is_sackblock_valid() does); trusted,
            // it would let recovery skip unsent segments as "SACKed".
            let mut valid = SackBlocks::EMPTY;
            let snd_max = s.conn.snd_max;
            for (start, end) in sack.iter().filter(|&(s0, e)| s0 < e && e <= snd_max) {
                valid.push(start, end);
            }
            s.scoreboard.on_ack(ack, &valid)
        } else {
            0
        };
        if s.conn.ecn.enabled {
            self.on_ecn_feedback(now, ack, fresh_sacks, ece);
        }
        let s = &mut self.s;
        if ack > s.conn.snd_una {
            s.last_loss_was_fast_retransmit = false;
            self.on_new_ack(now, ack, ece);
        } else if ack == s.conn.snd_una
            && s.conn.snd_una < s.conn.snd_max
            && self.recovery.counts_dup_ack(fresh_sacks)
        {
            self.on_dup_ack(now);
        }
        self.s.burst_left = self.recovery.burst_limit(&self.s);
    }

    // ----- ECN (RFC 3168 §6.1.2) -------------------------------------------------------

    /// An ACK of an ECN connection, before the sender acts on its cumulative part: the
    /// controller sees what it delivered and whether it echoed CE (DCTCP's fraction of
    /// marks), then an ECN-Echo reduces the window, as ns-2's `ecn()` is called before the
    /// ACK's processing.
    fn on_ecn_feedback(&mut self, now: SimTime, ack: u32, fresh_sacks: u32, ece: bool) {
        let c = &self.s.conn;
        // Segments this ACK reports delivered; a duplicate without SACK stands for one
        // (Linux tcp_add_reno_sack()).
        let acked = ack.saturating_sub(c.snd_una);
        let sacked = if acked == 0 {
            fresh_sacks.max(1)
        } else {
            fresh_sacks
        };
        let sample = AckSample {
            sacked,
            snd_max: c.snd_max,
            in_flight: c.snd_max - ack.max(c.snd_una),
            ece,
            ..AckSample::new(now, ack, acked)
        };
        self.cc.on_ack_sample(&sample);
        if ece {
            self.respond_to_ecn_echo(now, ack);
        }
    }

    /// RFC 3168 §6.1.2: an ECN-Echo halves the window (or, DCTCP, cuts it by alpha/2) as a
    /// loss would, but retransmits nothing, and at most once per window of data: not while
    /// loss recovery repairs the window, nor before everything outstanding at the last
    /// reduction is acknowledged (ns-2 `ecn()`: `seqno > recover_`, or the last action was
    /// a timeout). The next segment announces the reduction with CWR.
    fn respond_to_ecn_echo(&mut self, now: SimTime, ack: u32) {
        let s = &mut self.s;
        let reduced_this_window = s.recover.is_some_and(|r| ack <= r) && !s.last_loss_was_timeout;
        if s.in_fast_recovery() || reduced_this_window {
            return;
        }
        let basis = s.halving_basis(&self.cc);
        self.cc.on_congestion(now, Congestion::Ecn, basis);
        s.recover = Some(s.conn.snd_max);
        s.last_loss_was_fast_retransmit = false;
        s.last_loss_was_timeout = false;
        s.last_reduction_was_ecn = true;
        s.conn.ecn.on_reduction();
        s.conn.stats.cwnd_reductions += 1;
    }

    /// RFC 3168 §6.1.2 (ns-2 `RenoTcpAgent::dupack_action()`): duplicate ACKs reveal a loss
    /// in the window an ECN-Echo already reduced: retransmit and recover, without reducing
    /// again.
    fn ecn_already_reduced(&self) -> bool {
        let s = &self.s;
        s.last_reduction_was_ecn && s.recover.is_some_and(|r| s.conn.snd_una <= r)
    }

    // ----- ACKs of new data, duplicates ------------------------------------------------

    #[inline]
    fn on_new_ack(&mut self, now: SimTime, ack: u32, ece: bool) {
        let s = &mut self.s;
        let acked = ack - s.conn.snd_una;
        s.conn.snd_una = ack;
        s.conn.snd_nxt = s.conn.snd_nxt.max(ack);
        let mut sample = AckSample {
            snd_max: s.conn.snd_max,
            in_flight: s.conn.snd_max - ack,
            ..AckSample::new(now, ack, acked)
        };
        match s.episode {
            Some(Episode {
                recover,
                partial_acks,
            }) => {
                if self.recovery.exits_on(ack, recover) {
                    s.sample_rtt(now, ack, &mut sample);
                    s.episode = None;
                    s.dupacks = 0;
                    s.limited_sent = 0;
                    self.recovery.on_exit(&self.s, &mut self.cc, &sample);
                } else {
                    self.on_partial_ack(now, acked, recover, partial_acks + 1);
                    return;
                }
            }
            None => {
                s.sample_rtt(now, ack, &mut sample);
                self.recovery
                    .on_new_ack_outside_recovery(&self.s, &mut self.cc);
                self.s.dupacks = 0;
                self.s.limited_sent = 0;
                // RFC 3168 §6.1.2: the window does not grow on an ECN-Echo (ns-2's
                // recv_newack_helper() opens it only without one).
                if !ece {
                    self.cc.on_ack(&sample);
                }
            }
        }
        self.recovery.after_new_ack(&mut self.s, &mut self.cc, now);
        // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it. ns-2
        // (newtimer) also keeps it while cwnd < 1, when only the timer can restart sending.
        let c = &mut self.s.conn;
        let stalled = c.config.dialect == Dialect::Ns2 && self.cc.cwnd().whole() == 0;
        if c.snd_una == c.snd_max && !stalled {
            c.timer = None;
        } else {
            c.restart_timer(now);
        }
    }

    /// An ACK of some but not all of the data outstanding when recovery began.
    fn on_partial_ack(&mut self, now: SimTime, acked: u32, recover: u32, partial_acks: u32) {
        let s = &mut self.s;
        s.episode = Some(Episode {
            recover,
            partial_acks,
        });
        // ns-2 partialnewack(): the timed segment gives no sample, but the back-off ends.
        if matches!(s.timed, Some((seq, _)) if s.conn.snd_una > seq) {
            s.timed = None;
            s.conn.rtt.clear_backoff();
        }
        let restart = self
            .recovery
            .on_partial_ack(&mut self.s, &mut self.cc, acked, partial_acks);
        if restart {
            self.s.conn.restart_timer(now);
        }
    }

    fn on_dup_ack(&mut self, now: SimTime) {
        self.s.dupacks += 1;
        self.cc.on_event(now, CcEvent::DupAck);
        if self.recovery.on_dup_ack(&mut self.s, &mut self.cc, now) {
            return;
        }
        let s = &self.s;
        let threshold = s.conn.config.dupack_threshold;
        let threshold_reached =
            s.dupacks == threshold || self.recovery.sack_says_lost(s, s.conn.snd_una);
        // The recovery's own loss detection (Vegas's fine-grained timer) may retransmit
        // before the threshold.
        let early = s.dupacks < threshold && self.recovery.retransmits_early(s, &self.cc, now);
        if (threshold_reached || early) && self.ecn_already_reduced() {
            self.enter_recovery(now, false);
        } else if (threshold_reached || early)
            && self.recovery.fast_retransmit_allowed(&self.s, &self.cc)
        {
            self.enter_recovery(now, true);
        }
    }

    /// Fast retransmit and recovery; the controller reduces the window if `reduce` (not
    /// when an ECN-Echo already did in this window, where `recover` stays as it set it).
    fn enter_recovery(&mut self, now: SimTime, reduce: bool) {
        let s = &mut self.s;
        s.conn.stats.fast_retransmits += 1;
        s.last_loss_was_fast_retransmit = true;
        s.last_loss_was_timeout = false;
        s.last_reduction_was_ecn = false;
        if reduce {
            s.recover = Some(s.conn.snd_max);
            s.highest_ack_before_loss = s.conn.snd_una;
            let mut basis = s.halving_basis(&self.cc);
            if s.conn.config.dialect == Dialect::Rfc {
                // RFC 5681 §3.2 step 2: "additional data sent in limited transmit MUST NOT
                // be included in this calculation".
                basis = Window::segments(basis.whole().saturating_sub(s.limited_sent));
            }
            self.cc
                .on_congestion(now, Congestion::FastRetransmit, basis);
            s.conn.ecn.on_reduction();
        }
        // ns-2 reset_rtx_timer(): the RTT timing in progress is abandoned.
        s.timed = None;
        s.conn.restart_timer(now);
        self.recovery.on_enter(&mut self.s, &mut self.cc);
    }

    // ----- the retransmission timer ----------------------------------------------------

    /// The retransmission timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        let s = &mut self.s;
        if !s.conn.timer_due(now) || s.conn.on_syn_timeout() {
            return;
        }
        let c = &mut s.conn;
        c.stats.timeouts += 1;
        c.rtt.on_timeout();
        c.timer = None;
        let basis = s.halving_basis(&self.cc);
        self.cc.on_congestion(now, Congestion::Timeout, basis);
        s.conn.ecn.on_reduction();
        s.last_loss_was_fast_retransmit = false;
        s.last_loss_was_timeout = true;
        s.last_reduction_was_ecn = false;
        s.burst_left = u32::MAX;
        s.recover = Some(s.conn.snd_max);
        s.highest_ack_before_loss = s.conn.snd_una;
        s.episode = None;
        s.dupacks = 0;
        s.limited_sent = 0;
        s.conn.retransmit_next = None;
        self.recovery.on_timeout(&mut self.s);
        let s = &mut self.s;
        // Go-back-N from the first unacknowledged segment, as ns-2 and BSD do.
        s.conn.snd_nxt = s.conn.snd_una;
        // Karn: no RTT sample from anything sent before the timeout.
        s.timed = None;
    }
}
