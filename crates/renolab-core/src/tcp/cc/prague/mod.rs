//! TCP Prague, the L4S scalable congestion control (RFC 9331 Appendix A), as the L4S team's
//! `net/ipv4/tcp_prague.c` (L4STeam/linux, v0.7) computes it, with the RTT-scaling
//! heuristics and the classic-ECN bottleneck detection of its v0.6.
//!
//! Prague is DCTCP made safe for the Internet:
//!
//! - **ECN**: its packets carry ECT(1), the L4S identifier; it needs Accurate ECN (RFC 9768)
//!   to count the CE-marked segments each ACK reports (`rs->ece_delta`). The kernel falls
//!   back to Reno (`prague_reno`) when AccECN was not negotiated; renolab's scenarios
//!   always negotiate it (a flow's two ends share its options), so that is not modelled.
//! - **Alpha**, the fraction of marked segments, is DCTCP's EWMA with gain g = 1/16
//!   (`PRAGUE_SHIFT_G`), kept upscaled by 1/g in 24 fractional bits
//!   (`prague_update_alpha()`), updated once per round trip, or once per target RTT when
//!   the flow is RTT-independent. Alpha starts at 0, and the first mark halves the window
//!   (`prague_alpha_mode` = 0).
//! - **Per-RTT reduction**: entering CWR (once per round trip with ECE, the stack's rule)
//!   takes alpha/2 of the window off (`prague_enter_cwr()`), rounded without bias; a loss
//!   halves it (`prague_enter_loss()`).
//! - **Fractional window**: the window is `frac_cwnd`, segments with 20 fractional bits
//!   (`CWND_UNIT`). Every ACK adds the classic 1/W per segment it newly delivers *unmarked*
//!   (`acked − ece_delta`), scaled for RTT independence (`ai_ack_increase`), so the growth
//!   per round trip is proportional to (1 − p)/p (`prague_update_cwnd()`). The socket's
//!   window follows it one segment per ACK, rounded up, at least 2.
//! - **Pacing** at 100 % of the fractional window per smoothed RTT in congestion avoidance,
//!   200 % in slow start below half ssthresh (`prague_update_pacing_rate()` as in the
//!   L4STeam tree's v0.6: the window, not its maximum with the flight), in GSO bursts.
//! - **RTT independence**: after `rtt_transition` rounds out of slow start, a flow with an
//!   RTT below `rtt_target` (25 ms) grows as a flow at the target RTT would
//!   (`prague_rate_scaled_ai_ack_increase()`: the increase scales by (RTT/target)²) and
//!   reduces and updates alpha at most once per target RTT. v0.6's other heuristics are
//!   options: none, `scalable` (at least a mark every ~8 RTTs at very low RTTs), `additive`
//!   (as if the path had `rtt_target` more RTT).
//! - **Classic-ECN bottleneck fallback** (v0.6, `prague_ecn_fallback`, off by default as
//!   there): an estimate of whether the marks come from a classic (RFC 3168) AQM, from the
//!   RTT's variation and the queueing delay (`prague_classic_ecn_detection()`); when it
//!   says classic, alpha is kept at least ~0.6 of it, so Prague reduces as a classic flow.
//!
//! Everything is integer arithmetic in the kernel's units (µs, the kernel's scaled srtt
//! `srtt_us << 3`, segments), so that runs are bit-identical and the tests can check the
//! kernel's numbers.
//!
//! Left out: the rate-based window mode that v0.7 switches to below 4 MTU of window
//! (`prague_cwnd_mode`), with the MTU reduction below 2 MTU of virtual window and the ±3 %
//! pacing variation that belong to it (renolab's segments have a fixed size); GSO burst
//! sizing beyond its number of segments: a burst of `tso_segs()` segments leaves back to
//! back per pacing release (`prague_tso_segs()`), at least Linux's `tcp_min_tso_segs` (2),
//! which is what lets a paced flow fill its window and grow.

/// `CWND_UNIT`: the fractional window's fixed point, 20 bits.
pub const CWND_UNIT: u32 = 20;
/// `ONE_CWND`: one segment in the fractional window.
pub const ONE_CWND: u64 = 1 << CWND_UNIT;
/// `PRAGUE_ALPHA_BITS`: alpha's fixed point, 24 bits (v0.7; v0.6 had 20).
pub const ALPHA_BITS: u32 = 24;
/// `PRAGUE_MAX_ALPHA`: alpha = 1.
pub const MAX_ALPHA: u64 = 1 << ALPHA_BITS;
/// `PRAGUE_SHIFT_G`: the EWMA gain g = 1/16.
pub const SHIFT_G: u32 = 4;
/// `MIN_CWND_RTT`: the socket's window is at least 2 segments.
pub const MIN_CWND: u32 = 2;
/// `MTU_SYS`: the MTU the additive increase is normalised to.
const MTU_SYS: u64 = 1500;
/// `MINIMUM_RATE`: 100 kb/s, in bytes per second.
const MINIMUM_RATE: u64 = 12_500;
/// `MAX_SCALED_RTT`: no RTT scaling above 100 ms.
const MAX_SCALED_RTT_US: u64 = 100_000;
/// `HSRTT_SHIFT`: the long-term smoothed RTT's gain.
const HSRTT_SHIFT: u32 = 7;
/// `prague_burst_shift`: a GSO burst lasts at most 2^-12 s (~0.25 ms) at the pacing rate.
const BURST_SHIFT: u32 = 12;
/// Linux's `net.ipv4.tcp_min_tso_segs` default: a GSO buffer holds at least 2 segments.
const MIN_TSO_SEGS: u32 = 2;
/// `USEC_PER_SEC`.
const USEC_PER_SEC: u64 = 1_000_000;
/// Linux's `TCP_INFINITE_SSTHRESH`.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// How Prague makes itself RTT-independent (v0.6 `prague_rtt_scaling`, the `RTT_CONTROL_*`
/// heuristics; v0.7 keeps `rate` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttScaling {
    /// `RTT_CONTROL_NONE`: DCTCP's per-RTT behaviour at every RTT.
    None,
    /// `RTT_CONTROL_RATE` (default): below the target RTT, flows get the same throughput.
    Rate,
    /// `RTT_CONTROL_SCALABLE`: trades some rate balance at very low RTTs for a floor on the
    /// marks per RTT.
    Scalable,
    /// `RTT_CONTROL_ADDITIVE`: behaves as a flow with `rtt_target` more RTT.
    Additive,
}

impl RttScaling {
    /// The scenario's names, in declaration order.
    pub const NAMES: [&'static str; 4] = ["none", "rate", "scalable", "additive"];

    /// The heuristic named `name`.
    pub fn from_name(name: &str) -> Option<RttScaling> {
        match name {
            "none" => Some(RttScaling::None),
            "rate" => Some(RttScaling::Rate),
            "scalable" => Some(RttScaling::Scalable),
            "additive" => Some(RttScaling::Additive),
            _ => None,
        }
    }

    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Classic-ECN bottleneck detection (v0.6 `prague_ecn_fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnFallback {
    /// 0 (default): none.
    None,
    /// 1: detect a classic ECN AQM and fall back to a classic response.
    Fallback,
    /// 2: detect only (the estimate is kept, the response unchanged).
    Detect,
}

impl EcnFallback {
    /// The scenario's names.
    pub const NAMES: [&'static str; 3] = ["none", "fallback", "detect"];

    /// The mode named `name`.
    pub fn from_name(name: &str) -> Option<EcnFallback> {
        match name {
            "none" => Some(EcnFallback::None),
            "fallback" => Some(EcnFallback::Fallback),
            "detect" => Some(EcnFallback::Detect),
            _ => None,
        }
    }

    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// What `prague_cong_control()` reads on one ACK, in the kernel's units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PragueAck {
    /// `tp->tcp_mstamp`, µs.
    pub now_us: u64,
    /// `rs->acked_sacked`: segments this ACK newly delivered.
    pub acked_sacked: u32,
    /// `rs->ece_delta`: of them, those the receiver got CE-marked (AccECN).
    pub ece_delta: u32,
    /// `tcp_is_cwnd_limited()`.
    pub cwnd_limited: bool,
    /// `tp->srtt_us`: the smoothed RTT in 1/8 µs (0 before the first sample).
    pub srtt_us8: u64,
    /// `tp->snd_una`, `tp->snd_nxt`, in segments.
    pub snd_una: u32,
    /// One past the highest segment sent.
    pub snd_nxt: u32,
    /// `tp->delivered`, `tp->delivered_ce`: segments delivered so far, CE-marked ones.
    pub delivered: u64,
    /// Segments delivered CE-marked so far.
    pub delivered_ce: u64,
    /// `tcp_packets_in_flight()` after the ACK.
    pub in_flight: u32,
    /// `tcp_mss_to_mtu()`: a full segment's size on the wire, bytes.
    pub mtu: u32,
    /// The ACK's RTT sample (`ack_sample.rtt_us`), µs, for the classic-ECN detection.
    pub rtt_sample_us: Option<u64>,
    /// `tcp_min_rtt()`, µs.
    pub min_rtt_us: Option<u64>,
}

/// The congestion state the stack puts the connection in (`icsk_ca_state`), as far as
/// Prague's `set_state` hook distinguishes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PragueState {
    /// `TCP_CA_Open`.
    Open,
    /// `TCP_CA_CWR`: a reduction for ECE.
    Cwr,
    /// `TCP_CA_Recovery`: fast recovery of a loss.
    Recovery,
    /// `TCP_CA_Loss`: after an RTO (`CA_EVENT_LOSS`).
    Loss,
}

/// The v0.6 classic-ECN detection's state (`tp->classic_ecn` and Prague's own RTT filter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ClassicEcn {
    /// `tp->classic_ecn`: 0 ..= `C_STICKY`, in v0.6's 20-bit alpha scale.
    score: u64,
    srtt_pace_us: u64,
    mdev_pace_us: u64,
    g_srtt_shift: u32,
    g_mdev_shift: u32,
    rest_depth_us: u64,
    rest_mdev_us: u64,
}

/// v0.6's constants of the detection, in its 20-bit alpha scale (`PRAGUE_ALPHA_BITS` = 20
/// there).
mod classic {
    pub const ALPHA_BITS: u32 = 20;
    pub const MAX_ALPHA: u64 = 1 << ALPHA_BITS;
    /// Weights 1/2^V, 1/2^D.
    pub const V: u32 = 1;
    pub const D: u32 = 1;
    /// `L_STICKY`, `CLASSIC_ECN`, `C_STICKY`.
    pub const L_STICKY: u64 = 16 << (ALPHA_BITS - V);
    pub const CLASSIC_ECN: u64 = L_STICKY + MAX_ALPHA;
    pub const C_STICKY: u64 = CLASSIC_ECN + L_STICKY;
    /// `V0_LG`: the reference RTT variation, ~750 µs; `D0_LG`: the reference queue, ~2 ms.
    pub const V0_LG: u64 = 10_014_683 >> V;
    pub const D0_LG: u64 = 11_498_458 >> D;
    pub const MAX_SRTT_BITS: u32 = 18;
    pub const MAX_MDEV_BITS: u32 = MAX_SRTT_BITS + 1;
    pub const INIT_MDEV_CARRY: u64 = 741_455;
    pub const INIT_ADJ_US: u64 = 262_144;
}

/// TCP Prague's state: the socket's window and threshold it drives, and its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prague {
    config: PragueConfig,
    /// `tp->snd_cwnd`, `tp->snd_ssthresh`, segments.
    snd_cwnd: u32,
    snd_ssthresh: u32,
    /// `ca->frac_cwnd`: the window in 1/2^20 segments.
    frac_cwnd: u64,
    /// `ca->upscaled_alpha`: alpha / g, in 1/2^24.
    upscaled_alpha: u64,
    /// `ca->ai_ack_increase`: the increase per unmarked segment, in 1/2^20 (before 1/W).
    ai_ack_increase: u64,
    /// `ca->rate_bytes`: the pacing rate it derives, bytes per second.
    rate_bytes: u64,
    loss_rate_bytes: u64,
    loss_cwnd: u32,
    /// `ca->cwr_stamp`, `ca->alpha_stamp`: µs.
    cwr_stamp: u64,
    alpha_stamp: u64,
    /// `ca->hsrtt_us`: a slow average of srtt (upscaled by 2^7).
    hsrtt_us: u64,
    /// The round: starts when ACKs pass `next_seq`; its counters' values then.
    next_seq: u32,
    old_delivered: u64,
    old_delivered_ce: u64,
    /// Rounds since slow start ended.
    round: u32,
    /// A mark was seen: there is an AQM on the path (`saw_ce`).
    saw_ce: bool,
    /// In a reduction for loss: no increase until the state is open again.
    in_loss: bool,
    /// The state the stack last set.
    state: PragueState,
    classic: ClassicEcn,
    /// The pacing rate, bytes per second (`sk_pacing_rate`).
    pacing_rate: u64,
    /// A full segment on the wire, bytes (`tcp_mss_to_mtu()`).
    mtu: u32,
    /// The last ACK's view of the connection, for the hooks the stack calls between ACKs
    /// (`set_state` at a reduction).
    last: PragueAck,
}

impl Prague {
    /// `prague_init()` for a connection with `initial_window` segments and no RTT sample yet.
    pub fn new(config: PragueConfig, initial_window: u32) -> Self {
        let mut p = Prague {
            config,
            snd_cwnd: initial_window,
            snd_ssthresh: INFINITE_SSTHRESH,
            frac_cwnd: (initial_window as u64) << CWND_UNIT,
            upscaled_alpha: if config.alpha_mode & 1 == 0 {
                0
            } else {
                MAX_ALPHA << SHIFT_G
            },
            ai_ack_increase: ONE_CWND,
            rate_bytes: MINIMUM_RATE,
            loss_rate_bytes: 0,
            loss_cwnd: 0,
            cwr_stamp: 0,
            alpha_stamp: 0,
            // "Default as 1us"
            hsrtt_us: 1 << (HSRTT_SHIFT + 3),
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            round: 0,
            saw_ce: false,
            in_loss: false,
            state: PragueState::Open,
            classic: ClassicEcn {
                g_srtt_shift: classic::MAX_SRTT_BITS,
                g_mdev_shift: classic::MAX_MDEV_BITS,
                mdev_pace_us: 1 << classic::MAX_MDEV_BITS,
                rest_mdev_us: classic::INIT_MDEV_CARRY,
                rest_depth_us: classic::INIT_MDEV_CARRY >> 1,
                ..ClassicEcn::default()
            },
            pacing_rate: MINIMUM_RATE,
            mtu: MTU_SYS as u32,
            last: PragueAck {
                mtu: MTU_SYS as u32,
                ..PragueAck::default()
            },
        };
        p.new_round(&PragueAck::default());
        p
    }

    /// The configuration.
    pub fn config(&self) -> &PragueConfig {
        &self.config
    }
    /// The socket's window, segments.
    pub fn snd_cwnd(&self) -> u32 {
        self.snd_cwnd
    }
    /// The socket's slow-start threshold, segments.
    pub fn snd_ssthresh(&self) -> u32 {
        self.snd_ssthresh
    }
    /// The stack sets the window (an RTO's, or the loss recovery's).
    pub fn set_snd_cwnd(&mut self, cwnd: u32) {
        self.snd_cwnd = cwnd;
    }
    /// The stack sets the threshold (an undo's).
    pub fn set_snd_ssthresh(&mut self, ssthresh: u32) {
        self.snd_ssthresh = ssthresh;
    }
    /// The fractional window, in 1/2^20 segments.
    pub fn frac_cwnd(&self) -> u64 {
        self.frac_cwnd
    }
    /// Alpha in 1/2^24 (`upscaled_alpha >> PRAGUE_SHIFT_G`).
    pub fn alpha_fixed(&self) -> u64 {
        self.upscaled_alpha >> SHIFT_G
    }
    /// Alpha as a fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha_fixed() as f64 / MAX_ALPHA as f64
    }
    /// The pacing rate, bytes per second on the wire.
    pub fn pacing_rate_bytes(&self) -> u64 {
        self.pacing_rate
    }
    /// `prague_tso_segs()`: the segments of one GSO burst, the pacing rate's 2^-12 s worth
    /// (`max_tso_burst`), at least `tcp_min_tso_segs`.
    pub fn tso_segs(&self) -> u32 {
        let burst = (self.pacing_rate / self.mtu.max(1) as u64) >> BURST_SHIFT;
        (burst.max(1) as u32).max(MIN_TSO_SEGS)
    }

    /// An AQM marked this flow at least once.
    pub fn saw_ce(&self) -> bool {
        self.saw_ce
    }
    /// Rounds since slow start ended.
    pub fn round(&self) -> u32 {
        self.round
    }
    /// The classic-ECN detection's score (`tp->classic_ecn`, v0.6's 20-bit scale):
    /// above `L_STICKY` the bottleneck looks classic.
    pub fn classic_ecn(&self) -> u64 {
        self.classic.score
    }
    /// True when the classic-ECN detection says the bottleneck is classic.
    pub fn sees_classic_ecn(&self) -> bool {
        self.classic.score > classic::L_STICKY
    }

    fn in_slow_start(&self) -> bool {
        self.snd_cwnd < self.snd_ssthresh
    }

    /// `prague_is_rtt_indep()`
    fn is_rtt_indep(&self) -> bool {
        self.config.rtt_scaling != RttScaling::None
            && !self.in_slow_start()
            && self.round >= self.config.rtt_transition
    }

    /// `prague_target_rtt()` in µs: the target, plus the smoothed RTT for `additive`
    /// (`prague_dynamic_rtt_target()`).
    fn target_rtt_us(&self, srtt_us8: u64) -> u64 {
        match self.config.rtt_scaling {
            RttScaling::Additive => self.config.rtt_target_us + (srtt_us8 >> 3),
            _ => self.config.rtt_target_us,
        }
    }

    /// `prague_should_update_ewma()`: a round trip has elapsed, and, RTT-independent, a
    /// target RTT since the last update too.
    fn should_update_ewma(&self, a: &PragueAck) -> bool {
        a.snd_una >= self.next_seq
            && (!self.is_rtt_indep()
                || self.target_rtt_us(a.srtt_us8) <= a.now_us.saturating_sub(self.alpha_stamp))
    }

    /// `prague_ai_ack_increase()`: the classic 1/W per segment, scaled by the heuristic
    /// once the flow is past the transition with an RTT sample up to 100 ms.
    fn update_ai_ack_increase(&mut self, srtt_us8: u64) {
        self.ai_ack_increase = if self.config.rtt_scaling == RttScaling::None
            || self.round < self.config.rtt_transition
            || srtt_us8 == 0
            || srtt_us8 > MAX_SCALED_RTT_US << 3
        {
            ONE_CWND
        } else if self.config.rtt_scaling == RttScaling::Scalable {
            scalable_ai_ack_increase(srtt_us8)
        } else {
            rate_scaled_ai_ack_increase(srtt_us8, self.target_rtt_us(srtt_us8) << 3)
        };
    }

    /// `prague_frac_cwnd_to_snd_cwnd()`: rounded up, at least 2.
    fn frac_to_snd_cwnd(&self) -> u32 {
        let whole = (self.frac_cwnd + (ONE_CWND - 1)) >> CWND_UNIT;
        whole.max(MIN_CWND as u64).min(u32::MAX as u64) as u32
    }

    /// `prague_frac_cwnd_to_pacing_rate()`: a window per smoothed RTT, bytes/s.
    fn frac_to_pacing_rate(&self, a: &PragueAck) -> u64 {
        let mut rate = (USEC_PER_SEC << 3) * a.mtu as u64;
        // No RTT sample yet: the kernel leaves the rate undivided.
        rate = rate.checked_div(a.srtt_us8).unwrap_or(rate);
        (((rate as u128) * self.frac_cwnd as u128) >> CWND_UNIT).max(MINIMUM_RATE as u128) as u64
    }

    /// `prague_pacing_rate_to_frac_cwnd()`: the window the rate makes over the long-term
    /// smoothed RTT (an undo's).
    fn pacing_rate_to_frac_cwnd(&self, a: &PragueAck) -> u64 {
        let rtt = match self.hsrtt_us >> HSRTT_SHIFT {
            0 => a.srtt_us8,
            r => r,
        };
        // mul_u64_u64_shr(rate_bytes, rtt, RTT2SEC_SHIFT - CWND_UNIT), rounded up over mtu.
        let scaled = ((self.rate_bytes as u128 * rtt as u128) >> (23 - CWND_UNIT)) as u64;
        scaled.div_ceil(a.mtu.max(1) as u64)
    }

    /// `prague_cong_control()`: the window, alpha and the pacing rate after an ACK.
    pub fn on_prague_ack(&mut self, a: &PragueAck) {
        self.update_cwnd(a);
        if self.should_update_ewma(a) {
            self.update_alpha(a);
        }
        self.update_pacing_rate(a);
    }

    /// `prague_update_cwnd()` (the fractional-window mode).
    fn update_cwnd(&mut self, a: &PragueAck) {
        let mut acked = a.acked_sacked as i64;
        if a.ece_delta > 0 {
            if !self.saw_ce && self.config.alpha_mode & 1 == 0 {
                // "Half cwnd at 1st mark"
                self.frac_cwnd = (self.frac_cwnd + 1) >> 1;
            }
            self.saw_ce = true;
            acked -= a.ece_delta as i64;
        }
        if acked > 0 && !self.in_loss && a.cwnd_limited {
            if self.in_slow_start() {
                // tcp_slow_start(): up to ssthresh, the rest goes on to congestion avoidance.
                let cwnd = (self.snd_cwnd as i64 + acked).min(self.snd_ssthresh as i64);
                acked -= cwnd - self.snd_cwnd as i64;
                self.snd_cwnd = cwnd as u32;
                self.frac_cwnd = (self.snd_cwnd as u64) << CWND_UNIT;
                if acked == 0 {
                    self.cwnd_changed(a);
                    return;
                }
            }
            let acked = acked as u64;
            let mut increase = acked * self.ai_ack_increase;
            if self.frac_cwnd != 0 {
                // DIV64_U64_ROUND_CLOSEST(increase << CWND_UNIT, frac_cwnd)
                let num = (increase as u128) << CWND_UNIT;
                let den = self.frac_cwnd as u128;
                increase = ((num + den / 2) / den) as u64;
            }
            increase = increase * MTU_SYS / a.mtu.max(1) as u64;
            self.frac_cwnd += acked.max(increase);
            let rate = self.frac_to_pacing_rate(a);
            self.rate_bytes = (self.rate_bytes + acked).max(rate);
        }
        // Step-wise towards the fractional window, one segment per ACK.
        let target = self.frac_to_snd_cwnd();
        if self.snd_cwnd > target {
            self.snd_cwnd -= 1;
            self.snd_ssthresh = self.snd_cwnd;
            self.cwnd_changed(a);
        } else if self.snd_cwnd < target {
            self.snd_cwnd += 1;
            self.cwnd_changed(a);
        }
    }

    /// `prague_cwnd_changed()`
    fn cwnd_changed(&mut self, a: &PragueAck) {
        self.update_ai_ack_increase(a.srtt_us8);
    }

    /// `prague_update_alpha()`: one EWMA step with the round's fraction of CE-marked
    /// segments, then a new round.
    fn update_alpha(&mut self, a: &PragueAck) {
        // "Do not update alpha before we have proof that there's an AQM on the path."
        if self.saw_ce {
            if self.config.ecn_fallback != EcnFallback::None {
                self.classic_ecn_detection(a);
            }
            let mut ecn_segs = a.delivered_ce - self.old_delivered_ce;
            if ecn_segs > 0 {
                let acked_segs = (a.delivered - self.old_delivered).max(1);
                ecn_segs = (ecn_segs << ALPHA_BITS) / acked_segs;
            }
            let alpha = self.upscaled_alpha - (self.upscaled_alpha >> SHIFT_G) + ecn_segs;
            self.alpha_stamp = a.now_us;
            self.upscaled_alpha = alpha.min(MAX_ALPHA << SHIFT_G);
        }
        self.hsrtt_us = self.hsrtt_us + a.srtt_us8 - (self.hsrtt_us >> HSRTT_SHIFT);
        self.new_round(a);
    }

    /// `prague_new_round()`
    fn new_round(&mut self, a: &PragueAck) {
        self.next_seq = a.snd_nxt;
        self.old_delivered_ce = a.delivered_ce;
        self.old_delivered = a.delivered;
        if !self.in_slow_start() {
            self.round = self.round.wrapping_add(1);
            if self.round == 0 {
                self.round = self.config.rtt_transition;
            }
        }
        self.update_ai_ack_increase(a.srtt_us8);
    }

    /// `prague_update_pacing_rate()` (the fractional-window mode).
    fn update_pacing_rate(&mut self, a: &PragueAck) {
        // The fractional window per smoothed RTT, rounded (not the whole segments of the
        // window, nor the flight: a flight held below `snd_cwnd` by its own pacing would
        // never be cwnd-limited, and the window would never grow).
        let mut rate = (USEC_PER_SEC << 3) * a.mtu as u64;
        if self.snd_cwnd < self.snd_ssthresh / 2 {
            rate <<= 1;
        }
        rate = rate.checked_div(a.srtt_us8).unwrap_or(rate);
        let rate = ((rate as u128 * self.frac_cwnd as u128 + (ONE_CWND as u128 >> 1)) >> CWND_UNIT)
            .max(MINIMUM_RATE as u128) as u64;
        self.rate_bytes = rate;
        self.pacing_rate = rate;
    }

    /// `prague_state()`: the stack moved the connection to `state` at `now_us`.
    pub fn set_state(&mut self, state: PragueState, a: &PragueAck) {
        if state == self.state {
            return;
        }
        self.state = state;
        match state {
            PragueState::Recovery | PragueState::Loss => self.enter_loss(a),
            PragueState::Cwr => self.enter_cwr(a),
            PragueState::Open => self.in_loss = false,
        }
    }

    /// `prague_enter_loss()`: half the fractional window.
    fn enter_loss(&mut self, a: &PragueAck) {
        self.loss_cwnd = self.snd_cwnd;
        self.loss_rate_bytes = self.rate_bytes;
        self.frac_cwnd -= self.frac_cwnd >> 1;
        self.rate_bytes = self.frac_to_pacing_rate(a);
        self.in_loss = true;
    }

    /// `prague_enter_cwr()`: takes alpha/2 of the fractional window off, rounding without
    /// bias; RTT-independent, at most once per target RTT.
    fn enter_cwr(&mut self, a: &PragueAck) {
        if self.is_rtt_indep()
            && self.target_rtt_us(a.srtt_us8) > a.now_us.saturating_sub(self.cwr_stamp)
        {
            return;
        }
        self.cwr_stamp = a.now_us;
        let mut alpha = self.upscaled_alpha >> SHIFT_G;
        if self.config.ecn_fallback == EcnFallback::Fallback && self.sees_classic_ecn() {
            alpha = self.classic_ecn_fallback(alpha);
        }
        let reduction = ((alpha as u128 * self.frac_cwnd as u128 + MAX_ALPHA as u128)
            >> (ALPHA_BITS + 1)) as u64;
        self.frac_cwnd -= reduction;
        self.rate_bytes = self.frac_to_pacing_rate(a);
    }

    /// `prague_cwnd_undo()`: the reduction was spurious; returns the window to restore.
    pub fn undo(&mut self, a: &PragueAck) -> u32 {
        self.in_loss = false;
        self.rate_bytes = self.rate_bytes.max(self.loss_rate_bytes);
        self.frac_cwnd = self.pacing_rate_to_frac_cwnd(a);
        self.loss_cwnd.max(self.snd_cwnd)
    }

    /// `prague_ssthresh()` of v0.6: the threshold is unchanged, but the detection's RTT
    /// filter adapts its gain to the window (`prague_update_rtt_scaling()`).
    pub fn ssthresh_hook(&mut self) -> u32 {
        if self.config.ecn_fallback != EcnFallback::None {
            self.update_rtt_scaling(self.snd_ssthresh);
        }
        self.snd_ssthresh
    }

    /// `prague_pkts_acked()` of v0.6: Prague's own RTT filter, for the detection.
    pub fn on_rtt_sample(&mut self, rtt_us: u64) {
        if self.config.ecn_fallback == EcnFallback::None {
            return;
        }
        // prague_rtt_estimator()
        let c = &mut self.classic;
        let mut m = rtt_us as i64;
        if c.srtt_pace_us != 0 {
            m -= (c.srtt_pace_us >> c.g_srtt_shift) as i64;
            c.srtt_pace_us = (c.srtt_pace_us as i64 + m) as u64;
            let mut abs = m.abs();
            abs -= (c.mdev_pace_us >> c.g_mdev_shift) as i64;
            c.mdev_pace_us = (c.mdev_pace_us as i64 + abs) as u64;
        } else {
            c.srtt_pace_us = (m as u64) << c.g_srtt_shift;
            c.mdev_pace_us = 1 << c.g_mdev_shift;
        }
        c.srtt_pace_us = c.srtt_pace_us.max(1);
    }

    /// `prague_update_rtt_scaling()`: the filter's gain from the window.
    fn update_rtt_scaling(&mut self, ssthresh: u32) {
        let c = &mut self.classic;
        let old = c.g_srtt_shift;
        let mut shift = ilog2(ssthresh.max(1) as u64);
        shift += (shift >> 1) + 1;
        c.g_srtt_shift = shift.min(classic::MAX_SRTT_BITS);
        c.g_mdev_shift = c.g_srtt_shift + 1;
        let delta = c.g_srtt_shift as i32 - old as i32;
        let scale = |v: u64| {
            if delta > 0 {
                v << delta
            } else {
                v >> -delta
            }
        };
        c.srtt_pace_us = scale(c.srtt_pace_us);
        c.mdev_pace_us = scale(c.mdev_pace_us);
        c.rest_depth_us = scale(c.rest_depth_us);
        c.rest_mdev_us = scale(c.rest_mdev_us);
    }

    /// `prague_classic_ecn_detection()`: moves the score towards classic with the RTT's
    /// variation (V·lg(mdev/V0)) and the queueing delay (D·lg(max(depth/D0, 1))).
    fn classic_ecn_detection(&mut self, a: &PragueAck) {
        let Some(min_rtt_us) = a.min_rtt_us else {
            return;
        };
        let c = &mut self.classic;
        let srtt_us = c.srtt_pace_us >> c.g_srtt_shift;
        if srtt_us == 0 {
            return;
        }
        let mdev_us = c.mdev_pace_us >> c.g_mdev_shift;
        let adj_us = classic::INIT_ADJ_US >> (classic::MAX_MDEV_BITS - c.g_mdev_shift);
        let mut score = c.score as i64;
        // The upscaled mdev times the carried geometric rest, unbiased for the integer log.
        let mdev = mdev_us * c.rest_mdev_us + adj_us;
        let mdev_lg = ilog2(mdev).max(c.g_mdev_shift) - c.g_mdev_shift;
        c.rest_mdev_us = mdev >> mdev_lg;
        score +=
            ((mdev_lg as u64) << (classic::ALPHA_BITS - classic::V)) as i64 - classic::V0_LG as i64;
        if srtt_us > min_rtt_us {
            let depth = (srtt_us - min_rtt_us) * c.rest_depth_us + (adj_us >> 1);
            let depth_lg = ilog2(depth).max(c.g_srtt_shift) - c.g_srtt_shift;
            c.rest_depth_us = depth >> depth_lg;
            // "queue build-up can only bring classic_ecn toward more classic"
            let depth_lg = (depth_lg as u64) << (classic::ALPHA_BITS - classic::D);
            if depth_lg > classic::D0_LG {
                score += (depth_lg - classic::D0_LG) as i64;
            }
        }
        c.score = (score.max(0) as u64).min(classic::C_STICKY);
    }

    /// `prague_classic_ecn_fallback()`: alpha no lower than ~0.6 of the classic score, to
    /// compete fairly with classic AQMs (the score scaled from v0.6's 20 to 24 bits).
    fn classic_ecn_fallback(&self, alpha: u64) -> u64 {
        let c = self.classic.score.min(classic::CLASSIC_ECN) - classic::L_STICKY;
        let c = (c >> 1) + (c >> 3);
        alpha.max(c << (ALPHA_BITS - classic::ALPHA_BITS))
    }
}

/// `ilog2()`: the index of the highest set bit (0 for 0, as the kernel's is undefined).
fn ilog2(v: u64) -> u32 {
    63u32.saturating_sub(v.leading_zeros())
}

/// `prague_rate_scaled_ai_ack_increase()`: (rtt/target)² of a segment, rounded, for rtt
/// below the target (both in the kernel's 1/8 µs).
fn rate_scaled_ai_ack_increase(rtt_us8: u64, target_us8: u64) -> u64 {
    if rtt_us8 >= target_us8 {
        return ONE_CWND;
    }
    let increase = ((rtt_us8 as u128) << CWND_UNIT) * rtt_us8 as u128;
    let divisor = target_us8 as u128 * target_us8 as u128;
    ((increase + divisor / 2) / divisor) as u64
}

/// v0.6 `prague_scalable_ai_ack_increase()`, in its RTT unit of 128 µs (`RTT_UNIT`): at
/// least 1/8 of a segment per RTT, then the rate's scaling up to R0 ≈ 16 ms.
fn scalable_ai_ack_increase(rtt_us8: u64) -> u64 {
    let rtt = ((rtt_us8 >> 3) >> 7) as i64;
    // R0 ~= 16ms, R1 ~= 1.5ms
    let (r0, r1) = ((1i64 << 14) >> 7, ((1i64 << 10) + (1 << 9)) >> 7);
    let one = ONE_CWND as i64;
    let mut increase = (one >> 3) * r0;
    increase += one * (rtt - r1).max(0).min(r0);
    increase *= rtt;
    let divisor = r0 * r0;
    ((increase + (divisor >> 1)) / divisor) as u64
}

mod config;
#[cfg(test)]
mod tests;

pub use config::PragueConfig;
