//! What the sender does with an arriving ACK and with its retransmission timer: classify the
//! ACK (new data, partial, duplicate), measure, and hand the classified event to the
//! controller and the loss recovery.

use super::{Phase, TcpSender};
use crate::tcp::cc::{AckSample, Congestion, CongestionControl};
use crate::tcp::config::Dialect;
use crate::tcp::recovery::Careful;
use crate::tcp::sack::SackBlocks;
use crate::tcp::window::Window;
use crate::time::SimTime;

impl TcpSender {
    /// The SYN-ACK arrived: the connection is open (its RTT is the first sample).
    pub fn on_syn_ack(&mut self, now: SimTime) {
        let s = &mut self.state;
        if s.phase != Phase::SynSent {
            return;
        }
        if let Some(sent) = s.syn_timed.take() {
            s.new_rtt_sample = Some(now - sent);
            s.rtt.on_sample(now, now - sent);
            s.rtt.clear_backoff();
        }
        if let Some(first) = s.syn_first_sent {
            self.cc.on_syn_ack(now, now - first);
            if let Some(l) = self.recovery.linux() {
                l.on_syn_rtt(now, now - first);
            }
        }
        s.phase = Phase::Open;
        s.rto_deadline = None;
    }

    /// Processes a cumulative ACK: `ack` is the next segment the receiver expects; `sack`
    /// the SACK blocks it carries.
    pub fn on_ack(&mut self, now: SimTime, ack: u32, sack: &SackBlocks) {
        let s = &mut self.state;
        if matches!(s.phase, Phase::Idle | Phase::SynDue | Phase::SynSent) || ack > s.snd_max {
            return; // acknowledges data never sent: ignore (RFC 9293 §3.10.7.4)
        }
        if let Some(l) = self.recovery.linux() {
            if ack >= s.snd_una {
                l.on_ack(s, &mut self.cc, now, ack, sack, false);
            }
            return;
        }
        let fresh_sacks = if self.recovery.uses_sack() {
            // A block reaching past the highest segment sent reports data never sent: it is
            // invalid and ignored whole (as Linux's tcp_is_sackblock_valid() does); trusted,
            // it would let recovery skip unsent segments as "SACKed".
            let mut valid = SackBlocks::EMPTY;
            for (start, end) in sack.iter().filter(|&(s0, e)| s0 < e && e <= s.snd_max) {
                valid.push(start, end);
            }
            s.scoreboard.on_ack(ack, &valid)
        } else {
            0
        };
        if ack > s.snd_una {
            s.last_loss_was_fast_retransmit = false;
            self.on_new_ack(now, ack);
        } else if ack == s.snd_una
            && s.snd_una < s.snd_max
            && self.recovery.counts_dup_ack(fresh_sacks)
        {
            self.on_dup_ack(now);
        }
        self.state.burst_left = self.recovery.burst_limit(&self.state);
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u32) {
        let s = &mut self.state;
        let acked = ack - s.snd_una;
        s.snd_una = ack;
        s.snd_nxt = s.snd_nxt.max(ack);
        let mut sample = AckSample {
            snd_max: s.snd_max,
            in_flight: s.snd_max - ack,
            ..AckSample::new(now, ack, acked)
        };
        match s.phase {
            Phase::FastRecovery {
                recover,
                partial_acks,
            } => {
                if self.recovery.exits_on(ack, recover) {
                    s.sample_rtt(now, ack, &mut sample);
                    s.phase = Phase::Open;
                    s.dupacks = 0;
                    self.recovery.on_exit(&self.state, &mut self.cc, &sample);
                } else {
                    self.on_partial_ack(now, acked, recover, partial_acks + 1);
                    return;
                }
            }
            _ => {
                s.sample_rtt(now, ack, &mut sample);
                self.recovery
                    .on_new_ack_outside_recovery(&self.state, &mut self.cc);
                self.state.dupacks = 0;
                self.cc.on_ack(&sample);
            }
        }
        self.recovery
            .check_controller_retransmit(&mut self.state, &mut self.cc, now);
        // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it. ns-2
        // (newtimer) also keeps it while cwnd < 1, when only the timer can restart sending.
        let s = &mut self.state;
        let stalled = s.config.dialect == Dialect::Ns2 && self.cc.cwnd().whole() == 0;
        if s.snd_una == s.snd_max && !stalled {
            s.rto_deadline = None;
        } else {
            s.restart_timer(now);
        }
    }

    /// An ACK of some but not all of the data outstanding when recovery began.
    fn on_partial_ack(&mut self, now: SimTime, acked: u32, recover: u32, partial_acks: u32) {
        let s = &mut self.state;
        s.phase = Phase::FastRecovery {
            recover,
            partial_acks,
        };
        // ns-2 partialnewack(): the timed segment gives no sample, but the back-off ends.
        if matches!(s.timed, Some((seq, _)) if s.snd_una > seq) {
            s.timed = None;
            s.rtt.clear_backoff();
        }
        let restart =
            self.recovery
                .on_partial_ack(&mut self.state, &mut self.cc, acked, partial_acks);
        if restart {
            self.state.restart_timer(now);
        }
    }

    fn on_dup_ack(&mut self, now: SimTime) {
        self.state.dupacks += 1;
        self.cc.on_dup_ack(now);
        if self.recovery.on_dup_ack(&mut self.state, &mut self.cc, now) {
            return;
        }
        let s = &self.state;
        let threshold_reached =
            s.dupacks == s.config.dupack_threshold || self.recovery.sack_says_lost(s, s.snd_una);
        // The controller's own loss detection (Vegas's fine-grained timer) may retransmit
        // before the threshold.
        let early = s.dupacks < s.config.dupack_threshold
            && self.cc.retransmit_due(now, s.snd_una, s.dupacks);
        if (threshold_reached || early) && self.fast_retransmit_allowed() {
            self.enter_recovery(now);
        }
    }

    /// RFC 6582 §3.2 step 1 and §4.1: may duplicate ACKs start a fast retransmit?
    fn fast_retransmit_allowed(&self) -> bool {
        let s = &self.state;
        // ns-2's Tahoe (tcp.cc dupack_action) also allows it while the last loss response
        // was a fast retransmit: its go-back-N duplicates may retransmit again.
        let again = self.recovery.fast_retransmits_again() && s.last_loss_was_fast_retransmit;
        let covers_recover = again || s.recover.is_none_or(|r| s.snd_una > r);
        match self.recovery.careful() {
            Careful::Careful => covers_recover,
            Careful::LessCareful => match s.config.dialect {
                // ns-2's lessCareful_: also when the ACK reaches exactly `recover`.
                Dialect::Ns2 => s.recover.is_none_or(|r| s.snd_una >= r),
                // RFC 6582 §4.1: cwnd above one segment and the ACK within 4 segments of the
                // highest ACK seen before the loss event.
                Dialect::Rfc | Dialect::Linux => {
                    covers_recover
                        || (self.cc.cwnd() > Window::segments(1)
                            && s.snd_una.saturating_sub(s.highest_ack_before_loss) <= 4)
                }
            },
            Careful::Off => true,
        }
    }

    fn enter_recovery(&mut self, now: SimTime) {
        let s = &mut self.state;
        s.stats.fast_retransmits += 1;
        s.last_loss_was_fast_retransmit = true;
        s.last_loss_was_timeout = false;
        s.recover = Some(s.snd_max);
        s.highest_ack_before_loss = s.snd_una;
        let basis = s.halving_basis(&self.cc);
        self.cc
            .on_congestion(now, Congestion::FastRetransmit, basis);
        // ns-2 reset_rtx_timer(): the RTT timing in progress is abandoned.
        s.timed = None;
        s.restart_timer(now);
        self.recovery.on_enter(&mut self.state, &mut self.cc);
    }

    /// The retransmission timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        let s = &mut self.state;
        match s.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        if s.phase == Phase::SynSent {
            s.stats.timeouts += 1;
            s.rtt.on_timeout();
            s.rto_deadline = None;
            s.syn_timed = None; // Karn: no sample from a retransmitted SYN
            s.phase = Phase::SynDue;
            return;
        }
        if let Some(l) = self.recovery.linux() {
            l.on_timer(s, &mut self.cc, now);
            return;
        }
        s.stats.timeouts += 1;
        s.rtt.on_timeout();
        s.rto_deadline = None;
        let basis = s.halving_basis(&self.cc);
        self.cc.on_congestion(now, Congestion::Timeout, basis);
        s.last_loss_was_fast_retransmit = false;
        s.last_loss_was_timeout = true;
        s.burst_left = u32::MAX;
        s.recover = Some(s.snd_max);
        s.highest_ack_before_loss = s.snd_una;
        s.phase = Phase::Open;
        s.dupacks = 0;
        s.retransmit_next = None;
        self.recovery.on_timeout(&mut self.state);
        let s = &mut self.state;
        // Go-back-N from the first unacknowledged segment, as ns-2 and BSD do.
        s.snd_nxt = s.snd_una;
        // Karn: no RTT sample from anything sent before the timeout.
        s.timed = None;
    }
}
