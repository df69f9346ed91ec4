//! What every sender keeps, whatever its dialect (the part of Linux's `tcp_sock` both use):
//! the data the application offers and the sequence variables over it, the optional SYN
//! exchange, the RTT estimator and the one timer it arms, pacing, the ECN bits segments
//! carry, and the counters.

use super::{SegmentKind, SenderStats, Transmit};
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::{Dialect, SenderConfig, Transfer};
use crate::tcp::ecn::EcnSender;
use crate::tcp::pacing::{self, Pacer};
use crate::tcp::rtt::{LinuxRtt, Ns2Rtt, Rfc6298, RttEstimator};
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// How far the connection is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// The application has not started.
    Idle,
    /// A SYN is due (first or again after a timeout).
    SynDue,
    /// The SYN is out; data waits for the SYN-ACK.
    SynSent,
    /// Data flows.
    Open,
}

/// What `poll_transmit` does before the sender's own choice of segment.
pub(crate) enum Prelude {
    /// Nothing may go (not started, or waiting for the SYN-ACK).
    Nothing,
    /// The SYN goes.
    Syn(Transmit),
    /// Data may go: the sender chooses.
    Data,
}

/// The connection state both senders keep.
#[derive(Clone, Debug)]
pub(crate) struct Conn {
    pub config: SenderConfig,
    pub transfer: Transfer,
    /// Segments the application offers (`u32::MAX` when unlimited).
    pub limit: u32,
    pub opening: Opening,
    /// Oldest unacknowledged segment.
    pub snd_una: u32,
    /// Next new-or-go-back-N segment to send.
    pub snd_nxt: u32,
    /// One past the highest segment ever sent.
    pub snd_max: u32,
    pub rtt: RttEstimator,
    /// The sender's one timer (retransmission, or Linux's loss probe and reordering
    /// timers), when armed.
    pub timer: Option<SimTime>,
    /// A segment to send at once, window or not (a fast retransmit, an RTO's head).
    pub retransmit_next: Option<u32>,
    /// The last RTT sample, until a tracer takes it.
    pub new_rtt_sample: Option<SimDuration>,
    /// When the SYN was first sent, while it is timed (Karn: not after a retransmission).
    syn_timed: Option<SimTime>,
    /// When the first SYN was sent.
    syn_first_sent: Option<SimTime>,
    pub pacer: Pacer,
    /// What segments carry of ECN (ECT, CWR).
    pub ecn: EcnSender,
    pub stats: SenderStats,
}

impl Conn {
    /// A connection with nothing sent; `clock_phase` is the phase of ns-2's tick clock, and
    /// `needs_ecn` is for a controller that relies on ECN (DCTCP).
    pub fn new(
        config: SenderConfig,
        transfer: Transfer,
        clock_phase: u64,
        needs_ecn: bool,
    ) -> Self {
        let rtt = match config.dialect {
            Dialect::Rfc => RttEstimator::Rfc6298(Rfc6298::new(config.rto)),
            Dialect::Ns2 => RttEstimator::Ns2(Ns2Rtt::new(config.rto, clock_phase)),
            Dialect::Linux => RttEstimator::Linux(LinuxRtt::new(config.rto)),
        };
        Conn {
            config,
            transfer,
            limit: transfer.segments().unwrap_or(u32::MAX),
            opening: Opening::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rtt,
            timer: None,
            retransmit_next: None,
            new_rtt_sample: None,
            syn_timed: None,
            syn_first_sent: None,
            pacer: Pacer::new(config.pacing),
            ecn: EcnSender::new(config.ecn, config.dialect, needs_ecn),
            stats: SenderStats::default(),
        }
    }

    /// The application starts handing data to TCP.
    #[inline]
    pub fn start(&mut self) {
        if self.opening == Opening::Idle {
            self.opening = if self.config.handshake {
                Opening::SynDue
            } else {
                Opening::Open
            };
        }
    }

    /// True once data may flow (the SYN-ACK arrived, or there is no handshake).
    #[inline]
    pub fn is_open(&self) -> bool {
        self.opening == Opening::Open
    }

    /// Stops offering new data; outstanding data is still recovered.
    #[inline]
    pub fn stop_offering(&mut self) {
        self.limit = self.limit.min(self.snd_max);
    }

    /// True once every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.transfer.bytes.is_some() && self.snd_una >= self.limit
    }

    /// Arms the timer one RTO from `now`.
    #[inline]
    pub fn restart_timer(&mut self, now: SimTime) {
        self.timer = Some(now + self.rtt.rto());
    }

    /// True when the timer is armed and due at `now`.
    #[inline]
    pub fn timer_due(&self, now: SimTime) -> bool {
        matches!(self.timer, Some(d) if d <= now)
    }

    /// May the sender send new data now (not past the end of the transfer or the
    /// receiver's window)?
    #[inline]
    pub fn new_data_allowed(&self) -> bool {
        self.snd_nxt < self.limit
            && self.snd_nxt < self.snd_una.saturating_add(self.config.receiver_window)
    }

    /// Takes the next new segment.
    #[inline]
    pub fn take_new_segment(&mut self) -> u32 {
        self.snd_nxt += 1;
        self.snd_nxt - 1
    }

    /// When the sender next needs waking: its timer, or the release of a paced segment.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match (self.timer, self.pacer.release()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The RTT sample taken since the last call (taken on every ACK, for the run's RTT
    /// figures: nothing else is computed here).
    #[inline]
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        self.new_rtt_sample.take()
    }

    /// The smoothed RTT (`rtt`, the sample just taken, before the first) and the RTO now:
    /// what the `rtt` trace records beside a sample.
    pub fn srtt_and_rto(&self, rtt: SimDuration) -> (SimDuration, SimDuration) {
        (self.rtt.srtt().unwrap_or(rtt), self.rtt.rto())
    }

    // ----- the SYN exchange ------------------------------------------------------------

    /// The start of `poll_transmit`: the SYN when one is due, nothing until the connection
    /// is open, then a new sending opportunity (pacing holds nothing back until it says so
    /// again).
    #[inline(always)]
    pub fn prelude(&mut self, now: SimTime) -> Prelude {
        match self.opening {
            Opening::Idle | Opening::SynSent => Prelude::Nothing,
            Opening::SynDue => Prelude::Syn(self.send_syn(now)),
            Opening::Open => {
                self.pacer.wake();
                Prelude::Data
            }
        }
    }

    fn send_syn(&mut self, now: SimTime) -> Transmit {
        self.opening = Opening::SynSent;
        let retransmit = self.stats.syns_sent > 0;
        self.stats.syns_sent += 1;
        if !retransmit {
            self.syn_timed = Some(now);
            self.syn_first_sent = Some(now);
        }
        if self.timer.is_none() {
            self.restart_timer(now);
        }
        Transmit {
            kind: SegmentKind::Syn,
            seq: 0,
            payload: 0,
            wire_bytes: self.config.header_bytes,
            retransmit,
            ecn: self.ecn.syn_bits(),
            last: false,
        }
    }

    /// The SYN-ACK arrived: the connection is open, and its RTT is the first sample.
    /// Returns the time since the first SYN left (what the controller hears of), or `None`
    /// if no SYN was waiting for it.
    pub fn on_syn_ack(&mut self, now: SimTime) -> Option<SimDuration> {
        if self.opening != Opening::SynSent {
            return None;
        }
        if let Some(sent) = self.syn_timed.take() {
            self.new_rtt_sample = Some(now - sent);
            self.rtt.on_sample(now, now - sent);
            self.rtt.clear_backoff();
        }
        Some(now - self.syn_first_sent.unwrap_or(now))
    }

    /// After [`Conn::on_syn_ack`] and the controller's hook: data may flow.
    pub fn opened(&mut self) {
        self.opening = Opening::Open;
        self.timer = None;
    }

    /// The timer fired while the SYN is out: back off and send it again. Returns false when
    /// no SYN is out (the timer is the sender's own).
    pub fn on_syn_timeout(&mut self) -> bool {
        if self.opening != Opening::SynSent {
            return false;
        }
        self.stats.timeouts += 1;
        self.rtt.on_timeout();
        self.timer = None;
        self.syn_timed = None; // Karn: no sample from a retransmitted SYN
        self.opening = Opening::SynDue;
        true
    }

    // ----- data segments ---------------------------------------------------------------

    /// Segment `seq` is about to leave: true when it was sent before. A new one extends
    /// `snd_max`.
    #[inline(always)]
    pub fn begin_send(&mut self, seq: u32) -> bool {
        let retransmit = seq < self.snd_max;
        if retransmit {
            self.stats.retransmits += 1;
        } else {
            self.snd_max = seq + 1;
        }
        retransmit
    }

    /// Segment `seq` leaves at `now` (after the sender's and the controller's bookkeeping):
    /// counted, paced, the timer started if it is not running (RFC 6298 §5.1), its ECN bits
    /// chosen. `gso_burst` is the Linux sender's GSO buffer: the size of the one this
    /// segment opens (0: it is in the current one); `None`: the controller's `tso_segs()`
    /// when pacing (the classic sender).
    #[inline(always)]
    pub fn finish_send(
        &mut self,
        now: SimTime,
        seq: u32,
        retransmit: bool,
        cc: &impl CongestionControl,
        gso_burst: Option<u32>,
    ) -> Transmit {
        self.stats.segments_sent += 1;
        self.stats.first_send.get_or_insert(now);
        let payload = self.transfer.payload(seq);
        let wire_bytes = payload + self.config.header_bytes;
        if self.pacer.enabled() {
            let rate = self.pacing_rate(cc);
            self.pacer
                .on_sent(now, wire_bytes, self.stats.segments_sent, rate);
            let burst = gso_burst.unwrap_or_else(|| cc.tso_segs());
            self.pacer.count_burst(now, burst.max(1));
        } else if let Some(burst) = gso_burst.filter(|&b| b != 1) {
            // Unpaced GSO buffers (the Linux sender) are counted all the same.
            self.pacer.count_burst(now, burst.max(1));
        }
        if self.timer.is_none() {
            self.restart_timer(now);
        }
        Transmit {
            kind: SegmentKind::Data,
            seq,
            payload,
            wire_bytes,
            retransmit,
            ecn: self.ecn.data_bits(retransmit),
            last: false,
        }
    }

    /// The pacing rate in bits per second of wire bytes: the controller's, else Linux's
    /// default ([`pacing::default_rate`]). `None` before an RTT sample.
    #[inline(always)]
    pub fn pacing_rate(&self, cc: &impl CongestionControl) -> Option<BitsPerSec> {
        if let Some(rate) = cc.pacing_rate() {
            return Some(rate);
        }
        pacing::default_rate(
            cc.cwnd().whole(),
            cc.cwnd() < cc.ssthresh().half(),
            self.snd_max - self.snd_una,
            self.transfer.mss + self.config.header_bytes,
            self.rtt.srtt(),
        )
    }
}
