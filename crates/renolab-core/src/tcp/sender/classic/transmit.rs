//! What the classic sender puts on the wire: the SYN, the retransmission a loss calls for,
//! and new data as the window (or loss recovery's choice) allows.

use super::ClassicSender;
use crate::tcp::cc::{CcEvent, CongestionControl};
use crate::tcp::config::Dialect;
use crate::tcp::recovery::{LossRecovery, Selection};
use crate::tcp::sender::conn::Prelude;
use crate::tcp::sender::Transmit;
use crate::time::SimTime;

impl<C: CongestionControl, R: LossRecovery<C>> ClassicSender<C, R> {
    /// The next segment to put on the wire now, if the window allows one.
    #[inline]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        match self.s.conn.prelude(now) {
            Prelude::Nothing => return None,
            Prelude::Syn(syn) => return Some(syn),
            Prelude::Data => {}
        }
        let s = &mut self.s;
        if let Some(seq) = s.conn.retransmit_next.take() {
            return Some(self.emit(now, seq));
        }
        if s.send_new_regardless {
            s.send_new_regardless = false;
            if s.conn.snd_nxt < s.conn.limit {
                let seq = s.conn.take_new_segment();
                return Some(self.emit(now, seq));
            }
        }
        if s.burst_left == 0 || s.conn.pacer.holds(now) {
            // Paced: the segment waits for its release time (one wake-up per flow).
            return None;
        }
        let cwnd = self.cc.cwnd().whole();
        let seq = match self.recovery.select(&mut self.s, cwnd) {
            Selection::Segment(seq) => seq,
            Selection::Nothing => return None,
            Selection::ByWindow => self.next_by_window()?,
        };
        self.s.burst_left -= 1;
        Some(self.emit(now, seq))
    }

    /// The next new (or go-back-N) segment if the window has room: cwnd plus loss recovery's
    /// inflation, plus Limited Transmit's allowance, capped by the receiver's window.
    #[inline]
    fn next_by_window(&mut self) -> Option<u32> {
        let s = &mut self.s;
        let config = &s.conn.config;
        let cwnd = self
            .cc
            .cwnd()
            .whole()
            .saturating_add(self.recovery.inflation());
        let mut window = cwnd;
        if config.limited_transmit && !s.in_fast_recovery() && s.dupacks < config.dupack_threshold {
            // RFC 3042: each of the first two duplicate ACKs releases one new segment.
            window = window.saturating_add(s.dupacks);
        }
        let window = window.min(config.receiver_window);
        // ns-2 sends nothing while cwnd < 1 (its Vegas can deflate to 0).
        let window = match config.dialect {
            Dialect::Rfc | Dialect::Linux => window.max(1),
            Dialect::Ns2 => window,
        };
        let c = &mut s.conn;
        if c.snd_nxt >= c.limit || c.snd_nxt >= c.snd_una.saturating_add(window) {
            return None;
        }
        if c.snd_nxt >= c.snd_una.saturating_add(cwnd) {
            s.limited_sent += 1;
        }
        Some(s.conn.take_new_segment())
    }

    /// Segment `seq` leaves at `now`.
    #[inline]
    fn emit(&mut self, now: SimTime, seq: u32) -> Transmit {
        let s = &mut self.s;
        let retransmit = s.conn.begin_send(seq);
        if retransmit {
            // Karn's rule: a retransmitted segment gives no RTT sample.
            if matches!(s.timed, Some((t, _)) if t == seq) {
                s.timed = None;
            }
            if self.recovery.uses_sack() {
                s.scoreboard.mark_retransmitted(seq);
            }
        } else if s.timed.is_none() {
            s.timed = Some((seq, now));
        }
        self.cc.on_event(now, CcEvent::Sent { seq, retransmit });
        self.s
            .conn
            .finish_send(now, seq, retransmit, &self.cc, None)
    }
}
