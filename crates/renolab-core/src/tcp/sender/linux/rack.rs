//! RACK-TLP loss detection (RFC 8985; Linux `net/ipv4/tcp_recovery.c` and the tail-loss
//! probe of `tcp_output.c`).
//!
//! RACK deems a segment lost when a segment sent after it has been delivered and it has
//! itself been out longer than the latest RTT plus a reordering window: time, not a count
//! of duplicate ACKs, so that lost retransmissions and losses at the tail are detected too.
//! The reordering window is zero until reordering has been seen once the duplicate-ACK
//! threshold's worth of segments is SACKed or during recovery (Linux's DUPTHRESH emulation),
//! otherwise min_RTT/4 (never above SRTT). TLP sends one probe two smoothed RTTs after the
//! last transmission when nothing else would, so that a loss at the tail brings SACKs
//! instead of waiting for the retransmission timer.

use crate::time::{SimDuration, SimTime};

/// Linux `TCP_TIMEOUT_MIN_US`: the probe waits at least 2 ms more than 2 SRTT.
pub const TLP_MIN_EXTRA: SimDuration = SimDuration::from_millis(2);

/// RACK's state (RFC 8985 §6.1; Linux `tp->rack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    /// Send time of the most recently sent segment delivered (`RACK.xmit_ts`).
    pub xmit_time: SimTime,
    /// Its segment number (`RACK.end_seq`, here the segment itself).
    pub seq: u32,
    /// The RTT it measured (`RACK.rtt`).
    pub rtt: SimDuration,
    /// Something was delivered since the last loss scan (Linux `rack.advanced`).
    pub advanced: bool,
    /// Reordering was observed on this connection (Linux `reord_seen`).
    pub reordering_seen: bool,
}

/// `t1, seq1` was sent after `t2, seq2` (Linux `tcp_skb_sent_after()`).
pub fn sent_after(t1: SimTime, seq1: u32, t2: SimTime, seq2: u32) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// A segment sent at `xmit_time` (retransmitted before if `retransmitted`) was delivered
    /// at `now` (RFC 8985 §6.2 step 2; Linux `tcp_rack_advance()`). A retransmitted segment
    /// delivered sooner than `min_rtt` after its retransmission was the original's delivery:
    /// ambiguous, ignored.
    pub fn on_delivered(
        &mut self,
        now: SimTime,
        seq: u32,
        xmit_time: SimTime,
        retransmitted: bool,
        min_rtt: Option<SimDuration>,
    ) {
        let rtt = now.saturating_since(xmit_time);
        if retransmitted && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        self.advanced = true;
        self.rtt = rtt;
        if sent_after(xmit_time, seq, self.xmit_time, self.seq) {
            self.xmit_time = xmit_time;
            self.seq = seq;
        }
    }

    /// The reordering window (Linux `tcp_rack_reo_wnd()`): zero while no reordering was
    /// seen if recovery is under way or `sacked_out` reached the duplicate threshold;
    /// otherwise min_RTT/4, at most SRTT.
    pub fn reordering_window(
        &self,
        in_recovery: bool,
        sacked_out: u32,
        dupthresh: u32,
        min_rtt: Option<SimDuration>,
        srtt: Option<SimDuration>,
    ) -> SimDuration {
        if !self.reordering_seen && (in_recovery || sacked_out >= dupthresh) {
            return SimDuration::ZERO;
        }
        let quarter = SimDuration(min_rtt.map_or(0, |m| m.0 / 4));
        quarter.min(srtt.unwrap_or(quarter))
    }

    /// How long a segment sent at `xmit_time` still has before RACK deems it lost at `now`
    /// (Linux `tcp_rack_skb_timeout()`); zero or less means lost.
    pub fn remaining(&self, now: SimTime, xmit_time: SimTime, reo_wnd: SimDuration) -> i64 {
        self.rtt.0 as i64 + reo_wnd.0 as i64 - now.saturating_since(xmit_time).0 as i64
    }
}

/// The tail-loss probe's state (Linux `tlp_high_seq`, `tlp_retrans`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tlp {
    /// `snd_max` after the probe, while an episode is open.
    pub high_seq: Option<u32>,
    /// The probe was a retransmission (not new data).
    pub retransmitted: bool,
}

/// The probe timeout (RFC 8985 §7.2; Linux `tcp_schedule_loss_probe()`): 2 SRTT, plus the
/// worst-case delayed ACK when a single segment is out, or 2 ms otherwise; 1 s without an
/// RTT sample.
pub fn probe_timeout(
    srtt: Option<SimDuration>,
    packets_out: u32,
    rto_min: SimDuration,
) -> SimDuration {
    match srtt {
        Some(srtt) => {
            let extra = if packets_out == 1 {
                rto_min
            } else {
                TLP_MIN_EXTRA
            };
            SimDuration(2 * srtt.0 + extra.0)
        }
        None => SimDuration::from_secs(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimDuration {
        SimDuration::from_millis(n)
    }

    fn at(n: u64) -> SimTime {
        SimTime::ZERO + ms(n)
    }

    #[test]
    fn the_most_recently_sent_delivery_sets_the_reference() {
        let mut r = Rack::default();
        r.on_delivered(at(100), 5, at(10), false, None);
        r.on_delivered(at(101), 3, at(8), false, None);
        assert_eq!((r.seq, r.xmit_time), (5, at(10)), "3 was sent earlier");
        assert_eq!(r.rtt, ms(93), "but the RTT is the latest measured");
        // A retransmission delivered faster than min RTT is ambiguous.
        let before = r;
        r.on_delivered(at(105), 7, at(100), true, Some(ms(40)));
        assert_eq!(r, before);
    }

    #[test]
    fn a_segment_is_lost_after_the_rtt_plus_the_reordering_window() {
        let r = Rack {
            rtt: ms(40),
            ..Rack::default()
        };
        // min RTT 40 ms: the window is 10 ms before dupthresh, 0 after.
        let w = r.reordering_window(false, 1, 3, Some(ms(40)), Some(ms(50)));
        assert_eq!(w, ms(10));
        assert_eq!(r.reordering_window(false, 3, 3, Some(ms(40)), None), ms(0));
        assert_eq!(r.reordering_window(true, 0, 3, Some(ms(40)), None), ms(0));
        // Sent at 0: at 45 ms it has 5 ms left, at 50 ms none.
        assert_eq!(r.remaining(at(45), at(0), w), 5_000_000);
        assert!(r.remaining(at(50), at(0), w) <= 0);
    }

    #[test]
    fn the_probe_waits_two_srtt_and_longer_for_a_lone_segment() {
        assert_eq!(probe_timeout(Some(ms(50)), 5, ms(200)), ms(102));
        assert_eq!(probe_timeout(Some(ms(50)), 1, ms(200)), ms(300));
        assert_eq!(probe_timeout(None, 5, ms(200)), ms(1000));
    }
}
