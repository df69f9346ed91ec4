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
//! It owns: the optional SYN exchange, the send window (min of cwnd plus fast-recovery
//! inflation, and the receiver's window), duplicate-ACK counting, the loss-recovery
//! procedures ([`Recovery`]: go-back-N, Reno, NewReno partial ACKs, SACK scoreboard and
//! pipe), the RFC 6298 (or ns-2) retransmission timer with exponential back-off, and RTT
//! timing of one segment at a time with Karn's rule. The congestion-control variant
//! ([`Cc`]) only moves `cwnd` and `ssthresh`.

mod recovery;

pub use recovery::{Recovery, SackRecovery};

use super::cc::{Careful, Cc, CongestionControl, TimerReset};
use super::config::{Dialect, SenderConfig, Transfer};
use super::rtt::{Ns2Rtt, Rfc6298, RttEstimator};
use super::sack::SackBlocks;
use super::scoreboard::Scoreboard;
use super::window::Window;
use crate::time::{SimDuration, SimTime};

/// What a transmission carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// A data segment.
    Data,
    /// The connection-opening SYN (no payload).
    Syn,
}

/// A segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Data or SYN.
    pub kind: SegmentKind,
    /// Segment number (0 for the SYN).
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
    /// SYNs sent (with retransmissions).
    pub syns_sent: u64,
    /// Retransmitted data segments.
    pub retransmits: u64,
    /// Retransmission-timer expirations.
    pub timeouts: u64,
    /// Fast retransmits (loss inferred from duplicate ACKs).
    pub fast_retransmits: u64,
    /// When the first data segment left.
    pub first_send: Option<SimTime>,
}

/// Where the connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The application has not started.
    Idle,
    /// A SYN is due (first or again after a timeout).
    SynDue,
    /// The SYN is out; data waits for the SYN-ACK.
    SynSent,
    /// Data flows; no loss recovery in progress.
    Open,
    /// Fast recovery after a fast retransmit.
    FastRecovery {
        /// `snd_max` when recovery began (RFC 6582 `recover`).
        recover: u32,
        /// Partial ACKs seen so far in this episode.
        partial_acks: u32,
    },
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
    phase: Phase,
    /// Oldest unacknowledged segment.
    snd_una: u32,
    /// Next new-or-go-back-N segment to send.
    snd_nxt: u32,
    /// One past the highest segment ever sent.
    snd_max: u32,
    /// Highest cumulative ACK seen before the last loss event (RFC 6582 §4.1).
    highest_ack_before_loss: u32,
    dupacks: u32,
    /// Fast-recovery window inflation, in segments (ns-2's `dupwnd_`).
    dupwnd: u32,
    /// ns-2 Sack1's `pipe_`: its running estimate of segments in flight during recovery.
    ns2_pipe: i64,
    /// `snd_max` at the last loss event: duplicate ACKs for segments sent before it do not
    /// start another fast retransmit (RFC 6582 §3.2 step 1; ns-2's `recover_`, `bug_fix_`).
    recover: Option<u32>,
    /// A segment to retransmit at once, window or not (the fast retransmit itself).
    retransmit_next: Option<u32>,
    /// The last loss response was a fast retransmit with no new ACK since (ns-2's
    /// `last_cwnd_action_ == CWND_ACTION_DUPACK`): Tahoe may fast-retransmit again.
    last_loss_was_fast_retransmit: bool,
    /// The last loss response was a timeout (ns-2's `last_cwnd_action_ ==
    /// CWND_ACTION_TIMEOUT`): ns-2's Vegas then waits for `recover` before retransmitting
    /// on duplicates.
    last_loss_was_timeout: bool,
    /// Segments the window may still release in response to the current event (ns-2's
    /// `maxburst` argument of `send_much`).
    burst_left: u32,
    /// One new segment is due regardless of the window (ns-2 NewReno with Hoe's changes,
    /// on odd duplicate ACKs during recovery).
    send_new_regardless: bool,
    scoreboard: Scoreboard,
    rto_deadline: Option<SimTime>,
    /// The one segment being timed for an RTT sample, and when it was sent.
    timed: Option<(u32, SimTime)>,
    /// When the SYN was first sent, while it is timed.
    syn_timed: Option<SimTime>,
    /// When the first SYN was sent.
    syn_first_sent: Option<SimTime>,
    /// The last RTT sample, until a tracer takes it.
    new_rtt_sample: Option<SimDuration>,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender that will send `transfer` under `config`, with congestion control `cc`.
    /// `clock_phase` is the phase of ns-2's tick clock (its random `boot_time_`), in ns.
    pub fn new(mut config: SenderConfig, transfer: Transfer, mut cc: Cc, clock_phase: u64) -> Self {
        if let (Cc::Vegas(v), Dialect::Ns2) = (&mut cc, config.dialect) {
            v.reproduce_ns2_artefacts(config.receiver_window);
            // ns-2's Vegas recv() never calls send_one(): no Limited Transmit.
            config.limited_transmit = false;
        }
        let rtt = match config.dialect {
            Dialect::Rfc => RttEstimator::Rfc6298(Rfc6298::new(config.rto)),
            Dialect::Ns2 => RttEstimator::Ns2(Ns2Rtt::new(config.rto, clock_phase)),
        };
        TcpSender {
            config,
            transfer,
            limit: transfer.segments().unwrap_or(u32::MAX),
            cc,
            rtt,
            phase: Phase::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            highest_ack_before_loss: 0,
            dupacks: 0,
            dupwnd: 0,
            ns2_pipe: 0,
            recover: None,
            retransmit_next: None,
            last_loss_was_fast_retransmit: false,
            last_loss_was_timeout: false,
            burst_left: u32::MAX,
            send_new_regardless: false,
            scoreboard: Scoreboard::default(),
            rto_deadline: None,
            timed: None,
            syn_timed: None,
            syn_first_sent: None,
            new_rtt_sample: None,
            stats: SenderStats::default(),
        }
    }

    /// The application starts handing data to TCP.
    pub fn start(&mut self, _now: SimTime) {
        if self.phase == Phase::Idle {
            self.phase = if self.config.handshake {
                Phase::SynDue
            } else {
                Phase::Open
            };
        }
    }

    /// Stops offering new data (the application stopped); outstanding data is still recovered.
    pub fn stop_offering(&mut self) {
        self.limit = self.limit.min(self.snd_max);
    }

    /// Congestion window including fast-recovery inflation, segments (RFC 5681's cwnd).
    pub fn cwnd(&self) -> Window {
        self.cc.cwnd().plus(self.dupwnd)
    }

    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> Window {
        self.cc.ssthresh()
    }

    /// The congestion controller.
    pub fn cc(&self) -> &Cc {
        &self.cc
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
        matches!(self.phase, Phase::FastRecovery { .. })
    }

    /// True once every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.transfer.bytes.is_some() && self.snd_una >= self.limit
    }

    /// Size on the wire of a segment with `payload` bytes.
    pub fn wire_size(&self, payload: u32) -> u32 {
        payload + self.config.header_bytes
    }

    fn restart_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The window a loss halves: the flight size (RFC 5681 §3.1 eq. 4) or ns-2's
    /// `windowd()` = min(cwnd, receiver window), fraction kept. The fast-recovery inflation
    /// never counts: it is zero at a fast retransmit, and ns-2's Reno `timeout()` clears
    /// `dupwnd_` before it halves.
    fn halving_basis(&self) -> Window {
        match self.config.dialect {
            Dialect::Rfc => Window::segments(self.snd_max - self.snd_una),
            Dialect::Ns2 => self
                .cc
                .cwnd()
                .min(Window::segments(self.config.receiver_window)),
        }
    }

    /// ns-2's NewReno sends little from its window during recovery: at most two segments
    /// per ACK (`send_much(0, 0, 2)`), none at all with Hoe's changes.
    fn recovery_burst_limit(&self) -> u32 {
        match (
            self.config.dialect,
            self.config.recovery,
            self.in_fast_recovery(),
        ) {
            (Dialect::Ns2, Recovery::NewReno(cfg), true) => {
                if cfg.ssthresh_estimation {
                    0
                } else {
                    2
                }
            }
            _ => u32::MAX,
        }
    }

    /// Takes an RTT sample if the timed segment is covered by `ack` (Karn's rule: only
    /// segments never retransmitted are timed).
    fn sample_rtt(&mut self, now: SimTime, ack: u32) {
        if let Some((seq, sent)) = self.timed {
            if ack > seq {
                self.new_rtt_sample = Some(now - sent);
                self.rtt.on_sample(now, now - sent);
                self.rtt.clear_backoff();
                self.timed = None;
            }
        }
    }

    /// The SYN-ACK arrived: the connection is open (its RTT is the first sample).
    pub fn on_syn_ack(&mut self, now: SimTime) {
        if self.phase != Phase::SynSent {
            return;
        }
        if let Some(sent) = self.syn_timed.take() {
            self.new_rtt_sample = Some(now - sent);
            self.rtt.on_sample(now, now - sent);
            self.rtt.clear_backoff();
        }
        if let Some(first) = self.syn_first_sent {
            self.cc.on_syn_ack(now, now - first);
        }
        self.phase = Phase::Open;
        self.rto_deadline = None;
    }

    /// Processes a cumulative ACK: `ack` is the next segment the receiver expects; `sack`
    /// the SACK blocks it carries.
    pub fn on_ack(&mut self, now: SimTime, ack: u32, sack: &SackBlocks) {
        if matches!(self.phase, Phase::Idle | Phase::SynDue | Phase::SynSent) || ack > self.snd_max
        {
            return; // acknowledges data never sent: ignore (RFC 9293 §3.10.7.4)
        }
        let fresh_sacks = if self.config.recovery.uses_sack() {
            // A block reaching past the highest segment sent reports data never sent: it is
            // invalid and ignored whole (as Linux's tcp_is_sackblock_valid() does); trusted,
            // it would let recovery skip unsent segments as "SACKed".
            let mut valid = SackBlocks::EMPTY;
            for (start, end) in sack.iter().filter(|&(s, e)| s < e && e <= self.snd_max) {
                valid.push(start, end);
            }
            self.scoreboard.on_ack(ack, &valid)
        } else {
            0
        };
        if ack > self.snd_una {
            self.last_loss_was_fast_retransmit = false;
            self.on_new_ack(now, ack);
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            // ns-2 Sack1 counts only duplicates that bring new SACK information.
            let counts =
                !(self.config.recovery == Recovery::Sack(SackRecovery::Ns2) && fresh_sacks == 0);
            if counts {
                self.on_dup_ack(now);
            }
        }
        self.burst_left = self.recovery_burst_limit();
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u32) {
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        match self.phase {
            Phase::FastRecovery {
                recover,
                partial_acks,
            } => {
                if self.config.recovery.exits_on(ack, recover) {
                    self.sample_rtt(now, ack);
                    self.exit_recovery(now, ack, acked);
                } else {
                    self.on_partial_ack(now, acked, recover, partial_acks + 1);
                    return;
                }
            }
            _ => {
                self.sample_rtt(now, ack);
                if self.ns2_vegas() && self.dupacks > self.config.dupack_threshold {
                    if let Cc::Vegas(v) = &mut self.cc {
                        v.end_ns2_inflation();
                    }
                }
                self.dupacks = 0;
                self.cc.on_ack(now, ack, acked);
            }
        }
        let ns2_vegas = self.ns2_vegas();
        if let Cc::Vegas(v) = &mut self.cc {
            // ns-2 also "retransmits" the next segment when nothing is outstanding (see
            // Vegas::segment_expired), though never one past the end of the data.
            let candidate = if ns2_vegas {
                self.snd_una < self.limit
            } else {
                self.snd_una < self.snd_max
            };
            if candidate && v.worried_and_expired(now, self.snd_una) {
                self.retransmit_next = Some(self.snd_una);
                if ns2_vegas {
                    // ns-2 counts it as a third duplicate: more duplicates inflate the window.
                    self.dupacks = self.config.dupack_threshold;
                }
            }
        }
        // RFC 6298 §5.2-5.3: stop the timer when all is acknowledged, else restart it. ns-2
        // (newtimer) also keeps it while cwnd < 1, when only the timer can restart sending.
        let stalled = self.config.dialect == Dialect::Ns2 && self.cc.cwnd().whole() == 0;
        if self.snd_una == self.snd_max && !stalled {
            self.rto_deadline = None;
        } else {
            self.restart_timer(now);
        }
    }

    fn exit_recovery(&mut self, now: SimTime, ack: u32, acked: u32) {
        self.phase = Phase::Open;
        self.dupwnd = 0;
        self.dupacks = 0;
        if self.config.dialect == Dialect::Ns2 && !self.config.recovery.uses_sack() {
            // ns-2's Reno and NewReno leave recovery through newack() + opencwnd(), which
            // opens the window once more on the same ACK (Sack1 does not).
            self.cc.on_ack(now, ack, acked);
        }
    }

    /// An ACK of some but not all of the data outstanding when recovery began.
    fn on_partial_ack(&mut self, now: SimTime, acked: u32, recover: u32, partial_acks: u32) {
        self.phase = Phase::FastRecovery {
            recover,
            partial_acks,
        };
        // ns-2 partialnewack(): the timed segment gives no sample, but the back-off ends.
        if matches!(self.timed, Some((seq, _)) if self.snd_una > seq) {
            self.timed = None;
            self.rtt.clear_backoff();
        }
        let restart = match self.config.recovery {
            Recovery::NewReno(cfg) => {
                if cfg.partial_window_deflation {
                    // RFC 6582 §3.2 step 5, as ns-2 splits it between cwnd and dupwnd: the
                    // window shrinks by the segments acknowledged, then grows by one.
                    if self.dupwnd > acked {
                        self.dupwnd -= acked - 1;
                    } else {
                        self.cc.deflate(acked - self.dupwnd);
                        self.dupwnd = 1;
                    }
                } else {
                    self.dupwnd = 0;
                }
                // RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment.
                self.retransmit_next = Some(self.snd_una);
                cfg.timer_reset == TimerReset::SlowButSteady || partial_acks == 1
            }
            Recovery::Sack(SackRecovery::Ns2) => {
                // ns-2 Sack1: a partial ACK means the retransmission and one more left.
                self.ns2_pipe -= 2;
                true
            }
            Recovery::Sack(SackRecovery::Rfc6675) => true,
            Recovery::GoBackN | Recovery::Reno => true,
        };
        if restart {
            self.restart_timer(now);
        }
    }

    fn on_dup_ack(&mut self, now: SimTime) {
        self.dupacks += 1;
        if let Cc::Vegas(v) = &mut self.cc {
            v.on_any_ack(now);
        }
        if self.ns2_vegas() {
            self.on_ns2_vegas_dup_ack(now);
            return;
        }
        if self.in_fast_recovery() {
            match self.config.recovery {
                // RFC 5681 §3.2 step 4: each duplicate means a segment left the network.
                Recovery::Reno => self.dupwnd += 1,
                Recovery::NewReno(cfg) => {
                    self.dupwnd += 1;
                    // ns-2 tcp-newreno.cc with newreno_changes_: a new segment on every
                    // odd duplicate ACK from the 5th on, whatever the window.
                    if self.config.dialect == Dialect::Ns2
                        && cfg.ssthresh_estimation
                        && self.dupacks >= 5
                        && self.dupacks % 2 == 1
                    {
                        self.send_new_regardless = true;
                    }
                }
                Recovery::Sack(SackRecovery::Ns2) => self.ns2_pipe -= 1,
                Recovery::Sack(SackRecovery::Rfc6675) | Recovery::GoBackN => {}
            }
            return;
        }
        let threshold_reached = self.dupacks == self.config.dupack_threshold
            || (self.config.recovery == Recovery::Sack(SackRecovery::Rfc6675)
                && self
                    .scoreboard
                    .is_lost(self.snd_una, self.config.dupack_threshold));
        let early = self.cc_wants_early_retransmit(now);
        if (threshold_reached || early) && self.fast_retransmit_allowed() {
            self.enter_recovery(now);
        }
    }

    /// True for ns-2's Vegas, whose own `recv()` replaces the shared duplicate-ACK handling.
    fn ns2_vegas(&self) -> bool {
        self.config.dialect == Dialect::Ns2 && matches!(self.cc, Cc::Vegas(_))
    }

    /// ns-2's Vegas (tcp-vegas.cc `recv`) has no recovery phase: it retransmits on the third
    /// duplicate, or on any duplicate once the segment's fine-grained timer has expired, lets
    /// the controller inflate its window by the duplicates, and takes the inflation back on
    /// the next new ACK ([`Self::on_new_ack`]).
    fn on_ns2_vegas_dup_ack(&mut self, now: SimTime) {
        let threshold = self.config.dupack_threshold;
        let window = self.halving_basis();
        let Cc::Vegas(v) = &mut self.cc else {
            return;
        };
        if self.dupacks == threshold || v.segment_expired(now, self.snd_una) {
            // bug_fix_, which Vegas applies only after a timeout: no retransmission until
            // the ACKs pass what was outstanding at the timeout.
            let recovered = self.recover.is_none_or(|r| self.snd_una > r);
            if self.last_loss_was_timeout && !recovered {
                return;
            }
            if v.on_ns2_retransmit(now, window, self.dupacks) {
                self.dupacks = threshold;
            }
            self.stats.fast_retransmits += 1;
            self.last_loss_was_timeout = false;
            self.recover = Some(self.snd_max);
            // reset_rtx_timer(1): unlike Reno's, Vegas's backs the timer off; the RTT timing
            // in progress is abandoned.
            self.rtt.on_timeout();
            self.timed = None;
            self.restart_timer(now);
            self.retransmit_next = Some(self.snd_una);
        } else if self.dupacks > threshold {
            v.on_ns2_dup_ack();
        }
    }

    /// Vegas retransmits on the first duplicate ACK once the segment is older than its
    /// fine-grained timeout.
    fn cc_wants_early_retransmit(&mut self, now: SimTime) -> bool {
        match &mut self.cc {
            Cc::Vegas(v) => {
                self.dupacks < self.config.dupack_threshold && v.segment_expired(now, self.snd_una)
            }
            _ => false,
        }
    }

    /// RFC 6582 §3.2 step 1 and §4.1: may duplicate ACKs start a fast retransmit?
    fn fast_retransmit_allowed(&self) -> bool {
        let careful = match self.config.recovery {
            Recovery::NewReno(cfg) => cfg.careful,
            _ => Careful::Careful,
        };
        // ns-2's Tahoe (tcp.cc dupack_action) also allows it while the last loss response
        // was a fast retransmit: its go-back-N duplicates may retransmit again.
        let tahoe_again =
            self.config.recovery == Recovery::GoBackN && self.last_loss_was_fast_retransmit;
        let covers_recover = tahoe_again || self.recover.is_none_or(|r| self.snd_una > r);
        match careful {
            Careful::Careful => covers_recover,
            Careful::LessCareful => match self.config.dialect {
                // ns-2's lessCareful_: also when the ACK reaches exactly `recover`.
                Dialect::Ns2 => self.recover.is_none_or(|r| self.snd_una >= r),
                // RFC 6582 §4.1: cwnd above one segment and the ACK within 4 segments of the
                // highest ACK seen before the loss event.
                Dialect::Rfc => {
                    covers_recover
                        || (self.cc.cwnd() > Window::segments(1)
                            && self.snd_una.saturating_sub(self.highest_ack_before_loss) <= 4)
                }
            },
            Careful::Off => true,
        }
    }

    fn enter_recovery(&mut self, now: SimTime) {
        self.stats.fast_retransmits += 1;
        self.last_loss_was_fast_retransmit = true;
        self.last_loss_was_timeout = false;
        self.recover = Some(self.snd_max);
        self.highest_ack_before_loss = self.snd_una;
        let basis = self.halving_basis();
        self.cc.on_fast_retransmit(now, basis);
        // ns-2 reset_rtx_timer(): the RTT timing in progress is abandoned.
        self.timed = None;
        self.restart_timer(now);
        let recover = self.snd_max;
        match self.config.recovery {
            Recovery::GoBackN => {
                // Tahoe: slow start from the hole on.
                self.snd_nxt = self.snd_una;
            }
            Recovery::Reno | Recovery::NewReno(_) => {
                // RFC 5681 §3.2 step 3: inflate by the segments known to have left.
                self.dupwnd = self.config.dupack_threshold;
                self.retransmit_next = Some(self.snd_una);
                self.phase = Phase::FastRecovery {
                    recover,
                    partial_acks: 0,
                };
            }
            Recovery::Sack(mode) => {
                self.scoreboard.begin_recovery(self.snd_una);
                self.retransmit_next = Some(self.snd_una);
                if mode == SackRecovery::Ns2 {
                    // ns-2 Sack1: what is outstanding minus the duplicates that left.
                    self.ns2_pipe =
                        (self.snd_max - self.snd_una) as i64 - self.config.dupack_threshold as i64;
                }
                self.phase = Phase::FastRecovery {
                    recover,
                    partial_acks: 0,
                };
            }
        }
    }

    /// The retransmission timer expired (call when `poll_timeout() <= now`).
    pub fn on_timeout(&mut self, now: SimTime) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.rtt.on_timeout();
        self.rto_deadline = None;
        if self.phase == Phase::SynSent {
            self.syn_timed = None; // Karn: no sample from a retransmitted SYN
            self.phase = Phase::SynDue;
            return;
        }
        let basis = self.halving_basis();
        self.cc.on_timeout(now, basis);
        self.last_loss_was_fast_retransmit = false;
        self.last_loss_was_timeout = true;
        self.burst_left = u32::MAX;
        self.recover = Some(self.snd_max);
        self.highest_ack_before_loss = self.snd_una;
        self.phase = Phase::Open;
        self.dupacks = 0;
        self.dupwnd = 0;
        self.retransmit_next = None;
        if self.config.recovery.uses_sack() {
            self.scoreboard.clear(self.snd_una);
        }
        // Go-back-N from the first unacknowledged segment, as ns-2 and BSD do.
        self.snd_nxt = self.snd_una;
        // Karn: no RTT sample from anything sent before the timeout.
        self.timed = None;
    }

    /// The next segment to put on the wire now, if the window allows one.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        match self.phase {
            Phase::Idle | Phase::SynSent => return None,
            Phase::SynDue => return Some(self.send_syn(now)),
            Phase::Open | Phase::FastRecovery { .. } => {}
        }
        if let Some(seq) = self.retransmit_next.take() {
            return Some(self.emit(now, seq));
        }
        if self.send_new_regardless {
            self.send_new_regardless = false;
            if self.snd_nxt < self.limit {
                self.snd_nxt += 1;
                return Some(self.emit(now, self.snd_nxt - 1));
            }
        }
        if self.burst_left == 0 {
            return None;
        }
        let seq = if self.in_fast_recovery() && self.config.recovery.uses_sack() {
            self.next_sack_segment()?
        } else {
            let mut window = self.cc.cwnd().whole().saturating_add(self.dupwnd);
            if self.config.limited_transmit
                && self.phase == Phase::Open
                && self.dupacks < self.config.dupack_threshold
            {
                // RFC 3042: each of the first two duplicate ACKs releases one new segment.
                window = window.saturating_add(self.dupacks);
            }
            let window = window.min(self.config.receiver_window);
            // ns-2 sends nothing while cwnd < 1 (its Vegas can deflate to 0).
            let window = match self.config.dialect {
                Dialect::Rfc => window.max(1),
                Dialect::Ns2 => window,
            };
            if self.snd_nxt >= self.limit || self.snd_nxt >= self.snd_una.saturating_add(window) {
                return None;
            }
            self.snd_nxt += 1;
            self.snd_nxt - 1
        };
        self.burst_left -= 1;
        Some(self.emit(now, seq))
    }

    /// During SACK recovery: a hole to retransmit or new data, if the pipe has room.
    fn next_sack_segment(&mut self) -> Option<u32> {
        let cwnd = self.cc.cwnd().whole();
        let dupthresh = self.config.dupack_threshold;
        let new_data_ok = self.snd_nxt < self.limit
            && self.snd_nxt < self.snd_una.saturating_add(self.config.receiver_window);
        match self.config.recovery {
            Recovery::Sack(SackRecovery::Ns2) => {
                if self.ns2_pipe >= cwnd as i64 {
                    return None;
                }
                let seq = match self.scoreboard.next_unretransmitted_hole(self.snd_una) {
                    Some(hole) => hole,
                    None if new_data_ok => {
                        self.snd_nxt += 1;
                        self.snd_nxt - 1
                    }
                    None => return None,
                };
                self.ns2_pipe += 1;
                Some(seq)
            }
            _ => {
                // RFC 6675 §5 step (C): send while cwnd - pipe >= 1 segment, choosing with
                // NextSeg (§4): lost holes, then new data, then unSACKed holes.
                let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, dupthresh);
                if pipe >= cwnd {
                    return None;
                }
                if let Some(hole) =
                    self.scoreboard
                        .next_retransmission(self.snd_una, dupthresh, false)
                {
                    return Some(hole);
                }
                if new_data_ok {
                    self.snd_nxt += 1;
                    return Some(self.snd_nxt - 1);
                }
                self.scoreboard
                    .next_retransmission(self.snd_una, dupthresh, true)
            }
        }
    }

    fn send_syn(&mut self, now: SimTime) -> Transmit {
        self.phase = Phase::SynSent;
        let retransmit = self.stats.syns_sent > 0;
        self.stats.syns_sent += 1;
        if !retransmit {
            self.syn_timed = Some(now);
            self.syn_first_sent = Some(now);
        }
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
        Transmit {
            kind: SegmentKind::Syn,
            seq: 0,
            payload: 0,
            retransmit,
        }
    }

    fn emit(&mut self, now: SimTime, seq: u32) -> Transmit {
        let retransmit = seq < self.snd_max;
        if retransmit {
            self.stats.retransmits += 1;
            // Karn's rule: a retransmitted segment gives no RTT sample.
            if matches!(self.timed, Some((t, _)) if t == seq) {
                self.timed = None;
            }
            if self.config.recovery.uses_sack() {
                self.scoreboard.mark_retransmitted(seq);
            }
        } else {
            self.snd_max = seq + 1;
            if self.timed.is_none() {
                self.timed = Some((seq, now));
            }
        }
        self.cc.on_sent(now, seq, retransmit);
        self.stats.segments_sent += 1;
        self.stats.first_send.get_or_insert(now);
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
        Transmit {
            kind: SegmentKind::Data,
            seq,
            payload: self.transfer.payload(seq),
            retransmit,
        }
    }

    /// The RTT sample taken since the last call, with the smoothed RTT and RTO after it.
    pub fn take_rtt_sample(&mut self) -> Option<(SimDuration, SimDuration, SimDuration)> {
        let rtt = self.new_rtt_sample.take()?;
        Some((rtt, self.rtt.srtt().unwrap_or(rtt), self.rtt.rto()))
    }

    /// When the sender next needs [`TcpSender::on_timeout`].
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.rto_deadline
    }
}

#[cfg(test)]
mod tests;
