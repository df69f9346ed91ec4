//! DualPI2's parameters, each with the default of Linux's `sch_dualpi2.c`
//! (`dualpi2_reset_default()`), and their checks (the ranges of its netlink policy,
//! `dualpi2_policy[]`).

use crate::queue::QueueLimit;
use crate::time::SimDuration;

/// The largest `alpha` or `beta` the kernel takes, in its netlink unit of 1/256 Hz
/// (`ALPHA_BETA_MAX`, 2^31 - 1: scaled, they must fit in 32 bits).
pub(super) const ALPHA_BETA_MAX: u64 = (1 << 31) - 1;
/// The kernel's netlink unit of `alpha` and `beta`: 1/256 Hz (`ALPHA_BETA_SHIFT` = 8).
pub(super) const ALPHA_BETA_PER_HZ: f64 = 256.0;
/// The weights of the two queues are percentages (`MAX_WC`).
pub(super) const MAX_WC: u8 = 100;

/// Where the L queue's step marking starts (`step_thresh`; the kernel's
/// `TCA_DUALPI2_STEP_THRESH_US` or `_PKTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepThresh {
    /// Mark an L4S packet whose sojourn time is above this (default 1 ms,
    /// `q->step_thresh = 1 * NSEC_PER_MSEC`).
    Delay(SimDuration),
    /// Mark an L4S packet that leaves more than this many packets in the L queue
    /// (`step_in_packets`).
    Packets(u32),
}

/// Which ECN codepoints go to the L queue (`ecn_mask`, matched against the IP ECN field as
/// `dualpi2_skb_classify()` does: `cb->ect & q->ecn_mask`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EcnMask {
    /// ECT(1) and CE, the L4S identifier of RFC 9331 §4 (default,
    /// `TC_DUALPI2_ECN_MASK_L4S_ECT`).
    L4sEct = 0b01,
    /// ECT(0) and CE (`TC_DUALPI2_ECN_MASK_CLA_ECT`).
    ClaEct = 0b10,
    /// Every ECN-capable codepoint (`TC_DUALPI2_ECN_MASK_ANY_ECT`).
    AnyEct = 0b11,
}

impl EcnMask {
    /// The scenario's names, in the order of [`EcnMask::from_name`].
    pub const NAMES: [&'static str; 3] = ["l4s_ect", "cla_ect", "any_ect"];

    /// The mask named `name` (one of [`EcnMask::NAMES`]).
    pub fn from_name(name: &str) -> Option<EcnMask> {
        match name {
            "l4s_ect" => Some(EcnMask::L4sEct),
            "cla_ect" => Some(EcnMask::ClaEct),
            "any_ect" => Some(EcnMask::AnyEct),
            _ => None,
        }
    }

    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            EcnMask::L4sEct => "l4s_ect",
            EcnMask::ClaEct => "cla_ect",
            EcnMask::AnyEct => "any_ect",
        }
    }
}

/// Parameters of a DualPI2 queue. The defaults are the kernel's (`dualpi2_reset_default()`
/// in `net/sched/sch_dualpi2.c`), which RFC 9332 Appendix A.1 also gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualPi2Config {
    /// Both queues together (default 10000 packets, `sch->limit = 10000`, "Max 125ms at
    /// 1Gbps"). `limit_bytes` bounds the bytes waiting instead; the kernel's second bound,
    /// `memory_limit`, counts the buffers' true sizes, which a simulated packet has not.
    pub limit: QueueLimit,
    /// The classic queue delay the PI controller steers to (default 15 ms,
    /// `pi2_target = 15 * NSEC_PER_MSEC`).
    pub target: SimDuration,
    /// How often the base probability is updated (default 16 ms,
    /// `pi2_tupdate = 16 * NSEC_PER_MSEC`).
    pub tupdate: SimDuration,
    /// Integral gain in Hz (default 0.16: the kernel's 41/256, "~0.16 Hz * 256"); the
    /// kernel takes it in units of 1/256 Hz, to which it is rounded.
    pub alpha: f64,
    /// Proportional gain in Hz (default 3.2: the kernel's 819/256, "~3.20 Hz * 256").
    pub beta: f64,
    /// The L queue's step threshold (default 1 ms of sojourn time).
    pub step_thresh: StepThresh,
    /// The step applies only to packets that find at least this many packets in the L
    /// queue (default 0, "Always apply step mark in L-queue").
    pub min_qlen_step: u32,
    /// Coupling factor k: the L queue marks with probability k·p', the classic queue with
    /// p'² (default 2, "window fairness for equal RTTs").
    pub coupling: u8,
    /// On overload (k·p' above 100 %) drop L4S packets with the classic probability
    /// (true, default, `TC_DUALPI2_DROP_OVERLOAD_DROP`), or keep marking them and let the
    /// queue grow to its limit (false: the base probability is then capped at 1/k).
    pub drop_overload: bool,
    /// Drop (or mark) at enqueue instead of at dequeue (default false,
    /// `TC_DUALPI2_DROP_EARLY_DROP_DEQUEUE`).
    pub drop_early: bool,
    /// The classic queue's weight in the scheduler's weighted round robin, percent
    /// (default 10, "wc=10%, wl=90%"): its protection against starvation by the L queue.
    pub c_protection: u8,
    /// Which codepoints go to the L queue (default ECT(1) and CE).
    pub ecn_mask: EcnMask,
    /// The device's MTU with its link-layer header, bytes (the kernel's `psched_mtu()`;
    /// default 1514, Ethernet): no mark or drop while less than two of it wait, and the
    /// scheduler's initial credit.
    pub mtu: u32,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            limit: QueueLimit::Packets(10_000),
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(16),
            alpha: 41.0 / ALPHA_BETA_PER_HZ,
            beta: 819.0 / ALPHA_BETA_PER_HZ,
            step_thresh: StepThresh::Delay(SimDuration::from_millis(1)),
            min_qlen_step: 0,
            coupling: 2,
            drop_overload: true,
            drop_early: false,
            c_protection: 10,
            ecn_mask: EcnMask::L4sEct,
            mtu: 1514,
        }
    }
}

impl DualPi2Config {
    /// The smallest gain (`alpha`, `beta`) the kernel takes: 1/256 Hz.
    pub const MIN_GAIN_HZ: f64 = 1.0 / ALPHA_BETA_PER_HZ;
    /// The largest gain: `ALPHA_BETA_MAX` / 256 Hz.
    pub const MAX_GAIN_HZ: f64 = ALPHA_BETA_MAX as f64 / ALPHA_BETA_PER_HZ;

    /// `alpha` in the kernel's netlink unit, 1/256 Hz (rounded).
    pub(super) fn alpha_units(&self) -> u64 {
        (self.alpha * ALPHA_BETA_PER_HZ).round() as u64
    }

    /// `beta` in the kernel's netlink unit, 1/256 Hz (rounded).
    pub(super) fn beta_units(&self) -> u64 {
        (self.beta * ALPHA_BETA_PER_HZ).round() as u64
    }

    /// Checks the values against the kernel's netlink policy; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        for (name, gain, units) in [
            ("alpha", self.alpha, self.alpha_units()),
            ("beta", self.beta, self.beta_units()),
        ] {
            // NLA_POLICY_FULL_RANGE(NLA_U32, 1 ..= ALPHA_BETA_MAX) in 1/256 Hz.
            if !gain.is_finite() || !(1..=ALPHA_BETA_MAX).contains(&units) {
                return Err(format!(
                    "{name} ({gain}) must be from {} to {} Hz (the kernel takes 1/256 Hz steps)",
                    Self::MIN_GAIN_HZ,
                    Self::MAX_GAIN_HZ
                ));
            }
        }
        if self.tupdate.as_nanos() == 0 {
            // NLA_POLICY_MIN(NLA_U32, 1)
            return Err("tupdate must be positive".into());
        }
        if self.coupling == 0 {
            return Err("coupling must be at least 1".into());
        }
        if self.c_protection > MAX_WC {
            return Err(format!("c_protection must be from 0 to {MAX_WC} (percent)"));
        }
        Ok(())
    }
}
