//! Link directions that change during a run: a rate that follows a schedule or a mahimahi
//! trace ([`super::opportunities`]), a propagation delay that follows a schedule, and
//! outages. A direction without any of them has no [`LinkDynamics`] and pays one test per
//! transmission for the possibility.
//!
//! **Rate changes** take effect at their instant, also for a packet being serialised: the
//! bits before the instant go at the old rate, the rest at the new one.
//!
//! **Delay changes** apply to packets by the instant their serialisation ends, and keep
//! packets in order: a packet arrives at `max(end + delay(end), arrival of the packet before
//! it)`, so after a decrease packets bunch up behind the last one sent at the longer delay
//! (as on one FIFO wire), and after an increase a gap opens. (Extra latency with
//! `reorder = true` may still reorder them, as it does on any link.)
//!
//! **Outages** (`[[link]] outages`, both directions) take the link down over `[start, end)`:
//! nothing is sent, the queue holds what arrives (and drops what does not fit), and the
//! transmitter resumes at `end` with the packet at the head. Whatever is on the link when
//! it goes down is lost: the packet being serialised and the packets propagating, counted as
//! `outage_drops` when the outage starts. That is what happens on a radio link whose
//! transmitter re-points or hands over (the losses measured at Starlink's reconfigurations
//! come with a latency spike as the queue holds: Pan et al. 2023, Mohan et al. WWW'24; see
//! docs/scenario.md), and what makes an outage visible to a sender as loss rather than only
//! as a pause.

use super::opportunities::{Served, TraceServer, TUN_HEADER_BYTES};
use crate::schedule::Schedule;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Spans `[start, end)` during which a link is down: sorted, disjoint and not touching.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outages {
    spans: Vec<(SimTime, SimTime)>,
}

impl Outages {
    /// No outage.
    pub const NONE: Outages = Outages { spans: Vec::new() };

    /// The outages `spans`: each non-empty, in order, apart (the scenario checks all three).
    pub fn new(spans: Vec<(SimTime, SimTime)>) -> Self {
        assert!(
            spans.iter().all(|s| s.0 < s.1),
            "an outage ends after it starts"
        );
        assert!(
            spans.windows(2).all(|w| w[0].1 < w[1].0),
            "outages are in order and apart"
        );
        Outages { spans }
    }

    /// True when the link never goes down.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The spans.
    pub fn spans(&self) -> &[(SimTime, SimTime)] {
        &self.spans
    }

    /// The outage under way at `t`, if any.
    #[inline]
    pub fn containing(&self, t: SimTime) -> Option<(SimTime, SimTime)> {
        let i = self.spans.partition_point(|s| s.1 <= t);
        self.spans.get(i).copied().filter(|s| s.0 <= t)
    }

    /// The first outage that starts in `(after, until]`, if any.
    #[inline]
    pub fn starting_in(&self, after: SimTime, until: SimTime) -> Option<(SimTime, SimTime)> {
        let i = self.spans.partition_point(|s| s.0 <= after);
        self.spans.get(i).copied().filter(|s| s.0 <= until)
    }
}

/// What sends a varying direction's packets.
#[derive(Clone, Debug)]
pub enum Server {
    /// A rate, constant or scheduled.
    Rate(Schedule<BitsPerSec>),
    /// A mahimahi trace's delivery opportunities.
    Trace(TraceServer),
}

/// A packet's passage through a varying direction's transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passage {
    /// When its last bit (or byte, from the last opportunity) leaves the transmitter, or
    /// when it is lost to an outage.
    pub end: SimTime,
    /// When the transmitter can start the next packet.
    pub free_at: SimTime,
    /// The outage start at which it is lost while being sent, if it is.
    pub cut: Option<SimTime>,
    /// Nanoseconds to count as spent serialising it.
    pub busy_ns: u64,
}

/// What varies on a link direction.
#[derive(Clone, Debug)]
pub struct LinkDynamics {
    /// Its transmitter.
    pub server: Server,
    /// Its propagation delay.
    pub delay: Schedule<SimDuration>,
    /// When the link is down.
    pub outages: Outages,
}

impl LinkDynamics {
    /// True when the transmitter serves delivery opportunities, whose events must come
    /// before everything else at their instant.
    pub fn is_trace(&self) -> bool {
        matches!(self.server, Server::Trace(_))
    }

    /// The transmitter is free at `now` with a packet to send: when may it start, if not
    /// now? During an outage, at its end; on a trace, at the next opportunity (the ones up
    /// to `now` passed with nothing waiting).
    pub fn hold(&mut self, now: SimTime) -> Option<SimTime> {
        match &mut self.server {
            Server::Trace(trace) => Some(trace.idle_until(now, &self.outages)),
            Server::Rate(_) => self.outages.containing(now).map(|(_, end)| end),
        }
    }

    /// Sends a packet of `size` bytes from `now` (the transmitter is free and the link up).
    pub fn transmit(&mut self, now: SimTime, size: u32) -> Passage {
        match &mut self.server {
            Server::Rate(rates) => {
                let end = finish(rates, now, size);
                match self.outages.starting_in(now, end) {
                    Some((down, up)) => Passage {
                        end: down,
                        free_at: up,
                        cut: Some(down),
                        busy_ns: down.0 - now.0,
                    },
                    None => Passage {
                        end,
                        free_at: end,
                        cut: None,
                        busy_ns: end.0 - now.0,
                    },
                }
            }
            Server::Trace(trace) => {
                let cost = size + TUN_HEADER_BYTES;
                // Time serialising at the trace's mean rate, so that a saturated
                // direction's utilisation is 1.
                let t = trace.trace();
                let busy_ns = (cost as u128 * t.period_ms() as u128 * 1_000_000
                    / (t.len() as u128 * super::opportunities::OPPORTUNITY_BYTES as u128))
                    as u64;
                match trace.serve(now, cost, &self.outages) {
                    Served::Done(end) => Passage {
                        end,
                        free_at: end,
                        cut: None,
                        busy_ns,
                    },
                    Served::Cut { lost_at, resume } => Passage {
                        end: lost_at,
                        free_at: resume,
                        cut: Some(lost_at),
                        busy_ns,
                    },
                }
            }
        }
    }

    /// The earliest arrival at the far end of a packet whose serialisation ends at `end`,
    /// kept behind `last` (the latest arrival already on the wire).
    pub fn earliest_arrival(&self, end: SimTime, last: SimTime) -> SimTime {
        (end + *self.delay.at(end)).max(last)
    }
}

/// When the serialisation of `size` bytes starting at `start` ends at the rates of `rates`:
/// ceil(8 size 10^9 / rate) ns at one rate (as on a fixed link), the bits after a change at
/// the new rate.
fn finish(rates: &Schedule<BitsPerSec>, start: SimTime, size: u32) -> SimTime {
    // Work in bit-nanoseconds: a rate of R bit/s does R of them a nanosecond.
    let mut work = size as u128 * 8 * 1_000_000_000;
    let mut t = start;
    loop {
        let rate = rates.at(t).0 as u128;
        let need = work.div_ceil(rate) as u64;
        match rates.next_change_after(t) {
            Some(change) if t.0 + need > change.0 => {
                work -= (change.0 - t.0) as u128 * rate;
                t = change;
            }
            _ => return SimTime(t.0 + need),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(steps: &[(u64, u64)]) -> Schedule<BitsPerSec> {
        Schedule::new(
            steps
                .iter()
                .map(|&(t, r)| (SimTime(t), BitsPerSec(r)))
                .collect(),
        )
    }

    #[test]
    fn serialisation_at_one_rate_is_a_fixed_links() {
        let r = rates(&[(0, 10_000_000)]);
        assert_eq!(
            finish(&r, SimTime(5), 1500),
            SimTime(5 + BitsPerSec(10_000_000).tx_time_ns(1500))
        );
        let odd = rates(&[(0, 3)]);
        assert_eq!(
            finish(&odd, SimTime(0), 1),
            SimTime(BitsPerSec(3).tx_time_ns(1))
        );
    }

    #[test]
    fn a_rate_change_during_a_packet_sends_its_remaining_bits_at_the_new_rate() {
        // 8 Mb/s: 1000 bytes take 1 ms; halved to 4 Mb/s at 0.5 ms: the second half takes 1 ms.
        let r = rates(&[(0, 8_000_000), (500_000, 4_000_000)]);
        assert_eq!(finish(&r, SimTime(0), 1000), SimTime(1_500_000));
        // Ending exactly at the change keeps the old rate.
        let r = rates(&[(0, 8_000_000), (1_000_000, 1)]);
        assert_eq!(finish(&r, SimTime(0), 1000), SimTime(1_000_000));
        // Across several changes.
        let r = rates(&[(0, 8_000_000), (250_000, 4_000_000), (500_000, 8_000_000)]);
        // 250 bytes, then 125 bytes in the next 0.25 ms, then 625 bytes at 8 Mb/s: 0.625 ms.
        assert_eq!(finish(&r, SimTime(0), 1000), SimTime(1_125_000));
    }

    #[test]
    fn outages_are_found_by_instant_and_by_start() {
        let o = Outages::new(vec![(SimTime(10), SimTime(20)), (SimTime(30), SimTime(35))]);
        assert_eq!(o.containing(SimTime(9)), None);
        assert_eq!(o.containing(SimTime(10)), Some((SimTime(10), SimTime(20))));
        assert_eq!(o.containing(SimTime(19)), Some((SimTime(10), SimTime(20))));
        assert_eq!(o.containing(SimTime(20)), None);
        assert_eq!(o.containing(SimTime(34)), Some((SimTime(30), SimTime(35))));
        assert_eq!(o.starting_in(SimTime(0), SimTime(9)), None);
        assert_eq!(
            o.starting_in(SimTime(0), SimTime(10)),
            Some((SimTime(10), SimTime(20)))
        );
        assert_eq!(
            o.starting_in(SimTime(10), SimTime(100)),
            Some((SimTime(30), SimTime(35)))
        );
        assert_eq!(Outages::NONE.containing(SimTime(0)), None);
    }

    #[test]
    fn a_packet_being_serialised_when_the_link_goes_down_is_cut() {
        let mut d = LinkDynamics {
            server: Server::Rate(rates(&[(0, 8_000_000)])),
            delay: Schedule::constant(SimDuration(0)),
            outages: Outages::new(vec![(SimTime(500_000), SimTime(2_000_000))]),
        };
        assert_eq!(d.hold(SimTime(400_000)), None);
        assert_eq!(d.hold(SimTime(500_000)), Some(SimTime(2_000_000)));
        let p = d.transmit(SimTime(0), 1000);
        assert_eq!(
            p,
            Passage {
                end: SimTime(500_000),
                free_at: SimTime(2_000_000),
                cut: Some(SimTime(500_000)),
                busy_ns: 500_000
            }
        );
        let p = d.transmit(SimTime(2_000_000), 1000);
        assert_eq!((p.end, p.cut), (SimTime(3_000_000), None));
    }
}
