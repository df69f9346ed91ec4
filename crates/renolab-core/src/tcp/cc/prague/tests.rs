use super::*;

const MTU: u32 = 1500;

/// A sender driving Prague with scripted ACKs: the window stays full (`snd_nxt` =
/// `snd_una` + cwnd), the smoothed RTT fixed, time advancing by `step_us` per ACK.
struct Script {
    p: Prague,
    now_us: u64,
    step_us: u64,
    snd_una: u32,
    delivered: u64,
    delivered_ce: u64,
    srtt_us8: u64,
}

impl Script {
    fn new(config: PragueConfig, cwnd: u32, srtt_us: u64) -> Self {
        Script {
            p: Prague::new(config, cwnd),
            now_us: 0,
            step_us: 100,
            snd_una: 0,
            delivered: 0,
            delivered_ce: 0,
            srtt_us8: srtt_us << 3,
        }
    }

    fn sample(&self) -> PragueAck {
        PragueAck {
            now_us: self.now_us,
            acked_sacked: 0,
            ece_delta: 0,
            cwnd_limited: true,
            srtt_us8: self.srtt_us8,
            snd_una: self.snd_una,
            snd_nxt: self.snd_una + self.p.snd_cwnd(),
            delivered: self.delivered,
            delivered_ce: self.delivered_ce,
            in_flight: self.p.snd_cwnd(),
            mtu: MTU,
            rtt_sample_us: Some(self.srtt_us8 >> 3),
            min_rtt_us: Some(self.srtt_us8 >> 3),
        }
    }

    /// An ACK newly delivering `acked` segments, `ce` of them CE-marked.
    fn ack(&mut self, acked: u32, ce: u32) {
        self.now_us += self.step_us;
        self.snd_una += acked;
        self.delivered += acked as u64;
        self.delivered_ce += ce as u64;
        let a = PragueAck {
            acked_sacked: acked,
            ece_delta: ce,
            ..self.sample()
        };
        self.p.on_prague_ack(&a);
    }

    /// The stack enters `state` (CWR for an ECE, Recovery for a loss, Open again).
    fn state(&mut self, state: PragueState) {
        let a = self.sample();
        self.p.set_state(state, &a);
    }

    /// One ACK per segment, the first `marked` CE-marked, until one reaches the end of
    /// Prague's round (`next_seq`, the `snd_nxt` of its start).
    fn round(&mut self, marked: u32) {
        let end = self.p.next_seq.max(self.snd_una + 1);
        let mut i = 0;
        while self.snd_una < end {
            self.ack(1, u32::from(i < marked));
            i += 1;
        }
    }
}

fn segments(frac: u64) -> f64 {
    frac as f64 / ONE_CWND as f64
}

#[test]
fn the_first_mark_halves_the_window_and_ends_slow_start() {
    let mut s = Script::new(PragueConfig::default(), 10, 10_000);
    for _ in 0..30 {
        s.ack(1, 0);
    }
    assert_eq!(
        (s.p.snd_cwnd(), s.p.frac_cwnd()),
        (40, 40 << CWND_UNIT),
        "slow start: +1 per segment"
    );
    assert_eq!(s.p.alpha_fixed(), 0, "alpha_mode 0 starts alpha at 0");
    s.ack(1, 1);
    // (frac + 1) >> 1 of 40 segments is 20; the marked segment adds nothing.
    assert_eq!(s.p.frac_cwnd(), 20 << CWND_UNIT);
    assert_eq!(
        (s.p.snd_cwnd(), s.p.snd_ssthresh()),
        (39, 39),
        "one step down, ssthresh with it"
    );
    for _ in 0..25 {
        s.ack(0, 0);
    }
    assert_eq!(
        (s.p.snd_cwnd(), s.p.snd_ssthresh()),
        (20, 20),
        "stepped down to the fractional window"
    );
    assert!(s.p.saw_ce());
}

#[test]
fn alpha_is_the_ewma_of_the_marked_fraction_per_round() {
    let config = PragueConfig {
        rtt_scaling: RttScaling::None,
        ..PragueConfig::default()
    };
    let mut s = Script::new(config, 20, 10_000);
    s.p.set_snd_ssthresh(20);
    s.ack(1, 1); // saw_ce
    let mut upscaled = s.p.upscaled_alpha;
    let mut exact = s.p.alpha();
    for _ in 0..60 {
        // Rounds of the window's segments with 5 marked: alpha -> 5/W.
        let (before_delivered, before_ce) = (s.delivered, s.delivered_ce);
        let old = (s.p.old_delivered, s.p.old_delivered_ce);
        assert_eq!(
            old,
            (before_delivered, before_ce),
            "a round starts where the last ended"
        );
        s.round(5);
        let (acked, ce) = (s.delivered - before_delivered, s.delivered_ce - before_ce);
        upscaled = (upscaled - (upscaled >> SHIFT_G) + (ce << ALPHA_BITS) / acked)
            .min(MAX_ALPHA << SHIFT_G);
        assert_eq!(
            s.p.upscaled_alpha, upscaled,
            "upscaled alpha follows a − a/16 + F"
        );
        exact = (1.0 - 1.0 / 16.0) * exact + (ce as f64 / acked as f64) / 16.0;
    }
    // Kept upscaled, the fixed point carries its remainder: within 2^-20 of the exact EWMA.
    assert!(
        (s.p.alpha() - exact).abs() < 1e-6,
        "alpha {} against {exact}",
        s.p.alpha()
    );
}

#[test]
fn entering_cwr_takes_half_alpha_of_the_fractional_window_without_bias() {
    let mut s = Script::new(PragueConfig::default(), 100, 10_000);
    s.p.set_snd_ssthresh(100);
    s.p.saw_ce = true;
    s.p.upscaled_alpha = (MAX_ALPHA / 4) << SHIFT_G; // alpha = 1/4
    s.state(PragueState::Cwr);
    // 100 · (1 − 1/8) = 87.5 segments, exactly (alpha·frac + 2^24) >> 25 off.
    let reduction =
        ((MAX_ALPHA / 4) as u128 * (100u128 << CWND_UNIT) + MAX_ALPHA as u128) >> (ALPHA_BITS + 1);
    assert_eq!(s.p.frac_cwnd(), (100 << CWND_UNIT) - reduction as u64);
    assert_eq!(segments(s.p.frac_cwnd()), 87.5);
    // The socket's window follows one segment per ACK, to 88 (rounded up).
    for _ in 0..20 {
        s.ack(0, 0);
    }
    assert_eq!(s.p.snd_cwnd(), 88);
    // A second CWR entry without leaving it changes nothing.
    let frac = s.p.frac_cwnd();
    s.state(PragueState::Cwr);
    assert_eq!(s.p.frac_cwnd(), frac);
}

#[test]
fn each_unmarked_segment_adds_one_over_the_window() {
    let config = PragueConfig {
        rtt_scaling: RttScaling::None,
        ..PragueConfig::default()
    };
    let mut s = Script::new(config, 50, 10_000);
    s.p.set_snd_ssthresh(50);
    s.p.saw_ce = true; // no halving at the first mark
    let frac = s.p.frac_cwnd();
    s.ack(1, 0);
    // round(2^20 · 2^20 / (50 · 2^20)) = 20972 (0.02 segments).
    assert_eq!(s.p.frac_cwnd() - frac, 20972);
    let frac = s.p.frac_cwnd();
    s.ack(2, 1);
    // Two segments, one marked: only the unmarked one grows the window.
    let expected = ((ONE_CWND as u128) << CWND_UNIT) + frac as u128 / 2;
    assert_eq!(s.p.frac_cwnd() - frac, (expected / frac as u128) as u64);
    // A window of unmarked ACKs grows it by about one segment.
    let before = segments(s.p.frac_cwnd());
    for _ in 0..50 {
        s.ack(1, 0);
    }
    assert!((segments(s.p.frac_cwnd()) - before - 1.0).abs() < 0.02);
    assert_eq!(s.p.snd_cwnd(), 52, "51.04 segments, rounded up");
}

#[test]
fn no_growth_in_loss_recovery_and_the_loss_halves() {
    let mut s = Script::new(PragueConfig::default(), 40, 10_000);
    s.p.set_snd_ssthresh(40);
    s.state(PragueState::Recovery);
    assert_eq!(s.p.frac_cwnd(), 20 << CWND_UNIT);
    let frac = s.p.frac_cwnd();
    s.ack(1, 0);
    assert_eq!(s.p.frac_cwnd(), frac, "in_loss: no increase");
    assert_eq!(s.p.snd_cwnd(), 39);
    s.state(PragueState::Open);
    s.ack(1, 0);
    assert!(s.p.frac_cwnd() > frac, "open again: it grows");
    let cwnd = s.p.snd_cwnd();
    let a = s.sample();
    assert_eq!(
        s.p.undo(&a),
        40.max(cwnd),
        "undo gives back the window before the loss"
    );
}

#[test]
fn rtt_independence_scales_the_increase_by_the_square_of_rtt_over_target() {
    let mut s = Script::new(PragueConfig::default(), 40, 5_000);
    s.p.set_snd_ssthresh(40);
    assert_eq!(s.p.ai_ack_increase, ONE_CWND, "before the transition");
    for _ in 0..4 {
        s.round(0);
    }
    assert_eq!(s.p.round(), 4);
    // 5 ms against 25 ms: (1/5)² of a segment, 2^20 / 25 rounded.
    assert_eq!(s.p.ai_ack_increase, (ONE_CWND + 12) / 25);
    assert!(s.p.is_rtt_indep());
    // Alpha and the reduction then wait for a target RTT (25 ms), not a round trip (5 ms).
    s.ack(1, 1);
    let stamp = s.p.alpha_stamp;
    s.round(1);
    assert_eq!(s.p.alpha_stamp, stamp, "a round trip is not enough");
    s.step_us = 25_000;
    s.round(1);
    assert!(s.p.alpha_stamp > stamp, "a target RTT later");
}

#[test]
fn rtt_independent_reductions_are_at_most_one_per_target_rtt() {
    let mut s = Script::new(PragueConfig::default(), 40, 5_000);
    s.p.set_snd_ssthresh(40);
    for _ in 0..4 {
        s.round(0);
    }
    s.p.saw_ce = true;
    s.p.upscaled_alpha = (MAX_ALPHA / 2) << SHIFT_G;
    s.now_us = 100_000;
    s.state(PragueState::Cwr);
    let after_first = s.p.frac_cwnd();
    s.state(PragueState::Open);
    s.now_us += 10_000; // 10 ms later: within 25 ms
    s.state(PragueState::Cwr);
    assert_eq!(s.p.frac_cwnd(), after_first, "skipped");
    s.state(PragueState::Open);
    s.now_us += 20_000;
    s.state(PragueState::Cwr);
    assert!(
        s.p.frac_cwnd() < after_first,
        "30 ms after the first: reduced"
    );
}

#[test]
fn the_scaling_heuristics_of_v0_6() {
    let target = 25_000u64 << 3;
    // Rate: (rtt/target)², the unscaled increase at or above the target.
    assert_eq!(rate_scaled_ai_ack_increase(target, target), ONE_CWND);
    assert_eq!(
        rate_scaled_ai_ack_increase(target / 2, target),
        ONE_CWND / 4
    );
    // Scalable, in 128 µs units: at R0 = 128 (16.384 ms) 1/8 + (R0 − R1)/R0 of a segment
    // (R1 = 12, 1.536 ms); at R1 and below 1/8 · rtt/R0.
    assert_eq!(
        scalable_ai_ack_increase(16_384 << 3),
        ONE_CWND / 8 + ONE_CWND * 116 / 128
    );
    assert_eq!(
        scalable_ai_ack_increase(1_536 << 3),
        (ONE_CWND / 8 * 128 * 12 + 128 * 128 / 2) / (128 * 128)
    );
    // Additive: the target is the configured one plus the smoothed RTT.
    let p = Prague::new(
        PragueConfig {
            rtt_scaling: RttScaling::Additive,
            ..PragueConfig::default()
        },
        10,
    );
    assert_eq!(p.target_rtt_us(10_000 << 3), 35_000);
}

#[test]
fn pacing_is_a_window_per_srtt_and_double_early_in_slow_start() {
    let mut s = Script::new(PragueConfig::default(), 10, 20_000);
    s.ack(1, 0);
    // Slow start, cwnd 11 < ssthresh / 2: 200 % of 11 · 1500 B / 20 ms.
    assert_eq!(s.p.pacing_rate_bytes(), 2 * 11 * 1500 * 50);
    s.p.set_snd_ssthresh(11);
    s.ack(0, 0);
    assert_eq!(
        s.p.pacing_rate_bytes(),
        11 * 1500 * 50,
        "100 % in congestion avoidance"
    );
}

#[test]
fn a_classic_ecn_bottleneck_is_detected_from_a_deep_varying_queue() {
    let config = PragueConfig {
        ecn_fallback: EcnFallback::Fallback,
        rtt_scaling: RttScaling::None,
        ..PragueConfig::default()
    };
    // A shallow L4S queue: RTT 10 ms, steady; the score stays at zero.
    let mut l4s = Script::new(config, 20, 10_000);
    l4s.p.set_snd_ssthresh(20);
    l4s.p.ssthresh_hook();
    // A classic AQM: 20 ms of standing queue over a 10 ms path, varying by ±5 ms.
    let mut classic = Script::new(config, 20, 10_000);
    classic.p.set_snd_ssthresh(20);
    classic.p.ssthresh_hook();
    for round in 0..200u64 {
        for i in 0..20u64 {
            l4s.p.on_rtt_sample(10_000 + (i % 2) * 100);
            classic
                .p
                .on_rtt_sample(30_000 + ((round + i) % 3) * 5_000 - 5_000);
        }
        l4s.round(2);
        classic.round(2);
    }
    assert!(!l4s.p.sees_classic_ecn(), "score {}", l4s.p.classic_ecn());
    assert!(
        classic.p.sees_classic_ecn(),
        "score {}",
        classic.p.classic_ecn()
    );
    // Falling back, a CWR takes at least ~0.6 of the classic score as alpha.
    let floor = classic.p.classic_ecn_fallback(0);
    assert!(floor > MAX_ALPHA / 2, "{floor}");
}

#[test]
fn the_window_stays_finite_and_at_least_two_under_any_script() {
    // A fixed pseudo-random script of ACKs, marks, losses and state changes.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for config in [
        PragueConfig::default(),
        PragueConfig {
            rtt_scaling: RttScaling::Scalable,
            ecn_fallback: EcnFallback::Fallback,
            alpha_mode: 1,
            ..PragueConfig::default()
        },
    ] {
        let mut s = Script::new(config, 10, 1 + next() % 200_000);
        for _ in 0..20_000 {
            let r = next();
            match r % 16 {
                0 => s.state(PragueState::Cwr),
                1 => s.state(PragueState::Open),
                2 if r % 64 == 2 => s.state(PragueState::Recovery),
                3 => s.srtt_us8 = (1 + (r >> 8) % 300_000) << 3,
                _ => {
                    let acked = ((r >> 8) % 4) as u32;
                    let ce = ((r >> 16) % (acked as u64 + 1)) as u32;
                    s.ack(acked, ce);
                }
            }
            if r % 7 == 0 {
                s.p.on_rtt_sample((s.srtt_us8 >> 3) + (r >> 40) % 1000);
            }
            assert!(s.p.snd_cwnd() >= MIN_CWND || s.p.snd_cwnd() == 10);
            assert!(s.p.frac_cwnd() < 1 << 50, "finite: {}", s.p.frac_cwnd());
            assert!(s.p.alpha_fixed() <= MAX_ALPHA);
        }
    }
}
