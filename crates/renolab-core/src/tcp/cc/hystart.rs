//! Leaving slow start before the first loss: Linux's hybrid slow start (HyStart, Ha & Rhee
//! 2011, as `net/ipv4/tcp_cubic.c` runs it) and HyStart++ (RFC 9406). CUBIC ([`super::cubic`])
//! asks them, on each ACK in slow start, whether slow start should end.
//!
//! **HyStart (Linux)** watches two signals from a window of 16 segments on
//! (`hystart_low_window`):
//! - the ACK train: ACKs that arrive close together (at most 2 ms apart,
//!   `hystart_ack_delta_us`) for longer than half the minimum RTT since the round began mean
//!   the window already fills the path;
//! - the delay increase: the smallest RTT among the first 8 samples of a round
//!   (`HYSTART_MIN_SAMPLES`) exceeds the minimum RTT by an eighth of it, clamped to
//!   4-16 ms (`HYSTART_DELAY_MIN`/`MAX`): a queue is building.
//!
//! Either sets ssthresh to the current window, so that congestion avoidance starts at once.
//! A round is the flight outstanding when it began: it ends when the cumulative ACK passes
//! what was the next segment to send then (`end_seq = snd_nxt`).
//!
//! **HyStart++ (RFC 9406)** uses the delay signal only, per round (RFC 9406 §4.2): when a
//! round's minimum RTT exceeds the previous round's by `clamp(lastRoundMinRTT / 8, 4 ms,
//! 16 ms)` it moves to Conservative Slow Start (CSS), which grows a quarter as fast; if the
//! RTT falls back below the value that triggered it the exit was spurious and slow start
//! resumes; after 5 CSS rounds congestion avoidance begins (ssthresh = cwnd). Unpaced, slow
//! start adds at most `L = 8` segments per ACK (§4.3). As §4.3 recommends, HyStart++ runs
//! in the first slow start only; any congestion event ends it.
//!
//! How often the sender measures the RTT matters. Linux times every ACK (TCP timestamps); a
//! sender that times one segment per round trip (the `rfc` and `ns2` profiles) gives one
//! sample per round, never the 8 a round needs: there the delay signals of both never
//! fire. The ACK train needs only the arrival times of ACKs and the minimum RTT, so it runs
//! on every ACK of data whether or not the ACK carried an RTT sample (under per-ACK timing
//! this is exactly Linux, which skips only ACKs without a sample).

use crate::time::{SimDuration, SimTime};

/// Linux `hystart_low_window`: HyStart is not consulted below this window (segments).
pub const LOW_WINDOW: u32 = 16;
/// Linux `hystart_ack_delta_us`: ACKs at most this far apart continue a train (µs).
const ACK_DELTA_US: u64 = 2_000;
/// Linux `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
const MIN_SAMPLES: u8 = 8;
/// Linux `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: the delay threshold's clamp (µs).
const DELAY_MIN_US: u32 = 4_000;
const DELAY_MAX_US: u32 = 16_000;
/// Linux `sk_gso_max_size` of a common NIC (`GSO_LEGACY_MAX_SIZE`, bytes): the ACK-train
/// threshold's cushion for TSO/GRO batching is the time to send four of these.
const GSO_MAX_BYTES: u64 = 65_536;

/// RFC 9406 §4.3 `MIN_RTT_THRESH`, `MAX_RTT_THRESH`.
const PP_MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
const PP_MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
/// RFC 9406 §4.3 `MIN_RTT_DIVISOR`.
const PP_MIN_RTT_DIVISOR: u64 = 8;
/// RFC 9406 §4.3 `N_RTT_SAMPLE`.
const PP_N_RTT_SAMPLE: u32 = 8;
/// RFC 9406 §4.3 `CSS_GROWTH_DIVISOR`.
const PP_CSS_GROWTH_DIVISOR: u32 = 4;
/// RFC 9406 §4.3 `CSS_ROUNDS`.
const PP_CSS_ROUNDS: u32 = 5;
/// RFC 9406 §4.3 `L` for a sender that does not pace: at most 8 segments per ACK.
const PP_L: u32 = 8;

/// Which slow-start exit CUBIC uses: the `hystart` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HystartMode {
    /// Linux's HyStart: ACK train and delay increase (`"linux"`, the default).
    Linux,
    /// RFC 9406 HyStart++ (`"hystart++"`).
    PlusPlus,
    /// Plain slow start: only a loss ends it (`"off"`).
    Off,
}

impl HystartMode {
    /// Names as the `hystart` option takes them.
    pub const NAMES: &'static [&'static str] = &["linux", "hystart++", "off"];

    /// The option's value.
    pub fn name(self) -> &'static str {
        match self {
            HystartMode::Linux => "linux",
            HystartMode::PlusPlus => "hystart++",
            HystartMode::Off => "off",
        }
    }

    /// The mode called `name` (one of [`HystartMode::NAMES`]).
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(HystartMode::Linux),
            "hystart++" => Some(HystartMode::PlusPlus),
            "off" => Some(HystartMode::Off),
            _ => None,
        }
    }
}

/// What one ACK in slow start tells the slow-start exit.
#[derive(Clone, Copy, Debug)]
pub(super) struct SlowStartAck {
    pub now: SimTime,
    /// The cumulative ACK.
    pub ack: u32,
    /// One past the highest segment sent (Linux `snd_nxt`).
    pub snd_max: u32,
    /// This ACK's RTT sample, if any.
    pub rtt: Option<SimDuration>,
    /// The smoothed RTT, if known (for Linux's pacing-rate cushion).
    pub srtt: Option<SimDuration>,
    /// Segments in flight (Linux `packets_out`, for the pacing rate).
    pub in_flight: u32,
    /// The congestion window and threshold (segments).
    pub cwnd: u32,
    pub ssthresh: u32,
    /// Linux `delay_min`, µs (0 while unknown).
    pub delay_min_us: u32,
}

/// A slow-start exit with its state.
#[derive(Clone, Debug)]
pub(super) enum Hystart {
    Linux(LinuxHystart),
    PlusPlus(HystartPlusPlus),
    Off,
}

impl Hystart {
    /// A fresh detector of `mode` for a sender of `mss`-byte segments.
    pub fn new(mode: HystartMode, mss: u32) -> Self {
        match mode {
            HystartMode::Linux => Hystart::Linux(LinuxHystart::new(mss)),
            HystartMode::PlusPlus => Hystart::PlusPlus(HystartPlusPlus::default()),
            HystartMode::Off => Hystart::Off,
        }
    }

    /// An ACK of data in slow start (cwnd < ssthresh). Returns true when slow start must end
    /// now: the controller sets ssthresh to cwnd.
    pub fn on_ack(&mut self, a: &SlowStartAck) -> bool {
        match self {
            Hystart::Linux(h) => h.on_ack(a),
            Hystart::PlusPlus(h) => h.on_ack(a),
            Hystart::Off => false,
        }
    }

    /// How many of `acked` segments slow start may add to the window on this ACK:
    /// HyStart++ caps the increase at `L` and divides it by 4 in CSS.
    pub fn slow_start_credit(&mut self, acked: u32) -> u32 {
        match self {
            Hystart::PlusPlus(h) => h.credit(acked),
            _ => acked,
        }
    }

    /// True while HyStart++ is in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        matches!(
            self,
            Hystart::PlusPlus(HystartPlusPlus {
                phase: Phase::Css { .. },
                ..
            })
        )
    }

    /// A congestion event at `now`. Linux resets HyStart after a retransmission timeout
    /// (`cubictcp_state(TCP_CA_Loss)`), so that it may end the slow start that follows;
    /// HyStart++ runs in the first slow start only (RFC 9406 §4.3).
    pub fn on_congestion(&mut self, now: SimTime, timeout: bool) {
        match self {
            Hystart::Linux(h) if timeout => h.restart(now),
            Hystart::PlusPlus(h) => h.phase = Phase::Done,
            _ => {}
        }
    }
}

/// Linux's HyStart (`struct bictcp`'s HyStart fields; times in µs as `tcp_mstamp`).
#[derive(Clone, Debug)]
pub(super) struct LinuxHystart {
    mss: u32,
    /// The exit point was found (`found`); HyStart is idle until a timeout resets it.
    pub found: bool,
    /// When the current round began (`round_start`).
    round_start_us: u64,
    /// When the last ACK of the current train arrived (`last_ack`).
    last_ack_us: u64,
    /// The round ends when the cumulative ACK passes this (`end_seq`); `None` until the next
    /// ACK tells what was sent (after a timeout).
    end_seq: Option<u32>,
    /// The smallest RTT sample of the round so far (`curr_rtt`), µs.
    curr_rtt_us: u32,
    /// RTT samples in the round, up to 8 (`sample_cnt`).
    sample_cnt: u8,
}

impl LinuxHystart {
    fn new(mss: u32) -> Self {
        // cubictcp_init() -> bictcp_hystart_reset() at connection start: nothing is sent
        // yet, so the first ACK begins the first round.
        LinuxHystart {
            mss,
            found: false,
            round_start_us: 0,
            last_ack_us: 0,
            end_seq: Some(0),
            curr_rtt_us: u32::MAX,
            sample_cnt: 0,
        }
    }

    /// Linux `bictcp_hystart_reset()`.
    fn reset_round(&mut self, now_us: u64, snd_nxt: u32) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.end_seq = Some(snd_nxt);
        self.curr_rtt_us = u32::MAX;
        self.sample_cnt = 0;
    }

    /// After a timeout: Linux `cubictcp_state(TCP_CA_Loss)` clears `found` and restarts the
    /// round (its `end_seq` is `snd_nxt`, which the next ACK reports).
    fn restart(&mut self, now: SimTime) {
        let now_us = micros(now);
        self.found = false;
        self.reset_round(now_us, 0);
        self.end_seq = None;
    }

    /// Linux `cubictcp_acked()`'s HyStart part and `hystart_update()`.
    fn on_ack(&mut self, a: &SlowStartAck) -> bool {
        if self.found || a.delay_min_us == 0 {
            return false;
        }
        let now_us = micros(a.now);
        let end_seq = *self.end_seq.get_or_insert(a.snd_max);
        if a.ack > end_seq {
            self.reset_round(now_us, a.snd_max);
        }
        // Rounds are counted below the low window too, so that each begins with the first
        // ACK of a flight (Linux 6.13+, "tcp_cubic: fix incorrect HyStart round start
        // detection"; before 5.16 `cubictcp_cong_avoid()` reset them on every slow-start
        // ACK). Counted from the low window on only (5.16-6.12), a round began mid-flight,
        // its first RTT samples already carried the flight's queue, and the delay test
        // ended slow start a round early: at 50 Mb/s, 80 ms, 1 BDP at 264 segments, where
        // Linux 6.18 left it at 490.
        if a.cwnd < LOW_WINDOW {
            return false;
        }
        // The ACK train.
        if now_us.saturating_sub(self.last_ack_us) <= ACK_DELTA_US {
            self.last_ack_us = now_us;
            // Unpaced (`SK_PACING_NONE`): the train must last half the minimum RTT.
            let threshold = (a.delay_min_us.saturating_add(self.ack_delay_us(a))) >> 1;
            if now_us.saturating_sub(self.round_start_us) > threshold as u64 {
                self.found = true;
            }
        }
        // The delay increase, from the round's first 8 samples.
        if let Some(rtt) = a.rtt {
            self.curr_rtt_us = self.curr_rtt_us.min(delay_us(rtt));
            if self.sample_cnt < MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let margin = (a.delay_min_us >> 3).clamp(DELAY_MIN_US, DELAY_MAX_US);
                if self.curr_rtt_us > a.delay_min_us.saturating_add(margin) {
                    self.found = true;
                }
            }
        }
        self.found
    }

    /// Linux `hystart_ack_delay()`: the time to send four GSO packets at the pacing rate,
    /// at most 1 ms. Linux computes a pacing rate even when it does not pace
    /// (`tcp_update_pacing_rate()`): twice cwnd per smoothed RTT below half of ssthresh,
    /// 1.2 times above; before the first RTT measurement the rate is unlimited and the
    /// cushion 0.
    fn ack_delay_us(&self, a: &SlowStartAck) -> u32 {
        let Some(srtt) = a.srtt.filter(|s| s.as_nanos() > 0) else {
            return 0;
        };
        let percent: u64 = if a.cwnd < a.ssthresh / 2 { 200 } else { 120 };
        let window = a.cwnd.max(a.in_flight) as u64;
        // Bytes per second, as the kernel's integer arithmetic (srtt in µs).
        let srtt_us = (srtt.as_nanos() / 1_000).max(1);
        let rate = (self.mss as u128 * window as u128 * percent as u128 * 10_000) / srtt_us as u128;
        if rate == 0 {
            return 0;
        }
        ((GSO_MAX_BYTES as u128 * 4 * 1_000_000) / rate).min(1_000) as u32
    }
}

/// Where HyStart++ has the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Standard slow start, watching the delay.
    SlowStart,
    /// Conservative Slow Start since the RTT rose to `baseline`; `rounds_left` round ends
    /// until congestion avoidance.
    Css {
        baseline: SimDuration,
        rounds_left: u32,
    },
    /// Congestion avoidance reached, or a congestion event happened: HyStart++ is over.
    Done,
}

/// RFC 9406 HyStart++.
#[derive(Clone, Debug)]
pub(super) struct HystartPlusPlus {
    phase: Phase,
    /// `windowEnd`: the round ends when the cumulative ACK reaches it (`None` before the
    /// first ACK).
    window_end: Option<u32>,
    /// `lastRoundMinRTT` (`None` = infinity).
    last_round_min: Option<SimDuration>,
    /// `currentRoundMinRTT` (`None` = infinity).
    current_round_min: Option<SimDuration>,
    /// `rttSampleCount`.
    samples: u32,
    /// Segments acknowledged in CSS not yet turned into window (a quarter segment each).
    css_credit: u32,
}

impl Default for HystartPlusPlus {
    fn default() -> Self {
        HystartPlusPlus {
            phase: Phase::SlowStart,
            window_end: None,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            css_credit: 0,
        }
    }
}

impl HystartPlusPlus {
    /// RFC 9406 §4.2 for one ACK; true when CSS has run its rounds (enter congestion
    /// avoidance).
    fn on_ack(&mut self, a: &SlowStartAck) -> bool {
        if self.phase == Phase::Done {
            return false;
        }
        // A round ends when the data outstanding at its start is all acknowledged
        // ("windowEnd is ACKed"); the next one ends at what was sent by then (SND.NXT).
        if self.window_end.is_none_or(|end| a.ack >= end) {
            if let Phase::Css { rounds_left, .. } = &mut self.phase {
                *rounds_left -= 1;
                if *rounds_left == 0 {
                    // "If CSS_ROUNDS rounds are complete, enter congestion avoidance by
                    // setting the ssthresh to the current cwnd."
                    self.phase = Phase::Done;
                    return true;
                }
            }
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            self.window_end = Some(a.snd_max);
        }
        if let Some(rtt) = a.rtt {
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        if self.samples < PP_N_RTT_SAMPLE {
            return false;
        }
        match (self.phase, self.current_round_min, self.last_round_min) {
            (Phase::SlowStart, Some(current), Some(last)) => {
                let thresh = SimDuration(last.as_nanos() / PP_MIN_RTT_DIVISOR)
                    .clamp(PP_MIN_RTT_THRESH, PP_MAX_RTT_THRESH);
                if current >= last + thresh {
                    self.phase = Phase::Css {
                        baseline: current,
                        // The round CSS began in counts as its first.
                        rounds_left: PP_CSS_ROUNDS,
                    };
                    self.css_credit = 0;
                }
            }
            (Phase::Css { baseline, .. }, Some(current), _) if current < baseline => {
                // The exit was spurious: resume slow start.
                self.phase = Phase::SlowStart;
            }
            _ => {}
        }
        false
    }

    /// `cwnd += min(N, L * SMSS)` in slow start, a quarter of that in CSS (whole segments,
    /// the quarters carried over).
    fn credit(&mut self, acked: u32) -> u32 {
        match self.phase {
            Phase::SlowStart => acked.min(PP_L),
            Phase::Css { .. } => {
                self.css_credit += acked.min(PP_L);
                let add = self.css_credit / PP_CSS_GROWTH_DIVISOR;
                self.css_credit %= PP_CSS_GROWTH_DIVISOR;
                add
            }
            // Standard slow start after HyStart++ (RFC 9406 §4.3).
            Phase::Done => acked,
        }
    }
}

/// Linux `tcp_mstamp`: the time in µs.
fn micros(t: SimTime) -> u64 {
    t.as_nanos() / 1_000
}

/// An RTT sample in µs as Linux's `rtt_us`, at least 1 (`if (delay == 0) delay = 1`).
pub(super) fn delay_us(rtt: SimDuration) -> u32 {
    (rtt.as_nanos() / 1_000).clamp(1, u32::MAX as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> SimTime {
        SimTime(n * 1_000)
    }

    fn ack(now: SimTime, ack: u32, snd_max: u32, rtt_ms: Option<u64>, cwnd: u32) -> SlowStartAck {
        SlowStartAck {
            now,
            ack,
            snd_max,
            rtt: rtt_ms.map(SimDuration::from_millis),
            srtt: None,
            in_flight: 0,
            cwnd,
            ssthresh: u32::MAX,
            delay_min_us: 100_000,
        }
    }

    #[test]
    fn the_ack_train_ends_slow_start_after_half_the_minimum_rtt() {
        let mut h = LinuxHystart::new(1000);
        // ACKs 1 ms apart (a 12 Mb/s bottleneck), minimum RTT 100 ms.
        assert!(
            !h.on_ack(&ack(us(0), 1, 200, None, 32)),
            "first ACK starts the round"
        );
        let mut t = 0;
        let mut seg = 1;
        while !h.found {
            t += 1_000;
            seg += 1;
            h.on_ack(&ack(us(t), seg, 64, None, 32));
        }
        // Found at the first ACK more than 50 ms after the round began.
        assert_eq!(t, 51_000);
    }

    #[test]
    fn a_gap_between_acks_breaks_the_train() {
        let mut h = LinuxHystart::new(1000);
        h.on_ack(&ack(us(0), 1, 32, None, 32));
        // 3 ms apart: never a train.
        for i in 1..100 {
            assert!(!h.on_ack(&ack(us(i * 3_000), 1 + i as u32, 64, None, 32)));
        }
    }

    #[test]
    fn hystart_waits_for_a_window_of_16() {
        let mut h = LinuxHystart::new(1000);
        for i in 0..200 {
            assert!(!h.on_ack(&ack(us(i * 500), 1 + i as u32, 400, None, 15)));
        }
    }

    #[test]
    fn rounds_are_counted_below_the_low_window_so_that_each_begins_with_a_flight() {
        // Slow start from 10 segments over a 100 ms path whose bottleneck serialises a
        // segment in 1 ms; every segment is ACKed at once and the window grows by one per
        // ACK. Flight k is sent within 1 ms of the first ACK of flight k - 1 and its ACKs
        // come back 1 ms apart one minimum RTT later, the j-th after j ms of queue: RTT
        // 100 + j ms. A round that begins with a flight's first ACK sees a smallest RTT of
        // about 100 ms: the delay test never fires, the ACK train ends slow start once a
        // flight's ACKs last 50 ms, in the flight of 80 segments, at a window near 131.
        let mut h = LinuxHystart::new(1000);
        let (mut cwnd, mut sent) = (10u32, 10u32);
        let mut start = 0u64; // µs: when the current flight's first ACK arrives
        let mut acked = 0u32;
        let mut exit = None;
        'flights: for _ in 0..10 {
            let flight = cwnd; // ACKs of the flight sent one round ago
            for j in 0..flight {
                let now = start + 1_000 * j as u64;
                acked += 1;
                // HyStart runs before the ACK's new segments go out (`pkts_acked` before
                // `cong_avoid`): `snd_nxt` is what was sent before it.
                if h.on_ack(&ack(us(now), acked, sent, Some(100 + j as u64), cwnd)) {
                    exit = Some(cwnd);
                    break 'flights;
                }
                cwnd += 1;
                sent += 2; // each ACK releases two segments
            }
            start += 100_000 + 1_000 * flight as u64;
        }
        // The train (not the delay test) ended slow start, at the 52nd ACK of the flight of
        // 80 segments (51 ms after its first). With rounds counted from the 16-segment window
        // on (Linux 5.16-6.12) the first round began with the 7th ACK of the first flight and
        // each later one twice as far into its flight; a round's first RTT samples carried
        // that much queue, and the delay test ended slow start a flight early, at 72.
        assert_eq!(exit, Some(80 + 51));
    }

    #[test]
    fn a_delay_increase_ends_slow_start_after_eight_samples() {
        let mut h = LinuxHystart::new(1000);
        // ACKs 5 ms apart (no train); RTT 113 ms against a minimum of 100: above
        // 100 + max(100/8, 4) = 112.5 ms.
        let mut found_at = None;
        for i in 0..20u32 {
            if h.on_ack(&ack(us(i as u64 * 5_000), 1 + i, 100, Some(113), 32)) {
                found_at.get_or_insert(i);
            }
        }
        // Samples 1..8 fill the round's minimum; the 9th ACK tests it.
        assert_eq!(found_at, Some(8));
        // 112 ms stays below the threshold.
        let mut h = LinuxHystart::new(1000);
        for i in 0..20u32 {
            assert!(!h.on_ack(&ack(us(i as u64 * 5_000), 1 + i, 100, Some(112), 32)));
        }
    }

    #[test]
    fn the_pacing_cushion_is_at_most_a_millisecond() {
        let h = LinuxHystart::new(1448);
        let mut a = ack(us(0), 1, 1, None, 100);
        assert_eq!(h.ack_delay_us(&a), 0, "no srtt yet: unlimited rate");
        a.srtt = Some(SimDuration::from_millis(100));
        // 2 * 100 * 1448 B / 0.1 s = 2.9 MB/s: four 64 KiB take 90 ms, capped to 1 ms.
        assert_eq!(h.ack_delay_us(&a), 1_000);
        a.cwnd = 100_000;
        // 2.9 GB/s: 262144 B take 90 µs.
        assert_eq!(h.ack_delay_us(&a), 90);
        a.cwnd = u32::MAX;
        assert_eq!(h.ack_delay_us(&a), 0, "no overflow");
    }

    fn pp_round(h: &mut HystartPlusPlus, first: u32, rtt_ms: u64) -> bool {
        // One round of 8 ACKs with `rtt_ms`: the round's segments are first..first+8.
        let mut exit = false;
        for i in 0..8 {
            let a = ack(SimTime::ZERO, first + i + 1, first + 16, Some(rtt_ms), 32);
            exit |= h.on_ack(&a);
        }
        exit
    }

    #[test]
    fn hystart_plus_plus_enters_css_on_a_delay_increase_and_leaves_after_five_rounds() {
        let mut h = HystartPlusPlus::default();
        // Rounds end when the ACK reaches the previous round's snd_max (first + 16).
        assert!(!pp_round(&mut h, 0, 100));
        assert_eq!(h.phase, Phase::SlowStart);
        // +12 ms: the threshold is clamp(100/8, 4, 16) = 12.5 ms.
        assert!(!pp_round(&mut h, 16, 112));
        assert_eq!(h.phase, Phase::SlowStart);
        // +18 ms over 112: above clamp(112/8, 4, 16) = 14 ms.
        assert!(!pp_round(&mut h, 32, 130));
        assert!(
            matches!(h.phase, Phase::Css { rounds_left: 5, .. }),
            "{:?}",
            h.phase
        );
        assert_eq!(h.credit(2), 0);
        assert_eq!(h.credit(2), 1, "a quarter of slow start's growth");
        // Four more rounds in CSS; the fifth round end enters congestion avoidance.
        for r in 0..4 {
            assert!(!pp_round(&mut h, 48 + 16 * r, 130));
        }
        assert!(pp_round(&mut h, 112, 130));
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(h.credit(20), 20, "standard slow start afterwards");
    }

    #[test]
    fn hystart_plus_plus_resumes_slow_start_when_the_rtt_falls_back() {
        let mut h = HystartPlusPlus::default();
        pp_round(&mut h, 0, 100);
        pp_round(&mut h, 16, 120);
        assert!(matches!(h.phase, Phase::Css { .. }));
        pp_round(&mut h, 32, 110);
        assert_eq!(
            h.phase,
            Phase::SlowStart,
            "below the CSS baseline of 120 ms"
        );
    }

    #[test]
    fn hystart_plus_plus_needs_eight_samples_a_round() {
        let mut h = HystartPlusPlus::default();
        // One sample per round (one timed segment per RTT): never leaves slow start.
        for r in 0..20u32 {
            let a = ack(
                SimTime::ZERO,
                16 * r + 1,
                16 * r + 16,
                Some(100 + 20 * r as u64),
                32,
            );
            assert!(!h.on_ack(&a));
        }
        assert_eq!(h.phase, Phase::SlowStart);
    }

    #[test]
    fn hystart_plus_plus_caps_slow_start_at_l_segments_an_ack() {
        let mut h = HystartPlusPlus::default();
        assert_eq!(h.credit(20), 8);
        assert_eq!(h.credit(2), 2);
    }
}
