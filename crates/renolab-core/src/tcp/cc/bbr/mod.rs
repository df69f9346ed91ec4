//! BBR v1 as the Linux kernel runs it (`net/ipv4/tcp_bbr.c`, Linux 5.x/6.x; Cardwell et al.,
//! "BBR: Congestion-Based Congestion Control", ACM Queue 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00).
//!
//! BBR models the path instead of reacting to loss. On every ACK it updates
//! - `btl_bw`, the largest delivery rate sampled over the last 10 round trips (`model.rs`),
//!   from the rate samples of [`crate::tcp::rate`], and
//! - `min_rtt`, the smallest RTT of the last 10 seconds,
//!
//! then paces at `pacing_gain x btl_bw` (1 % below it) and caps the flight at
//! `cwnd_gain x btl_bw x min_rtt` plus allowances for ACK aggregation and segmentation
//! offload. The gains come from a state machine: Startup (2/ln 2, doubling the rate per
//! round) until three rounds pass without 25 % more bandwidth; Drain (ln 2 / 2) until the
//! flight is back to one BDP; ProbeBW, an eight-phase cycle of pacing gains (1.25, 0.75, six
//! of 1.0) starting at a random phase; ProbeRTT (cwnd 4 for 200 ms and a round trip) when
//! the min-RTT estimate is 10 s old. A long-term sampler (`long_term.rs`) detects token-bucket
//! policers and then paces at the policed rate.
//!
//! The arithmetic is the kernel's: gains in 1/256 (`BBR_UNIT`), bandwidth in segments per
//! microsecond times 2^24 (`BW_UNIT`), times in microseconds where the kernel's are, so that
//! the windows and rates are the kernel's to the segment and the byte per second.
//!
//! BBR replaces both Linux's window growth and PRR's reduction (its `cong_control` hook):
//! it runs only with Linux's loss recovery (`recovery = "prr"`), which calls
//! [`CongestionControl::cong_control`] on every ACK with the connection's counters.
//!
//! Deviations, with why:
//! - Stamps are exact nanoseconds, not jiffies: the 10 s and 200 ms timers end up to one
//!   jiffy earlier than a kernel's.
//! - `rs->is_ack_delayed` (a delayed ACK of a lone runt segment) is never set: renolab's
//!   segments are full-sized but for a transfer's last.
//! - A retransmission timeout takes the loss count of the last ACK: the long-term sampler
//!   counts the segments the timeout marks lost at the next ACK, not at the timeout.
//! - Segmentation offload is not simulated (each segment is paced alone), but the window
//!   keeps the kernel's allowance for it (`bbr_quantization_budget()`), which sets how much
//!   BBR queues when its window limits it.

pub(super) mod arith;
mod config;
mod long_term;
mod model;
#[cfg(test)]
mod tests;

pub use config::{gain_units, gain_value, BbrConfig, BBR_SCALE, BBR_UNIT, BW_SCALE, BW_UNIT};

use super::{AckSample, CaState, CcEvent, Congestion, CongestionControl, Control};
use crate::rng::RngStream;
use crate::tcp::gso::GSO_MAX_BYTES;
use crate::tcp::minmax::{Keep, MinMax};
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;
pub(super) use config::TRACE;
use config::{CYCLE_LEN, PACING_GAIN_CYCLE, TCP_INIT_CWND};
use long_term::LongTerm;

/// BBR's modes (Linux `enum bbr_mode`); the codes are those of the `cc` trace's `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// Ramp up the sending rate quickly to fill the pipe.
    Startup = 0,
    /// Drain the queue Startup made.
    Drain = 1,
    /// Discover and share bandwidth: pace around the estimate.
    ProbeBw = 2,
    /// Cut the flight to the minimum to measure the path's RTT.
    ProbeRtt = 3,
}

/// BBR's state (Linux `struct bbr`, and the `tcp_sock` fields it owns: `snd_cwnd`,
/// `snd_ssthresh`, `sk_pacing_rate`).
#[derive(Clone, Debug)]
pub struct Bbr {
    config: BbrConfig,
    /// Payload bytes per segment (Linux `mss_cache`).
    mss: u32,
    /// Header bytes per segment on the wire.
    header_bytes: u32,
    /// The window, segments (Linux `snd_cwnd`).
    cwnd: u32,
    /// Linux `snd_ssthresh`: infinite until Drain sets it to the estimated BDP.
    ssthresh: u32,
    /// The pacing rate, payload bytes per second (`sk_pacing_rate`).
    pacing_rate: u64,
    mode: Mode,
    /// Max recent delivery rate, `BW_UNIT`s, over `bw_rtts` rounds (`bbr->bw`).
    bw: MinMax,
    /// Min RTT of the `min_rtt_win_sec` window, microseconds (`u32::MAX`: none yet).
    min_rtt_us: u32,
    /// When `min_rtt_us` was measured (or ProbeRTT last ended).
    min_rtt_stamp: SimTime,
    /// When ProbeRTT may end, once its flight is down (`probe_rtt_done_stamp`).
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// Packet-timed rounds so far (`rtt_cnt`).
    rtt_cnt: u64,
    /// The round ends when a segment sent after this many were delivered is delivered.
    next_rtt_delivered: u64,
    /// When the current gain-cycle phase began (`cycle_mstamp`).
    cycle_stamp: SimTime,
    cycle_idx: usize,
    /// The congestion state on the previous ACK (`prev_ca_state`).
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    /// The bandwidth that last grew by `full_bw_thresh` (`full_bw`).
    full_bw: u64,
    has_seen_rtt: bool,
    /// The last good window, restored after recovery and ProbeRTT (`prior_cwnd`).
    prior_cwnd: u32,
    long_term: LongTerm,
    /// ACK aggregation: start of the sampling epoch, segments (S)ACKed in it, and the max
    /// excess over two windows of `extra_acked_win_rtts` rounds.
    ack_epoch_stamp: SimTime,
    ack_epoch_acked: u32,
    extra_acked: [u32; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// ProbeRTT asked, on the last ACK, that rate samples be application-limited.
    marked_app_limited: bool,
    /// The last valid delivery-rate sample, `BW_UNIT`s (for the `cc` trace).
    last_sample: Option<u64>,
    /// The connection's counters as of the last ACK (for the events between ACKs).
    conn: super::ConnState,
    /// The SYN was acknowledged: Linux counts it in `tp->delivered`, renolab's counters do
    /// not.
    syn_delivered: bool,
    /// Linux `sk_pacing_shift` (option `pacing_shift`): TSO autosizing aims at 2^-shift s
    /// (about 1 ms) of data per burst.
    pacing_shift: u32,
    /// The flow's random stream (ProbeBW's starting phase).
    rng: RngStream,
}

impl Bbr {
    /// A BBR sender with an initial window of `initial_window` segments of `mss` payload
    /// bytes plus `header_bytes`, drawing ProbeBW's random phases from `rng`. Until the
    /// SYN-ACK gives an RTT it paces at `high_gain x initial_window` per nominal 1 ms
    /// (`bbr_init()`).
    pub fn new(
        config: BbrConfig,
        initial_window: u32,
        mss: u32,
        header_bytes: u32,
        rng: RngStream,
    ) -> Self {
        let mut bw = MinMax::new(Keep::Max);
        bw.reset(0, 0);
        let mut b = Bbr {
            config,
            mss: mss.max(1),
            header_bytes,
            cwnd: initial_window.max(1),
            ssthresh: u32::MAX,
            pacing_rate: 0,
            mode: Mode::Startup,
            bw,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_stamp: SimTime::ZERO,
            cycle_idx: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            pacing_gain: config.high_gain,
            cwnd_gain: config.high_gain,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            long_term: LongTerm::default(),
            ack_epoch_stamp: SimTime::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            marked_app_limited: false,
            last_sample: None,
            conn: super::ConnState::default(),
            syn_delivered: false,
            pacing_shift: crate::tcp::gso::DEFAULT_PACING_SHIFT,
            rng,
        };
        b.init_pacing_rate_from_rtt(None);
        b
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bandwidth estimate (`bbr_bw()`: the long-term rate while policed, else the
    /// windowed max), `BW_UNIT`s.
    pub fn bw(&self) -> u64 {
        if self.long_term.use_bw {
            self.long_term.bw
        } else {
            self.max_bw()
        }
    }

    fn max_bw(&self) -> u64 {
        self.bw.get().unwrap_or(0)
    }

    /// The min-RTT estimate, if BBR has one.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        (self.min_rtt_us != u32::MAX).then(|| SimDuration::from_micros(self.min_rtt_us as u64))
    }

    /// The pacing rate, payload bytes per second (Linux `sk_pacing_rate`).
    pub fn pacing_rate_bytes(&self) -> u64 {
        self.pacing_rate
    }

    /// The current pacing and cwnd gains, 1/256 units.
    pub fn gains(&self) -> (u32, u32) {
        (self.pacing_gain, self.cwnd_gain)
    }

    /// `BW_UNIT`s as payload bits per second.
    fn bw_bps(&self, bw: u64) -> f64 {
        arith::bw_bps(bw, self.mss)
    }

    // ----- pacing -------------------------------------------------------------------------

    /// Linux `bbr_rate_bytes_per_sec()` at the pacing margin.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        arith::rate_bytes_per_sec(rate, self.mss, gain, self.config.pacing_margin_percent)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt()`: `high_gain x cwnd / srtt` (a nominal 1 ms
    /// before any RTT sample).
    fn init_pacing_rate_from_rtt(&mut self, srtt: Option<SimDuration>) {
        let rtt_us = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                (s.as_nanos() / 1000).max(1)
            }
            None => 1000,
        };
        let bw = self.cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, self.config.high_gain);
    }

    /// Linux `bbr_set_pacing_rate()`: before the pipe is full, the rate only grows.
    fn set_pacing_rate(&mut self, bw: u64, gain: u32, srtt: Option<SimDuration>) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// The host's `sk_pacing_shift` (option `pacing_shift`, default 10).
    pub fn with_pacing_shift(mut self, shift: u32) -> Self {
        self.pacing_shift = shift;
        self
    }

    /// Linux `bbr_min_tso_segs()`: one segment per TSO burst below 1.2 Mb/s, else two.
    fn min_segs(&self) -> u32 {
        arith::min_tso_segs(self.pacing_rate)
    }

    /// Linux `bbr_tso_segs_goal()`: segments per TSO burst at the current pacing rate.
    fn tso_segs_goal(&self) -> u32 {
        let min_segs = self.min_segs();
        let bytes = (self.pacing_rate >> self.pacing_shift).min(GSO_MAX_BYTES);
        ((bytes / self.mss as u64) as u32).max(min_segs).min(0x7f)
    }

    // ----- window -------------------------------------------------------------------------

    /// Linux `bbr_bdp()`: `ceil(bw x min_rtt x gain)`, segments (the initial window before
    /// any RTT sample).
    fn bdp(&self, bw: u64, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        arith::bdp(bw, self.min_rtt_us, gain)
    }

    /// Linux `bbr_quantization_budget()`: room for three TSO bursts, rounded up to even,
    /// and two more segments in ProbeBW's probing phase.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.saturating_add(3 * self.tso_segs_goal());
        cwnd = cwnd.saturating_add(1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd = cwnd.saturating_add(2);
        }
        cwnd
    }

    /// Linux `bbr_inflight()`: the flight BBR aims at for `bw` and `gain`.
    fn inflight(&self, bw: u64, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Linux `bbr_packets_in_net_at_edt()`: of `inflight_now`, what will still be in the
    /// network when the next segment may leave (its earliest departure time, EDT).
    fn packets_in_net_at_edt(&self, now: SimTime, inflight_now: u32) -> u32 {
        let edt = self.conn.next_send.max(now);
        let interval_us = edt.saturating_since(now).as_nanos() / 1000;
        let interval_delivered = arith::delivered_in(self.bw(), interval_us);
        let mut at_edt = inflight_now as u64;
        if self.pacing_gain > BBR_UNIT {
            at_edt += self.tso_segs_goal() as u64; // the segment leaving at the EDT
        }
        at_edt.saturating_sub(interval_delivered) as u32
    }

    /// Linux `bbr_ack_aggregation_cwnd()`: the window added for ACK aggregation.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if self.config.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = self.bw() as u128 * self.config.extra_acked_max_us as u128 / BW_UNIT as u128;
        let extra = self.extra_acked[0].max(self.extra_acked[1]) as u128;
        let aggr = (self.config.extra_acked_gain as u128 * extra) >> BBR_SCALE;
        aggr.min(max_aggr) as u32
    }

    /// Linux `bbr_save_cwnd()`: remember the last good window before recovery or ProbeRTT
    /// cut it.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore()`: packet conservation in the first round
    /// of recovery, the saved window back when it ends. Returns the window, and whether
    /// conservation decides it.
    fn recover_or_restore(&mut self, sample: &AckSample, acked: u32) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, sample.conn.ca_state);
        let mut cwnd = self.cwnd;
        // An ACK for P segments releases at most 2P: first take the losses off, then
        // bbr_set_cwnd() slow-starts towards the target.
        if sample.conn.newly_lost > 0 {
            cwnd = (cwnd as i64 - sample.conn.newly_lost as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // The first round of recovery: packet conservation, starting a round now.
            self.packet_conservation = true;
            self.next_rtt_delivered = sample.conn.delivered;
            cwnd = sample.in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            // Recovery is over: restore the window it began with.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(sample.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// Linux's `tp->delivered`, which counts an acknowledged SYN.
    fn delivered_with_syn(&self, sample: &AckSample) -> u64 {
        sample.conn.delivered + self.syn_delivered as u64
    }

    /// Linux `bbr_set_cwnd()`: slow-start towards `cwnd_gain x BDP` (plus allowances) when
    /// below it, snap down to it once the pipe was full.
    fn set_cwnd(&mut self, sample: &AckSample, acked: u32, bw: u64, gain: u32) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let (recovered, conserving) = self.recover_or_restore(sample, acked);
            cwnd = recovered;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target = target.saturating_add(self.ack_aggregation_cwnd());
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = cwnd.saturating_add(acked).min(target);
                } else if cwnd < target || self.delivered_with_syn(sample) < TCP_INIT_CWND as u64 {
                    cwnd = cwnd.saturating_add(acked);
                }
                cwnd = cwnd.max(self.config.cwnd_min_target);
            }
        }
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            // Drain the queue and measure the path's RTT.
            self.cwnd = self.cwnd.min(self.config.cwnd_min_target);
        }
    }

    // ----- modes --------------------------------------------------------------------------

    /// Linux `bbr_reset_probe_bw_mode()`: ProbeBW from a random phase other than the
    /// draining one (`CYCLE_LEN - 1 - random(cycle_rand)`, then one step on).
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        let draw = ((self.config.cycle_rand as u128 * self.rng.next_u64() as u128) >> 64) as usize;
        self.cycle_idx = (CYCLE_LEN - 1).wrapping_sub(draw) % CYCLE_LEN;
        self.advance_cycle_phase();
    }

    /// Linux `bbr_reset_mode()`: back to Startup unless the pipe was found full.
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Linux `bbr_advance_cycle_phase()`.
    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = self.conn.delivered_time;
    }

    /// Linux `bbr_check_probe_rtt_done()`: ProbeRTT's time is up: restore the window and
    /// go back to Startup or ProbeBW.
    fn check_probe_rtt_done(&mut self, now: SimTime) {
        match self.probe_rtt_done {
            Some(done) if now > done => {}
            _ => return,
        }
        self.min_rtt_stamp = now; // wait a while until the next ProbeRTT
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// Linux `bbr_update_gains()`.
    fn update_gains(&mut self) {
        let c = &self.config;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (c.high_gain, c.high_gain),
            Mode::Drain => (c.drain_gain, c.high_gain),
            Mode::ProbeBw if self.long_term.use_bw => (BBR_UNIT, c.cwnd_gain),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], c.cwnd_gain),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// Linux `bbr_init()` once the connection is open: the SYN's RTT is the first min RTT
    /// and sets the first pacing rate.
    fn init_from_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.min_rtt_us = (rtt.as_nanos() / 1000).min(u32::MAX as u64 - 1) as u32;
        self.min_rtt_stamp = now;
        self.ack_epoch_stamp = now;
        self.init_pacing_rate_from_rtt(Some(rtt));
    }
}

impl CongestionControl for Bbr {
    fn cwnd(&self) -> Window {
        Window::segments(self.cwnd)
    }

    fn ssthresh(&self) -> Window {
        Window::segments(self.ssthresh)
    }

    /// The pacing rate in bits per second of wire bytes ([`arith::wire_pacing_rate`]).
    fn pacing_rate(&self) -> Option<BitsPerSec> {
        Some(arith::wire_pacing_rate(
            self.pacing_rate,
            self.mss,
            self.header_bytes,
        ))
    }

    /// Linux `bbr_min_tso_segs()` (BBR's `min_tso_segs` hook): the sender's GSO buffers.
    fn min_tso_segs(&self) -> Option<u32> {
        Some(self.min_segs())
    }

    fn set_cwnd(&mut self, cwnd: Window) {
        self.cwnd = cwnd.whole();
    }

    fn set_ssthresh(&mut self, ssthresh: Window) {
        self.ssthresh = ssthresh.whole();
    }

    /// Not called: BBR's window moves in [`CongestionControl::cong_control`].
    fn on_ack(&mut self, _sample: &AckSample) {}

    /// Linux `bbr_ssthresh()` (entering recovery or a timeout: save the window, leave
    /// ssthresh), and for a timeout `bbr_set_state(TCP_CA_Loss)`: the round ends, the
    /// full-pipe search restarts, and the long-term sampler counts a loss.
    fn on_congestion(&mut self, _now: SimTime, event: Congestion, _window: Window) {
        self.save_cwnd();
        if event == Congestion::Timeout {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_sampling(1, false);
        }
    }

    /// Linux `bbr_undo_cwnd()`: a spurious slow-down: search for the full pipe again; the
    /// window stays.
    fn undo_cwnd(&mut self, _now: SimTime) -> Window {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_sampling();
        self.cwnd()
    }

    fn on_event(&mut self, now: SimTime, event: CcEvent) {
        match event {
            CcEvent::TxStart { .. } => self.on_tx_start(now),
            CcEvent::SynAck { rtt } => {
                self.syn_delivered = true;
                self.init_from_rtt(now, rtt);
            }
            _ => {}
        }
    }

    /// Linux `bbr_main()`: update the model, then the pacing rate and the window.
    fn cong_control(&mut self, sample: &AckSample) -> Control {
        self.conn = sample.conn;
        self.marked_app_limited = false;
        self.update_model(sample);
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, sample.srtt);
        self.set_cwnd(sample, sample.conn.newly_delivered, bw, self.cwnd_gain);
        Control {
            app_limited: self.marked_app_limited,
        }
    }

    /// BBR's state once it has an RTT sample (before, its pacing rate is a nominal
    /// placeholder it never paces at), in the order of its declared trace fields.
    fn trace(&self, values: &mut [f64]) {
        if !self.has_seen_rtt {
            return;
        }
        values[0] = self.mode as u8 as f64;
        values[1] = self.bw_bps(self.bw());
        values[2] = self.min_rtt().map_or(f64::NAN, |d| d.as_nanos() as f64);
        values[3] = gain_value(self.pacing_gain);
        values[4] = gain_value(self.cwnd_gain);
        values[5] = self.pacing_rate as f64 * 8.0;
        values[6] = self.last_sample.map_or(f64::NAN, |bw| self.bw_bps(bw));
    }
}

impl Bbr {
    /// Linux `bbr_cwnd_event(CA_EVENT_TX_START)` for an application-limited connection
    /// (renolab's senders restart only after the application ran dry): a new ACK epoch,
    /// and in ProbeBW pacing at the estimate, as there is no need for more speed.
    fn on_tx_start(&mut self, now: SimTime) {
        self.idle_restart = true;
        self.ack_epoch_stamp = now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(self.bw(), BBR_UNIT, None),
            Mode::ProbeRtt => self.check_probe_rtt_done(now),
            _ => {}
        }
    }
}
