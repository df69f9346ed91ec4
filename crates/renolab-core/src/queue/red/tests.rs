use super::*;
use crate::packet::PacketId;
use crate::time::SimDuration;
use crate::units::BitsPerSec;

/// A packet-mode RED with thresholds 2 and 6 packets, max_p = 1/8 and a fixed weight, all
/// powers of two so that the hand computations below are exact in binary.
fn packet_mode(q_w: f64) -> RedConfig {
    RedConfig {
        limit: 100,
        min_thresh: Some(2.0),
        max_thresh: Some(6.0),
        linterm: 8.0,
        q_weight: QWeight::Fixed(q_w),
        gentle: false,
        wait: false,
        bytes: false,
        queue_in_bytes: false,
        mean_pktsize: 500,
        use_mark_p: false,
        ..RedConfig::ns2(BitsPerSec(8_000), SimDuration::ZERO)
    }
}

fn red(config: RedConfig) -> Red {
    Red::new(config, RngStream::derive(1, "red-test"))
}

fn pkt(id: u32, size: u32) -> Queued {
    Queued::new(PacketId(id), size, 0)
}

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

/// Offers packets while the link is busy until `n` wait (early drops just retry).
fn fill_to(q: &mut Red, n: usize) {
    let mut id = 0;
    while q.fifo().len() < n {
        let _ = q.enqueue(at_ms(1), pkt(id, 500), true);
        id += 1;
    }
}

#[test]
fn a_scripted_arrival_sequence_follows_the_hand_computed_ewma_and_probability() {
    // w_q = 1/4. Arrivals on a busy link, so no idle decay; the average uses the length
    // *before* each arrival: avg_k = 3/4 avg_{k-1} + 1/4 q_k.
    let mut q = red(packet_mode(0.25));
    let by_hand = [
        0.0,            // q = 0
        0.25,           // q = 1
        0.6875,         // q = 2: 0.75 * 0.25 + 0.5
        1.265625,       // q = 3: 0.75 * 0.6875 + 0.75
        1.94921875,     // q = 4
        2.7119140625,   // q = 5: above min_th = 2, first crossing: count restarts, no drop
        3.533935546875, // q = 6: first early-drop test, count = 2
    ];
    let mut last = Ok(Admit::Queued);
    for (i, &avg) in by_hand.iter().enumerate() {
        last = q.enqueue(at_ms(1), pkt(i as u32, 500), true);
        if i < 6 {
            assert_eq!(
                last,
                Ok(Admit::Queued),
                "no drop below min_th nor at the crossing"
            );
        }
        assert_eq!(q.avg(), avg, "arrival {i}");
    }
    // p_b = (avg - 2) / (6 - 2) * 1/8 (ns-2 form: (v_a avg + v_b) max_p), p_a = p_b/(1 - 2 p_b).
    let pb = (0.25 * 3.533935546875 - 0.5) * 0.125;
    assert_eq!(pb, 0.04793548583984375);
    assert_eq!(q.base_probability(), pb);
    assert_eq!(q.drop_probability(), pb / (1.0 - 2.0 * pb));
    // The last arrival may or may not have been dropped; a drop restarts the count.
    let mut count = if last.is_ok() { 2 } else { 0 };
    assert_eq!(q.count(), count);

    // Continue with a reference model of the same rules, step by step.
    let (mut avg, mut len) = (by_hand[6], q.fifo().len());
    for i in 7..40u32 {
        avg = 0.75 * avg + 0.25 * len as f64;
        count += 1;
        let res = q.enqueue(at_ms(1), pkt(i, 500), true);
        assert_eq!(q.avg(), avg, "arrival {i}");
        if avg >= 6.0 {
            assert_eq!(
                res,
                Err(QueueDrop::EarlyDrop),
                "forced above max_th, arrival {i}"
            );
            count = 0;
        } else {
            let pb = (0.25 * avg - 0.5) * 0.125;
            let pa = if count as f64 * pb < 1.0 {
                pb / (1.0 - count as f64 * pb)
            } else {
                1.0
            };
            assert_eq!(q.base_probability(), pb, "arrival {i}");
            assert_eq!(q.drop_probability(), pa, "arrival {i}");
            match res {
                Ok(_) => len += 1,
                Err(e) => {
                    assert_eq!(e, QueueDrop::EarlyDrop);
                    count = 0;
                }
            }
        }
        assert_eq!(q.count(), count, "arrival {i}");
        assert_eq!(q.fifo().len(), len);
    }
}

/// Offers `n` arrivals (ECN-capable if `ect`) to a queue held at 4 waiting packets (below
/// max_th, above min_th), returning (queued plain, marked, dropped).
fn offer_between_thresholds(q: &mut Red, ect: bool, n: u32) -> (u32, u32, u32) {
    let (mut plain, mut marked, mut dropped) = (0, 0, 0);
    for i in 0..n {
        match q.enqueue(at_ms(2), pkt(1000 + i, 500).with_ect(ect), true) {
            Ok(Admit::Queued) => plain += 1,
            Ok(Admit::Marked) => marked += 1,
            Err(e) => {
                assert_eq!(e, QueueDrop::EarlyDrop);
                dropped += 1;
            }
        }
        while q.fifo().len() > 4 {
            let _ = q.dequeue(at_ms(2));
        }
    }
    (plain, marked, dropped)
}

#[test]
fn with_ecn_the_early_decisions_mark_ect_arrivals_and_drop_the_others() {
    let ecn = RedConfig {
        ecn: true,
        ..packet_mode(1.0)
    };
    let mut q = red(ecn);
    fill_to(&mut q, 4);
    let (plain, marked, dropped) = offer_between_thresholds(&mut q, true, 2000);
    assert_eq!(dropped, 0, "ECT arrivals are never dropped early");
    assert!(marked > 100 && plain > marked, "{plain} {marked}");
    // The same draws without ECT: the marks become drops, one for one.
    let mut q = red(ecn);
    fill_to(&mut q, 4);
    let (plain2, marked2, dropped2) = offer_between_thresholds(&mut q, false, 2000);
    assert_eq!((plain2, marked2, dropped2), (plain, 0, marked));
    // And a queue without ECN drops ECT arrivals.
    let mut q = red(packet_mode(1.0));
    fill_to(&mut q, 4);
    assert_eq!(
        offer_between_thresholds(&mut q, true, 2000),
        (plain, 0, marked)
    );
}

#[test]
fn with_ecn_forced_drops_stay_drops() {
    // Gentle off, w_q = 1: at 6 waiting the average is max_th, every arrival forced.
    let mut q = red(RedConfig {
        ecn: true,
        ..packet_mode(1.0)
    });
    fill_to(&mut q, 6);
    for i in 0..100 {
        assert_eq!(
            q.enqueue(at_ms(2), pkt(100 + i, 500).with_ect(true), true),
            Err(QueueDrop::EarlyDrop)
        );
    }
    // ns-2's use_mark_p: above max_th p_b = 1 is not below mark_p, so the draw drops.
    let mut q = red(RedConfig {
        ecn: true,
        use_mark_p: true,
        ..packet_mode(1.0)
    });
    fill_to(&mut q, 6);
    for i in 0..100 {
        assert_eq!(
            q.enqueue(at_ms(2), pkt(100 + i, 500).with_ect(true), true),
            Err(QueueDrop::EarlyDrop)
        );
    }
}

#[test]
fn with_gentle_off_an_average_above_max_th_drops_every_arrival() {
    // w_q = 1: the average is the queue length seen by the arrival.
    let mut q = red(packet_mode(1.0));
    fill_to(&mut q, 6);
    for i in 0..1000 {
        assert_eq!(
            q.enqueue(at_ms(2), pkt(100 + i, 500), true),
            Err(QueueDrop::EarlyDrop)
        );
        assert_eq!(q.avg(), 6.0);
    }
    assert_eq!(q.fifo().len(), 6);
}

#[test]
fn ns2_default_use_mark_p_drops_above_max_th_through_the_early_path() {
    let mut q = red(RedConfig {
        use_mark_p: true,
        ..packet_mode(1.0)
    });
    fill_to(&mut q, 6);
    for i in 0..1000 {
        assert_eq!(
            q.enqueue(at_ms(2), pkt(100 + i, 500), true),
            Err(QueueDrop::EarlyDrop)
        );
        assert_eq!(q.drop_probability(), 1.0);
    }
}

#[test]
fn gentle_probability_ramps_from_max_p_at_max_th_to_one_at_twice_max_th() {
    let q = red(RedConfig {
        gentle: true,
        ..packet_mode(1.0)
    });
    assert_eq!(q.base_probability_at(6.0), 0.125);
    assert_eq!(q.base_probability_at(9.0), (1.0 + 0.125) / 2.0);
    assert_eq!(q.base_probability_at(12.0), 1.0);
    assert_eq!(q.base_probability_at(20.0), 1.0);
}

#[test]
fn with_gentle_on_only_an_average_above_twice_max_th_forces_drops() {
    // Below 2 max_th the gentle ramp makes drops certain before the queue can get there
    // packet by packet, so measure the queue in bytes (thresholds 1000 and 3000 bytes) and
    // jump over the ramp with large packets.
    let mut q = red(RedConfig {
        gentle: true,
        queue_in_bytes: true,
        ..packet_mode(1.0)
    });
    assert_eq!(q.thresholds(), (1000.0, 3000.0));
    assert!(q.enqueue(at_ms(1), pkt(0, 5000), true).is_ok());
    // avg = 5000 bytes, on the ramp, but the first crossing of min_th never drops.
    assert!(q.enqueue(at_ms(1), pkt(1, 5000), true).is_ok());
    for i in 0..100 {
        // avg = 10000 >= 2 max_th = 6000.
        assert_eq!(
            q.enqueue(at_ms(2), pkt(2 + i, 40), true),
            Err(QueueDrop::EarlyDrop)
        );
        assert_eq!(q.avg(), 10_000.0);
        assert_eq!(q.count(), 0, "forced drops restart the count");
    }
}

#[test]
fn the_hard_limit_is_a_forced_overflow_drop() {
    let mut q = red(RedConfig {
        limit: 3,
        min_thresh: Some(50.0),
        max_thresh: Some(60.0),
        ..packet_mode(0.5)
    });
    fill_to(&mut q, 3);
    assert_eq!(
        q.enqueue(at_ms(1), pkt(9, 500), true),
        Err(QueueDrop::Overflow)
    );
    assert_eq!(q.fifo().len(), 3, "the limit counts waiting packets only");
}

#[test]
fn after_an_idle_period_the_average_decays_as_if_small_packets_had_arrived() {
    // 8000 b/s and 1000-byte mean packets: C = 1 packet/s, and each packet takes 1 s to send.
    let cfg = RedConfig {
        mean_pktsize: 1000,
        ..packet_mode(0.5)
    };
    let mut q = red(cfg);
    // t = 0: a packet reaches the idle link and leaves at once (the link is busy until 1 s).
    assert!(q.enqueue(at_ms(0), pkt(0, 1000), false).is_ok());
    assert_eq!(q.dequeue(at_ms(0)).map(|p| p.id), Some(PacketId(0)));
    // Three arrivals while it transmits: avg = 0, then 0.5 * 0 + 0.5 * 1, then 0.25 + 1.
    for i in 1..=3 {
        assert!(q.enqueue(at_ms(100), pkt(i, 1000), true).is_ok());
    }
    assert_eq!(q.avg(), 1.25);
    // Sent at 1 s, 2 s and 3 s: the link goes idle at 4 s.
    for (i, t) in [(1, 1000), (2, 2000), (3, 3000)] {
        assert_eq!(q.dequeue(at_ms(t)).map(|p| p.id), Some(PacketId(i)));
    }
    let busy = q.clone();
    // At 7.5 s the link has been idle 3.5 s: m = int(1 * 3.5) = 3, so
    // avg = 1.25 * (1/2)^3 * (1/2) + (1/2) * 0.
    assert!(q.enqueue(at_ms(7500), pkt(4, 1000), false).is_ok());
    assert_eq!(q.avg(), 1.25 * 0.125 * 0.5);
    // An arrival to an empty queue while the last packet is still on the wire does not
    // decay the average beyond the one EWMA step.
    let mut busy = busy;
    assert!(busy.enqueue(at_ms(3500), pkt(4, 1000), true).is_ok());
    assert_eq!(busy.avg(), 1.25 * 0.5);
}

#[test]
fn byte_mode_scales_the_probability_by_size_and_counts_in_mean_packets() {
    // w_q = 1 (avg = queue length), thresholds 2 and 6 packets, mean packet 500 bytes.
    let mut q = red(RedConfig {
        bytes: true,
        ..packet_mode(1.0)
    });
    assert!(q.enqueue(at_ms(1), pkt(0, 500), true).is_ok());
    assert!(q.enqueue(at_ms(1), pkt(1, 500), true).is_ok());
    // Third arrival: avg = 2 with 2 waiting, the first crossing: count_bytes restarts at 200.
    assert!(q.enqueue(at_ms(1), pkt(2, 200), true).is_ok());
    let before = q.clone();
    // A 1000-byte arrival at avg = 3: p_b = (3 - 2)/4 * 1/8 = 1/32; count = (200 + 1000) / 500
    // = 2 mean packets (integer division), p_a = p_b / (1 - 2 p_b), scaled by 1000/500.
    let _ = q.enqueue(at_ms(1), pkt(3, 1000), true);
    let pb = 0.03125;
    assert_eq!(q.base_probability(), pb);
    assert_eq!(q.drop_probability(), pb / (1.0 - 2.0 * pb) * 1000.0 / 500.0);
    // A 250-byte arrival in the same state: count = 450 / 500 = 0, scaled by 250/500.
    let mut small = before;
    let _ = small.enqueue(at_ms(1), pkt(3, 250), true);
    assert_eq!(small.drop_probability(), pb * 250.0 / 500.0);
}

/// Long-run drop fraction and its variance per arrival for the count-based spreading at a
/// fixed `p_b`, from the renewal argument: the gap X between drops has survival
/// S(n) = prod_{k<=n} (1 - p_a(k)), the drop fraction is 1/E[X] and the number of drops in
/// N arrivals has variance about N Var(X) / E[X]^3.
fn spread_drop_fraction(pb: f64, wait: bool) -> (f64, f64) {
    let pa = |k: f64| -> f64 {
        let p = if wait {
            if k * pb < 1.0 {
                0.0
            } else if k * pb < 2.0 {
                pb / (2.0 - k * pb)
            } else {
                1.0
            }
        } else if k * pb < 1.0 {
            pb / (1.0 - k * pb)
        } else {
            1.0
        };
        p.min(1.0)
    };
    let (mut survival, mut ex, mut ex2) = (1.0, 0.0, 0.0);
    let mut n = 1.0;
    while survival > 0.0 {
        let p = pa(n);
        let stop_here = survival * p;
        ex += n * stop_here;
        ex2 += n * n * stop_here;
        survival *= 1.0 - p;
        n += 1.0;
    }
    let var = ex2 - ex * ex;
    (1.0 / ex, var / (ex * ex * ex))
}

#[test]
fn at_a_fixed_average_the_drop_fraction_matches_the_spread_formula() {
    for wait in [false, true] {
        // w_q = 1 and a queue held at 10 packets: avg = 10, p_b = (10 - 5)/10 * 1/10 = 0.05.
        let mut q = red(RedConfig {
            min_thresh: Some(5.0),
            max_thresh: Some(15.0),
            linterm: 10.0,
            limit: 1000,
            wait,
            ..packet_mode(1.0)
        });
        fill_to(&mut q, 10);
        let n = 200_000u32;
        let mut drops = 0u32;
        for i in 0..n {
            match q.enqueue(at_ms(3), pkt(1000 + i, 500), true) {
                Ok(_) => {
                    q.dequeue(at_ms(3));
                }
                Err(e) => {
                    assert_eq!(e, QueueDrop::EarlyDrop);
                    drops += 1;
                }
            }
        }
        assert_eq!(q.avg(), 10.0);
        let pb = q.base_probability();
        assert!((pb - 0.05).abs() < 1e-12);
        let (fraction, var_per_arrival) = spread_drop_fraction(pb, wait);
        let expected = n as f64 * fraction;
        let sigma = (n as f64 * var_per_arrival).sqrt();
        let seen = drops as f64;
        assert!(
            (seen - expected).abs() < 3.0 * sigma,
            "wait = {wait}: {seen} drops, expected {expected} ± {sigma}"
        );
        // Uniform gaps: about 1 in 10 arrivals without wait, 1 in 29.5 with it.
        let gap = if wait { 29.5 } else { 10.0 };
        assert!((1.0 / fraction - gap).abs() < 0.01, "{}", 1.0 / fraction);
    }
}

#[test]
fn an_arrival_to_an_idle_empty_queue_is_never_dropped() {
    let mut q = red(packet_mode(1.0));
    fill_to(&mut q, 6);
    while q.dequeue(at_ms(5)).is_some() {}
    assert_eq!(
        q.enqueue(at_ms(10_000), pkt(50, 500), false),
        Ok(Admit::Queued)
    );
}

#[test]
fn the_same_seed_makes_the_same_drops() {
    let run = || {
        let mut q = red(RedConfig {
            min_thresh: Some(5.0),
            max_thresh: Some(15.0),
            limit: 1000,
            ..packet_mode(1.0)
        });
        fill_to(&mut q, 10);
        (0..2000)
            .map(|i| {
                let r = q.enqueue(at_ms(3), pkt(i, 500), true).is_ok();
                if r {
                    q.dequeue(at_ms(3));
                }
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}
