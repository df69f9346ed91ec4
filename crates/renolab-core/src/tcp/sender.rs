//! The TCP sender: the machinery every congestion-control variant shares.
//!
//! A sans-IO state machine, packet-based like ns-2's one-way agents: sequence numbers count
//! segments. It never touches the event queue or a link. The engine drives it:
//!
//! 1. [`TcpSender::start`] when the application starts, [`TcpSender::on_ack`] for each ACK
//!    that arrives, [`TcpSender::on_timeout`] when [`TcpSender::poll_timeout`] has passed;
//! 2. after each of those, [`TcpSender::poll_transmit`] until it returns `None`;
//! 3. then [`TcpSender::poll_timeout`] to learn when it next needs to be woken.
//!
//! `now` must never decrease between calls.
//!
//! It owns: the send window (min of cwnd and the receiver's window), duplicate-ACK counting,
//! fast retransmit and recovery bookkeeping, the RFC 6298 retransmission timer with
//! exponential back-off, and RTT timing of one segment at a time with Karn's rule.

use super::cc::{Cc, CongestionControl};
use super::config::{SenderConfig, Transfer};
use super::rtt::RttEstimator;
use super::window::Window;
use crate::time::SimTime;

/// A segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Segment number.
    pub seq: u32,
    /// Payload bytes.
    pub payload: u32,
    /// True when the segment was sent before.
    pub retransmit: bool,
}

/// Counters of a sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments handed to the network, retransmissions included.
    pub segments_sent: u64,
    /// Retransmitted segments.
    pub retransmits: u64,
    /// Retransmission-timer expirations.
    pub timeouts: u64,
    /// Fast retransmits (loss inferred from duplicate ACKs).
    pub fast_retransmits: u64,
    /// When the first data segment left.
    pub first_send: Option<SimTime>,
}

/// A TCP sender.
#[derive(Clone, Debug)]
pub struct TcpSender {
    config: SenderConfig,
    transfer: Transfer,
    /// Segments the application offers (`u32::MAX` when unlimited).
    limit: u32,
    cc: Cc,
    rtt: RttEstimator,
    /// Oldest unacknowledged segment.
    snd_una: u32,
    /// Next segment to send (moves back to `snd_una` after a timeout: go-back-N).
    snd_nxt: u32,
    /// One past the highest segment ever sent.
    snd_max: u32,
    dupacks: u32,
    in_fast_recovery: bool,
    /// `snd_max` at the last loss event: duplicate ACKs for segments sent before it do not
    /// trigger another fast retransmit (RFC 6582 §3.2 step 1; ns-2's `recover_`, `bug_fix_`).
    recover: Option<u32>,
    /// A fast retransmit of `snd_una` is due.
    retransmit_head: bool,
    rto_deadline: Option<SimTime>,
    /// The one segment being timed for an RTT sample, and when it was sent.
    timed: Option<(u32, SimTime)>,
    started: bool,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender that will send `transfer` under `config`, with congestion control `cc`.
    pub fn new(config: SenderConfig, transfer: Transfer, cc: Cc) -> Self {
        TcpSender {
            config,
            transfer,
            limit: transfer.segments().unwrap_or(u32::MAX),
            cc,
            rtt: RttEstimator::new(config.rto),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            in_fast_recovery: false,
            recover: None,
            retransmit_head: false,
            rto_deadline: None,
            timed: None,
            started: false,
            stats: SenderStats::default(),
        }
    }

    /// The application starts handing data to TCP.
    pub fn start(&mut self, _now: SimTime) {
        self.started = true;
    }

    /// Stops offering new data (the application stopped); outstanding data is still recovered.
    pub fn stop_offering(&mut self) {
        self.limit = self.limit.min(self.snd_max);
    }

    /// Congestion window, segments.
    pub fn cwnd(&self) -> Window {
        self.cc.cwnd()
    }

    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> Window {
        self.cc.ssthresh()
    }

    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// What the application hands this sender.
    pub fn transfer(&self) -> Transfer {
        self.transfer
    }

    /// Oldest unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }

    /// One past the highest segment sent.
    pub fn snd_max(&self) -> u32 {
        self.snd_max
    }

    /// True while in fast recovery.
    pub fn in_fast_recovery(&self) -> bool {
        self.in_fast_recovery
    }

    /// True once every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.transfer.bytes.is_some() && self.snd_una >= self.limit
    }

    fn flight(&self) -> u32 {
        self.snd_max - self.snd_una
    }

    fn restart_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Processes a cumulative ACK: `ack` is the next segment the receiver expects.
    pub fn on_ack(&mut self, now: SimTime, ack: u32) {
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 9293 §3.10.7.4)
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack);
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            self.on_dup_ack(now);
        }
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u32) {
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        if let Some((seq, sent)) = self.timed {
            if ack > seq {
                self.rtt.on_sample(now - sent);
                self.timed = None;
            }
        }
        if self.in_fast_recovery {
            // Reno leaves fast recovery on the first ACK of new data (RFC 5681 §3.2 step 6).
            self.in_fast_recovery = false;
            self.cc.on_recovery_exit();
        } else {
            self.cc.on_ack(now, acked);
        }
        // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it.
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
        } else {
            self.restart_timer(now);
        }
    }

    fn on_dup_ack(&mut self, now: SimTime) {
        self.dupacks += 1;
        if self.in_fast_recovery {
            self.cc.on_dup_ack_in_recovery();
            return;
        }
        if self.dupacks != self.config.dupack_threshold {
            return;
        }
        if matches!(self.recover, Some(r) if self.snd_una <= r) {
            // Duplicates of segments sent before the last loss event: not a new loss.
            return;
        }
        self.stats.fast_retransmits += 1;
        self.recover = Some(self.snd_max);
        let flight = self.flight();
        self.in_fast_recovery =
            self.cc
                .on_fast_retransmit(now, flight, self.config.dupack_threshold);
        if !self.in_fast_recovery {
            // No fast recovery (Tahoe): resend from the hole on in slow start.
            self.snd_nxt = self.snd_una;
        }
        self.retransmit_head = true;
        self.restart_timer(now);
    }

    /// The retransmission timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        let flight = self.flight();
        self.cc.on_timeout(flight);
        self.rtt.on_timeout();
        self.recover = Some(self.snd_max);
        self.in_fast_recovery = false;
        self.dupacks = 0;
        self.retransmit_head = false;
        // Go-back-N from the first unacknowledged segment, as ns-2 and BSD do.
        self.snd_nxt = self.snd_una;
        // Karn: no RTT sample from anything sent before the timeout.
        self.timed = None;
        self.rto_deadline = None;
    }

    /// The next segment to put on the wire now, if the window allows one.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        if !self.started {
            return None;
        }
        let seq = if self.retransmit_head {
            self.retransmit_head = false;
            self.snd_una
        } else {
            let window = self
                .cc
                .cwnd()
                .whole()
                .min(self.config.receiver_window)
                .max(1);
            let window_end = self.snd_una.saturating_add(window);
            if self.snd_nxt >= self.limit || self.snd_nxt >= window_end {
                return None;
            }
            self.snd_nxt += 1;
            self.snd_nxt - 1
        };
        let retransmit = seq < self.snd_max;
        if retransmit {
            self.stats.retransmits += 1;
            // Karn's rule: a retransmitted segment gives no RTT sample.
            if matches!(self.timed, Some((t, _)) if t >= seq) {
                self.timed = None;
            }
        } else {
            self.snd_max = seq + 1;
            if self.timed.is_none() {
                self.timed = Some((seq, now));
            }
        }
        self.stats.segments_sent += 1;
        self.stats.first_send.get_or_insert(now);
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
        Some(Transmit {
            seq,
            payload: self.transfer.payload(seq),
            retransmit,
        })
    }

    /// When the sender next needs [`TcpSender::on_timeout`].
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    /// Size on the wire of a segment with `payload` bytes.
    pub fn wire_size(&self, payload: u32) -> u32 {
        payload + self.config.header_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::Reno;
    use crate::tcp::rtt::RtoConfig;
    use crate::time::SimDuration;

    fn sender(iw: u32, segments: u64) -> TcpSender {
        let config = SenderConfig {
            header_bytes: 40,
            initial_window: iw,
            initial_ssthresh: u32::MAX,
            receiver_window: 1000,
            dupack_threshold: 3,
            rto: RtoConfig {
                initial: SimDuration::from_secs(1),
                min: SimDuration::from_millis(200),
                max: SimDuration::from_secs(60),
                granularity: SimDuration::ZERO,
            },
        };
        let transfer = Transfer {
            mss: 1000,
            bytes: Some(segments * 1000),
        };
        let mut s = TcpSender::new(config, transfer, Cc::Reno(Reno::new(iw, u32::MAX)));
        s.start(SimTime::ZERO);
        s
    }

    fn drain(s: &mut TcpSender, now: SimTime) -> Vec<(u32, bool)> {
        std::iter::from_fn(|| s.poll_transmit(now))
            .map(|t| (t.seq, t.retransmit))
            .collect()
    }

    fn ms(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    #[test]
    fn sends_the_initial_window_then_waits() {
        let mut s = sender(2, 100);
        assert_eq!(drain(&mut s, ms(0)), vec![(0, false), (1, false)]);
        assert_eq!(s.poll_timeout(), Some(ms(1000)));
    }

    #[test]
    fn each_ack_in_slow_start_releases_two_segments() {
        let mut s = sender(1, 100);
        drain(&mut s, ms(0));
        s.on_ack(ms(100), 1);
        assert_eq!(drain(&mut s, ms(100)), vec![(1, false), (2, false)]);
        assert_eq!(s.cwnd(), Window::segments(2));
        // The RTT sample (100 ms) set the RTO to 300 ms from this ACK.
        assert_eq!(s.poll_timeout(), Some(ms(400)));
    }

    #[test]
    fn three_duplicate_acks_trigger_one_fast_retransmit() {
        let mut s = sender(8, 100);
        drain(&mut s, ms(0));
        s.on_ack(ms(100), 3); // 0..2 acked; cwnd 9, 3..11 may go
        drain(&mut s, ms(100));
        for _ in 0..2 {
            s.on_ack(ms(101), 3);
            assert!(drain(&mut s, ms(101)).is_empty());
        }
        s.on_ack(ms(102), 3);
        let flight = 12 - 3;
        assert_eq!(drain(&mut s, ms(102)), vec![(3, true)]);
        assert_eq!(s.ssthresh(), Window::segments(flight / 2));
        assert_eq!(s.cwnd(), Window::segments(flight / 2 + 3));
        assert!(s.in_fast_recovery());
        // New ACK ends recovery: cwnd deflates to ssthresh.
        s.on_ack(ms(150), 12);
        assert!(!s.in_fast_recovery());
        assert_eq!(s.cwnd(), Window::segments(4));
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.stats().retransmits, 1);
    }

    #[test]
    fn a_timeout_goes_back_to_the_first_unacked_segment_with_a_doubled_rto() {
        let mut s = sender(4, 100);
        drain(&mut s, ms(0));
        s.on_timeout(ms(999));
        assert_eq!(s.stats().timeouts, 0, "not yet due");
        s.on_timeout(ms(1000));
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(s.cwnd(), Window::segments(1));
        assert_eq!(s.ssthresh(), Window::segments(2));
        assert_eq!(drain(&mut s, ms(1000)), vec![(0, true)]);
        assert_eq!(s.poll_timeout(), Some(ms(3000)), "backed off to 2 s");
        // The ACK of the retransmission gives no RTT sample (Karn) yet clears nothing.
        s.on_ack(ms(1100), 1);
        assert_eq!(drain(&mut s, ms(1100)), vec![(1, true), (2, true)]);
    }

    #[test]
    fn a_finite_transfer_stops_at_its_last_segment() {
        let mut s = sender(10, 3);
        assert_eq!(drain(&mut s, ms(0)).len(), 3);
        s.on_ack(ms(100), 3);
        assert!(s.is_complete());
        assert_eq!(s.poll_timeout(), None);
    }
}
