//! GSO buffers (Linux `tcp_write_xmit()` with `sk_can_gso()`): the sender hands the device
//! buffers of [`LinuxSender::tso_segs`] segments, which leave back to back (the pacer,
//! when the sender paces, spaces buffers, not segments), and a buffer that the window
//! would cut short waits for the ACK due soon, so that it leaves whole
//! ([`LinuxSender::tso_should_defer`]).

use super::*;
use crate::tcp::gso::payload_bytes_per_sec;
use crate::tcp::pacing::default_rate_bytes;

/// Linux `net.ipv4.tcp_tso_win_divisor` (default 3): room for a third of the window is
/// worth sending without waiting for a whole buffer.
const TSO_WIN_DIVISOR: u64 = 3;
/// `tcp_tso_should_defer()`: a buffer waits only if the sender last sent less than 1 ms
/// ago, and only for an ACK due within 1 ms (or half an SRTT, if less).
const DEFER_HORIZON: SimDuration = SimDuration::from_millis(1);

impl LinuxSender {
    /// Segments per GSO buffer now (Linux `tcp_tso_segs()`): the controller's own size if
    /// it sets one (Prague's `tso_segs` hook), else `tcp_tso_autosize()` at the pacing rate
    /// (the controller's, else the rate Linux keeps even when it does not pace,
    /// `tcp_update_pacing_rate()`); 1 with GSO off.
    pub(crate) fn tso_segs(&self) -> u32 {
        let gso = self.conn.config.gso;
        if !gso.enabled {
            return 1;
        }
        let own = self.cc.tso_segs();
        if own > 1 {
            return own;
        }
        let (mss, header) = (self.conn.transfer.mss, self.conn.config.header_bytes);
        let pacing_bytes = match self.cc.pacing_rate() {
            Some(rate) => Some(payload_bytes_per_sec(rate, mss, header)),
            None => default_rate_bytes(
                self.cc.cwnd().whole(),
                self.cc.cwnd() < self.cc.ssthresh().half(),
                self.conn.snd_max - self.conn.snd_una,
                mss,
                self.conn.rtt.srtt(),
            ),
        };
        gso.autosize(pacing_bytes, mss, self.min_rtt(), self.cc.min_tso_segs())
    }

    /// Linux `tcp_tso_should_defer()`: true when the next buffer of new data, `max_segs`
    /// segments long, should wait for the next ACK rather than leave cut short by the
    /// window. It waits only outside recovery, when the sender sent within the last
    /// millisecond, the window has room for less than a whole buffer and less than a
    /// third of itself, and the ACK of the oldest outstanding segment is due within
    /// min(1 ms, SRTT / 2). A buffer held back by the congestion window counts as
    /// cwnd-limited (`is_cwnd_limited`).
    pub(crate) fn tso_should_defer(&mut self, now: SimTime, max_segs: u32) -> bool {
        let c = &self.conn;
        // The buffer: up to `max_segs` segments of what the application has queued; one
        // segment (`tcp_skb_pcount() == 1`) never waits here (Nagle's test instead).
        let skb_segs = max_segs.min(c.limit.saturating_sub(c.snd_nxt));
        if skb_segs <= 1 || self.ca >= CaState::Recovery {
            return false;
        }
        // "Avoid bursty behavior by allowing defer only if the last write was recent":
        // `tcp_wstamp_ns`, the release time of a paced sender, else its last send.
        let wstamp = if c.pacer.enabled() {
            c.pacer
                .next_send()
                .max(self.last_send.unwrap_or(SimTime::ZERO))
        } else {
            self.last_send.unwrap_or(SimTime::ZERO)
        };
        if now.saturating_since(wstamp) > DEFER_HORIZON {
            return false;
        }
        let cwnd = self.cc.cwnd().whole().max(1);
        let cong_win = cwnd.saturating_sub(self.segs.in_flight());
        let send_win = c
            .snd_una
            .saturating_add(c.config.receiver_window)
            .saturating_sub(c.snd_nxt);
        let limit = cong_win.min(send_win);
        // A whole buffer, or the last one whole (the application's last data carries FIN).
        if limit >= skb_segs {
            return false;
        }
        // limit >= min(snd_wnd, cwnd) / tcp_tso_win_divisor
        if limit as u64 * TSO_WIN_DIVISOR >= cwnd.min(c.config.receiver_window) as u64 {
            return false;
        }
        let (Some(srtt), Some(head)) = (c.rtt.srtt(), self.segs.get(c.snd_una)) else {
            return false;
        };
        // When the ACK of the oldest outstanding segment is expected: not too late?
        let expected_ack = head.xmit_time + srtt;
        let threshold = DEFER_HORIZON.min(SimDuration(srtt.0 / 2));
        if expected_ack.saturating_since(now) > threshold {
            return false;
        }
        if cong_win < send_win && cong_win <= skb_segs {
            self.burst_cwnd_limited = true;
        }
        true
    }
}
