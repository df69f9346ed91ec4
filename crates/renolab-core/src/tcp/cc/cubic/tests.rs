//! CUBIC's unit tests against values computed by hand from RFC 9438 and Linux
//! `tcp_cubic.c`: the cube root, the curve, the reduction and fast convergence, the
//! Reno-friendly region, idle periods, timeouts, undo, slow start and HyStart.

use super::*;
use crate::tcp::cc::{CcEvent, HystartMode};

fn at_ms(ms: u64) -> SimTime {
    SimTime(ms * 1_000_000)
}

fn sample(now: SimTime, acked: u32) -> AckSample {
    AckSample::new(now, 0, acked)
}

/// A controller in congestion avoidance at `cwnd` (ssthresh below it), hystart off.
fn cubic(cwnd: u32, config: CubicConfig) -> Cubic {
    let mut c = Cubic::new(
        cwnd,
        2,
        1000,
        CubicConfig {
            hystart: HystartMode::Off,
            ..config
        },
    );
    c.ssthresh = Window::segments(2);
    c
}

/// Drives `c` with one ACK of `per_ack` segments every `step_us` until `until`, as a
/// sender with a full window would: returns cwnd at each ms listed in `probes`.
fn drive(c: &mut Cubic, from: SimTime, until: SimTime, step_us: u64, probes: &[u64]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut t = from;
    let mut next = probes.iter().peekable();
    while t < until {
        c.on_ack(&sample(t, 1));
        while next.peek().is_some_and(|&&p| at_ms(p) <= t) {
            out.push(c.cwnd().whole());
            next.next();
        }
        t += SimDuration::from_micros(step_us);
    }
    out
}

#[test]
fn the_cube_root_is_within_a_percent() {
    for a in [
        1u64,
        7,
        63,
        64,
        1000,
        12345,
        1 << 30,
        2_681_735_677 * 300,
        u64::MAX / 3,
    ] {
        let exact = (a as f64).cbrt();
        let got = cubic_root(a) as f64;
        assert!(
            (got - exact).abs() <= 0.01 * exact + 1.0,
            "cbrt({a}) = {got}, not {exact}"
        );
    }
    // The kernel's own results (its cubic_root() compiled as is): K for W_max - cwnd =
    // 30 segments at C = 0.4 is cbrt(75) s = 4318.4/1024 s exactly, 4316 in the kernel.
    let c = Cubic::new(10, 10, 1000, CubicConfig::default());
    assert_eq!(c.cube_factor, 2_681_735_677);
    let kernel = [
        (c.cube_factor * 30, 4316),
        (c.cube_factor * 120, 6852),
        (c.cube_factor * 300, 9294),
        (1000, 10),
        (12345, 23),
        (1 << 30, 1024),
        (u64::MAX / 3, 1_832_142),
    ];
    for (a, root) in kernel {
        assert_eq!(cubic_root(a), root, "cbrt({a})");
    }
}

#[test]
fn a_loss_at_w_max_leaves_seven_tenths_of_it() {
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    // 100 * 717 / 1024 = 70.
    assert_eq!(
        (c.cwnd(), c.ssthresh()),
        (Window::segments(70), Window::segments(70))
    );
    assert_eq!(c.w_max(), 100);
}

/// W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta) / C), within one segment,
/// on a path of 100 ms minimum RTT whose window is always full (an ACK per segment, the
/// window's worth per RTT).
#[test]
fn the_window_follows_the_cubic_curve() {
    let w_max = 400u32;
    let mut c = cubic(w_max, CubicConfig::default());
    c.delay_min_us = 100_000;
    c.on_congestion(
        at_ms(0),
        Congestion::FastRetransmit,
        Window::segments(w_max),
    );
    let start = c.cwnd().whole();
    assert_eq!(start, 280);
    let (cc, beta) = (c.config().c_f64(), c.config().beta_f64());
    let k = (w_max as f64 * (1.0 - beta) / cc).cbrt();
    assert!((k - 6.69).abs() < 0.01, "K = {k}");
    // ACKs every 100 ms / cwnd; probe every second up to 10 s, beyond K.
    let probes: Vec<u64> = (1..=10).map(|s| s * 1000).collect();
    let mut t = at_ms(0);
    let mut seen = Vec::new();
    let mut next = 0;
    while next < probes.len() {
        let cwnd = c.cwnd().whole();
        c.on_ack(&sample(t, 1));
        t += SimDuration::from_nanos(100_000_000 / cwnd as u64);
        if t >= at_ms(probes[next]) {
            seen.push((probes[next], c.cwnd().whole()));
            next += 1;
        }
    }
    for (ms, cwnd) in seen {
        // The window aims at W(t + RTT) and gets there within the round trip: compare
        // with the curve between t and t + RTT.
        let s = ms as f64 / 1000.0;
        let w = |s: f64| cc * (s - k).powi(3) + w_max as f64;
        let (lo, hi) = (w(s).min(w(s + 0.1)), w(s).max(w(s + 0.1)));
        assert!(
            cwnd as f64 >= lo - 1.0 && cwnd as f64 <= hi + 1.0,
            "t = {s} s: cwnd {cwnd}, W(t) = {:.1}, W(t + RTT) = {:.1}",
            w(s),
            w(s + 0.1)
        );
    }
}

#[test]
fn the_reduction_takes_the_smaller_of_the_flight_and_the_window() {
    // A flight below cwnd (the application sent less): 0.7 of the flight (RFC 9438).
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(50));
    assert_eq!(c.ssthresh(), Window::segments(35));
    // A flight above cwnd (Limited Transmit's segments, or SACKed data still counted at
    // a timeout): 0.7 of cwnd (Linux).
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::Timeout, Window::segments(5000));
    assert_eq!(c.ssthresh(), Window::segments(70));
}

#[test]
fn fast_convergence_lowers_w_max_after_a_loss_below_it() {
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    assert_eq!(c.w_max(), 100);
    // The next loss comes at 90 < W_max: W_max = 90 * (1024 + 717) / 2048 = 76.
    c.set_cwnd(Window::segments(90));
    c.on_congestion(at_ms(1), Congestion::FastRetransmit, Window::segments(90));
    assert_eq!(c.w_max(), 76);
    // Without fast convergence W_max is the window at the loss.
    let mut slow = cubic(
        100,
        CubicConfig {
            fast_convergence: false,
            ..CubicConfig::default()
        },
    );
    slow.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    slow.set_cwnd(Window::segments(90));
    slow.on_congestion(at_ms(1), Congestion::FastRetransmit, Window::segments(90));
    assert_eq!(slow.w_max(), 90);
}

/// At a small BDP (10 ms RTT, W_max 20) the cubic curve is slower than Reno's AIMD: the
/// Reno-friendly estimate governs, adding about alpha = 8/15 segments per window.
#[test]
fn the_reno_friendly_estimate_governs_at_small_bdp() {
    let mut c = cubic(20, CubicConfig::default());
    c.delay_min_us = 10_000;
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(20));
    assert_eq!(c.cwnd().whole(), 14);
    // 30 windows of ACKs, each window in 10 ms: 300 ms. The curve alone: K = 2.47 s, so
    // W(0.31 s) is still about 14 + 0.2; W_est gains 30 * 8/15 = 16 segments.
    let mut t = at_ms(0);
    for _ in 0..30 {
        let cwnd = c.cwnd().whole();
        for _ in 0..cwnd {
            c.on_ack(&sample(t, 1));
            t += SimDuration::from_nanos(10_000_000 / cwnd as u64);
        }
    }
    let cwnd = c.cwnd().whole();
    assert!(c.w_est() >= 24, "W_est {}", c.w_est());
    assert!(
        (c.w_est() as i64 - cwnd as i64).abs() <= 1,
        "cwnd {cwnd} tracks W_est {}",
        c.w_est()
    );
    let curve = c.config().c_f64() * (t.as_secs_f64() + 0.01 - 2.47f64).powi(3) + 20.0;
    assert!(cwnd as f64 > curve + 5.0, "cwnd {cwnd}, curve {curve:.1}");
}

#[test]
fn one_ack_grows_the_window_by_at_most_half_what_it_acknowledges() {
    // Far in the convex region the target is huge: cnt would be 0; the cap makes it 2.
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    c.on_ack(&sample(at_ms(1), 1)); // the epoch begins
    c.on_ack(&sample(at_ms(60_000), 1)); // a minute later: W(t) >> cwnd
    assert_eq!(c.cnt, 2);
    let before = c.cwnd().whole();
    c.on_ack(&sample(at_ms(60_001), 40));
    assert_eq!(c.cwnd().whole(), before + 20);
}

#[test]
fn centuries_into_an_epoch_the_target_saturates_without_overflow() {
    let mut c = cubic(u32::MAX / 4, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, c.cwnd());
    c.on_ack(&sample(at_ms(1), 1));
    let before = c.cwnd().whole();
    c.on_ack(&sample(SimTime(u64::MAX / 2), 1000));
    assert_eq!(c.cnt, 2);
    assert_eq!(c.cwnd().whole(), before + 500);
}

#[test]
fn an_idle_period_shifts_the_epoch() {
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    c.on_ack(&sample(at_ms(5), 1));
    assert_eq!(c.epoch_start, Some(5));
    // Sending resumes at 3 s after 2.5 s without sending: the curve resumes where it
    // was at 0.5 s.
    c.on_event(
        at_ms(3_000),
        CcEvent::TxStart {
            idle: SimDuration::from_millis(2_500),
        },
    );
    assert_eq!(c.epoch_start, Some(2_505));
    // Never beyond now.
    c.on_event(
        at_ms(3_000),
        CcEvent::TxStart {
            idle: SimDuration::from_secs(100),
        },
    );
    assert_eq!(c.epoch_start, Some(3_000));
    // No epoch (in slow start, or after a reduction): nothing to shift.
    let mut fresh = cubic(10, CubicConfig::default());
    fresh.on_event(
        at_ms(3_000),
        CcEvent::TxStart {
            idle: SimDuration::from_secs(1),
        },
    );
    assert_eq!(fresh.epoch_start, None);
}

#[test]
fn the_curve_after_an_idle_period_continues_where_it_stopped() {
    let probes = [1_000, 2_000];
    let mut busy = cubic(100, CubicConfig::default());
    busy.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    let a = drive(&mut busy, at_ms(0), at_ms(2_001), 1_000, &probes);
    let mut idle = cubic(100, CubicConfig::default());
    idle.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    let b1 = drive(&mut idle, at_ms(0), at_ms(1_001), 1_000, &probes[..1]);
    // 5 s idle, then the second second.
    idle.on_event(
        at_ms(6_001),
        CcEvent::TxStart {
            idle: SimDuration::from_millis(5_000),
        },
    );
    let b2 = drive(&mut idle, at_ms(6_001), at_ms(7_001), 1_000, &[7_000]);
    assert_eq!(a, [b1[0], b2[0]]);
}

#[test]
fn a_timeout_restarts_from_one_segment_and_forgets_the_curve() {
    let mut c = cubic(100, CubicConfig::default());
    c.delay_min_us = 50_000;
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    c.on_congestion(at_ms(1), Congestion::Timeout, Window::segments(70));
    assert_eq!(c.cwnd(), Window::segments(1));
    assert_eq!(c.ssthresh(), Window::segments(49));
    assert_eq!((c.w_max(), c.min_rtt()), (0, None));
}

#[test]
fn slow_start_counts_segments_up_to_ssthresh_then_the_curve_takes_over() {
    let mut c = Cubic::new(
        10,
        13,
        1000,
        CubicConfig {
            hystart: HystartMode::Off,
            ..CubicConfig::default()
        },
    );
    c.on_ack(&sample(at_ms(1), 2));
    assert_eq!(c.cwnd().whole(), 12);
    c.on_ack(&sample(at_ms(2), 4)); // 1 to reach 13, 3 for congestion avoidance
    assert_eq!(c.cwnd().whole(), 13);
    assert_eq!(c.epoch_start, Some(2), "the epoch begins");
    // No loss yet: W_max is 0, so cnt <= 20 (5 % per round trip).
    assert!(c.cnt <= 20);
}

#[test]
fn per_ack_slow_start_adds_one_segment_whatever_an_ack_covers() {
    let cfg = CubicConfig {
        hystart: HystartMode::Off,
        ..CubicConfig::default()
    };
    let mut c = Cubic::new(10, 100, 1000, cfg).with_growth(Growth::PerAck);
    c.on_ack(&sample(at_ms(1), 2));
    // After a timeout, one ACK may cover what the receiver held.
    c.on_ack(&sample(at_ms(2), 300));
    assert_eq!(c.cwnd().whole(), 12);
    let mut linux = Cubic::new(10, 100, 1000, cfg);
    linux.on_ack(&sample(at_ms(1), 300));
    // tcp_slow_start() stops at ssthresh; the other 210 segments go to congestion
    // avoidance, one segment per 20 before any loss (cnt <= 20).
    assert_eq!(linux.cwnd().whole(), 110);
}

#[test]
fn growth_waits_while_not_cwnd_limited() {
    let mut c = cubic(50, CubicConfig::default());
    let mut s = sample(at_ms(1), 10);
    s.cwnd_limited = false;
    c.on_ack(&s);
    assert_eq!((c.cwnd().whole(), c.epoch_start), (50, None));
}

#[test]
fn undo_restores_the_window_before_the_reduction() {
    let mut c = cubic(100, CubicConfig::default());
    c.on_congestion(at_ms(0), Congestion::FastRetransmit, Window::segments(100));
    assert_eq!(c.undo_cwnd(at_ms(1)), Window::segments(100));
}

#[test]
fn options_round_to_the_kernel_units() {
    assert_eq!(CubicConfig::beta_from(0.7), 717);
    assert_eq!(CubicConfig::bic_scale_from(0.4), 41);
    let d = CubicConfig::default();
    assert_eq!(CubicConfig::beta_from(d.beta_f64()), d.beta);
    assert_eq!(CubicConfig::bic_scale_from(d.c_f64()), d.bic_scale);
    // beta_scale: 8 * 1741 / 3 / 307 = 15.
    assert_eq!(Cubic::new(1, 2, 1000, d).beta_scale, 15);
}

#[test]
fn hystart_sets_ssthresh_to_the_window_when_the_ack_train_is_long() {
    let mut c = Cubic::new(32, u32::MAX, 1000, CubicConfig::default());
    let ack = |now: SimTime, ack: u32, rtt: Option<u64>| AckSample {
        rtt: rtt.map(SimDuration::from_millis),
        snd_max: 64,
        ..AckSample::new(now, ack, 1)
    };
    // The first ACK gives the minimum RTT (100 ms); then ACKs 1 ms apart.
    c.on_ack_sample(&ack(at_ms(100), 1, Some(100)));
    for i in 1..=51u32 {
        c.on_ack_sample(&ack(at_ms(100 + i as u64), 1 + i, None));
    }
    assert_eq!(c.ssthresh(), Window::segments(32));
}
