//! DualPI2, the coupled dual-queue AQM of L4S (RFC 9332), as Linux's `sch_dualpi2`
//! (`net/sched/sch_dualpi2.c`, Linux 6.17) does it.
//!
//! Two FIFOs share the link. Arrivals are classified by their ECN codepoint
//! (`dualpi2_skb_classify()`): ECT(1) and CE, the L4S identifier, go to the low-latency
//! *L queue*, everything else to the *classic (C) queue*. One PI controller
//! (`calculate_probability()`, run by a timer every `tupdate`) moves a base probability
//! p' so that the larger of the two head-of-line delays tends to `target`:
//!
//! ```text
//! p' += alpha · (qdelay − target) + beta · (qdelay − qdelay_previous)     (delays in s)
//! ```
//!
//! in the kernel's fixed point (p' a `u32` fraction of `MAX_PROB`, the gains in 64 ns
//! units; see [`scale_gain`]). The two queues apply it differently (`must_drop()`):
//! the classic queue drops (marks, if ECN-capable) with p'², rolling p' twice
//! (`dualpi2_classic_marking()`), which classic TCP's 1/√p answers with the same rate as a
//! scalable controller's 1/p answers the L queue's coupled k·p'
//! (`dualpi2_scalable_marking()`). On overload (k·p' above 100 %) L4S packets are dropped
//! with p'² as well (`drop_overload`). Nothing is marked or dropped while less than two
//! MTUs wait in both queues together. Besides the coupled marks, the L queue marks every
//! packet whose sojourn time is above `step_thresh` (1 ms; `do_step_aqm()`), its native
//! AQM.
//!
//! The scheduler (`dequeue_packet()`) is a weighted round robin of credit in bytes: the L
//! queue goes first unless the credit says the classic queue has waited its share
//! (`c_protection`, 10 %), so that neither queue can starve the other.
//!
//! Marks and drops happen at dequeue (`drop_early = false`, the default), as in the kernel's
//! `dualpi2_qdisc_dequeue()`: a dropped head is discarded and the next packet chosen again.
//! A mark of a packet that already carries CE changes nothing and is not counted
//! (`INET_ECN_set_ce()` returns false).
//!
//! The timer is not an event: the queue catches up on the updates that fell due (every
//! `tupdate` from the start of the run) before it handles a packet at `now`. Between two
//! packets the queues do not change, so each update sees the head-of-line delays the
//! kernel's timer would have seen; an update due at the instant of a packet runs before it.

mod config;
#[cfg(test)]
mod tests;

pub use config::{DualPi2Config, EcnMask, StepThresh};

use super::fifo::Fifo;
use super::{Admit, Dequeued, QueueDrop, Queued};
use crate::packet::{Codepoint, PacketId};
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// The probabilities' fixed point: a `u32` fraction of `MAX_PROB` ("32b enable to support
/// flows with windows up to ~8.6 * 1e9 packets").
pub const MAX_PROB: u32 = u32::MAX;
/// The gains' internal unit is 2^6 ns = 64 ns (`ALPHA_BETA_GRANULARITY`), against the
/// netlink unit of 2^8 (`ALPHA_BETA_SHIFT`): `ALPHA_BETA_SCALING` = 2.
const ALPHA_BETA_GRANULARITY: u32 = 6;
const ALPHA_BETA_SCALING: u32 = 8 - ALPHA_BETA_GRANULARITY;
const NSEC_PER_SEC: u64 = 1_000_000_000;

/// A gain in the kernel's netlink unit (1/256 Hz) scaled to the internal one
/// (`dualpi2_scale_alpha_beta()`): `param · MAX_PROB >> 2 / 10^9`, so that
/// `delay_ns · gain >> 6` is the probability increment in `MAX_PROB` units.
pub fn scale_gain(param: u64) -> u64 {
    ((param * MAX_PROB as u64) >> ALPHA_BETA_SCALING) / NSEC_PER_SEC
}

/// Which of the queues: the whole discipline, or one of DualPI2's two (the `queue` trace's
/// `queue` codes, indexed by `as usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SubQueue {
    /// The whole queue (every discipline).
    All = 0,
    /// DualPI2's low-latency queue.
    L = 1,
    /// DualPI2's classic queue.
    C = 2,
}

/// Names of the [`SubQueue`] codes.
pub const SUB_QUEUE_NAMES: [&str; 3] = ["all", "l", "c"];

/// One of DualPI2's queues as the `queue` trace shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubQueueState {
    /// Which one.
    pub queue: SubQueue,
    /// Packets waiting.
    pub packets: u32,
    /// Bytes waiting.
    pub bytes: u64,
    /// The probability it marks (or drops) with: k·p' (at most 1) for L, p'² for C.
    pub prob: f64,
}

/// Counters of the two queues (the `l_*` and `c_*` columns of links.csv).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DualQueueStats {
    /// Arrivals classified into the L queue (dropped ones included).
    pub l_packets: u64,
    /// CE marks the L queue set, coupled and step.
    pub l_marks: u64,
    /// Of `l_marks`, those of the step threshold (the kernel's `step_marks`).
    pub l_step_marks: u64,
    /// L-queue packets dropped: overflow, overload, a non-ECT packet the L queue would mark.
    pub l_drops: u64,
    /// Arrivals classified into the classic queue (dropped ones included).
    pub c_packets: u64,
    /// CE marks the classic queue set.
    pub c_marks: u64,
    /// Classic-queue packets dropped: overflow and the AQM's p'².
    pub c_drops: u64,
}

/// `Queued::cb` bits: the packet is in the L queue; the step threshold applies to it
/// (`dualpi2_skb_cb.apply_step`).
const CB_L: u8 = 1;
const CB_STEP: u8 = 2;

/// What `must_drop()` decides for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Pass,
    Mark,
    Drop,
}

/// A DualPI2 queue.
#[derive(Debug, Clone)]
pub struct DualPi2 {
    config: DualPi2Config,
    l: Fifo,
    c: Fifo,
    /// The base probability p' (`pi2_prob`), a fraction of [`MAX_PROB`].
    prob: u32,
    /// The delay the last update saw (`last_qdelay`), ns.
    last_qdelay: u64,
    /// When the next update falls due.
    next_update: SimTime,
    /// The gains in the internal unit (`pi2_alpha`, `pi2_beta`).
    alpha: u64,
    beta: u64,
    /// The scheduler's credit in bytes (`c_protection_credit`): the L queue goes first
    /// while it is at most zero.
    credit: i64,
    /// Its value when both queues are empty (`c_protection_init`, MTU · (wc − wl)).
    credit_init: i64,
    rng: RngStream,
    stats: DualQueueStats,
}

impl DualPi2 {
    /// An empty queue with `config`, drawing its marks and drops from `rng`; its first update
    /// falls due `tupdate` after time zero.
    pub fn new(config: DualPi2Config, rng: RngStream) -> Self {
        let wc = config.c_protection as i64;
        let wl = config::MAX_WC as i64 - wc;
        // dualpi2_calculate_c_protection(): "If wl > wc, the scheduler will start with the
        // L queue when reset."
        let credit_init = config.mtu as i64 * (wc - wl);
        DualPi2 {
            l: Fifo::with_capacity(64),
            c: Fifo::with_capacity(64),
            prob: 0,
            last_qdelay: 0,
            next_update: SimTime::ZERO + config.tupdate,
            alpha: scale_gain(config.alpha_units()),
            beta: scale_gain(config.beta_units()),
            credit: credit_init,
            credit_init,
            rng,
            stats: DualQueueStats::default(),
            config,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &DualPi2Config {
        &self.config
    }

    /// The base probability p' as the kernel holds it (`pi2_prob`, a fraction of
    /// [`MAX_PROB`]).
    pub fn base_prob(&self) -> u32 {
        self.prob
    }

    /// The counters of the two queues.
    pub fn stats(&self) -> DualQueueStats {
        self.stats
    }

    /// The L queue's waiting packets.
    pub fn l_queue(&self) -> &Fifo {
        &self.l
    }

    /// The classic queue's waiting packets.
    pub fn c_queue(&self) -> &Fifo {
        &self.c
    }

    /// Packets waiting in both queues.
    #[inline]
    pub fn len(&self) -> usize {
        self.l.len() + self.c.len()
    }

    /// True when neither queue holds a packet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting in both queues (`sch->qstats.backlog`).
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    /// Waiting packets, the L queue's first, head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.l.iter().chain(self.c.iter())
    }

    /// The L queue's probability of a coupled mark, k·p' (at most 1).
    pub fn l_prob(&self) -> f64 {
        (self.prob as f64 / MAX_PROB as f64 * self.config.coupling as f64).min(1.0)
    }

    /// The classic queue's probability of a drop or mark, p'².
    pub fn c_prob(&self) -> f64 {
        let p = self.prob as f64 / MAX_PROB as f64;
        p * p
    }

    /// The two queues as the `queue` trace shows them, L first.
    pub fn sub_queues(&self) -> [SubQueueState; 2] {
        [
            SubQueueState {
                queue: SubQueue::L,
                packets: self.l.len() as u32,
                bytes: self.l.bytes(),
                prob: self.l_prob(),
            },
            SubQueueState {
                queue: SubQueue::C,
                packets: self.c.len() as u32,
                bytes: self.c.bytes(),
                prob: self.c_prob(),
            },
        ]
    }

    /// Offers `pkt` at `now` (`dualpi2_enqueue_skb()`): refused if both queues together are
    /// at the limit; with `drop_early`, dropped or marked here by the AQM.
    pub fn enqueue(&mut self, now: SimTime, mut pkt: Queued) -> Result<Admit, QueueDrop> {
        self.catch_up(now);
        let to_l = pkt.ecn.bits() & self.config.ecn_mask as u8 != 0;
        if to_l {
            self.stats.l_packets += 1;
        } else {
            self.stats.c_packets += 1;
        }
        if !self.config.limit.fits(self.len(), self.bytes(), pkt.size) {
            self.count_drop(to_l);
            return Err(QueueDrop::Overflow);
        }
        let mut admit = Admit::Queued;
        if self.config.drop_early {
            match self.must_drop(&pkt, to_l, self.bytes()) {
                Verdict::Drop => {
                    self.count_drop(to_l);
                    return Err(QueueDrop::EarlyDrop);
                }
                Verdict::Mark if pkt.ecn != Codepoint::Ce => {
                    self.count_mark(to_l);
                    pkt.ecn = Codepoint::Ce;
                    admit = Admit::Marked;
                }
                Verdict::Mark | Verdict::Pass => {}
            }
        }
        pkt.enqueued_at = now;
        if to_l {
            // skb_apply_step(): an L4S packet, and the L queue at least min_qlen_step long.
            let step = self.l.len() >= self.config.min_qlen_step as usize;
            pkt.cb = CB_L | if step { CB_STEP } else { 0 };
            self.l.push(pkt);
        } else {
            pkt.cb = 0;
            self.c.push(pkt);
        }
        Ok(admit)
    }

    /// The packet to send at `now` (`dualpi2_qdisc_dequeue()`): the scheduler's choice,
    /// unless the AQM drops it (through `on_drop`, and the next one is chosen) or marks it
    /// ([`Dequeued::marked`]).
    pub fn dequeue(
        &mut self,
        now: SimTime,
        on_drop: &mut impl FnMut(PacketId, QueueDrop),
    ) -> Option<Dequeued> {
        self.catch_up(now);
        loop {
            let Some((pkt, credit_change)) = self.pick() else {
                // dequeue_packet() on empty queues resets the scheduler.
                self.credit = self.credit_init;
                return None;
            };
            let in_l = pkt.cb & CB_L != 0;
            let mut ce = pkt.ecn == Codepoint::Ce;
            let mut marked = false;
            if !self.config.drop_early {
                match self.must_drop(&pkt, in_l, self.bytes()) {
                    Verdict::Drop => {
                        self.count_drop(in_l);
                        on_drop(pkt.id, QueueDrop::AqmDrop);
                        continue;
                    }
                    Verdict::Mark if !ce => {
                        self.count_mark(in_l);
                        (ce, marked) = (true, true);
                    }
                    Verdict::Mark | Verdict::Pass => {}
                }
            }
            if in_l && pkt.cb & CB_STEP != 0 && self.above_step(&pkt, now) {
                // do_step_aqm()
                if !pkt.ect() {
                    self.count_drop(true);
                    on_drop(pkt.id, QueueDrop::AqmDrop);
                    continue;
                }
                if !ce {
                    self.count_mark(true);
                    self.stats.l_step_marks += 1;
                    marked = true;
                }
            }
            self.credit += credit_change;
            return Some(Dequeued::of(pkt, marked));
        }
    }

    /// `dequeue_packet()`: takes the head of the queue the weighted round robin picks, with
    /// the change of credit to apply if it is sent: the L queue while the credit is at most
    /// zero (or the classic queue is empty), each byte of it adding the classic queue's
    /// weight; a classic byte takes the L queue's weight off. Nothing changes the credit
    /// while the other queue is empty.
    fn pick(&mut self) -> Option<(Queued, i64)> {
        let wc = self.config.c_protection as i64;
        let wl = config::MAX_WC as i64 - wc;
        let (l_len, c_len) = (self.l.len(), self.c.len());
        if l_len > 0 && (c_len == 0 || self.credit <= 0) {
            let pkt = self.l.pop()?;
            let change = if c_len > 0 { wc * pkt.size as i64 } else { 0 };
            Some((pkt, change))
        } else {
            let pkt = self.c.pop()?;
            let change = if l_len > 0 { -wl * pkt.size as i64 } else { 0 };
            Some((pkt, change))
        }
    }

    /// `do_step_aqm()`'s test: the sojourn time (or the L queue's length, in packets) above
    /// the step threshold.
    fn above_step(&self, pkt: &Queued, now: SimTime) -> bool {
        match self.config.step_thresh {
            StepThresh::Delay(thresh) => now.saturating_since(pkt.enqueued_at) > thresh,
            StepThresh::Packets(thresh) => self.l.len() as u64 > thresh as u64,
        }
    }

    /// `must_drop()`: the PI2 verdict on `pkt` (in the L queue if `in_l`) with `backlog`
    /// bytes waiting.
    fn must_drop(&mut self, pkt: &Queued, in_l: bool, backlog: u64) -> Verdict {
        // "Never mark/drop if we have a standing queue of less than 2 MTUs."
        if backlog < 2 * self.config.mtu as u64 {
            return Verdict::Pass;
        }
        let prob = self.prob;
        let local_l_prob = prob as u64 * self.config.coupling as u64;
        let overload = local_l_prob > MAX_PROB as u64;
        if !in_l {
            // dualpi2_classic_marking(): p'², two independent rolls of p'.
            if self.roll(prob) && self.roll(prob) {
                return if overload || !pkt.ect() {
                    Verdict::Drop
                } else {
                    Verdict::Mark
                };
            }
            return Verdict::Pass;
        }
        // dualpi2_scalable_marking()
        if overload {
            // "apply classic drops first before marking" (or, without drop_overload,
            // preserve the no-loss property of ECN at the cost of queueing delay).
            if self.config.drop_overload && self.roll(prob) && self.roll(prob) {
                return Verdict::Drop;
            }
            return Verdict::Mark;
        }
        // "We can safely cut the upper 32b as overload==false"
        if self.roll(local_l_prob as u32) {
            return if pkt.ect() {
                Verdict::Mark
            } else {
                Verdict::Drop
            };
        }
        Verdict::Pass
    }

    /// `dualpi2_roll()`: true with probability (`prob` + 1) / 2^32.
    #[inline]
    fn roll(&mut self, prob: u32) -> bool {
        ((self.rng.next_u64() >> 32) as u32) <= prob
    }

    fn count_drop(&mut self, in_l: bool) {
        if in_l {
            self.stats.l_drops += 1;
        } else {
            self.stats.c_drops += 1;
        }
    }

    fn count_mark(&mut self, in_l: bool) {
        if in_l {
            self.stats.l_marks += 1;
        } else {
            self.stats.c_marks += 1;
        }
    }

    /// Runs the probability updates due at or before `now` (the kernel's `dualpi2_timer()`);
    /// every packet operation does it first, a test or a trace may call it in between.
    pub fn catch_up(&mut self, now: SimTime) {
        let tupdate = self.config.tupdate.as_nanos();
        while self.next_update <= now {
            if self.is_empty() && self.prob == 0 && self.last_qdelay == 0 {
                // At rest the law keeps p' = 0 and the delay at zero: skip to the last
                // update due.
                let behind = (now - self.next_update).as_nanos() / tupdate;
                self.next_update += SimDuration(behind * tupdate);
            }
            let at = self.next_update;
            self.prob = self.updated_prob(at);
            self.next_update = at + self.config.tupdate;
        }
    }

    /// `calculate_probability()` at time `at`: the PI law on the larger head-of-line delay
    /// of the two queues, in the kernel's fixed point, bounded to [0, `MAX_PROB`] (and to
    /// `MAX_PROB / k` without `drop_overload`). Updates `last_qdelay`.
    fn updated_prob(&mut self, at: SimTime) -> u32 {
        let head_delay = |f: &Fifo| {
            f.head()
                .map_or(0, |p| at.saturating_since(p.enqueued_at).as_nanos())
        };
        let qdelay = head_delay(&self.l).max(head_delay(&self.c));
        let target = self.config.target.as_nanos() as i128;
        let delta = (qdelay as i128 - target) * self.alpha as i128
            + (qdelay as i128 - self.last_qdelay as i128) * self.beta as i128;
        self.last_qdelay = qdelay;
        // __scale_delta(): to MAX_PROB units, truncating the magnitude (the kernel's wrap
        // checks make both directions saturate).
        let step = (delta.unsigned_abs() >> ALPHA_BETA_GRANULARITY).min(MAX_PROB as u128) as u32;
        let new_prob = if delta > 0 {
            self.prob.saturating_add(step)
        } else {
            self.prob.saturating_sub(step)
        };
        if self.config.drop_overload {
            new_prob
        } else {
            // "ensure we cap the L4S probability to 100% to keep window fairness when
            // overflowing"
            new_prob.min(MAX_PROB / self.config.coupling as u32)
        }
    }
}
