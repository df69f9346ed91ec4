//! What the sender puts on the wire: the SYN, the retransmission a loss calls for, and new
//! data as the window (or loss recovery's choice) allows.

use super::{Phase, SegmentKind, TcpSender, Transmit};
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::Dialect;
use crate::tcp::recovery::Selection;
use crate::time::SimTime;

impl TcpSender {
    /// The next segment to put on the wire now, if the window allows one.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Transmit> {
        let s = &mut self.state;
        match s.phase {
            Phase::Idle | Phase::SynSent => return None,
            Phase::SynDue => return Some(self.send_syn(now)),
            Phase::Open | Phase::FastRecovery { .. } => {}
        }
        // Set again below if pacing holds a segment back now.
        s.pacing_wait = false;
        if let Some(seq) = s.retransmit_next.take() {
            return Some(self.emit(now, seq));
        }
        if s.send_new_regardless {
            s.send_new_regardless = false;
            if s.snd_nxt < s.limit {
                s.snd_nxt += 1;
                let seq = s.snd_nxt - 1;
                return Some(self.emit(now, seq));
            }
        }
        if s.burst_left == 0 {
            return None;
        }
        if s.config.pacing && now < s.next_send {
            // Paced: the segment waits for its release time (one wake-up per flow).
            s.pacing_wait = true;
            if let Some(l) = self.recovery.linux() {
                l.on_burst_end(&mut self.state, &self.cc, now);
            }
            return None;
        }
        let seq = match self.recovery.select(&mut self.state, &self.cc) {
            Selection::Segment(seq) => seq,
            Selection::Nothing => {
                if let Some(l) = self.recovery.linux() {
                    l.on_burst_end(&mut self.state, &self.cc, now);
                }
                return None;
            }
            Selection::ByWindow => self.next_by_window()?,
        };
        self.state.burst_left -= 1;
        Some(self.emit(now, seq))
    }

    /// The next new (or go-back-N) segment if the window has room: cwnd plus loss recovery's
    /// inflation, plus Limited Transmit's allowance, capped by the receiver's window.
    fn next_by_window(&mut self) -> Option<u32> {
        let s = &mut self.state;
        let cwnd = self
            .cc
            .cwnd()
            .whole()
            .saturating_add(self.recovery.inflation());
        let mut window = cwnd;
        if s.config.limited_transmit
            && s.phase == Phase::Open
            && s.dupacks < s.config.dupack_threshold
        {
            // RFC 3042: each of the first two duplicate ACKs releases one new segment.
            window = window.saturating_add(s.dupacks);
        }
        let window = window.min(s.config.receiver_window);
        // ns-2 sends nothing while cwnd < 1 (its Vegas can deflate to 0).
        let window = match s.config.dialect {
            Dialect::Rfc | Dialect::Linux => window.max(1),
            Dialect::Ns2 => window,
        };
        if s.snd_nxt >= s.limit || s.snd_nxt >= s.snd_una.saturating_add(window) {
            return None;
        }
        if s.snd_nxt >= s.snd_una.saturating_add(cwnd) {
            s.limited_sent += 1;
        }
        s.snd_nxt += 1;
        Some(s.snd_nxt - 1)
    }

    fn send_syn(&mut self, now: SimTime) -> Transmit {
        let s = &mut self.state;
        s.phase = Phase::SynSent;
        let retransmit = s.stats.syns_sent > 0;
        s.stats.syns_sent += 1;
        if !retransmit {
            s.syn_timed = Some(now);
            s.syn_first_sent = Some(now);
        }
        if s.rto_deadline.is_none() {
            s.restart_timer(now);
        }
        Transmit {
            kind: SegmentKind::Syn,
            seq: 0,
            payload: 0,
            retransmit,
            ecn: crate::packet::Ecn::NONE,
        }
    }

    fn emit(&mut self, now: SimTime, seq: u32) -> Transmit {
        let s = &mut self.state;
        let retransmit = seq < s.snd_max;
        if retransmit {
            s.stats.retransmits += 1;
            // Karn's rule: a retransmitted segment gives no RTT sample.
            if matches!(s.timed, Some((t, _)) if t == seq) {
                s.timed = None;
            }
            if self.recovery.uses_sack() {
                s.scoreboard.mark_retransmitted(seq);
            }
        } else {
            s.snd_max = seq + 1;
            if s.timed.is_none() {
                s.timed = Some((seq, now));
            }
        }
        self.cc.on_sent(now, seq, retransmit);
        if let Some(l) = self.recovery.linux() {
            l.on_sent(s, &mut self.cc, now, seq, retransmit);
        }
        s.stats.segments_sent += 1;
        s.stats.first_send.get_or_insert(now);
        let payload = s.transfer.payload(seq);
        if s.config.pacing {
            self.schedule_next_release(now, payload);
        }
        let s = &mut self.state;
        // RFC 6298 §5.1: start the timer if it is not running.
        if s.rto_deadline.is_none() {
            s.restart_timer(now);
        }
        let ecn = s.ecn.data_bits(retransmit);
        Transmit {
            kind: SegmentKind::Data,
            seq,
            payload,
            retransmit,
            ecn,
        }
    }

    /// Linux `tcp_update_skb_after_send()`: the next segment may leave one serialisation
    /// time at the pacing rate after this one (pacing starts after the first 10 segments).
    fn schedule_next_release(&mut self, now: SimTime, payload: u32) {
        let Some(rate) = self.pacing_rate() else {
            return;
        };
        let s = &mut self.state;
        if s.stats.segments_sent < 10 || rate.0 == 0 {
            return;
        }
        let gap = rate.tx_time_ns(payload + s.config.header_bytes);
        // A segment that left after its release time (the window held it) gives the next
        // one up to half a gap of credit, as Linux allows for timer jitter.
        let credit = now.saturating_since(s.next_send).0;
        let gap = gap - (gap / 2).min(credit);
        s.next_send = SimTime(s.next_send.max(now).0 + gap);
    }
}
