//! Vegas unit tests: ACK-clocked transfers with scripted RTTs, and ns-2's artefacts.

use super::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

fn ms(n: u64) -> SimTime {
    SimTime(n * 1_000_000)
}

/// An ACK-clocked transfer: segment `s` sent at `t` ms is acknowledged at `t +
/// rtt_ms(s)` (one ACK per segment, in order) and every ACK refills the window. Returns
/// `(ms, ack, cwnd, ssthresh)` after each of the first `acks` ACKs.
fn clocked(v: &mut Vegas, acks: usize, rtt_ms: impl Fn(u32) -> u64) -> Vec<(u64, u32, f64, u32)> {
    let mut due = BinaryHeap::new();
    let (mut una, mut next, mut now) = (0, 0, 0);
    let mut out = Vec::new();
    loop {
        while next < una + v.cwnd().whole() {
            v.on_sent(ms(now), next);
            due.push(Reverse((now + rtt_ms(next), next + 1)));
            next += 1;
        }
        if out.len() == acks {
            return out;
        }
        let Reverse((t, ack)) = due.pop().expect("an ACK in flight");
        now = t;
        una = ack;
        v.on_ack(&AckSample::new(ms(t), ack, 1));
        out.push((t, ack, v.cwnd, v.ssthresh));
    }
}

/// The window at the end of each 100 ms round trip.
fn per_round(trace: &[(u64, u32, f64, u32)]) -> Vec<f64> {
    let mut out: Vec<(u64, f64)> = Vec::new();
    for &(t, _, cwnd, _) in trace {
        match out.last_mut() {
            Some(last) if last.0 == t => last.1 = cwnd,
            _ => out.push((t, cwnd)),
        }
    }
    out.into_iter().map(|(_, w)| w).collect()
}

#[test]
fn slow_start_doubles_every_other_round_from_the_second() {
    let mut v = Vegas::new(2, 1000, VegasConfig::default());
    let trace = clocked(&mut v, 44, |_| 100);
    // The first ACK's round and every other one after it hold the window.
    assert_eq!(per_round(&trace), vec![2.0, 4.0, 4.0, 8.0, 8.0, 16.0, 16.0]);
}

#[test]
fn slow_start_ends_when_more_than_gamma_segments_queue() {
    // From segment 8 on the path holds every segment 100 ms more.
    let mut v = Vegas::new(2, 1000, VegasConfig::default());
    let trace = clocked(&mut v, 21, |s| if s < 8 { 100 } else { 200 });
    // The round ending at 500 ms still saw no queue and doubles to 8. The one ending at
    // 700 ms measures delta = (20 - 12) - 8 * 0.1 / 0.2 = 4 but is not a growing round;
    // the one ending at 900 ms leaves slow start: 8 - 8/8, ssthresh 2.
    let at = |ack: u32| trace.iter().find(|r| r.1 == ack).map(|r| (r.0, r.2, r.3));
    assert_eq!(at(20), Some((700, 8.0, 1000)));
    assert_eq!(at(21), Some((900, 7.0, 2)));
}

#[test]
fn congestion_avoidance_adds_a_segment_a_round_and_takes_one_off_when_beta_is_exceeded() {
    // Segment 0 sees the empty path (100 ms), every later one 200 ms of queue.
    let mut v = Vegas::new(8, 2, VegasConfig::default());
    let trace = clocked(&mut v, 9, |s| if s == 0 { 100 } else { 300 });
    // The first round measured no queue: 1/8 per ACK, exactly one segment over 8 ACKs.
    assert_eq!(trace[7], (300, 8, 9.0, 2));
    // The next round's mean RTT is (0.1 + 7 * 0.3) / 8 = 0.275 s for 9 segments:
    // delta = (17 - 8) - 9 * 0.1 / 0.275 = 5.7 > beta, so one segment off at once.
    assert_eq!(trace[8], (400, 9, 8.0, 2));
}

#[test]
fn the_fine_grained_timeout_follows_the_samples() {
    for (ns2, still_out, expired) in [(false, 146, 147), (true, 149, 151)] {
        let mut v = Vegas::new(2, 1000, VegasConfig::default());
        if ns2 {
            v.reproduce_ns2_artefacts(20);
        }
        v.on_sent(ms(0), 0);
        v.on_sent(ms(0), 1);
        // The first ACK: timeout (2 * 0.1 + 0.1) / 2 = 0.15 s (a hair more in doubles).
        // Segment 0's sample (0.1 s, no error) then shrinks the deviation: (0.2 + 0.075)
        // / 2 * 17/16 = 0.146 s, except in ns-2, where a segment sent at the first
        // instant gives no sample.
        v.on_ack(&AckSample::new(ms(100), 1, 1));
        assert!(!v.segment_expired(ms(still_out), 1), "ns2 {ns2}");
        assert!(v.segment_expired(ms(expired), 1), "ns2 {ns2}");
    }
}

/// Segment 0 at 0 ms, its ACK at 100 ms, segments 1..=`last` at 100 ms.
fn after_first_ack(last: u32, ns2: bool) -> Vegas {
    let mut v = Vegas::new(2, 1000, VegasConfig::default());
    if ns2 {
        v.reproduce_ns2_artefacts(4);
    }
    v.on_sent(ms(0), 0);
    v.on_ack(&AckSample::new(ms(100), 1, 1));
    for s in 1..=last {
        v.on_sent(ms(100), s);
    }
    v
}

#[test]
fn a_retransmission_cuts_a_quarter_once_per_window_and_a_repeated_one_half() {
    let mut v = after_first_ack(12, false);
    // Segment 1 lost: 12 - 12/4 = 9, inflated by the 3 duplicates.
    assert!(v.on_ns2_retransmit(ms(150), Window::segments(12), 3));
    assert_eq!(v.cwnd, 12.0);
    v.on_ns2_dup_ack();
    v.on_ns2_dup_ack();
    assert_eq!(v.cwnd, 14.0);
    v.end_ns2_inflation();
    assert_eq!((v.cwnd, v.ssthresh), (9.0, 2));
    v.on_sent(ms(150), 1);
    v.on_ack(&AckSample::new(ms(200), 2, 1));
    let w = v.cwnd;
    // Segment 2 left before that cut: no second cut for the same window.
    assert!(v.on_ns2_retransmit(ms(250), Window::segments(9), 3));
    assert_eq!(v.cwnd, w);
    // Its retransmission is lost too: half.
    v.on_sent(ms(250), 2);
    assert!(!v.on_ns2_retransmit(ms(400), Window::segments(9), 3));
    assert_eq!(v.cwnd, 4.0 + 3.0);
    // At most 3 segments: 2.
    v.on_sent(ms(450), 2);
    v.on_ns2_retransmit(ms(600), Window::segments(3), 1);
    assert_eq!(v.cwnd, 2.0 + 1.0);
}

#[test]
fn ns2_ring_wraps_leave_records_uncleared() {
    for ns2 in [false, true] {
        // A ring of 4: the ACK of segments 1..=4 wraps (slots 1, 2, 3, 0), so in ns-2
        // segments 5..=8, sent into those slots, count as retransmitted.
        let mut v = after_first_ack(4, ns2);
        v.on_ack(&AckSample::new(ms(200), 5, 4));
        for s in 5..=8 {
            v.on_sent(ms(200), s);
        }
        v.on_ack(&AckSample::new(ms(300), 5, 0));
        // Segment 5 lost: ns-2 takes it for a retransmission lost again and halves.
        let first = v.on_ns2_retransmit(ms(350), Window::segments(8), 3);
        assert_eq!(
            (first, v.cwnd),
            if ns2 {
                (false, 4.0 + 3.0)
            } else {
                (true, 6.0 + 3.0)
            }
        );
    }
}

#[test]
fn ns2_reads_the_record_of_a_segment_not_sent_yet() {
    for ns2 in [false, true] {
        let mut v = after_first_ack(3, ns2);
        v.on_ack(&AckSample::new(ms(200), 4, 3));
        // Nothing outstanding: ns-2 finds segment 4's slot cleared ("1 s old").
        assert_eq!(v.segment_expired(ms(200), 4), ns2);
    }
}
