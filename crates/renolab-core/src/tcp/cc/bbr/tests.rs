//! BBR driven by scripted ACKs: each test builds the controller, feeds it the samples Linux's
//! loss recovery would, and checks the kernel's numbers.

use super::config::{BBR_UNIT, BW_UNIT, PACING_GAIN_CYCLE};
use super::*;
use crate::tcp::cc::{CcEvent, CongestionControl, ConnState};
use crate::tcp::rate::RateSample;

const MSS: u32 = 1000;
const MIN_RTT: SimDuration = SimDuration::from_millis(40);

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// Bandwidth units of `pps` segments per second.
fn bw_units(pps: u64) -> u64 {
    pps * BW_UNIT / 1_000_000
}

/// Drives a BBR sender with ACKs, keeping the connection's counters as Linux's recovery
/// would.
struct Driver {
    b: Bbr,
    now: SimTime,
    delivered: u64,
    lost: u64,
    ca_state: CaState,
    /// The last `cong_control` marked the flight application-limited.
    app_limited: bool,
}

/// One scripted ACK.
#[derive(Clone, Copy)]
struct Ack {
    /// Time since the previous ACK.
    after: SimDuration,
    /// Segments it newly delivers.
    delivered: u32,
    /// Segments it newly marks lost.
    lost: u32,
    /// Segments in flight before and after it.
    prior_in_flight: u32,
    in_flight: u32,
    /// Its RTT sample.
    rtt: Option<SimDuration>,
    /// Its rate sample: segments per second over one min RTT, application-limited or not;
    /// `round_start`: sent after the current round began.
    rate_pps: Option<u64>,
    app_limited: bool,
    round_start: bool,
}

impl Default for Ack {
    fn default() -> Self {
        Ack {
            after: ms(1),
            delivered: 1,
            lost: 0,
            prior_in_flight: 1000,
            in_flight: 1000,
            rtt: Some(MIN_RTT),
            rate_pps: None,
            app_limited: false,
            round_start: false,
        }
    }
}

impl Driver {
    /// A connection whose SYN took one min RTT, opened at t = 1 s.
    fn new(config: BbrConfig, seed: u64) -> Self {
        let rng = RngStream::derive(seed, "flow/test");
        let mut b = Bbr::new(config, 10, MSS, 40, rng);
        let now = SimTime::ZERO + SimDuration::from_secs(1);
        b.on_event(now, CcEvent::SynAck { rtt: MIN_RTT });
        Driver {
            b,
            now,
            delivered: 0,
            lost: 0,
            ca_state: CaState::Open,
            app_limited: false,
        }
    }

    fn ack(&mut self, a: Ack) {
        self.now += a.after;
        let prior = self.b.next_rtt_delivered;
        self.delivered += a.delivered as u64;
        self.lost += a.lost as u64;
        let rate = a.rate_pps.map(|pps| {
            let interval_us = MIN_RTT.as_nanos() / 1000;
            RateSample {
                delivered: (pps * interval_us / 1_000_000) as u32,
                interval: MIN_RTT,
                prior_delivered: if a.round_start {
                    prior
                } else {
                    prior.saturating_sub(1)
                },
                app_limited: a.app_limited,
                rtt: a.rtt,
                losses: a.lost,
            }
        });
        let sample = AckSample {
            rtt: a.rtt,
            srtt: Some(MIN_RTT),
            min_rtt: Some(MIN_RTT),
            in_flight: a.in_flight,
            rate,
            conn: ConnState {
                delivered: self.delivered,
                delivered_time: self.now,
                lost: self.lost,
                newly_delivered: a.delivered,
                newly_lost: a.lost,
                prior_in_flight: a.prior_in_flight,
                ca_state: self.ca_state,
                next_send: self.now,
                delivered_ce: 0,
            },
            ..AckSample::new(self.now, 0, a.delivered)
        };
        self.app_limited = self.b.cong_control(&sample).app_limited;
    }

    /// A round of `acks` ACKs spread over one min RTT, each delivering one segment, all with
    /// a rate sample of `pps`; the first starts the round.
    fn round(&mut self, pps: u64, acks: u32, in_flight: u32) {
        for i in 0..acks {
            self.ack(Ack {
                after: SimDuration(MIN_RTT.0 / acks as u64),
                rate_pps: Some(pps),
                round_start: i == 0,
                in_flight,
                prior_in_flight: in_flight,
                ..Ack::default()
            });
        }
    }

    /// Startup at growing rates until the pipe is full, then Drain down to one BDP: ProbeBW
    /// at `pps`.
    fn reach_probe_bw(&mut self, pps: u64) {
        for rate in [pps / 8, pps / 4, pps / 2, pps, pps, pps, pps] {
            self.round(rate, 10, 1000);
        }
        assert_eq!(self.b.mode, Mode::Drain);
        self.ack(Ack {
            in_flight: 1,
            prior_in_flight: 1,
            ..Ack::default()
        });
        assert_eq!(self.b.mode, Mode::ProbeBw);
    }
}

#[test]
fn startup_grows_the_window_by_what_is_delivered_doubling_it_per_round() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    let mut windows = vec![d.b.cwnd];
    for pps in [250, 500, 1000] {
        let cwnd = d.b.cwnd;
        // A round delivers the window: one segment per ACK.
        d.round(pps, cwnd, 1000);
        windows.push(d.b.cwnd);
        // Startup paces at 2/ln 2 times the estimate (less 1 %), and the estimate doubles
        // with the samples.
        assert_eq!(d.b.max_bw(), bw_units(pps));
        let expected = (bw_units(pps) as u128 * MSS as u128 * 739 / 256 * 990_000) >> 24;
        assert_eq!(d.b.pacing_rate as u128, expected);
    }
    assert_eq!(windows, vec![10, 20, 40, 80]);
    assert_eq!(d.b.mode, Mode::Startup);
}

#[test]
fn startup_ends_after_three_rounds_without_25_percent_growth() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    let mut modes = vec![];
    let mut counts = vec![];
    // 25 % growth resets the count (800 -> 1025); 1100, 1200 and 1275 grow by less.
    for pps in [100, 200, 400, 800, 900, 1025, 1100, 1200, 1275] {
        d.round(pps, 10, 1000);
        modes.push(d.b.mode);
        counts.push(d.b.full_bw_cnt);
    }
    use Mode::*;
    assert_eq!(counts, vec![0, 0, 0, 0, 1, 0, 1, 2, 3]);
    assert_eq!(
        modes,
        vec![Startup, Startup, Startup, Startup, Startup, Startup, Startup, Startup, Drain]
    );
    // Drain paces at the inverse of Startup's gain and keeps its cwnd gain; ssthresh is the
    // estimated BDP: 1275/s x 40 ms = 51 segments, plus three TSO bursts of 3 segments (at
    // Startup's 3.7 MB/s, 1/1024 s is 3.6 kB).
    assert_eq!(d.b.gains(), (88, 739));
    assert_eq!(d.b.ssthresh, 60);
}

#[test]
fn application_limited_rounds_do_not_end_startup() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    for pps in [100, 200, 400, 800] {
        d.round(pps, 10, 1000);
    }
    for _ in 0..5 {
        for i in 0..10 {
            d.ack(Ack {
                after: ms(4),
                rate_pps: Some(800),
                app_limited: true,
                round_start: i == 0,
                ..Ack::default()
            });
        }
    }
    assert_eq!((d.b.mode, d.b.full_bw_cnt), (Mode::Startup, 0));
    // A lower application-limited sample does not lower the estimate either.
    d.ack(Ack {
        rate_pps: Some(100),
        app_limited: true,
        round_start: true,
        ..Ack::default()
    });
    assert_eq!(d.b.max_bw(), bw_units(800));
}

#[test]
fn drain_ends_when_the_flight_is_down_to_one_bdp() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    for pps in [125, 250, 500, 1000, 1000, 1000, 1000] {
        d.round(pps, 10, 1000);
    }
    assert_eq!(d.b.mode, Mode::Drain);
    // One BDP: 1000/s x 40 ms = 40 segments, plus 3 bursts of 2: 46.
    let bdp = d.b.inflight(d.b.max_bw(), BBR_UNIT);
    assert_eq!(bdp, 46);
    for in_flight in [200, 100, 47] {
        d.ack(Ack {
            in_flight,
            ..Ack::default()
        });
        assert_eq!(d.b.mode, Mode::Drain, "{in_flight} in flight");
    }
    d.ack(Ack {
        in_flight: 46,
        ..Ack::default()
    });
    assert_eq!(d.b.mode, Mode::ProbeBw);
    assert_eq!(d.b.gains().1, 2 * BBR_UNIT);
}

#[test]
fn the_gain_cycle_advances_once_per_min_rtt() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    // Start a cruising phase now, then ACK every millisecond for eight phases.
    d.b.cycle_idx = 2;
    d.b.cycle_stamp = d.now;
    let start = d.now;
    let mut changes = vec![];
    let mut gain = d.b.pacing_gain;
    for _ in 0..8 * 41 {
        // Enough in flight that probing reaches its target: every phase lasts a min RTT.
        d.ack(Ack {
            rate_pps: Some(1000),
            ..Ack::default()
        });
        if d.b.cycle_stamp != start && d.b.cycle_stamp == d.now {
            changes.push(((d.now - start).as_nanos() / 1_000_000, d.b.cycle_idx));
        }
        gain = gain.max(d.b.pacing_gain);
    }
    // A phase ends on the first ACK more than one min RTT (40 ms) after it began.
    let expected: Vec<(u64, usize)> = (1..=8).map(|k| (41 * k, (2 + k as usize) % 8)).collect();
    assert_eq!(changes, expected);
    assert_eq!(gain, PACING_GAIN_CYCLE[0]);
}

#[test]
fn probing_ends_early_only_at_its_target_and_draining_as_soon_as_the_queue_is_gone() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    d.b.cycle_idx = 0; // probing at 5/4
    d.b.cycle_stamp = d.now;
    // Below the probing target (5/4 x 40 + 6, even, + 2 = 58), probing outlasts a min RTT.
    for _ in 0..60 {
        d.ack(Ack {
            prior_in_flight: 50,
            in_flight: 50,
            ..Ack::default()
        });
    }
    assert_eq!(d.b.cycle_idx, 0);
    d.ack(Ack {
        prior_in_flight: 58,
        ..Ack::default()
    });
    assert_eq!(d.b.cycle_idx, 1, "reached its target");
    // Draining at 3/4 ends at once when the flight is down to one BDP (46).
    d.ack(Ack {
        prior_in_flight: 46,
        ..Ack::default()
    });
    assert_eq!(d.b.cycle_idx, 2);
}

#[test]
fn probe_rtt_starts_after_10s_without_a_lower_rtt_and_holds_cwnd_4_for_200ms_and_a_round() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    let stamp = d.b.min_rtt_stamp;
    let cwnd = d.b.cwnd;
    assert!(cwnd > 4);
    // RTT samples above the minimum for 10 s.
    let slower = Some(MIN_RTT + ms(5));
    while d.now + ms(10) <= stamp + SimDuration::from_secs(10) {
        d.ack(Ack {
            after: ms(10),
            rtt: slower,
            ..Ack::default()
        });
        assert_ne!(d.b.mode, Mode::ProbeRtt);
    }
    d.ack(Ack {
        after: ms(10),
        rtt: slower,
        ..Ack::default()
    });
    assert_eq!(d.b.mode, Mode::ProbeRtt, "entered at {}", d.now);
    assert_eq!(d.b.cwnd, 4);
    assert!(d.app_limited);
    // The flight comes down to 4: the 200 ms start then.
    d.ack(Ack {
        in_flight: 4,
        rtt: slower,
        ..Ack::default()
    });
    let low = d.now;
    assert_eq!(d.b.probe_rtt_done, Some(low + ms(200)));
    // A round trip passes within the 200 ms; ProbeRTT holds until they are over.
    while d.now < low + ms(200) {
        d.ack(Ack {
            after: ms(10),
            in_flight: 4,
            rtt: Some(MIN_RTT),
            rate_pps: Some(100),
            round_start: d.now == low + ms(50),
            ..Ack::default()
        });
        assert_eq!((d.b.mode, d.b.cwnd), (Mode::ProbeRtt, 4), "at {}", d.now);
    }
    d.ack(Ack {
        after: ms(1),
        in_flight: 4,
        rtt: Some(MIN_RTT),
        ..Ack::default()
    });
    assert_eq!(d.b.mode, Mode::ProbeBw);
    assert_eq!(d.b.min_rtt_stamp, d.now);
    assert!(d.b.cwnd >= cwnd, "window restored: {} < {cwnd}", d.b.cwnd);
}

#[test]
fn recovery_conserves_packets_in_its_first_round_then_restores_the_window() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    for _ in 0..50 {
        d.ack(Ack {
            rate_pps: Some(1000),
            ..Ack::default()
        });
    }
    let before = d.b.cwnd;
    // Loss recovery begins: the window is saved, then packet conservation: what is in
    // flight plus what this ACK delivered.
    d.b.on_congestion(d.now, Congestion::RackLoss, Window::segments(before));
    d.ca_state = CaState::Recovery;
    d.ack(Ack {
        delivered: 2,
        lost: 3,
        in_flight: 30,
        ..Ack::default()
    });
    assert_eq!(d.b.cwnd, 32);
    // Within the round: at least the flight plus what was delivered, less new losses.
    d.ack(Ack {
        delivered: 1,
        in_flight: 25,
        ..Ack::default()
    });
    assert_eq!(d.b.cwnd, 32);
    d.ack(Ack {
        delivered: 1,
        lost: 10,
        in_flight: 15,
        ..Ack::default()
    });
    assert_eq!(d.b.cwnd, 22);
    // The next round: slow start (one segment per segment delivered) towards the target.
    d.ack(Ack {
        delivered: 3,
        in_flight: 15,
        rate_pps: Some(1000),
        round_start: true,
        ..Ack::default()
    });
    assert_eq!(d.b.cwnd, 25);
    // Recovery ends: the saved window comes back.
    d.ca_state = CaState::Open;
    d.ack(Ack::default());
    assert_eq!(d.b.cwnd, before);
}

#[test]
fn a_timeout_ends_the_round_and_restarts_the_full_pipe_estimate() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    d.b.on_congestion(d.now, Congestion::Timeout, Window::segments(10));
    assert_eq!(d.b.prev_ca_state, CaState::Loss);
    assert_eq!((d.b.full_bw, d.b.round_start), (0, true));
    // The pipe was full: BBR stays in ProbeBW.
    assert!(d.b.full_bw_reached);
}

#[test]
fn pacing_rate_is_the_gain_times_the_estimate_less_one_percent() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    d.b.cycle_idx = 7; // the next phase probes at 5/4
    d.b.cycle_stamp = d.now;
    d.ack(Ack {
        after: ms(41),
        rate_pps: Some(1000),
        ..Ack::default()
    });
    assert_eq!(d.b.pacing_gain, BBR_UNIT * 5 / 4);
    // 1000 segments/s x 1000 bytes x 5/4 x 0.99, in the kernel's fixed point.
    let bw = bw_units(1000);
    let expected = (((bw as u128 * 1000 * 320) >> 8) * 990_000) >> 24;
    assert_eq!(d.b.pacing_rate as u128, expected);
    assert_eq!(expected, 1_237_484);
    // The sender's rate is for wire bytes: a full segment (1040 bytes on the wire) leaves
    // 1000 / 1_237_484 s after the one before, to the nanosecond.
    let wire = d.b.pacing_rate().unwrap();
    let gap = wire.tx_time_ns(1040);
    let kernel_gap = 1000 * 1_000_000_000 / 1_237_484u64;
    assert!(gap.abs_diff(kernel_gap) <= 1, "{gap} vs {kernel_gap}");
}

#[test]
fn a_policer_is_detected_from_two_lossy_intervals_at_a_consistent_rate() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    // The first loss starts sampling.
    d.ack(Ack {
        lost: 1,
        rate_pps: Some(1000),
        ..Ack::default()
    });
    assert!(d.b.long_term.is_sampling);
    // Two intervals of 4 rounds, each delivering 10 segments per 40 ms round (250/s) and
    // losing 10 of 40 (over 20 %), each ending with a loss.
    for _interval in 0..2 {
        for r in 0..4 {
            d.round(1000, 10, 1000);
            if r < 3 {
                d.ack(Ack {
                    delivered: 0,
                    lost: 3,
                    ..Ack::default()
                });
            }
        }
        d.ack(Ack {
            after: ms(0),
            delivered: 0,
            lost: 1,
            rate_pps: Some(1000),
            ..Ack::default()
        });
    }
    assert!(d.b.long_term.use_bw, "{:?}", d.b.long_term);
    assert_eq!(d.b.pacing_gain, BBR_UNIT);
    // The policed rate: what the intervals delivered over their time, about 250/s.
    let pps = d.b.bw() as f64 * 1e6 / BW_UNIT as f64;
    assert!((pps - 250.0).abs() < 10.0, "{pps}");
    // After 48 rounds of ProbeBW it probes again.
    for _ in 0..48 {
        d.round(1000, 2, 1000);
    }
    assert!(!d.b.long_term.use_bw);
}

#[test]
fn aggregated_acks_add_their_excess_to_the_window() {
    let mut d = Driver::new(BbrConfig::default(), 1);
    d.reach_probe_bw(1000);
    let before = d.b.ack_aggregation_cwnd();
    assert!(before < 10, "{before}");
    // After 40 ms of silence a new epoch begins with an ACK of one segment; 30 more ACKed
    // at once, when the estimate explains none, are all excess.
    d.ack(Ack {
        after: ms(40),
        delivered: 1,
        rate_pps: Some(1000),
        ..Ack::default()
    });
    d.ack(Ack {
        after: ms(0),
        delivered: 30,
        rate_pps: Some(1000),
        ..Ack::default()
    });
    assert_eq!(d.b.ack_aggregation_cwnd(), 31);
    // At most 100 ms at the estimated rate: 100 segments.
    d.b.extra_acked[0] = 500;
    assert_eq!(d.b.ack_aggregation_cwnd(), 99);
}

#[test]
fn probe_bw_starts_at_a_random_phase_from_the_flow_stream() {
    let first_phase = |seed| {
        let mut d = Driver::new(BbrConfig::default(), seed);
        d.reach_probe_bw(1000);
        d.b.cycle_idx
    };
    let phases: Vec<usize> = (0..40).map(first_phase).collect();
    // The same stream, the same phase.
    assert_eq!(phases, (0..40).map(first_phase).collect::<Vec<_>>());
    // Never the draining phase; each of the seven others from some seed.
    assert!(!phases.contains(&1));
    let mut seen = phases.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, vec![0, 2, 3, 4, 5, 6, 7]);
}
