//! Pacing, as Linux's internal TCP pacing does it (`tcp_wstamp_ns`,
//! `tcp_update_skb_after_send()`): each segment sent moves the earliest time the next may
//! leave by one serialisation time at the pacing rate. The sender reports that release time
//! through its `poll_timeout`, one wake-up per flow, as quinn's pacer does; no event per
//! packet.
//!
//! The rate is the controller's when it has one (BBR's), else Linux's default
//! ([`default_rate`]).

use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Linux paces only after the connection's first segments: `tcp_update_skb_after_send()`
/// leaves the first ten (the initial window) unpaced.
const UNPACED_SEGMENTS: u64 = 10;

/// Linux `tcp_pacing_ss_ratio`: 200 % of cwnd per SRTT in slow start.
const SS_RATIO_PERCENT: u128 = 200;
/// Linux `tcp_pacing_ca_ratio`: 120 % of cwnd per SRTT in congestion avoidance.
const CA_RATIO_PERCENT: u128 = 120;

/// A sender's pacing state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// The sender paces (`options.pacing`).
    enabled: bool,
    /// The earliest time the next segment may leave (Linux `tcp_wstamp_ns`).
    next_send: SimTime,
    /// A segment is held back: the sender wants waking at `next_send`.
    waiting: bool,
    /// Segments that may still leave back to back at `burst_at` (a controller's GSO burst,
    /// Linux's `tso_segs` hook: one socket buffer of several segments per release).
    burst_left: u32,
    burst_at: SimTime,
}

impl Pacer {
    /// A pacer, idle unless `enabled`.
    pub fn new(enabled: bool) -> Self {
        Pacer {
            enabled,
            next_send: SimTime::ZERO,
            waiting: false,
            burst_left: 0,
            burst_at: SimTime::ZERO,
        }
    }

    /// True when the sender paces.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The earliest time the next segment may leave.
    pub fn next_send(&self) -> SimTime {
        self.next_send
    }

    /// A new sending opportunity at `now`: nothing is held back until [`Pacer::holds`]
    /// says so again.
    #[inline]
    pub fn wake(&mut self) {
        self.waiting = false;
    }

    /// True when a segment ready at `now` must wait for its release time (the sender then
    /// wants waking at [`Pacer::release`]).
    #[inline]
    pub fn holds(&mut self, now: SimTime) -> bool {
        // An unpaced sender's answer is its one flag.
        let held = self.enabled && now < self.next_send && !self.in_burst(now);
        if held {
            self.waiting = true;
        }
        held
    }

    /// When a held segment may leave, if one is held.
    #[inline]
    pub fn release(&self) -> Option<SimTime> {
        self.waiting.then_some(self.next_send)
    }

    /// True while the buffer a segment opened at `now` has segments left to send at once.
    #[inline]
    pub fn in_burst(&self, now: SimTime) -> bool {
        self.burst_left > 0 && self.burst_at == now
    }

    /// The segment that just left at `now` belongs to a burst of `burst` segments (1: no
    /// burst): the rest of the burst may follow at once, each still adding its gap to the
    /// release time, as the segments of one of Linux's GSO buffers leave together and the
    /// next buffer waits for all of them (`tcp_update_skb_after_send()`).
    #[inline]
    pub fn count_burst(&mut self, now: SimTime, burst: u32) {
        if self.burst_left > 0 && self.burst_at == now {
            self.burst_left -= 1;
        } else {
            self.burst_left = burst.saturating_sub(1);
            self.burst_at = now;
        }
    }

    /// A segment of `wire_bytes` left at `now`, the sender's `segments_sent`-th, at `rate`
    /// (none before an RTT sample): the next may leave one serialisation time later.
    pub fn on_sent(
        &mut self,
        now: SimTime,
        wire_bytes: u32,
        segments_sent: u64,
        rate: Option<BitsPerSec>,
    ) {
        let Some(rate) = rate else {
            return;
        };
        if segments_sent < UNPACED_SEGMENTS || rate.0 == 0 {
            return;
        }
        let gap = rate.tx_time_ns(wire_bytes);
        // A segment that left after its release time (the window held it) gives the next
        // one up to half a gap of credit, as Linux allows for timer jitter.
        let credit = now.saturating_since(self.next_send).0;
        let gap = gap - (gap / 2).min(credit);
        self.next_send = SimTime(self.next_send.max(now).0 + gap);
    }
}

/// Linux's default pacing rate, `sk_pacing_rate` as `tcp_update_pacing_rate()` computes
/// it (and the GSO buffers' sizing reads it, whether the sender paces or not): payload bytes
/// per second, max(cwnd, in flight) segments of `mss` per SRTT, times 2 while cwnd is below
/// half of ssthresh, else times 1.2. `None` before an RTT sample.
#[inline]
pub fn default_rate_bytes(
    cwnd: u32,
    in_slow_start: bool,
    in_flight: u32,
    mss: u32,
    srtt: Option<SimDuration>,
) -> Option<u64> {
    let srtt = srtt?.0.max(1);
    let ratio = if in_slow_start {
        SS_RATIO_PERCENT
    } else {
        CA_RATIO_PERCENT
    } as u64;
    // ratio / 100 x 1e9 ns per s, in 64 bits for any window below 2^40 bytes.
    let per_srtt = mss as u64 * cwnd.max(in_flight) as u64 * ratio;
    Some(match per_srtt.checked_mul(10_000_000) {
        Some(n) => n / srtt,
        None => (per_srtt as u128 * 10_000_000 / srtt as u128).min(u64::MAX as u128) as u64,
    })
}

/// Linux's default pacing rate (`tcp_update_pacing_rate()`), in bits per second of wire
/// bytes: max(cwnd, in flight) segments of `segment_bytes` per SRTT, times 2 while cwnd is
/// below half of ssthresh (slow start), else times 1.2. `None` before an RTT sample.
pub fn default_rate(
    cwnd: u32,
    in_slow_start: bool,
    in_flight: u32,
    segment_bytes: u32,
    srtt: Option<SimDuration>,
) -> Option<BitsPerSec> {
    let srtt = srtt?;
    let segments = cwnd.max(in_flight) as u128;
    let ratio = if in_slow_start {
        SS_RATIO_PERCENT
    } else {
        CA_RATIO_PERCENT
    };
    let segment_bits = 8 * segment_bytes as u128;
    let bps = segment_bits * segments * ratio * 1_000_000_000 / (100 * srtt.0.max(1) as u128);
    Some(BitsPerSec(bps.min(u64::MAX as u128) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_leave_one_serialisation_time_apart_after_the_first_ten() {
        let mut p = Pacer::new(true);
        let rate = Some(BitsPerSec(8_000_000)); // 1000 bytes per ms
        p.on_sent(SimTime::ZERO, 1000, 1, rate);
        assert!(!p.holds(SimTime::ZERO), "the first ten are not paced");
        p.on_sent(SimTime::ZERO, 1000, 10, rate);
        assert!(p.holds(SimTime::ZERO));
        assert_eq!(p.release(), Some(SimTime(1_000_000)));
        p.wake();
        assert!(!p.holds(SimTime(1_000_000)));
    }

    #[test]
    fn a_late_segment_gives_the_next_half_a_gap_of_credit() {
        let mut p = Pacer::new(true);
        let rate = Some(BitsPerSec(8_000_000));
        p.on_sent(SimTime::ZERO, 1000, 10, rate); // next at 1 ms
        p.on_sent(SimTime(3_000_000), 1000, 11, rate); // 2 ms late: 0.5 ms credit
        assert_eq!(p.next_send(), SimTime(3_500_000));
    }

    #[test]
    fn the_default_rate_is_twice_cwnd_per_srtt_in_slow_start() {
        let srtt = Some(SimDuration::from_millis(100));
        // 10 segments of 1000 bytes per 100 ms = 800 kb/s, doubled.
        assert_eq!(
            default_rate(10, true, 4, 1000, srtt),
            Some(BitsPerSec(1_600_000))
        );
        assert_eq!(
            default_rate(10, false, 4, 1000, srtt),
            Some(BitsPerSec(960_000))
        );
        assert_eq!(default_rate(10, false, 4, 1000, None), None);
    }

    #[test]
    fn sk_pacing_rate_counts_payload_bytes_of_max_cwnd_and_flight() {
        let srtt = Some(SimDuration::from_millis(100));
        // 10 segments of 1000 bytes per 100 ms = 100 kB/s, doubled; 1.2 x 12 in flight.
        assert_eq!(default_rate_bytes(10, true, 4, 1000, srtt), Some(200_000));
        assert_eq!(default_rate_bytes(10, false, 12, 1000, srtt), Some(144_000));
        assert_eq!(default_rate_bytes(10, false, 4, 1000, None), None);
    }
}
