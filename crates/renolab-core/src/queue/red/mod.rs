//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993), with the semantics of ns-2.35's
//! `queue/red.cc`, which differ from the paper in several details kept here:
//!
//! - The average is updated at every arrival from the queue length *before* the arrival
//!   (`REDQueue::enque()` calls `estimator()` before enqueuing), in packets or, with
//!   `queue_in_bytes`, in bytes.
//! - After an idle period the average decays as if `m = int(C * idle_time)` mean-sized
//!   packets had arrived to an empty queue: `avg <- (1 - w_q)^(m + 1) * avg + w_q * q`
//!   (paper §4 idle-time rule, ns-2 `estimator(nqueued, m + 1, ...)`). The link is idle
//!   when the queue is empty and nothing is being transmitted; idleness starts when the
//!   last packet has finished serialisation (ns-2 sets `idletime_` when `deque()` comes
//!   back empty, i.e. at the end of the last transmission).
//! - Early drops need `avg >= min_th` *and* more than one packet (or byte) waiting.
//! - The first arrival after the average crosses `min_th` is never dropped: it only
//!   restarts `count` (`edv_.old`).
//! - `count` counts arrivals since the last drop, including the current one (ns-2
//!   increments it before deciding); the spread probability is `p_a = p_b / (1 - count p_b)`
//!   (paper §4), or with `wait` `p_a = p_b / (2 - count p_b)` once `count p_b >= 1` and 0
//!   before (ns-2 `modify_p()`).
//! - Forced drops: above `max_th` (gentle off) or `2 max_th` (gentle on) unless
//!   `use_mark_p`, and whenever the hard limit is reached; both reset `count`.
//! - The victim is always the arrival (ns-2's default `drop_tail_ true`).
//!
//! - ECN (`ecn`, ns-2's `setbit_`, RFC 3168 §7): when the early-drop draw picks an
//!   ECN-capable arrival it is marked Congestion Experienced and queued instead, provided
//!   `p_b < mark_p` when `use_mark_p` (ns-2 `drop_early()`); forced drops (the average
//!   above the maximum threshold without `use_mark_p`, or the hard limit) stay drops.
//!   A mark restarts `count` as a drop does.
//!
//! Not reproduced: Adaptive RED (`adaptive_`), `cautious_`, `drop_front_` / `drop_rand_`
//! victims, and the summary statistics.

mod config;
#[cfg(test)]
mod tests;

pub use config::{QWeight, RedConfig};

use config::Derived;

use super::fifo::Fifo;
use super::{Admit, QueueDrop, Queued};
use crate::rng::RngStream;
use crate::time::SimTime;

/// A RED queue.
#[derive(Debug, Clone)]
pub struct Red {
    config: RedConfig,
    d: Derived,
    fifo: Fifo,
    /// Average queue size, in queue units (ns-2 `ave_`).
    avg: f64,
    /// Drop probability before spreading, `p_b`, at the last early-drop test (ns-2
    /// `prob1_`).
    prob1: f64,
    /// Probability actually used for the last arrival, `p_a` (ns-2 `v_prob`; 0 below
    /// `min_th`).
    prob: f64,
    /// Arrivals since the last drop, the current one included (ns-2 `count`).
    count: u64,
    /// Bytes of those arrivals (ns-2 `count_bytes`).
    count_bytes: u64,
    /// True once the average has been above `min_th` with a non-empty queue (ns-2 `old`).
    old: bool,
    /// When the link became (or will become) idle after the last packet left the queue.
    idle_since: SimTime,
    rng: RngStream,
}

/// Kinds of drop decided at an arrival (ns-2's `DTYPE_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DropType {
    None,
    Forced,
    Unforced,
    /// The early-drop draw picked an ECN-capable arrival: mark it instead.
    Mark,
}

/// `base^exp` by binary exponentiation: deterministic everywhere, unlike `powi`, and
/// O(log m) where ns-2 multiplies `m` times.
fn pow_u64(mut base: f64, mut exp: u64) -> f64 {
    let mut acc = 1.0;
    while exp > 0 {
        if exp & 1 == 1 {
            acc *= base;
        }
        base *= base;
        exp >>= 1;
    }
    acc
}

impl Red {
    /// An empty RED queue; `rng` is the stream its early-drop draws come from. The link is
    /// taken as idle since t = 0. `config` must pass [`RedConfig::validate`].
    pub fn new(config: RedConfig, rng: RngStream) -> Self {
        debug_assert_eq!(config.validate(), Ok(()));
        Red {
            d: Derived::new(&config),
            config,
            fifo: Fifo::default(),
            avg: 0.0,
            prob1: 0.0,
            prob: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: SimTime::ZERO,
            rng,
        }
    }

    /// The queue length RED works with: bytes with `queue_in_bytes`, else packets.
    fn qlen(&self) -> u64 {
        if self.config.queue_in_bytes {
            self.fifo.bytes()
        } else {
            self.fifo.len() as u64
        }
    }

    /// Offers `pkt` at `now`. `transmitting` tells whether the link is busy; an empty queue
    /// on an idle link makes the average decay for the idle time.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Queued,
        transmitting: bool,
    ) -> Result<Admit, QueueDrop> {
        let d = self.d;
        // ns-2 REDQueue::enque(): "if we were idle, we pretend that m packets arrived during
        // the idle period", m = int(ptc * (now - idletime_)).
        let m = if self.fifo.is_empty() && !transmitting {
            let idle = now.saturating_since(self.idle_since).as_secs_f64();
            (d.ptc * idle) as u64
        } else {
            0
        };
        // estimator(): m decays, then one EWMA step with the length before the arrival.
        let qlen = self.qlen();
        self.avg *= pow_u64(1.0 - d.q_w, m);
        self.avg *= 1.0 - d.q_w;
        self.avg += d.q_w * qlen as f64;

        // "count and count_bytes keeps a tally of arriving traffic that has not been
        // dropped", the current arrival included.
        self.count += 1;
        self.count_bytes += pkt.size as u64;

        let mut drop = DropType::None;
        if self.avg >= d.th_min && qlen > 1 {
            let forced_level = if self.config.gentle {
                2.0 * d.th_max
            } else {
                d.th_max
            };
            if !self.config.use_mark_p && self.avg >= forced_level {
                drop = DropType::Forced;
            } else if !self.old {
                // The average has just crossed min_th (or the queue just became
                // non-empty above it): restart the count, no drop.
                self.count = 1;
                self.count_bytes = pkt.size as u64;
                self.old = true;
            } else if self.drop_early(pkt.size) {
                drop = if self.marks(pkt.ect()) {
                    DropType::Mark
                } else {
                    DropType::Unforced
                };
            }
        } else {
            // "No packets are being dropped."
            self.prob = 0.0;
            self.old = false;
        }
        let overflow = qlen >= d.qlim;
        if overflow {
            drop = DropType::Forced;
        }

        match drop {
            DropType::None | DropType::Mark => {
                pkt.enqueued_at = now;
                self.fifo.push(pkt);
                Ok(if drop == DropType::Mark {
                    Admit::Marked
                } else {
                    Admit::Queued
                })
            }
            DropType::Unforced => Err(QueueDrop::EarlyDrop),
            DropType::Forced => {
                // Bug fix from Philip Liu kept by ns-2 (unless ns1_compat_): forced drops
                // restart the count too.
                self.count = 0;
                self.count_bytes = 0;
                Err(if overflow {
                    QueueDrop::Overflow
                } else {
                    QueueDrop::EarlyDrop
                })
            }
        }
    }

    /// ns-2 `drop_early()`: computes `p_b` and `p_a` and draws; on a drop the count
    /// restarts.
    fn drop_early(&mut self, size: u32) -> bool {
        self.prob1 = self.base_probability_at(self.avg);
        self.prob = self.spread(self.prob1, size);
        if self.rng.next_f64() < self.prob {
            self.count = 0;
            self.count_bytes = 0;
            true
        } else {
            false
        }
    }

    /// ns-2 `drop_early()`'s ECN test: an arrival the draw picked is marked rather than
    /// dropped if it is ECN-capable, the queue marks, and (with `use_mark_p`) `p_b` is
    /// below `mark_p`.
    fn marks(&self, ect: bool) -> bool {
        let c = &self.config;
        c.ecn && ect && (!c.use_mark_p || self.prob1 < c.mark_p)
    }

    /// `p_b` for average `avg` (ns-2 `calculate_p_new()`): linear from 0 at `min_th` to
    /// `max_p` at `max_th`; above `max_th`, 1, or with gentle linear from `max_p` to 1 at
    /// `2 max_th`.
    fn base_probability_at(&self, avg: f64) -> f64 {
        let d = &self.d;
        let p = if avg >= d.th_max {
            if self.config.gentle {
                d.v_c * avg + d.v_d
            } else {
                1.0
            }
        } else {
            (d.v_a * avg + d.v_b) * d.max_p
        };
        p.min(1.0)
    }

    /// `p_a` from `p_b` (ns-2 `modify_p()`): spreads drops evenly instead of
    /// geometrically (paper §4), then scales by packet size in byte mode.
    fn spread(&self, pb: f64, size: u32) -> f64 {
        let c = &self.config;
        // In byte mode the count is in mean-sized packets, truncated (integer division).
        let count = if c.bytes {
            (self.count_bytes / c.mean_pktsize as u64) as f64
        } else {
            self.count as f64
        };
        let mut p = pb;
        if c.wait {
            // No drop until 1/p_b arrivals have passed, then uniform over the next 1/p_b.
            if count * p < 1.0 {
                p = 0.0;
            } else if count * p < 2.0 {
                p /= 2.0 - count * p;
            } else {
                p = 1.0;
            }
        } else if count * p < 1.0 {
            p /= 1.0 - count * p;
        } else {
            p = 1.0;
        }
        if c.bytes && p < 1.0 {
            p = p * size as f64 / c.mean_pktsize as f64;
        }
        p.min(1.0)
    }

    /// Removes the head packet at `now`; if that empties the queue, the link goes idle when
    /// the packet has been serialised.
    pub fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        let head = self.fifo.pop()?;
        if self.fifo.is_empty() {
            let tx = self.config.link_rate.tx_time_ns(head.size);
            self.idle_since = SimTime(now.0.saturating_add(tx));
        }
        Some(head)
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    /// The average queue size after the last arrival, in packets, or in bytes with
    /// `queue_in_bytes` (ns-2 trace variable `ave_`).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The average queue size in packets: [`Self::avg`], divided by `mean_pktsize` when
    /// RED counts bytes (the unit of its thresholds in packets).
    pub fn avg_packets(&self) -> f64 {
        if self.config.queue_in_bytes {
            self.avg / self.config.mean_pktsize as f64
        } else {
            self.avg
        }
    }

    /// `p_b`, the drop probability before spreading, computed at the last early-drop test
    /// (ns-2 trace variable `prob1_`; not reset below `min_th`).
    pub fn base_probability(&self) -> f64 {
        self.prob1
    }

    /// `p_a`, the probability with which the last arrival was dropped early (0 when the
    /// average was below `min_th`).
    pub fn drop_probability(&self) -> f64 {
        self.prob
    }

    /// Arrivals since the last drop, the last one included.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// `(min_th, max_th)` in queue units (packets, or bytes with `queue_in_bytes`), after
    /// the automatic choices.
    pub fn thresholds(&self) -> (f64, f64) {
        (self.d.th_min, self.d.th_max)
    }

    /// The EWMA weight `w_q` in use, after the automatic choice.
    pub fn q_weight(&self) -> f64 {
        self.d.q_w
    }

    /// The configuration the queue was built with.
    pub fn config(&self) -> &RedConfig {
        &self.config
    }
}
