//! CoDel, Controlled Delay (RFC 8289), as a FIFO with CoDel's dequeue-time drops.
//!
//! Each packet is stamped with its enqueue time; at dequeue its sojourn time is compared
//! with `target`. Once the sojourn time has stayed at or above target for `interval`, CoDel
//! enters the drop state: it drops the head packet and schedules the next drop
//! `interval / sqrt(count)` later, `count` growing by one per drop, until a dequeued packet's
//! sojourn time falls below target (or the backlog is at most one MTU). The code follows the
//! pseudocode of RFC 8289 §5 (`dodequeue()`, `dequeue()`, `control_law()`), with exact
//! integer-nanosecond times and a floating-point square root where Linux uses a Newton step.
//!
//! With `ecn` (RFC 8289 §5, Linux `codel_params.ecn`) an ECN-capable packet that the
//! control law would drop is marked Congestion Experienced and sent instead; the law moves
//! on exactly as after a drop (Linux `codel_dequeue()`: `count` grows, the next drop time
//! follows).
//!
//! [`CodelVars`] is the per-queue control state and is shared with FQ-CoDel, which runs one
//! per flow queue.

use super::fifo::Fifo;
use super::{Admit, Dequeued, QueueDrop, QueueLimit, Queued};
use crate::packet::PacketId;
use crate::time::{SimDuration, SimTime};

/// Parameters of a CoDel queue (defaults: RFC 8289 §4.3 target and interval, Linux
/// `sch_codel`'s limit and an Ethernet MTU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoDelConfig {
    /// Acceptable standing queue delay (RFC 8289 `TARGET`, default 5 ms).
    pub target: SimDuration,
    /// Width of the window over which the minimum sojourn time must exceed `target`
    /// before dropping starts, and the base of the control law (RFC 8289 `INTERVAL`,
    /// default 100 ms).
    pub interval: SimDuration,
    /// Maximum packet size, in bytes: no drop while the backlog is at most this (RFC 8289
    /// `MAXPACKET`, "SHOULD use interface MTU"; default 1514, Linux's `psched_mtu` of an
    /// Ethernet device).
    pub mtu: u32,
    /// Hard limit; an arrival that does not fit is tail-dropped (default 1000 packets, the
    /// Linux `sch_codel` default).
    pub limit: QueueLimit,
    /// Mark ECN-capable packets instead of dropping them (default false, as Linux
    /// `sch_codel`).
    pub ecn: bool,
}

impl Default for CoDelConfig {
    fn default() -> Self {
        CoDelConfig {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            mtu: 1514,
            limit: QueueLimit::Packets(1000),
            ecn: false,
        }
    }
}

impl CoDelConfig {
    /// Checks the values CoDel relies on; the message names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        if self.interval.as_nanos() == 0 {
            return Err("interval must be positive".into());
        }
        if self.target > self.interval {
            return Err("target must not exceed interval".into());
        }
        Ok(())
    }
}

/// CoDel's control parameters (the part of the configuration the control law uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CodelParams {
    pub target: SimDuration,
    pub interval: SimDuration,
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

/// Per-queue CoDel state (RFC 8289 §5.2 "per-queue state").
#[derive(Clone, Debug, Default)]
pub(crate) struct CodelVars {
    /// When the sojourn time will have been above target for `interval` (`None`: below).
    first_above_time: Option<SimTime>,
    /// Time of the next drop while dropping.
    drop_next: SimTime,
    /// Drops in the current drop state (with the RFC's carry-over from the previous one).
    pub count: u32,
    /// `count` when the current drop state was entered.
    lastcount: u32,
    /// True in the drop state.
    dropping: bool,
}

/// RFC 8289 §5.5 `control_law()`: `t + interval / sqrt(count)`, truncated to the
/// nanosecond.
fn control_law(t: SimTime, interval: SimDuration, count: u32) -> SimTime {
    let step = interval.as_nanos() as f64 / (count.max(1) as f64).sqrt();
    t + SimDuration(step as u64)
}

impl CodelVars {
    /// RFC 8289 §5.4 `dodequeue()`: takes the head through `pop` (which returns it with the
    /// backlog in bytes left behind) and says whether the sojourn time has been at or above
    /// target for at least an interval.
    fn dodequeue(
        &mut self,
        p: &CodelParams,
        now: SimTime,
        pop: &mut impl FnMut() -> Option<(Queued, u64)>,
    ) -> (Option<Queued>, bool) {
        let Some((pkt, backlog)) = pop() else {
            // "queue is empty - we can't be above TARGET"
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(pkt.enqueued_at);
        if sojourn < p.target || backlog <= p.mtu as u64 {
            // "went below - stay below for at least INTERVAL"
            self.first_above_time = None;
            return (Some(pkt), false);
        }
        match self.first_above_time {
            None => {
                // "just went above from below"; if still above in an interval, drop.
                self.first_above_time = Some(now + p.interval);
                (Some(pkt), false)
            }
            Some(t) => (Some(pkt), now >= t),
        }
    }

    /// RFC 8289 §5.5 `dequeue()`: the packet to send at `now`, dropping heads through
    /// `drop` as the control law requires, and whether CoDel marked it CE (with ECN, the
    /// packet it would have dropped, if ECN-capable).
    pub(crate) fn dequeue(
        &mut self,
        p: &CodelParams,
        now: SimTime,
        pop: &mut impl FnMut() -> Option<(Queued, u64)>,
        drop: &mut impl FnMut(Queued),
    ) -> Option<(Queued, bool)> {
        let (mut pkt, ok_to_drop) = self.dodequeue(p, now, pop);
        let marks = |pkt: &Option<Queued>| p.ecn && pkt.is_some_and(|q| q.ect());
        if self.dropping {
            if !ok_to_drop {
                // "sojourn time below TARGET - leave drop state"
                self.dropping = false;
            }
            // "A large backlog might result in drop rates so high that the next drop
            // should happen now, hence the 'while' loop."
            while self.dropping && now >= self.drop_next {
                if marks(&pkt) {
                    // Linux codel_dequeue(): mark, move the law on, send it.
                    self.count += 1;
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return pkt.map(|q| (q, true));
                }
                if let Some(victim) = pkt.take() {
                    drop(victim);
                }
                self.count += 1;
                let (next, ok) = self.dodequeue(p, now, pop);
                pkt = next;
                if ok {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            // Enter the drop state: drop this packet and send the next (or, with ECN,
            // mark an ECN-capable one and send it).
            let marked = marks(&pkt);
            if !marked {
                if let Some(victim) = pkt.take() {
                    drop(victim);
                }
                pkt = self.dodequeue(p, now, pop).0;
            }
            self.dropping = true;
            // "If min went above TARGET close to when it last went below, assume that the
            // drop rate that controlled the queue on the last cycle is a good starting
            // point to control it now" (the Linux rule the RFC adopts): resume from the
            // previous cycle's increase if the last drop was less than 16 intervals ago.
            let delta = self.count.saturating_sub(self.lastcount);
            let since_drop_next = now.0 as i128 - self.drop_next.0 as i128;
            self.count = if delta > 1 && since_drop_next < 16 * p.interval.as_nanos() as i128 {
                delta
            } else {
                1
            };
            self.drop_next = control_law(now, p.interval, self.count);
            self.lastcount = self.count;
            if marked {
                return pkt.map(|q| (q, true));
            }
        }
        pkt.map(|q| (q, false))
    }
}

/// A FIFO queue managed by CoDel.
#[derive(Debug, Clone)]
pub struct CoDel {
    config: CoDelConfig,
    params: CodelParams,
    vars: CodelVars,
    fifo: Fifo,
}

impl CoDel {
    /// An empty CoDel queue; `config` must pass [`CoDelConfig::validate`].
    pub fn new(config: CoDelConfig) -> Self {
        debug_assert_eq!(config.validate(), Ok(()));
        CoDel {
            params: CodelParams {
                target: config.target,
                interval: config.interval,
                mtu: config.mtu,
                ecn: config.ecn,
            },
            config,
            vars: CodelVars::default(),
            fifo: Fifo::default(),
        }
    }

    /// Appends `pkt`, stamped with `now`, unless the limit is reached (tail drop).
    pub fn enqueue(&mut self, now: SimTime, mut pkt: Queued) -> Result<Admit, QueueDrop> {
        if !self
            .config
            .limit
            .fits(self.fifo.len(), self.fifo.bytes(), pkt.size)
        {
            return Err(QueueDrop::Overflow);
        }
        pkt.enqueued_at = now;
        self.fifo.push(pkt);
        Ok(Admit::Queued)
    }

    /// The packet to send at `now`; heads dropped by CoDel go to `on_drop` as `AqmDrop`.
    pub fn dequeue(
        &mut self,
        now: SimTime,
        on_drop: &mut impl FnMut(PacketId, QueueDrop),
    ) -> Option<Dequeued> {
        let fifo = &mut self.fifo;
        let mut pop = || {
            let head = fifo.pop()?;
            Some((head, fifo.bytes()))
        };
        let mut drop = |p: Queued| on_drop(p.id, QueueDrop::AqmDrop);
        let (pkt, marked) = self.vars.dequeue(&self.params, now, &mut pop, &mut drop)?;
        Some(Dequeued::of(pkt, marked))
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    /// True while CoDel is in its drop state.
    pub fn is_dropping(&self) -> bool {
        self.vars.dropping
    }

    /// CoDel's `count`: drops in the current drop state (for traces).
    pub fn count(&self) -> u32 {
        self.vars.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: u64 = 100_000; // 0.1 ms: one 1250-byte packet at 100 Mb/s
    const MS: u64 = 1_000_000;

    fn pkt(id: u32) -> Queued {
        Queued::new(PacketId(id), 1250, 0)
    }

    /// Drives a queue for ticks `from..to`: at each tick one dequeue, then an arrival when
    /// `arrive(tick)`. Returns the times of the AQM drops.
    fn drive(
        q: &mut CoDel,
        next_id: &mut u32,
        ticks: std::ops::Range<u64>,
        arrive: impl Fn(u64) -> bool,
    ) -> Vec<u64> {
        let mut drops = Vec::new();
        for k in ticks {
            let now = SimTime(k * TICK);
            q.dequeue(now, &mut |_, why| {
                assert_eq!(why, QueueDrop::AqmDrop);
                drops.push(now.0);
            });
            if arrive(k) {
                q.enqueue(now, pkt(*next_id)).unwrap();
                *next_id += 1;
            }
        }
        drops
    }

    /// A queue holding 100 packets at t = 0, then kept full by one arrival per dequeue.
    fn standing_queue() -> (CoDel, u32) {
        let mut q = CoDel::new(CoDelConfig::default());
        for id in 0..100 {
            q.enqueue(SimTime::ZERO, pkt(id)).unwrap();
        }
        (q, 100)
    }

    #[test]
    fn a_standing_queue_is_dropped_at_intervals_shrinking_with_sqrt_count() {
        let (mut q, mut id) = standing_queue();
        // One second: about 20 drops, each removing a packet, so the queue (100 packets,
        // 10 ms) stays above target throughout.
        let drops = drive(&mut q, &mut id, 1..10_000, |_| true);
        assert!(drops.len() >= 15, "{}", drops.len());
        // The head's sojourn reaches 5 ms at t = 5 ms (packet 50, enqueued at 0): the first
        // drop is an interval later, at 105 ms.
        assert_eq!(drops[0], 105 * MS);
        // Then drop k+1 is due interval/sqrt(k) after drop k's due time, and happens at the
        // first dequeue at or after it.
        let mut due = 105 * MS;
        for (k, &t) in drops.iter().enumerate() {
            assert!(t >= due && t < due + TICK, "drop {k} at {t}, due {due}");
            let count = k as f64 + 1.0;
            due += (100.0 * MS as f64 / count.sqrt()) as u64;
        }
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.windows(2).all(|g| g[1] <= g[0] + TICK), "{gaps:?}");
        assert!(q.is_dropping());
    }

    #[test]
    fn a_queue_that_drains_below_target_stops_dropping() {
        let (mut q, mut id) = standing_queue();
        let early = drive(&mut q, &mut id, 1..3_000, |_| true);
        assert!(early.len() >= 2 && q.is_dropping());
        // Half the arrival rate: the queue drains, new packets wait less than 5 ms.
        let late = drive(&mut q, &mut id, 3_000..40_000, |k| k % 2 == 0);
        let last = late.last().copied().unwrap_or(0);
        assert!(last < 3_200 * TICK, "last drop at {last} ns");
        assert!(!q.is_dropping());
        assert!(q.fifo().len() <= 1);
    }

    #[test]
    fn reentering_soon_resumes_from_the_previous_cycles_count() {
        let (mut q, mut id) = standing_queue();
        drive(&mut q, &mut id, 1..6_000, |_| true);
        // Drain until CoDel leaves its drop state, then saturate again at once: the RFC's
        // rule restarts from count - lastcount (= count - 1 here) instead of 1.
        let mut k = 6_000;
        while q.is_dropping() {
            drive(&mut q, &mut id, k..k + 1, |_| false);
            k += 1;
        }
        let count = q.count();
        assert!(count > 2, "{count}");
        for _ in 0..100 {
            q.enqueue(SimTime(k * TICK), pkt(id)).unwrap();
            id += 1;
        }
        while !q.is_dropping() {
            drive(&mut q, &mut id, k..k + 1, |_| true);
            k += 1;
        }
        assert_eq!(q.count(), count - 1);
    }

    #[test]
    fn a_full_queue_tail_drops_arrivals() {
        let mut q = CoDel::new(CoDelConfig {
            limit: QueueLimit::Packets(2),
            ..CoDelConfig::default()
        });
        q.enqueue(SimTime::ZERO, pkt(0)).unwrap();
        q.enqueue(SimTime::ZERO, pkt(1)).unwrap();
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(2)), Err(QueueDrop::Overflow));
        let mut q = CoDel::new(CoDelConfig {
            limit: QueueLimit::Bytes(2000),
            ..CoDelConfig::default()
        });
        q.enqueue(SimTime::ZERO, pkt(0)).unwrap();
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(1)), Err(QueueDrop::Overflow));
    }

    #[test]
    fn a_backlog_of_at_most_one_mtu_is_never_dropped() {
        let mut q = CoDel::new(CoDelConfig::default());
        // One packet at a time with a huge sojourn: the backlog behind it is empty.
        for k in 0..100u64 {
            q.enqueue(SimTime(k * 50 * MS), pkt(k as u32)).unwrap();
            let now = SimTime(k * 50 * MS + 40 * MS);
            let got = q.dequeue(now, &mut |_, _| panic!("dropped"));
            assert_eq!(got.map(|d| d.id), Some(PacketId(k as u32)));
        }
    }

    #[test]
    fn with_ecn_ect_packets_are_marked_where_they_would_have_been_dropped() {
        // Same standing queue, ECN-capable packets, one dequeue and one arrival per tick.
        let mut q = CoDel::new(CoDelConfig {
            ecn: true,
            ..CoDelConfig::default()
        });
        let ect = |id| pkt(id).with_ect(true);
        for id in 0..100 {
            q.enqueue(SimTime::ZERO, ect(id)).unwrap();
        }
        let mut marks = Vec::new();
        for k in 1..10_000u64 {
            let now = SimTime(k * TICK);
            let got = q.dequeue(now, &mut |_, _| panic!("an ECT packet was dropped"));
            if got.is_some_and(|d| d.marked) {
                marks.push(now.0);
            }
            q.enqueue(now, ect(99 + k as u32)).unwrap();
        }
        // Nothing leaves the queue, so it stays at 100 packets: the marks follow the
        // control law from 105 ms as the drops do (each at the first tick past its time).
        assert_eq!(marks[0], 105 * MS);
        let mut due = 105 * MS;
        for (k, &t) in marks.iter().enumerate() {
            assert!(t >= due && t < due + TICK, "mark {k} at {t}, due {due}");
            due += (100.0 * MS as f64 / (k as f64 + 1.0).sqrt()) as u64;
        }
        assert!(marks.len() >= 15);
        assert_eq!(q.fifo().len(), 100);
    }
}
