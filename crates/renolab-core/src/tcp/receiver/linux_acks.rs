//! When a Linux 6.x receiver acknowledges (`net/ipv4/tcp_input.c` `tcp_event_data_recv()`,
//! `__tcp_ack_snd_check()`; `tcp_output.c` `tcp_send_delayed_ack()`; `tcp_timer.c` the
//! delayed-ACK timer), at the default sysctls:
//!
//! - **Quick ACKs**: the first data segment starts "quick-ACK mode" for 16 ACKs
//!   (`TCP_MAX_QUICKACKS`), each segment acknowledged at once, so that slow start is not
//!   slowed by delayed ACKs; a duplicate segment, or a gap longer than the RTO, restarts it.
//! - **Window growth** (`tcp_grow_window()`): while the receive window (`rcv_ssthresh`)
//!   grows towards the buffer, every segment of 128 bytes or more is acknowledged at once;
//!   with the large buffers of a host tuned for fast paths that is the first few thousand
//!   segments, all of slow start on most paths.
//! - Then an ACK as soon as more than one full segment is unacknowledged (every second
//!   segment), else after the delayed-ACK timeout `ato`: 40 ms (`TCP_ATO_MIN`), adapted to
//!   the segments' spacing, bounded by the RTT and 200 ms (`TCP_DELACK_MAX`), doubled each
//!   time the timer fires.
//! - A segment that empties the out-of-order queue is acknowledged at once.
//! - **SACK compression** (`tcp_comp_sack_delay_ns` = 1 ms, `tcp_comp_sack_nr` = 44): while
//!   segments wait out of order, the first three duplicate ACKs for a given `rcv_nxt` go at
//!   once (`TCP_FASTRETRANS_THRESH`); later ones are held up to min(1 ms, RTT/20) or 44
//!   ACKs, and one ACK carries their SACK information.
//! - **SACK blocks** (`tcp_sack_new_ofo_skb()`): the receiver remembers up to four distinct
//!   blocks (`TCP_NUM_SACKS`), the one a segment just changed first, and an ACK carries the
//!   first three (the option's room beside timestamps). Remembering blocks, not arrivals,
//!   matters once ACKs are compressed: two segments landing in one block must not push
//!   another block out of the report.

use crate::time::{SimDuration, SimTime};

/// Linux `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u32 = 16;
/// Linux `TCP_ATO_MIN` (HZ/25): the shortest delayed-ACK timeout.
pub const ATO_MIN: SimDuration = SimDuration::from_millis(40);
/// Linux `TCP_DELACK_MAX` (HZ/5).
pub const DELACK_MAX: SimDuration = SimDuration::from_millis(200);
/// Linux `tcp_comp_sack_delay_ns` (1 ms).
pub const COMP_SACK_DELAY: SimDuration = SimDuration::from_millis(1);
/// Linux `tcp_comp_sack_nr`.
pub const COMP_SACK_NR: u32 = 44;
/// Linux `TCP_FASTRETRANS_THRESH`: duplicate ACKs sent at once before compression.
pub const FASTRETRANS_THRESH: u32 = 3;
/// Linux `TCP_NUM_SACKS`: distinct SACK blocks the receiver remembers.
pub const NUM_SACKS: usize = 4;
/// Linux `TCP_DEFAULT_INIT_RCVWND`: the initial receive window (`rcv_ssthresh`), segments.
pub const INIT_RCV_WND_SEGMENTS: u64 = 10;
/// Where `tcp_grow_window()` stops raising `rcv_ssthresh`, bytes: a quarter of `tcp_rmem[2]`
/// as `__tcp_grow_window()` halves its limit for a segment's buffer overhead, with the
/// 64 MiB buffers of renolab's emulated hosts (and of any host tuned for long fat paths).
/// Measured (Linux 6.18, `renolab emulate`, 20 Mb/s): every segment acknowledged for the
/// first 2,800 segments of 1,436 bytes, each raising the window by 2,896 bytes: 8.1 MB.
pub const RCV_SSTHRESH_GROWTH_LIMIT: u64 = 8 << 20;

/// The RTO the receiver assumes for its own rules (Linux's initial `icsk_rto`, 1 s, until
/// it measures the handshake's RTT).
const RECEIVER_RTO: SimDuration = SimDuration::from_secs(1);

/// What the receiver does after a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckNow {
    /// Send an ACK now.
    Yes,
    /// Hold it: the delayed-ACK or SACK-compression timer will send it.
    Later,
}

/// The Linux receiver's ACK policy state (Linux `icsk_ack`, `compressed_ack`,
/// `dup_ack_counter`).
#[derive(Clone, Debug, Default)]
pub struct LinuxAcks {
    /// Quick ACKs left (`icsk_ack.quick`).
    quick: u32,
    /// The delayed-ACK timeout (`icsk_ack.ato`); zero before the first data segment.
    ato: SimDuration,
    /// When the last in-order data arrived (`icsk_ack.lrcvtime`).
    last_data: Option<SimTime>,
    /// The delayed-ACK timer.
    pub delack_deadline: Option<SimTime>,
    /// The SACK-compression timer.
    pub compress_deadline: Option<SimTime>,
    /// ACKs held by SACK compression (`compressed_ack`).
    compressed: u32,
    /// `rcv_nxt` the duplicate count is for (`compressed_ack_rcv_nxt`) and the count.
    dup_rcv_nxt: u32,
    dups: u32,
    /// The RTT the receiver knows: SYN-ACK sent to first data (`srtt_us` of the passive
    /// side).
    pub rtt: Option<SimDuration>,
    /// When the SYN-ACK was sent.
    pub syn_ack_sent: Option<SimTime>,
    /// A segment of each remembered SACK block, the most recently changed first.
    sack_blocks: [u32; NUM_SACKS],
    sack_len: usize,
    /// The window the receiver is growing towards its buffer (`rcv_ssthresh`), bytes; zero
    /// before the first data segment.
    rcv_ssthresh: u64,
}

impl LinuxAcks {
    /// Out-of-order segment `seq` arrived; `same_block(other)` tells whether segment `other`
    /// now lies in `seq`'s block (it may have merged two). That block moves to the front.
    pub fn note_block(&mut self, seq: u32, same_block: impl Fn(u32) -> bool) {
        let mut kept = [0u32; NUM_SACKS];
        let mut n = 0;
        kept[n] = seq;
        n += 1;
        for &other in &self.sack_blocks[..self.sack_len] {
            if n < NUM_SACKS && !same_block(other) {
                kept[n] = other;
                n += 1;
            }
        }
        self.sack_blocks = kept;
        self.sack_len = n;
    }

    /// Whether an out-of-order segment that lies in no remembered block (`same_block` as in
    /// [`LinuxAcks::note_block`]) would push the oldest block out of the memory while SACK
    /// compression holds ACKs back. Linux (`tcp_sack_new_ofo_skb()` ->
    /// `tcp_sack_compress_send_ack()`) then sends the held ACK first, with the blocks as
    /// they were, so the block about to be forgotten is reported once more: without it, at
    /// high rates with many holes, the sender never hears of segments that did arrive and
    /// RACK retransmits them.
    pub fn flush_before_forgetting(&self, same_block: impl Fn(u32) -> bool) -> bool {
        self.compressed > 0
            && self.sack_len == NUM_SACKS
            && !self.sack_blocks.iter().any(|&other| same_block(other))
    }

    /// A segment of each remembered block, most recently changed first (blocks since
    /// delivered in order are the caller's to skip).
    pub fn blocks(&self) -> impl Iterator<Item = u32> + '_ {
        self.sack_blocks[..self.sack_len].iter().copied()
    }

    fn rto(&self) -> SimDuration {
        // The receiver's own RTO: its SRTT + max(2 SRTT, 200 ms) after the handshake.
        match self.rtt {
            Some(r) => SimDuration(r.0 + (2 * r.0).max(DELACK_MAX.0)),
            None => RECEIVER_RTO,
        }
    }

    /// Linux `tcp_incr_quickack()`: up to `MAX_QUICKACKS` quick ACKs (the window over two
    /// segments is never the tighter bound for renolab's receivers).
    fn incr_quickack(&mut self) {
        self.quick = self.quick.max(MAX_QUICKACKS);
    }

    /// A data segment of `len` bytes arrived, in order or not (Linux `tcp_grow_window()`,
    /// from `tcp_event_data_recv()` and `tcp_data_queue_ofo()`): while the window grows
    /// towards the buffer, by twice the segment each time, the segment is acknowledged at
    /// once (`icsk_ack.quick |= 1`). With large buffers this lasts thousands of segments:
    /// all of slow start, on most paths.
    pub fn grow_window(&mut self, len: u32) {
        const MIN_GROWING_SEGMENT: u32 = 128; // tcp_event_data_recv(): skb->len >= 128
        if self.rcv_ssthresh == 0 {
            self.rcv_ssthresh = INIT_RCV_WND_SEGMENTS * len as u64;
        }
        if len >= MIN_GROWING_SEGMENT && self.rcv_ssthresh < RCV_SSTHRESH_GROWTH_LIMIT {
            self.rcv_ssthresh += 2 * len as u64;
            self.quick |= 1;
        }
    }

    /// In-order data arrived at `now` (Linux `tcp_event_data_recv()`).
    pub fn on_in_order_data(&mut self, now: SimTime) {
        if self.rtt.is_none() {
            if let Some(sent) = self.syn_ack_sent {
                self.rtt = Some(now.saturating_since(sent));
            }
        }
        if self.ato == SimDuration::ZERO {
            // The first data segment starts the delayed-ACK engine in quick-ACK mode.
            self.incr_quickack();
            self.ato = ATO_MIN;
        } else if let Some(last) = self.last_data {
            let m = now.saturating_since(last);
            if m.0 <= ATO_MIN.0 / 2 {
                self.ato = SimDuration(self.ato.0 / 2 + ATO_MIN.0 / 2);
            } else if m < self.ato {
                self.ato = SimDuration((self.ato.0 / 2 + m.0).min(self.rto().0));
            } else if m > self.rto() {
                // A long gap: the sender failed to restart; ACK quickly again.
                self.incr_quickack();
            }
        }
        self.last_data = Some(now);
    }

    /// The first Congestion Experienced segment since the sender's last CWR (Linux
    /// `tcp_ecn_check_ce()` -> `tcp_enter_quickack_mode(sk, 2)`: "better not delay acks,
    /// sender can have a very low cwnd"): the next two ACKs go at once.
    pub fn on_first_ce(&mut self) {
        self.quick = self.quick.max(2);
        self.ato = ATO_MIN;
    }

    /// A duplicate (already received) segment: quick ACKs again (Linux
    /// `tcp_enter_quickack_mode()`).
    pub fn on_duplicate(&mut self) {
        self.incr_quickack();
    }

    /// Whether to ACK now after a segment (Linux `__tcp_ack_snd_check()`):
    /// `unacked_full_segments_over_one` says more than one full segment of in-order data is
    /// unacknowledged, `ack_now` that the segment emptied the out-of-order queue or was a
    /// duplicate, `out_of_order` that segments are waiting out of order, `rcv_nxt` the next
    /// segment expected.
    pub fn decide(
        &mut self,
        now: SimTime,
        more_than_one_segment: bool,
        ack_now: bool,
        out_of_order: bool,
        rcv_nxt: u32,
    ) -> AckNow {
        if more_than_one_segment || self.quick > 0 || ack_now {
            return AckNow::Yes;
        }
        if !out_of_order {
            return self.schedule_delayed_ack(now);
        }
        if self.compressed >= COMP_SACK_NR {
            return AckNow::Yes;
        }
        if self.dup_rcv_nxt != rcv_nxt {
            self.dup_rcv_nxt = rcv_nxt;
            self.dups = 0;
        }
        if self.dups < FASTRETRANS_THRESH {
            self.dups += 1;
            return AckNow::Yes;
        }
        self.compressed += 1;
        if self.compress_deadline.is_none() {
            // 5 % of the RTT, at most 1 ms.
            let rtt = self.rtt.unwrap_or(SimDuration::ZERO);
            let delay = COMP_SACK_DELAY.min(SimDuration(rtt.0 / 20));
            self.compress_deadline = Some(now + delay);
        }
        AckNow::Later
    }

    /// Linux `tcp_send_delayed_ack()`.
    fn schedule_delayed_ack(&mut self, now: SimTime) -> AckNow {
        let mut ato = self.ato.max(ATO_MIN);
        if ato > ATO_MIN {
            // "Slow path, intersegment interval is high": at most half a second, and at
            // most the RTT.
            let mut max_ato = SimDuration::from_millis(500);
            if let Some(rtt) = self.rtt {
                max_ato = max_ato.min(rtt.max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        let ato = ato.min(DELACK_MAX);
        let timeout = now + ato;
        if let Some(pending) = self.delack_deadline {
            // A timer about to fire: ACK now instead.
            if pending <= now + SimDuration(ato.0 / 4) {
                return AckNow::Yes;
            }
            if pending < timeout {
                return AckNow::Later;
            }
        }
        self.delack_deadline = Some(timeout);
        AckNow::Later
    }

    /// The delayed-ACK timer fired: the ACK goes now, and the timeout doubles (Linux
    /// `tcp_delack_timer_handler()`: "delayed ACK missed: inflate ATO").
    pub fn on_delack_timeout(&mut self) {
        self.ato = SimDuration((self.ato.0 * 2).min(self.rto().0));
    }

    /// An ACK left (Linux `tcp_event_ack_sent()`): timers cancelled, one quick ACK used.
    pub fn on_ack_sent(&mut self) {
        self.delack_deadline = None;
        self.compress_deadline = None;
        self.compressed = 0;
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN;
            }
        }
    }

    /// The earlier of the two timers.
    pub fn deadline(&self) -> Option<SimTime> {
        match (self.delack_deadline, self.compress_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    #[test]
    fn every_segment_is_acknowledged_while_the_window_grows() {
        const MSS: u32 = 1448;
        let mut a = LinuxAcks::default();
        // rcv_ssthresh: 10 segments, then two segments more per segment received, until
        // it passes the 8 MiB limit: (8 MiB - 10 MSS) / (2 MSS) rounded up = 2892 segments.
        let growing = (RCV_SSTHRESH_GROWTH_LIMIT - 10 * MSS as u64).div_ceil(2 * MSS as u64);
        assert_eq!(growing, 2892);
        for i in 0..growing as u32 {
            let now = SimTime(i as u64 * 100_000);
            a.on_in_order_data(now);
            a.grow_window(MSS);
            assert_eq!(
                a.decide(now, false, false, false, i + 1),
                AckNow::Yes,
                "segment {i}"
            );
            a.on_ack_sent();
        }
        // `quick |= 1` kept the sixteen quick ACKs of the first segment in reserve: they
        // follow, then every second segment.
        for i in growing as u32..growing as u32 + 16 {
            let now = SimTime(i as u64 * 100_000);
            a.on_in_order_data(now);
            a.grow_window(MSS);
            assert_eq!(
                a.decide(now, false, false, false, i + 1),
                AckNow::Yes,
                "segment {i}"
            );
            a.on_ack_sent();
        }
        let now = SimTime((growing + 16) * 100_000);
        a.on_in_order_data(now);
        a.grow_window(MSS);
        assert_eq!(
            a.decide(now, false, false, false, growing as u32 + 17),
            AckNow::Later
        );
        // A segment too small to grow the window (under 128 bytes) never quickens the ACK.
        let mut b = LinuxAcks::default();
        b.grow_window(100);
        assert_eq!(b.quick, 0);
    }

    #[test]
    fn the_first_sixteen_acks_are_quick_then_every_second_segment() {
        let mut a = LinuxAcks::default();
        for i in 0..16 {
            a.on_in_order_data(at(i));
            assert_eq!(
                a.decide(at(i), false, false, false, i as u32 + 1),
                AckNow::Yes
            );
            a.on_ack_sent();
        }
        a.on_in_order_data(at(16));
        assert_eq!(a.decide(at(16), false, false, false, 17), AckNow::Later);
        assert_eq!(a.deadline(), Some(at(56)), "40 ms delayed-ACK timer");
        // The second full segment: ACK now.
        a.on_in_order_data(at(17));
        assert_eq!(a.decide(at(17), true, false, false, 18), AckNow::Yes);
    }

    #[test]
    fn sack_compression_holds_duplicates_after_three() {
        let mut a = LinuxAcks {
            rtt: Some(SimDuration::from_millis(100)),
            ato: ATO_MIN,
            ..LinuxAcks::default()
        };
        for _ in 0..3 {
            assert_eq!(a.decide(at(0), false, false, true, 5), AckNow::Yes);
            a.on_ack_sent();
        }
        assert_eq!(a.decide(at(1), false, false, true, 5), AckNow::Later);
        // min(1 ms, 100 ms / 20) = 1 ms.
        assert_eq!(a.deadline(), Some(at(2)));
        // A new rcv_nxt resets the duplicate count.
        assert_eq!(a.decide(at(1), false, false, true, 6), AckNow::Yes);
    }

    #[test]
    fn blocks_are_remembered_distinct_most_recently_changed_first() {
        let mut a = LinuxAcks::default();
        // Blocks by tens: 10-19 is one block, 30-39 another...
        let same = |x: u32, y: u32| x / 10 == y / 10;
        for seq in [10, 11, 30, 31, 50, 51, 70, 90] {
            a.note_block(seq, |o| same(seq, o));
        }
        // Four distinct blocks, newest first: two arrivals in a block count once.
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![90, 70, 51, 31]);
        // A segment changing an older block brings it to the front.
        a.note_block(32, |o| same(32, o));
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![32, 90, 70, 51]);
    }

    #[test]
    fn a_held_ack_goes_before_a_block_is_forgotten() {
        let mut a = LinuxAcks {
            rtt: Some(SimDuration::from_millis(100)),
            ato: ATO_MIN,
            ..LinuxAcks::default()
        };
        let same = |x: u32, y: u32| x / 10 == y / 10;
        for seq in [10, 30, 50, 70] {
            a.note_block(seq, |o| same(seq, o));
        }
        // No ACK held: nothing to flush, the oldest block is simply forgotten.
        assert!(!a.flush_before_forgetting(|o| same(90, o)));
        for _ in 0..3 {
            assert_eq!(a.decide(at(0), false, false, true, 5), AckNow::Yes);
            a.on_ack_sent();
        }
        assert_eq!(a.decide(at(0), false, false, true, 5), AckNow::Later);
        // One held: a fifth block must flush it; a segment extending a block need not.
        assert!(a.flush_before_forgetting(|o| same(90, o)));
        assert!(!a.flush_before_forgetting(|o| same(71, o)));
    }

    #[test]
    fn a_missed_delayed_ack_doubles_the_timeout() {
        let mut a = LinuxAcks {
            ato: ATO_MIN,
            ..LinuxAcks::default()
        };
        a.on_delack_timeout();
        assert_eq!(a.ato, SimDuration::from_millis(80));
    }
}
