//! Trace-driven link directions: mahimahi's delivery opportunities.
//!
//! A mahimahi trace (`mm-link`'s format, used by Pantheon and most congestion-control papers
//! since 2014) lists one millisecond timestamp per line; each line is an opportunity to
//! deliver one MTU-sized packet at that millisecond, repeated timestamps being several
//! opportunities. The trace repeats with its last timestamp as period. [`DeliveryTrace`]
//! is the parsed trace, [`TraceServer`] the transmitter it drives.
//!
//! The byte accounting is mahimahi's link queue's (`src/frontend/link_queue.cc`,
//! `LinkQueue::rationalize`), written anew here:
//!
//! - an opportunity carries [`OPPORTUNITY_BYTES`] = 1504 bytes (`PACKET_SIZE` in
//!   `link_queue.hh`: the 1500-byte MTU plus the 4-byte packet-information header mahimahi's
//!   TUN device puts before each packet, as it opens the device without `IFF_NO_PI`), and a
//!   packet of S bytes costs S + [`TUN_HEADER_BYTES`]: an MTU-sized packet fills one
//!   opportunity exactly;
//! - the packet at the head takes bytes from each opportunity until it has all it needs,
//!   then leaves at that opportunity's instant; what is left of the opportunity goes to the
//!   next packet waiting (small packets share an opportunity; a packet may span two);
//! - bytes of an opportunity that finds no packet waiting are lost;
//! - a packet may use only opportunities after its arrival: mahimahi spends every
//!   opportunity up to the current millisecond before it queues an arriving packet
//!   (`read_packet` calls `rationalize(now)` first), so a packet arriving in the millisecond
//!   of an opportunity misses it. Here opportunities are events that fire before anything
//!   else at their instant ([`crate::engine::FIRST_AT_INSTANT`]), which gives the same rule
//!   in continuous time.
//!
//! mahimahi refuses packets larger than an opportunity; here they span as many as they need.

use std::sync::Arc;

use super::dynamics::Outages;
use crate::time::SimTime;

/// Bytes one delivery opportunity carries: mahimahi's `PACKET_SIZE` (`link_queue.hh`).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// Bytes each packet costs besides its own: the packet-information header of mahimahi's TUN
/// device (`struct tun_pi`, 4 bytes), which its link queue counts with the packet.
pub const TUN_HEADER_BYTES: u32 = 4;
/// Bytes of IP packet an opportunity carries when packets fill it exactly.
pub const OPPORTUNITY_IP_BYTES: u32 = OPPORTUNITY_BYTES - TUN_HEADER_BYTES;

const NS_PER_MS: u64 = 1_000_000;

/// Why a trace could not be read: the line (from 1) when one is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The line at fault, if one is.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// A mahimahi trace: the millisecond of each delivery opportunity in one period.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryTrace {
    /// Opportunity instants, ms from the start of a period, non-decreasing; the last is the
    /// period.
    ms: Box<[u32]>,
}

impl DeliveryTrace {
    /// Parses a trace's text: one whole number of milliseconds per line, non-decreasing,
    /// the last above 0 (mahimahi's `LinkQueue` constructor checks the same). Spaces and a
    /// carriage return around a number are allowed; an empty line is not (as in mahimahi).
    pub fn parse(text: &[u8]) -> Result<Self, TraceError> {
        let at = |line: usize, message: String| TraceError {
            line: Some(line),
            message,
        };
        let body = text.strip_suffix(b"\n").unwrap_or(text);
        let mut ms: Vec<u32> = Vec::new();
        if !body.is_empty() {
            for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
                let line = i + 1;
                let field = raw.trim_ascii();
                if field.is_empty() {
                    return Err(at(
                        line,
                        "is empty; each line is one timestamp in milliseconds".into(),
                    ));
                }
                if !field.iter().all(u8::is_ascii_digit) {
                    // Show the line only if it looks like a number: a trace path may name
                    // any file, and an error must not print what is in it.
                    let numeric =
                        field.len() <= 20 && field.iter().all(|b| b"0123456789.+-eE".contains(b));
                    let what = match numeric {
                        true => format!("{:?}", String::from_utf8_lossy(field)),
                        false => "the line".to_string(),
                    };
                    return Err(at(
                        line,
                        format!("{what} is not a whole number of milliseconds"),
                    ));
                }
                let shown = String::from_utf8_lossy(&field[..field.len().min(20)]).into_owned();
                let value = std::str::from_utf8(field)
                    .ok()
                    .and_then(|f| f.parse::<u32>().ok())
                    .ok_or_else(|| {
                        at(
                            line,
                            format!("{shown} is too large; timestamps go up to {} ms", u32::MAX),
                        )
                    })?;
                if let Some(&previous) = ms.last() {
                    if value < previous {
                        return Err(at(
                            line,
                            format!(
                                "{value} is before the line above ({previous}); timestamps must not decrease"
                            ),
                        ));
                    }
                }
                ms.push(value);
            }
        }
        match ms.last() {
            None => Err(TraceError {
                line: None,
                message: "has no timestamps; a mahimahi trace has one millisecond timestamp per line".into(),
            }),
            Some(0) => Err(TraceError {
                line: Some(ms.len()),
                message: "the last timestamp is 0: a trace must last more than 0 ms (its last timestamp is its period)".into(),
            }),
            Some(_) => Ok(DeliveryTrace { ms: ms.into() }),
        }
    }

    /// Opportunities in one period.
    pub fn len(&self) -> usize {
        self.ms.len()
    }

    /// Never true: a trace has at least one opportunity.
    pub fn is_empty(&self) -> bool {
        self.ms.is_empty()
    }

    /// The period, ms (the last timestamp).
    pub fn period_ms(&self) -> u64 {
        *self.ms.last().expect("a trace is not empty") as u64
    }

    /// Mean rate of IP bytes when MTU-sized packets fill every opportunity, bit/s: what a
    /// saturated trace-driven direction carries.
    pub fn mean_rate_bps(&self) -> f64 {
        self.len() as f64 * OPPORTUNITY_IP_BYTES as f64 * 8.0 * 1000.0 / self.period_ms() as f64
    }

    /// When opportunity `j` comes (counted from 0 over the repeating trace): the trace's
    /// `j mod len`-th timestamp in period `j / len`.
    pub fn time_of(&self, j: u64) -> SimTime {
        let n = self.ms.len() as u64;
        let ms = (j / n) * self.period_ms() + self.ms[(j % n) as usize] as u64;
        SimTime(ms.saturating_mul(NS_PER_MS))
    }

    /// The first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: SimTime) -> u64 {
        // Opportunities fall on whole milliseconds: at or after t means at or after
        // ceil(t / 1 ms).
        let m = t.0.div_ceil(NS_PER_MS);
        let (n, period) = (self.ms.len() as u64, self.period_ms());
        let (cycle, offset) = (m / period, m % period);
        // The last timestamps of the previous period fall on this period's start, where
        // they come before this period's first.
        if offset == 0 && cycle > 0 {
            let i = self.ms.partition_point(|&x| (x as u64) < period) as u64;
            if i < n {
                return (cycle - 1) * n + i;
            }
        }
        let i = self.ms.partition_point(|&x| (x as u64) < offset) as u64;
        cycle * n + i // i == n: the next period's first
    }

    /// The first opportunity after `t`.
    pub fn first_after(&self, t: SimTime) -> u64 {
        self.first_at_or_after(SimTime(t.0 + 1))
    }
}

/// What became of a packet a [`TraceServer`] served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// Its last byte left at this opportunity.
    Done(SimTime),
    /// An outage began at `lost_at` while it was being sent: it is lost, and the server
    /// resumes at `resume`, its first opportunity after the outage.
    Cut {
        /// The outage's start.
        lost_at: SimTime,
        /// The first opportunity after the outage.
        resume: SimTime,
    },
}

/// The transmitter of a trace-driven direction: which opportunity comes next and what is
/// left of the last one used.
#[derive(Clone, Debug)]
pub struct TraceServer {
    trace: Arc<DeliveryTrace>,
    /// The next opportunity not used yet.
    next: u64,
    /// Bytes left of the opportunity the last packet finished at, and its instant: a packet
    /// that was already waiting then (served at that instant) may use them.
    carry: Option<(SimTime, u32)>,
}

impl TraceServer {
    /// A server at the start of `trace`.
    pub fn new(trace: Arc<DeliveryTrace>) -> Self {
        TraceServer {
            trace,
            next: 0,
            carry: None,
        }
    }

    /// The trace.
    pub fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    /// No packet waited up to `now` (a packet arrives to an empty queue): the opportunities
    /// up to `now` are spent unused. Returns when the next usable one comes, the first
    /// after `now` outside `outages`.
    pub fn idle_until(&mut self, now: SimTime, outages: &Outages) -> SimTime {
        self.carry = None;
        self.next = self.next.max(self.trace.first_after(now));
        self.skip(outages);
        self.trace.time_of(self.next)
    }

    /// Moves `next` past any outage it falls in.
    fn skip(&mut self, outages: &Outages) {
        while let Some((_, end)) = outages.containing(self.trace.time_of(self.next)) {
            self.next = self.next.max(self.trace.first_at_or_after(end));
        }
    }

    /// Serves a packet that costs `cost` bytes, waiting at `now`: the bytes left of the
    /// opportunity of `now` if the previous packet finished then, then whole opportunities
    /// in order (all after `now`, or at `now` itself for repeated timestamps).
    pub fn serve(&mut self, now: SimTime, cost: u32, outages: &Outages) -> Served {
        let mut need = cost;
        if let Some((at, left)) = self.carry.take() {
            if at == now {
                let used = left.min(need);
                need -= used;
                if need == 0 {
                    self.carry = Some((at, left - used));
                    return Served::Done(now);
                }
            }
        }
        loop {
            let t = self.trace.time_of(self.next);
            if let Some((start, end)) = outages.containing(t) {
                self.next = self.next.max(self.trace.first_at_or_after(end));
                if need < cost {
                    // Part of it was sent when the link went down.
                    self.skip(outages);
                    return Served::Cut {
                        lost_at: start,
                        resume: self.trace.time_of(self.next),
                    };
                }
                continue;
            }
            self.next += 1;
            if need <= OPPORTUNITY_BYTES {
                self.carry = Some((t, OPPORTUNITY_BYTES - need));
                return Served::Done(t);
            }
            need -= OPPORTUNITY_BYTES;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(ms: &[u32]) -> Arc<DeliveryTrace> {
        Arc::new(DeliveryTrace { ms: ms.into() })
    }

    fn ms(t: SimTime) -> f64 {
        t.0 as f64 / NS_PER_MS as f64
    }

    const NONE: Outages = Outages::NONE;

    #[test]
    fn a_trace_repeats_with_its_last_timestamp_as_period() {
        let t = trace(&[0, 5, 10]);
        let times: Vec<f64> = (0..7).map(|j| ms(t.time_of(j))).collect();
        // The period's last opportunity and the next period's first fall on the same ms.
        assert_eq!(times, [0.0, 5.0, 10.0, 10.0, 15.0, 20.0, 20.0]);
        assert_eq!(t.period_ms(), 10);
    }

    #[test]
    fn the_first_opportunity_after_an_instant_is_found_in_any_period() {
        let t = trace(&[0, 5, 10]);
        for probe in 0..40_000_000u64 / 250_000 {
            let at = SimTime(probe * 250_000);
            let brute = (0..100).find(|&j| t.time_of(j) > at).unwrap();
            assert_eq!(t.first_after(at), brute, "after {at:?}");
            let brute = (0..100).find(|&j| t.time_of(j) >= at).unwrap();
            assert_eq!(t.first_at_or_after(at), brute, "at or after {at:?}");
        }
        let t = trace(&[3, 3, 7, 7, 7, 9]);
        for probe in 0..400u64 {
            let at = SimTime(probe * 100_000);
            let brute = (0..100).find(|&j| t.time_of(j) > at).unwrap();
            assert_eq!(t.first_after(at), brute, "after {at:?}");
        }
    }

    /// Serves `sizes` (all waiting from before the trace starts) back to back and returns
    /// each packet's departure, ms.
    fn departures(t: &Arc<DeliveryTrace>, sizes: &[u32]) -> Vec<f64> {
        let mut server = TraceServer::new(t.clone());
        let mut at = server.idle_until(SimTime(0), &NONE);
        sizes
            .iter()
            .map(|&s| {
                let Served::Done(done) = server.serve(at, s + TUN_HEADER_BYTES, &NONE) else {
                    unreachable!()
                };
                at = done;
                ms(done)
            })
            .collect()
    }

    #[test]
    fn a_saturated_server_delivers_n_mtu_packets_per_millisecond_of_n_opportunities() {
        for n in 1..=4u32 {
            // n opportunities in each millisecond of a 100 ms trace.
            let ms_list: Vec<u32> = (1..=100)
                .flat_map(|m| std::iter::repeat_n(m, n as usize))
                .collect();
            let t = trace(&ms_list);
            let sent = departures(&t, &vec![1500; 1000]);
            // Bytes delivered by the end of each millisecond: n x 1500, within one packet.
            for m in 1..=200u32 {
                let delivered = sent.iter().filter(|&&d| d <= m as f64).count() as i64 * 1500;
                let expected = (n * m * 1500).min(1000 * 1500) as i64;
                assert!(
                    (delivered - expected).abs() <= 1500,
                    "n {n}, ms {m}: {delivered} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn small_packets_share_an_opportunity() {
        let t = trace(&[1, 2, 3]);
        // 44 bytes each with the TUN header: 34 fit in 1504 bytes, the 35th spans two.
        let sent = departures(&t, &[40; 36]);
        assert!(sent[..34].iter().all(|&d| d == 1.0));
        assert_eq!(&sent[34..], &[2.0, 2.0]);
    }

    #[test]
    fn a_packet_spans_two_opportunities_and_the_next_uses_what_is_left() {
        let t = trace(&[1, 2, 3, 4]);
        // 1000 + 4 bytes at ms 1, leaving 500; the next (1004) takes those and 504 of ms 2;
        // the third (1004) needs more than ms 2's remaining 1000: it finishes at ms 3.
        assert_eq!(departures(&t, &[1000, 1000, 1000]), [1.0, 2.0, 3.0]);
        // A jumbo packet spans as many as it needs.
        assert_eq!(departures(&t, &[4000]), [3.0]);
    }

    #[test]
    fn bytes_of_an_opportunity_that_finds_the_queue_empty_are_lost() {
        let t = trace(&[1, 2, 3, 4, 5]);
        let mut server = TraceServer::new(t);
        let start = server.idle_until(SimTime(0), &NONE);
        assert_eq!(
            server.serve(start, 44, &NONE),
            Served::Done(SimTime(NS_PER_MS))
        );
        // Another packet arrives just after ms 1: the rest of ms 1 is gone, and so is ms 2,
        // spent while nothing waited.
        let next = server.idle_until(SimTime(2 * NS_PER_MS), &NONE);
        assert_eq!(next, SimTime(3 * NS_PER_MS));
        assert_eq!(
            server.serve(next, 1504, &NONE),
            Served::Done(SimTime(3 * NS_PER_MS))
        );
        // A packet that waited while ms 3 was used gets nothing of it: ms 3 was full.
        assert_eq!(
            server.serve(next, 44, &NONE),
            Served::Done(SimTime(4 * NS_PER_MS))
        );
    }

    #[test]
    fn a_packet_arriving_at_an_opportunitys_instant_misses_it() {
        let t = trace(&[1, 2]);
        let mut server = TraceServer::new(t);
        assert_eq!(
            server.idle_until(SimTime(NS_PER_MS), &NONE),
            SimTime(2 * NS_PER_MS)
        );
    }

    #[test]
    fn an_outage_skips_opportunities_and_cuts_the_packet_being_sent() {
        let t = trace(&(1..=10).collect::<Vec<u32>>());
        let outages = Outages::new(vec![(SimTime(3 * NS_PER_MS), SimTime(6 * NS_PER_MS))]);
        let mut server = TraceServer::new(t);
        let start = server.idle_until(SimTime(NS_PER_MS + 1), &outages);
        assert_eq!(start, SimTime(2 * NS_PER_MS));
        // Two opportunities' worth: one byte at ms 2, the rest would be at ms 3, in the outage.
        assert_eq!(
            server.serve(start, 1505, &outages),
            Served::Cut {
                lost_at: SimTime(3 * NS_PER_MS),
                resume: SimTime(6 * NS_PER_MS)
            }
        );
        assert_eq!(
            server.serve(SimTime(6 * NS_PER_MS), 1504, &outages),
            Served::Done(SimTime(6 * NS_PER_MS))
        );
        // Idle during the outage: the next usable opportunity is after it.
        let mut server = TraceServer::new(trace(&(1..=10).collect::<Vec<u32>>()));
        assert_eq!(
            server.idle_until(SimTime(3 * NS_PER_MS), &outages),
            SimTime(6 * NS_PER_MS)
        );
    }

    #[test]
    fn a_bad_trace_names_its_line() {
        let err = |text: &str| DeliveryTrace::parse(text.as_bytes()).unwrap_err();
        assert_eq!(err("").line, None);
        assert_eq!(err("0\n0\n").line, Some(2));
        assert_eq!(err("1\n2\nx3\n").line, Some(3));
        assert_eq!(
            err("1\n2\nx3\n").message,
            "the line is not a whole number of milliseconds"
        );
        assert_eq!(
            err("2.5\n").message,
            "\"2.5\" is not a whole number of milliseconds"
        );
        assert_eq!(err("5\n3\n").line, Some(2));
        assert_eq!(err("5\n\n6\n").line, Some(2));
        assert_eq!(err("-1\n").line, Some(1));
        assert_eq!(err("99999999999\n").line, Some(1));
        let ok = DeliveryTrace::parse(b"1\r\n 2 \n2\n").unwrap();
        assert_eq!((ok.len(), ok.period_ms()), (3, 2));
        assert_eq!(DeliveryTrace::parse(b"7").unwrap().period_ms(), 7);
    }
}
