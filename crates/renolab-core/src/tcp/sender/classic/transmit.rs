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
        let (seq, spent) = match self.recovery.select(&mut self.s, cwnd) {
            Selection::Segment(seq) => (seq, false),
            Selection::Nothing => return None,
            Selection::ByWindow => self.next_by_window()?,
        };
        self.s.burst_left -= 1;
        // Would the next call find nothing? It would find no retransmission due and no
        // segment owed regardless (this one got past both); with no pacer to consult and a
        // recovery that leaves the choice to the window, only the burst allowance and the
        // window decide, and sending changes no controller's window (`CcEvent::Sent`). The
        // engine then skips that call: half of all calls, 57 instructions each on the
        // reference dumbbell (callgrind).
        let last = (spent || self.s.burst_left == 0)
            && !self.s.conn.pacer.enabled()
            && self.recovery.selects_by_window();
        let mut tx = self.emit(now, seq);
        debug_assert!(
            !last
                || self.windows().1 <= self.s.conn.snd_nxt - self.s.conn.snd_una
                || self.s.conn.snd_nxt >= self.s.conn.limit
                || self.s.burst_left == 0
        );
        tx.last = last;
        Some(tx)
    }

    /// The next new (or go-back-N) segment if the window has room, and whether that
    /// spends the window (the segment after it would not go).
    #[inline]
    fn next_by_window(&mut self) -> Option<(u32, bool)> {
        let (cwnd, window) = self.windows();
        let s = &mut self.s;
        let c = &mut s.conn;
        let end = c.limit.min(c.snd_una.saturating_add(window));
        if c.snd_nxt >= end {
            return None;
        }
        if c.snd_nxt >= c.snd_una.saturating_add(cwnd) {
            s.limited_sent += 1;
        }
        let seq = s.conn.take_new_segment();
        Some((seq, seq + 1 >= end))
    }

    /// The window new data may fill, segments: cwnd plus loss recovery's inflation; and
    /// that plus Limited Transmit's allowance, capped by the receiver's window.
    #[inline(always)]
    fn windows(&self) -> (u32, u32) {
        let s = &self.s;
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
        (cwnd, window)
    }

    /// Segment `seq` leaves at `now`.
    #[inline(always)]
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
