//! Loss recovery as a Linux 6.x sender runs it by default (`recovery = "prr"`): SACK with
//! RACK-TLP loss detection (RFC 8985) and Proportional Rate Reduction (RFC 6937), driven by
//! Linux's congestion-state machine (`tcp_fastretrans_alert()` in `net/ipv4/tcp_input.c`).
//!
//! - States (Linux `icsk_ca_state`): Open; Disorder (SACKs or retransmissions outstanding,
//!   no loss yet); CWR (an ECN-triggered reduction); Recovery (fast recovery after RACK
//!   deemed segments lost); Loss (after a retransmission timeout).
//! - On each ACK (`tcp_ack()`): the scoreboard takes the SACK blocks and the cumulative ACK;
//!   the RTT is measured from the send time of the oldest newly acknowledged segment never
//!   retransmitted (or, failing that, the newest SACKed one); RACK marks losses; recovery
//!   starts when a segment is lost (`tcp_time_to_recover()`: "the loss is proven") and ends
//!   when everything outstanding at its start is acknowledged, with cwnd = ssthresh; within a
//!   reduction PRR sets cwnd on every ACK, elsewhere the controller grows it.
//! - Sending (`tcp_xmit_retransmit_queue()`, `tcp_write_xmit()`): segments deemed lost
//!   first, then new data, while fewer than cwnd segments are in flight.
//! - Timers (one at a time, Linux's `icsk_pending`): the tail-loss probe in the Open and
//!   CWR states, RACK's reordering timer, else the retransmission timer. A timeout marks the
//!   segments older than RACK's RTT lost, sets cwnd to the flight plus one, and retransmits
//!   the first.
//! - The window grows only while the sender used it (`tcp_is_cwnd_limited()`), and after an
//!   idle period longer than the RTO it restarts (`tcp_cwnd_restart()`).
//!
//! Left out, with why: F-RTO (RFC 5682) and the undo of spurious reductions (Eifel,
//! DSACK): they need spurious timeouts or duplicate deliveries, which renolab's links only
//! cause with reordering latency; the receiver sends no DSACK; timers are not rounded to
//! jiffies.

use super::prr::Prr;
use super::rack::{probe_timeout, sent_after, Rack, Tlp, TLP_MIN_EXTRA};
use crate::packet::sack::SackBlocks;
use crate::tcp::cc::{AckSample, Cc, Congestion, CongestionControl, ConnState};
use crate::tcp::minmax::{Keep, MinMax};
use crate::tcp::rate::RateEstimator;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::segments::Segments;
use crate::tcp::sender::{Phase, SenderState};
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// Linux `tcp_min_rtt_wlen` (sysctl default 300 s): the window of the min-RTT filter.
pub const MIN_RTT_WINDOW: SimDuration = SimDuration::from_secs(300);

/// Linux's congestion states (`enum tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// Nothing outstanding is in doubt.
    Open,
    /// SACKs or retransmissions outstanding, no loss detected.
    Disorder,
    /// Reducing the window for an ECN echo or a probe-repaired loss.
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// Which timer the sender's one deadline stands for (Linux `icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XmitTimer {
    /// The retransmission timer.
    Retransmit,
    /// The tail-loss probe.
    LossProbe,
    /// RACK's reordering window runs out.
    Reordering,
}

/// Linux recovery's state.
#[derive(Clone, Debug)]
pub struct LinuxRecovery {
    /// The scoreboard of outstanding segments.
    pub segs: Segments,
    /// Delivery-rate estimation.
    pub rate: RateEstimator,
    /// RACK's state.
    pub rack: Rack,
    /// The tail-loss probe's state.
    pub tlp: Tlp,
    /// The congestion state.
    pub ca: CaState,
    /// `snd_max` when the current reduction, recovery or loss episode began.
    pub high_seq: u32,
    /// PRR's counters of the current reduction.
    pub prr: Prr,
    /// Linux `tp->reordering`: the duplicate threshold of RACK's DUPTHRESH emulation.
    reordering: u32,
    min_rtt: MinMax,
    /// Which timer `SenderState::rto_deadline` is.
    pub timer: XmitTimer,
    /// A tail-loss probe is due at the next transmit opportunity.
    probe_due: bool,
    /// RTO retransmissions since the cumulative ACK last moved (Linux `icsk_retransmits`).
    rto_retransmits: u32,
    /// Segments sent since the last end of a sending opportunity.
    sent_in_burst: u32,
    /// The current sending opportunity stopped at a full window.
    burst_cwnd_limited: bool,
    /// The last segment of the burst was a loss probe.
    burst_ended_with_probe: bool,
    /// cwnd validation (RFC 7661; Linux `is_cwnd_limited`, `max_packets_out`,
    /// `cwnd_usage_seq`).
    is_cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: u32,
    /// When the sender last sent data (Linux `lsndtime`).
    last_send: Option<SimTime>,
    /// Tail-loss probes sent.
    pub probes: u64,
}

mod loss;
mod timers;
mod transmit;

impl LinuxRecovery {
    /// A connection with nothing sent; `dupthresh` as Linux's `tcp_reordering` (3).
    pub fn new(dupthresh: u32) -> Self {
        LinuxRecovery {
            segs: Segments::default(),
            rate: RateEstimator::default(),
            rack: Rack::default(),
            tlp: Tlp::default(),
            ca: CaState::Open,
            high_seq: 0,
            prr: Prr::default(),
            reordering: dupthresh.max(1),
            min_rtt: MinMax::new(Keep::Min),
            timer: XmitTimer::Retransmit,
            probe_due: false,
            rto_retransmits: 0,
            sent_in_burst: 0,
            burst_cwnd_limited: false,
            burst_ended_with_probe: false,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            last_send: None,
            probes: 0,
        }
    }

    /// The smallest RTT of the last 300 s.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt.get().map(SimDuration)
    }

    /// True while PRR owns the window (Linux `tcp_in_cwnd_reduction()`).
    pub fn in_reduction(&self) -> bool {
        matches!(self.ca, CaState::Cwr | CaState::Recovery)
    }

    /// Linux `tcp_is_cwnd_limited()`: the window was used, or in slow start the flight
    /// reached half of it.
    pub fn cwnd_limited(&self, cc: &Cc) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        cc.cwnd() < cc.ssthresh() && cc.cwnd().whole() < 2 * self.max_packets_out
    }

    fn update_min_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.min_rtt.update(MIN_RTT_WINDOW.0, now.0, rtt.0.max(1));
    }

    /// The SYN's round trip (the connection's first RTT sample).
    pub(crate) fn on_syn_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.update_min_rtt(now, rtt);
    }

    fn rtt_sample(&mut self, s: &mut SenderState, now: SimTime, rtt: SimDuration) {
        if let RttEstimator::Linux(e) = &mut s.rtt {
            e.on_sample(rtt, s.snd_una, s.snd_max);
        } else {
            s.rtt.on_sample(now, rtt);
            s.rtt.clear_backoff();
        }
        s.new_rtt_sample = Some(rtt);
    }

    // ----- ACK processing (tcp_ack) ------------------------------------------------------

    /// An ACK arrived (the sender checked it acknowledges nothing unsent).
    pub(crate) fn on_ack(
        &mut self,
        s: &mut SenderState,
        cc: &mut Cc,
        now: SimTime,
        ack: u32,
        sack: &SackBlocks,
        ece: bool,
    ) {
        let prior_snd_una = s.snd_una;
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
            for (start, end) in sack.iter().filter(|&(a, b)| a < b && b <= s.snd_max) {
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
            s.snd_una = ack;
            s.snd_nxt = s.snd_nxt.max(ack);
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
            self.rtt_sample(s, now, r);
        }
        let delivered = (self.rate.delivered - prior_delivered) as u32;
        let mut sample = AckSample {
            now,
            ack,
            acked,
            sacked,
            snd_max: s.snd_max,
            rtt: ca_rtt,
            srtt: s.rtt.srtt(),
            min_rtt: self.min_rtt(),
            in_flight: self.segs.in_flight(),
            rate: None,
            ece,
            cwnd_limited: self.cwnd_limited(cc),
            conn: ConnState::default(),
        };
        if acked + sacked > 0 {
            cc.on_ack_sample(&sample);
        }
        let mut set_xmit_timer = advanced
            || sack_rtt.is_some_and(|r| {
                // Re-arm on SACKs only if they measure data sent after the head.
                self.segs
                    .get(s.snd_una)
                    .is_some_and(|h| r > now.saturating_since(h.xmit_time))
            });
        if self.tlp.high_seq.is_some() {
            self.on_tlp_ack(s, cc, now, ack, advanced, sacked > 0);
        }
        let dupack = !advanced && sacked == 0 && acked == 0;
        let dubious = dupack || sacked > 0 || ece || self.ca != CaState::Open;
        if dubious && self.fast_retransmit_alert(s, cc, now, prior_snd_una, ece, dupack, advanced) {
            set_xmit_timer = false;
        }
        if set_xmit_timer {
            self.set_xmit_timer(s, now, true);
        }
        // Linux `tp->lost - lost`: counted, not the change in `lost_out`, which the segments
        // this ACK delivers bring down.
        let newly_lost = (self.segs.lost - prior_lost) as u32;
        sample.rate = self
            .rate
            .on_ack(now, delivered, newly_lost, self.min_rtt(), ca_rtt);
        sample.in_flight = self.segs.in_flight();
        // tcp_cong_control().
        if cc.controls_window() {
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
                    next_send: s.next_send,
                };
                cc.cong_control(&sample);
                if cc.marks_app_limited() {
                    self.rate.on_app_limited(self.segs.in_flight());
                }
            }
        } else if self.in_reduction() {
            let ssthresh = cc.ssthresh().whole();
            if let Some(cwnd) = self.prr.on_ack(
                delivered,
                newly_lost,
                advanced,
                self.segs.in_flight(),
                ssthresh,
            ) {
                cc.set_cwnd(Window::segments(cwnd));
            }
        } else if advanced {
            cc.on_ack(&sample);
        }
        if s.snd_una == s.snd_max && self.segs.packets_out() == 0 {
            s.rto_deadline = None;
        }
    }

    /// Linux `tcp_fastretrans_alert()` for a SACK connection with RACK. Returns true when
    /// RACK armed its reordering timer (the caller then leaves the timer alone).
    #[allow(clippy::too_many_arguments)]
    fn fast_retransmit_alert(
        &mut self,
        s: &mut SenderState,
        cc: &mut Cc,
        now: SimTime,
        prior_snd_una: u32,
        ece: bool,
        _dupack: bool,
        advanced: bool,
    ) -> bool {
        let _ = prior_snd_una;
        // D. The episode ends when everything outstanding at its start is acknowledged.
        if self.ca != CaState::Open && s.snd_una >= self.high_seq {
            match self.ca {
                CaState::Cwr if s.snd_una != self.high_seq => {
                    self.end_reduction(cc);
                    self.ca = CaState::Open;
                    cc.on_recovery_end(now);
                }
                CaState::Recovery => {
                    self.ca = CaState::Open;
                    self.end_reduction(cc);
                    cc.on_recovery_end(now);
                }
                _ => {}
            }
        }
        // E. The state's own processing.
        let mut reo_timer = false;
        match self.ca {
            CaState::Recovery => {
                reo_timer = self.detect_losses(s, now);
                return reo_timer;
            }
            CaState::Loss => {
                if s.snd_una >= self.high_seq {
                    // Everything outstanding at the timeout is acknowledged.
                    self.ca = CaState::Open;
                    cc.on_recovery_end(now);
                } else {
                    let prior_retrans = self.segs.retrans_out;
                    reo_timer = self.detect_losses(s, now);
                    if self.segs.retrans_out >= prior_retrans {
                        return reo_timer;
                    }
                    // A retransmission was lost again: start fast recovery over.
                }
            }
            _ => {}
        }
        let _ = advanced;
        reo_timer |= self.detect_losses(s, now);
        if self.segs.lost_out == 0 {
            // tcp_try_to_open().
            if ece {
                self.enter_cwr(s, cc, now);
            }
            if self.ca != CaState::Cwr {
                self.try_keep_open(s);
            }
            return reo_timer;
        }
        self.enter_recovery(s, cc, now, ece);
        reo_timer
    }

    /// Linux `tcp_try_keep_open()`: Disorder while SACKs, losses or retransmissions are
    /// outstanding, else Open.
    fn try_keep_open(&mut self, s: &SenderState) {
        let doubtful = self.segs.sacked_out + self.segs.lost_out + self.segs.retrans_out > 0;
        let state = if doubtful {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if self.ca != state {
            self.ca = state;
            self.high_seq = s.snd_max;
        }
    }

    /// Linux `tcp_init_cwnd_reduction()`: the controller picks ssthresh; PRR takes the
    /// window from here.
    fn init_reduction(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime, why: Congestion) {
        self.high_seq = s.snd_max;
        self.tlp.high_seq = None;
        self.prr = Prr::begin(cc.cwnd().whole());
        let window = cc.cwnd();
        cc.on_congestion(now, why, window);
        // PRR, not the controller, moves cwnd from its value before the event.
        cc.set_cwnd(Window::segments(self.prr.prior_cwnd));
        s.stats.fast_retransmits +=
            matches!(why, Congestion::RackLoss | Congestion::FastRetransmit) as u64;
        // tcp_init_cwnd_reduction() -> tcp_ecn_queue_cwr(): announce it with CWR.
        s.ecn.on_reduction();
    }

    /// Linux `tcp_end_cwnd_reduction()`: the reduction ends at ssthresh.
    fn end_reduction(&mut self, cc: &mut Cc) {
        if cc.controls_window() {
            return; // the controller's own (BBR restores its window)
        }
        let ssthresh = cc.ssthresh();
        if ssthresh < Window::segments(u32::MAX) {
            cc.set_cwnd(ssthresh);
        }
    }

    /// Linux `tcp_enter_cwr()`: an ECN echo reduces once per window, without undo.
    fn enter_cwr(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime) {
        if self.ca < CaState::Cwr {
            self.init_reduction(s, cc, now, Congestion::Ecn);
            self.ca = CaState::Cwr;
            s.stats.cwnd_reductions += 1;
        }
    }

    /// Linux `tcp_enter_recovery()`.
    fn enter_recovery(&mut self, s: &mut SenderState, cc: &mut Cc, now: SimTime, ece: bool) {
        if !self.in_reduction() {
            let why = if ece {
                Congestion::Ecn
            } else {
                Congestion::RackLoss
            };
            self.init_reduction(s, cc, now, why);
        }
        self.ca = CaState::Recovery;
        s.phase = Phase::FastRecovery {
            recover: self.high_seq,
            partial_acks: 0,
        };
    }
}
