//! The classic sender: ns-2.35's one-way `Agent/TCP` family and the RFCs' sender (RFC 5681,
//! 6582, 6675, 3042, 3168, 6298), under the `rfc`, `ns2` and `opnet` profiles, and under
//! `linux` with a classic recovery.
//!
//! Read top to bottom:
//! - this file: its state ([`ClassicState`], what the loss recoveries see, as ns-3's
//!   `TcpSocketState`) and its controller and recovery;
//! - `ack.rs`: what an ACK does (classified as new, partial or duplicate), the ECN-Echo
//!   response (RFC 3168 §6.1.2), and the retransmission timer;
//! - `transmit.rs`: what goes on the wire: the fast retransmit, the recovery's choice, new
//!   data as the (inflated) window and Limited Transmit allow.
//!
//! It is generic over its controller and recovery: `ClassicSender<Cc, Recovery>` runs every
//! controller with any classic recovery; ns-2's Vegas runs as `ClassicSender<Vegas,
//! VegasNs2>`, so that recovery drives the Vegas controller it was written for without ever
//! asking which controller it has.

mod ack;
mod transmit;

use crate::tcp::cc::{AckSample, CongestionControl};
use crate::tcp::config::{Dialect, SenderConfig, Transfer};
use crate::tcp::recovery::LossRecovery;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::sender::Conn;
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

/// A fast-recovery episode in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Episode {
    /// `snd_max` when recovery began (RFC 6582 `recover`).
    pub recover: u32,
    /// Partial ACKs seen so far in this episode.
    pub partial_acks: u32,
}

/// The classic sender's state: what its loss recovery works on.
#[derive(Clone, Debug)]
pub struct ClassicState {
    pub(crate) conn: Conn,
    /// The fast-recovery episode in progress, if any.
    pub episode: Option<Episode>,
    /// Highest cumulative ACK seen before the last loss event (RFC 6582 §4.1).
    pub highest_ack_before_loss: u32,
    /// Duplicate ACKs since the last new ACK.
    pub dupacks: u32,
    /// New segments Limited Transmit sent since the last new ACK (RFC 3042): the flight a
    /// fast retransmit halves leaves them out (RFC 5681 §3.2 step 2).
    pub limited_sent: u32,
    /// `snd_max` at the last loss event: duplicate ACKs for segments sent before it do not
    /// start another fast retransmit (RFC 6582 §3.2 step 1; ns-2's `recover_`, `bug_fix_`).
    pub recover: Option<u32>,
    /// The last loss response was a fast retransmit with no new ACK since (ns-2's
    /// `last_cwnd_action_ == CWND_ACTION_DUPACK`): Tahoe may fast-retransmit again.
    pub last_loss_was_fast_retransmit: bool,
    /// The last loss response was a timeout (ns-2's `last_cwnd_action_ ==
    /// CWND_ACTION_TIMEOUT`): ns-2's Vegas then waits for `recover` before retransmitting
    /// on duplicates.
    pub last_loss_was_timeout: bool,
    /// The last window reduction answered an ECN-Echo (ns-2 `last_cwnd_action_ ==
    /// CWND_ACTION_ECN`): a loss in the same window is retransmitted without reducing
    /// again (RFC 3168 §6.1.2).
    pub last_reduction_was_ecn: bool,
    /// Segments the window may still release in response to the current event (ns-2's
    /// `maxburst` argument of `send_much`).
    pub burst_left: u32,
    /// One new segment is due regardless of the window (ns-2 NewReno with Hoe's changes,
    /// on odd duplicate ACKs during recovery).
    pub send_new_regardless: bool,
    /// The SACK scoreboard (kept by the SACK recoveries).
    pub scoreboard: Scoreboard,
    /// The one segment being timed for an RTT sample, and when it was sent (Karn).
    pub timed: Option<(u32, SimTime)>,
}

impl ClassicState {
    /// The state of a sender that has sent nothing.
    pub(crate) fn new(conn: Conn) -> Self {
        ClassicState {
            conn,
            episode: None,
            highest_ack_before_loss: 0,
            dupacks: 0,
            limited_sent: 0,
            recover: None,
            last_loss_was_fast_retransmit: false,
            last_loss_was_timeout: false,
            last_reduction_was_ecn: false,
            burst_left: u32::MAX,
            send_new_regardless: false,
            scoreboard: Scoreboard::default(),
            timed: None,
        }
    }

    /// The sender's settings.
    pub fn config(&self) -> &SenderConfig {
        &self.conn.config
    }

    /// Oldest unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.conn.snd_una
    }

    /// One past the highest segment sent.
    pub fn snd_max(&self) -> u32 {
        self.conn.snd_max
    }

    /// Sends segment `seq` at once, window or not.
    pub fn retransmit(&mut self, seq: u32) {
        self.conn.retransmit_next = Some(seq);
    }

    /// True while in fast recovery.
    #[inline]
    pub fn in_fast_recovery(&self) -> bool {
        self.episode.is_some()
    }

    /// A fast-recovery episode begins, to end when everything outstanding now is
    /// acknowledged.
    pub fn begin_episode(&mut self) {
        self.episode = Some(Episode {
            recover: self.conn.snd_max,
            partial_acks: 0,
        });
    }

    /// The window a loss halves: the flight size (RFC 5681 §3.1 eq. 4), ns-2's
    /// `windowd()` = min(cwnd, receiver window), fraction kept, or Linux's cwnd (its
    /// `ssthresh()` hooks read `snd_cwnd`). The fast-recovery inflation never counts: it is
    /// zero at a fast retransmit, and ns-2's Reno `timeout()` clears `dupwnd_` before it
    /// halves.
    #[inline]
    pub fn halving_basis(&self, cc: &impl CongestionControl) -> Window {
        let c = &self.conn;
        match c.config.dialect {
            Dialect::Rfc => Window::segments(c.snd_max - c.snd_una),
            Dialect::Ns2 => cc.cwnd().min(Window::segments(c.config.receiver_window)),
            Dialect::Linux => cc.cwnd(),
        }
    }

    /// Takes an RTT sample if the timed segment is covered by `ack` (Karn's rule: only
    /// segments never retransmitted are timed), and puts it in `sample` with the smoothed
    /// RTT after it, for the controller (the smoothed RTT changes only with a sample).
    #[inline]
    fn sample_rtt(&mut self, now: SimTime, ack: u32, sample: &mut AckSample) {
        if let Some((seq, sent)) = self.timed {
            if ack > seq {
                let c = &mut self.conn;
                c.new_rtt_sample = Some(now - sent);
                c.rtt.on_sample(now, now - sent);
                c.rtt.clear_backoff();
                self.timed = None;
                sample.rtt = Some(now - sent);
                sample.srtt = c.rtt.srtt();
            }
        }
    }

    /// Backs the retransmission timer off and abandons the RTT timing in progress (a
    /// retransmission that ns-2 answers like a timeout, as its Vegas does).
    pub fn back_off_timer(&mut self, now: SimTime) {
        self.conn.rtt.on_timeout();
        self.timed = None;
        self.conn.restart_timer(now);
    }
}

/// The classic sender with controller `C` and loss recovery `R`.
#[derive(Debug)]
pub struct ClassicSender<C, R> {
    s: ClassicState,
    cc: C,
    recovery: R,
}

impl<C: CongestionControl, R: LossRecovery<C>> ClassicSender<C, R> {
    /// A sender of `transfer` under `config` with controller `cc` and loss recovery
    /// `recovery`; `clock_phase` is the phase of ns-2's tick clock, in ns; `needs_ecn` for a
    /// controller that relies on ECN (DCTCP).
    pub fn new(
        config: SenderConfig,
        transfer: Transfer,
        cc: C,
        recovery: R,
        clock_phase: u64,
        needs_ecn: bool,
    ) -> Self {
        let conn = Conn::new(config, transfer, clock_phase, needs_ecn);
        ClassicSender {
            s: ClassicState::new(conn),
            cc,
            recovery,
        }
    }

    /// The controller.
    pub fn cc(&self) -> &C {
        &self.cc
    }

    /// The loss recovery.
    pub fn recovery(&self) -> &R {
        &self.recovery
    }

    /// The state the recovery sees.
    pub fn state(&self) -> &ClassicState {
        &self.s
    }

    #[inline]
    pub(crate) fn conn(&self) -> &Conn {
        &self.s.conn
    }

    #[inline]
    pub(crate) fn conn_mut(&mut self) -> &mut Conn {
        &mut self.s.conn
    }

    /// The window the sender may fill: cwnd plus the recovery's inflation.
    #[inline]
    pub fn inflated_cwnd(&self) -> Window {
        self.cc.cwnd().plus(self.recovery.inflation())
    }

    /// True while in fast recovery.
    pub fn in_fast_recovery(&self) -> bool {
        self.s.in_fast_recovery()
    }

    /// The RTT sample taken since the last call.
    #[inline]
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        self.s.conn.take_rtt_sample()
    }
}

#[cfg(test)]
mod tests;
