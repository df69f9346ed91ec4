use super::*;
use crate::queue::QueueLimit;

const MS: u64 = 1_000_000;

fn at(ns: u64) -> SimTime {
    SimTime(ns)
}

fn pkt(id: u32, ecn: Codepoint) -> Queued {
    Queued::new(PacketId(id), 1500, 0).with_ecn(ecn)
}

fn queue(config: DualPi2Config) -> DualPi2 {
    DualPi2::new(config, RngStream::derive(1, "link/test/queue"))
}

fn no_drop() -> impl FnMut(PacketId, QueueDrop) {
    |id, cause| panic!("unexpected drop of {id:?} ({cause:?})")
}

/// The PI law of `calculate_probability()`, written out on its own: the gains are the
/// kernel's scaled defaults, 41 and 819 (1/256 Hz) times 2^32 − 1 >> 2 over 10^9.
fn law(prob: u32, qdelay: u64, last: u64) -> u32 {
    const ALPHA: i128 = 44;
    const BETA: i128 = 879;
    let delta = (qdelay as i128 - 15 * MS as i128) * ALPHA + (qdelay as i128 - last as i128) * BETA;
    let next = prob as i128 + delta.signum() * (delta.abs() >> 6);
    next.clamp(0, u32::MAX as i128) as u32
}

#[test]
fn the_default_gains_are_the_kernels_scaled_values() {
    let q = queue(DualPi2Config::default());
    assert_eq!((q.alpha, q.beta), (44, 879));
    assert_eq!(q.credit_init, 1514 * (10 - 90), "c_protection_init");
}

#[test]
fn the_probability_follows_the_pi_law_update_by_update() {
    let mut q = queue(DualPi2Config::default());
    // The script: at each time, an operation and the enqueue times of the classic and L
    // heads after it. A classic packet waits from 0 to 50 ms, another from 50 ms; an L
    // packet waits from 60 to 120 ms (the scheduler serves L first), the second classic
    // one leaves at 200 ms; then both queues stay empty.
    type Heads = (Option<u64>, Option<u64>);
    let ops: &[(u64, &str, Heads)] = &[
        (0, "enqueue c", (Some(0), None)),
        (50 * MS, "dequeue", (None, None)),
        (50 * MS, "enqueue c", (Some(50 * MS), None)),
        (60 * MS, "enqueue l", (Some(50 * MS), Some(60 * MS))),
        (120 * MS, "dequeue", (Some(50 * MS), None)),
        (200 * MS, "dequeue", (None, None)),
    ];
    let (mut next_op, mut heads): (usize, Heads) = (0, (None, None));
    let (mut expected, mut last) = (0u32, 0u64);
    for k in 1..=100u64 {
        let t = k * 16 * MS;
        while next_op < ops.len() && ops[next_op].0 < t {
            let (when, op, after) = ops[next_op];
            let id = next_op as u32;
            match op {
                "enqueue c" => assert!(q.enqueue(at(when), pkt(id, Codepoint::Ect0)).is_ok()),
                "enqueue l" => assert!(q.enqueue(at(when), pkt(id, Codepoint::Ect1)).is_ok()),
                _ => assert!(q.dequeue(at(when), &mut no_drop()).is_some()),
            }
            heads = after;
            next_op += 1;
        }
        q.catch_up(at(t));
        let delay = |h: Option<u64>| h.map_or(0, |e| t - e);
        let qdelay = delay(heads.0).max(delay(heads.1));
        let before = expected;
        expected = law(expected, qdelay, last);
        assert_eq!(
            q.base_prob(),
            expected,
            "update {k} at {t} ns, qdelay {qdelay}"
        );
        // The same step in Hz, 0.16·(q − target) + 3.2·(q − q_prev) with q in seconds, to
        // the kernel's rounding of the gains (41/256 and 819/256 Hz).
        let hz = 0.16 * (qdelay as f64 - 15e6) / 1e9 + 3.2 * (qdelay as f64 - last as f64) / 1e9;
        let step = (expected as f64 - before as f64) / MAX_PROB as f64;
        if expected != 0 && before != 0 {
            assert!(
                (step - hz).abs() < 3e-3 * hz.abs().max(1e-3),
                "update {k}: {step} vs {hz}"
            );
        }
        last = qdelay;
    }
    assert!(q.is_empty() && next_op == ops.len());
    assert_eq!(q.base_prob(), 0, "empty queues bring p' back to zero");
}

#[test]
fn an_idle_gap_skips_only_updates_that_change_nothing() {
    let mut stepped = queue(DualPi2Config::default());
    stepped.enqueue(at(0), pkt(0, Codepoint::Ect0)).unwrap();
    stepped.catch_up(at(400 * MS));
    stepped.dequeue(at(400 * MS), &mut no_drop()).unwrap();
    let mut jumped = stepped.clone();
    for k in 26..=2000u64 {
        stepped.catch_up(at(k * 16 * MS));
    }
    jumped.catch_up(at(2000 * 16 * MS + 5));
    assert_eq!(jumped.base_prob(), stepped.base_prob());
    assert_eq!(jumped.last_qdelay, stepped.last_qdelay);
    assert_eq!(jumped.next_update, at(2001 * 16 * MS));
}

/// Enqueues `n` L packets (ECT(1)) and `n` classic ones (ECT(0) and Not-ECT alternately)
/// at time 0, then dequeues everything 1 µs later with p' fixed at `prob` (no update is
/// due), and checks every packet's fate against the rolls of a copy of the queue's random
/// stream: the L queue marks when one roll is at most k·p', the classic queue when two
/// rolls are at most p' (dropping a Not-ECT packet, and on overload an L4S one).
fn fates_follow_the_coupled_rolls(prob: u32) {
    let config = DualPi2Config::default();
    let mut q = queue(config);
    let mut shadow = RngStream::derive(1, "link/test/queue");
    let n = 400u32;
    for i in 0..n {
        q.enqueue(at(0), pkt(i, Codepoint::Ect1)).unwrap();
        let classic = if i % 2 == 0 {
            Codepoint::Ect0
        } else {
            Codepoint::NotEct
        };
        q.enqueue(at(0), pkt(n + i, classic)).unwrap();
    }
    q.prob = prob;
    // (packet, dropped, marked) in the order the queue decided.
    let mut fates: Vec<(PacketId, bool, bool)> = Vec::new();
    loop {
        let mut dropped = Vec::new();
        let sent = q.dequeue(at(1000), &mut |id, _| dropped.push(id));
        fates.extend(dropped.into_iter().map(|id| (id, true, false)));
        match sent {
            Some(d) => fates.push((d.id, false, d.marked)),
            None => break,
        }
    }
    assert_eq!(fates.len(), 2 * n as usize);
    let mut roll = |p: u64| (shadow.next_u64() >> 32) <= p;
    let (p, k) = (prob as u64, config.coupling as u64);
    let overload = p * k > MAX_PROB as u64;
    for (i, &(id, dropped, marked)) in fates.iter().enumerate() {
        let backlog = (fates.len() - 1 - i) as u64 * 1500;
        let in_l = id.0 < n;
        let not_ect = !in_l && (id.0 - n) % 2 == 1;
        let (drop, mark) = if backlog < 2 * 1514 {
            (false, false)
        } else if in_l && overload {
            let drop = roll(p) && roll(p);
            (drop, !drop)
        } else if in_l {
            (false, roll(p * k))
        } else {
            let hit = roll(p) && roll(p);
            (hit && (overload || not_ect), hit && !(overload || not_ect))
        };
        assert_eq!(
            (dropped, marked),
            (drop, mark),
            "packet {id:?} at p' = {prob}"
        );
    }
    let s = q.stats();
    assert_eq!((s.l_packets, s.c_packets), (n as u64, n as u64));
    assert_eq!(s.l_step_marks, 0, "1 µs of sojourn is below the step");
}

#[test]
fn the_coupling_holds_exactly_at_the_probability_level() {
    for prob in [
        0,
        1,
        MAX_PROB / 10,
        MAX_PROB / 2,
        MAX_PROB / 2 + 1,
        MAX_PROB / 4 * 3,
        MAX_PROB,
    ] {
        fates_follow_the_coupled_rolls(prob);
    }
}

#[test]
fn marking_rates_are_k_p_and_p_squared() {
    // p' = 0.1: the L queue marks 20 % of its packets, the classic queue 1 %.
    let mut q = queue(DualPi2Config::default());
    q.prob = MAX_PROB / 10;
    let n = 200_000u32;
    for i in 0..n {
        let ecn = if i % 2 == 0 {
            Codepoint::Ect1
        } else {
            Codepoint::Ect0
        };
        // Keep 4 packets waiting, above two MTUs, so that the AQM always decides.
        q.enqueue(at(0), pkt(i, ecn)).unwrap();
        if i >= 4 {
            q.dequeue(at(1000), &mut no_drop()).unwrap();
        }
    }
    let s = q.stats();
    let l = s.l_marks as f64 / (n / 2) as f64;
    let c = s.c_marks as f64 / (n / 2) as f64;
    assert!((l - 0.2).abs() < 0.005, "L marks {l}");
    assert!((c - 0.01).abs() < 0.001, "classic marks {c}");
    assert!(
        ((l / 2.0).powi(2) / c - 1.0).abs() < 0.1,
        "(pL/k)² against pC"
    );
    let p = (MAX_PROB / 10) as f64 / MAX_PROB as f64;
    assert_eq!((q.l_prob(), q.c_prob()), (2.0 * p, p * p));
}

#[test]
fn the_step_marks_l4s_packets_above_one_millisecond_of_sojourn() {
    let mut q = queue(DualPi2Config::default());
    for id in 0..3 {
        q.enqueue(at(0), pkt(id, Codepoint::Ect1)).unwrap();
    }
    q.enqueue(at(0), pkt(3, Codepoint::Ce)).unwrap();
    // At the threshold: not above it.
    let d = q.dequeue(at(MS), &mut no_drop()).unwrap();
    assert_eq!((d.id, d.marked), (PacketId(0), false));
    let d = q.dequeue(at(MS + 1), &mut no_drop()).unwrap();
    assert_eq!((d.id, d.marked), (PacketId(1), true), "1 ns above");
    let d = q.dequeue(at(MS + 1), &mut no_drop()).unwrap();
    assert!(d.marked);
    let d = q.dequeue(at(MS + 1), &mut no_drop()).unwrap();
    assert_eq!(
        (d.id, d.marked),
        (PacketId(3), false),
        "already CE: nothing to do"
    );
    assert_eq!((q.stats().l_marks, q.stats().l_step_marks), (2, 2));
    // A classic packet is never step-marked.
    q.enqueue(at(10 * MS), pkt(4, Codepoint::Ect0)).unwrap();
    assert!(!q.dequeue(at(20 * MS), &mut no_drop()).unwrap().marked);
}

#[test]
fn a_step_in_packets_counts_the_l_queue_left_behind() {
    let mut q = queue(DualPi2Config {
        step_thresh: StepThresh::Packets(2),
        ..DualPi2Config::default()
    });
    for id in 0..4 {
        q.enqueue(at(0), pkt(id, Codepoint::Ect1)).unwrap();
    }
    let marks: Vec<bool> = (0..4)
        .map(|_| q.dequeue(at(0), &mut no_drop()).unwrap().marked)
        .collect();
    // 3, 2, 1, 0 packets left behind: only the first is above 2.
    assert_eq!(marks, [true, false, false, false]);
}

#[test]
fn min_qlen_step_spares_packets_that_found_a_short_l_queue() {
    let mut q = queue(DualPi2Config {
        min_qlen_step: 1,
        ..DualPi2Config::default()
    });
    q.enqueue(at(0), pkt(0, Codepoint::Ect1)).unwrap();
    q.enqueue(at(0), pkt(1, Codepoint::Ect1)).unwrap();
    assert!(
        !q.dequeue(at(5 * MS), &mut no_drop()).unwrap().marked,
        "found 0 waiting"
    );
    assert!(
        q.dequeue(at(5 * MS), &mut no_drop()).unwrap().marked,
        "found 1 waiting"
    );
}

#[test]
fn the_round_robin_gives_the_classic_queue_its_ten_percent_of_bytes() {
    let mut q = queue(DualPi2Config::default());
    for id in 0..100 {
        q.enqueue(
            at(0),
            Queued::new(PacketId(id), 1000, 0).with_ecn(Codepoint::Ect1),
        )
        .unwrap();
        q.enqueue(
            at(0),
            Queued::new(PacketId(100 + id), 1000, 0).with_ecn(Codepoint::NotEct),
        )
        .unwrap();
    }
    let order: String = (0..35)
        .map(|_| {
            let d = q.dequeue(at(0), &mut no_drop()).unwrap();
            if d.id.0 < 100 {
                'L'
            } else {
                'C'
            }
        })
        .collect();
    // Credit −121120 (1514 · (10 − 90)), +10 000 per L packet, −90 000 per classic one:
    // 13 L packets bring it above zero, then each classic packet buys nine.
    let expected = [
        "L".repeat(13),
        "C".into(),
        "L".repeat(9),
        "C".into(),
        "L".repeat(9),
        "CL".into(),
    ];
    assert_eq!(order, expected.concat());
    // Once a queue is empty nothing moves the credit, and empty queues reset it.
    while q.dequeue(at(0), &mut no_drop()).is_some() {}
    assert_eq!(q.credit, q.credit_init);
}

#[test]
fn the_limit_counts_both_queues_and_the_drop_is_the_arrivals_queues() {
    let mut q = queue(DualPi2Config {
        limit: QueueLimit::Packets(3),
        ..DualPi2Config::default()
    });
    q.enqueue(at(0), pkt(0, Codepoint::Ect1)).unwrap();
    q.enqueue(at(0), pkt(1, Codepoint::Ect0)).unwrap();
    q.enqueue(at(0), pkt(2, Codepoint::Ect1)).unwrap();
    assert_eq!(
        q.enqueue(at(0), pkt(3, Codepoint::NotEct)),
        Err(QueueDrop::Overflow)
    );
    assert_eq!(
        q.enqueue(at(0), pkt(4, Codepoint::Ce)),
        Err(QueueDrop::Overflow)
    );
    let s = q.stats();
    assert_eq!(
        (s.l_packets, s.l_drops, s.c_packets, s.c_drops),
        (3, 1, 2, 1)
    );
    assert_eq!(
        q.iter().map(|id| id.0).collect::<Vec<_>>(),
        [0, 2, 1],
        "L queue first"
    );
}

#[test]
fn drop_early_decides_at_enqueue() {
    let mut q = queue(DualPi2Config {
        drop_early: true,
        ..DualPi2Config::default()
    });
    q.prob = MAX_PROB; // every roll hits; 2 · p' overloads the L queue
    for id in 0..3 {
        q.enqueue(at(0), pkt(id, Codepoint::Ect1)).unwrap();
    }
    // 4500 bytes wait: L4S arrivals are dropped on overload, a classic ECT(0) one too.
    assert_eq!(
        q.enqueue(at(0), pkt(3, Codepoint::Ect1)),
        Err(QueueDrop::EarlyDrop)
    );
    assert_eq!(
        q.enqueue(at(0), pkt(4, Codepoint::Ect0)),
        Err(QueueDrop::EarlyDrop)
    );
    // Without drop_overload the L4S arrival is marked, and p' was capped at 1/k.
    let mut q = queue(DualPi2Config {
        drop_early: true,
        drop_overload: false,
        ..DualPi2Config::default()
    });
    q.prob = MAX_PROB;
    for id in 0..3 {
        q.enqueue(at(0), pkt(id, Codepoint::Ect1)).unwrap();
    }
    assert_eq!(q.enqueue(at(0), pkt(3, Codepoint::Ect1)), Ok(Admit::Marked));
    q.catch_up(at(16 * MS));
    assert_eq!(q.base_prob(), MAX_PROB / 2);
}

#[test]
fn classification_follows_the_ecn_mask() {
    let all = [
        Codepoint::NotEct,
        Codepoint::Ect1,
        Codepoint::Ect0,
        Codepoint::Ce,
    ];
    for (mask, to_l) in [
        (EcnMask::L4sEct, [false, true, false, true]),
        (EcnMask::ClaEct, [false, false, true, true]),
        (EcnMask::AnyEct, [false, true, true, true]),
    ] {
        let mut q = queue(DualPi2Config {
            ecn_mask: mask,
            ..DualPi2Config::default()
        });
        for (id, cp) in all.into_iter().enumerate() {
            let before = q.l_queue().len();
            q.enqueue(at(0), pkt(id as u32, cp)).unwrap();
            assert_eq!(q.l_queue().len() > before, to_l[id], "{mask:?} {cp:?}");
        }
    }
}
