//! CUBIC's slow-start exits on a modelled bottleneck: HyStart (Linux), HyStart++ (RFC 9406)
//! and none, up to the first loss.
//!
//! The path is a single FIFO bottleneck of fixed rate with a drop-tail buffer and a fixed
//! base RTT; each segment is acknowledged alone. The sender keeps `cwnd` segments in flight,
//! in bursts (as renolab's senders and Linux without fq do) or paced at twice cwnd per
//! minimum RTT (Linux's slow-start pacing rate). The controller sees what a Linux sender
//! gives it on each ACK: the segments acknowledged, the round boundaries (`ack`, `snd_max`)
//! and an RTT sample, on every ACK or once per round trip. The runs end at the first drop.
//!
//! These tests drive the controller directly, as the `linux` sender profile will (its
//! per-ACK RTT samples and `on_ack_sample` calls); the scenario-level counterparts are in
//! `tests/cubic_scenarios.rs`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use renolab_core::tcp::cc::{AckSample, CongestionControl, Cubic, CubicConfig, HystartMode};
use renolab_core::time::{SimDuration, SimTime};

/// A bottleneck of `mbps` with a base RTT and a buffer of `buffer` 1500-byte packets.
#[derive(Clone, Copy)]
struct Path {
    mbps: u64,
    rtt: SimDuration,
    buffer: u32,
}

impl Path {
    fn tx(self) -> SimDuration {
        SimDuration(1500 * 8 * 1000 / self.mbps)
    }

    /// Bandwidth-delay product, packets.
    fn bdp(self) -> u32 {
        (self.rtt.as_nanos() / self.tx().as_nanos()) as u32
    }
}

/// How often the sender measures the RTT.
#[derive(Clone, Copy, PartialEq)]
enum Timing {
    /// Every ACK (Linux, with timestamps).
    EveryAck,
    /// One timed segment per round trip (the rfc and ns2 profiles).
    OnePerRtt,
}

/// How the sender releases what the window allows.
#[derive(Clone, Copy, PartialEq)]
enum Sending {
    /// At once.
    Bursts,
    /// At most twice cwnd per minimum RTT.
    Paced,
}

/// What happened before the first drop.
#[derive(Debug, Default)]
struct Outcome {
    /// When and at which window slow start ended (ssthresh set), if it did.
    exit: Option<(SimTime, u32)>,
    /// When and at which window the first packet was dropped.
    first_drop: Option<(SimTime, u32)>,
    /// HyStart++ was in Conservative Slow Start at some point.
    css_seen: bool,
    /// cwnd when CSS was first seen.
    css_entry: Option<u32>,
    /// Round trips (as the sender counts them) that began in CSS.
    css_rounds: u32,
}

/// An ACK arriving (segment, when it was sent) or the pacer releasing the next segment.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Ack(u32, SimTime),
    Release,
}

fn run(mode: HystartMode, path: Path, timing: Timing, sending: Sending) -> Outcome {
    let config = CubicConfig {
        hystart: mode,
        ..CubicConfig::default()
    };
    let mut cc = Cubic::new(10, u32::MAX, 1460, config);
    let mut out = Outcome::default();
    let tx = path.tx();
    let mut events: BinaryHeap<Reverse<(SimTime, Event)>> = BinaryHeap::new();
    let (mut next_seq, mut una) = (0u32, 0u32);
    let (mut link_free, mut next_release) = (SimTime::ZERO, SimTime::ZERO);
    let mut release_pending = false;
    let mut now = SimTime::ZERO;
    let mut min_rtt: Option<SimDuration> = None;
    let mut timed: Option<u32> = None;
    let mut round_end = 0u32;
    let until = SimTime(20_000_000_000);
    loop {
        // Send what the window (and the pacer) allows.
        while next_seq - una < cc.cwnd().whole() {
            if sending == Sending::Paced && now < next_release {
                if !release_pending {
                    events.push(Reverse((next_release, Event::Release)));
                    release_pending = true;
                }
                break;
            }
            let queued = link_free.as_nanos().saturating_sub(now.as_nanos()) / tx.as_nanos();
            if queued >= path.buffer as u64 {
                out.first_drop = Some((now, cc.cwnd().whole()));
                return out;
            }
            let depart = SimTime(link_free.as_nanos().max(now.as_nanos())) + tx;
            link_free = depart;
            events.push(Reverse((depart + path.rtt, Event::Ack(next_seq, now))));
            if timing == Timing::OnePerRtt && timed.is_none() {
                timed = Some(next_seq);
            }
            next_seq += 1;
            let gap = min_rtt.unwrap_or(path.rtt).as_nanos() / (2 * cc.cwnd().whole() as u64);
            next_release = now + SimDuration(gap);
        }
        let Reverse((t, event)) = events.pop().expect("something in flight");
        now = t;
        if now > until {
            return out;
        }
        let Event::Ack(seq, sent) = event else {
            release_pending = false;
            continue;
        };
        una = seq + 1;
        let rtt = match timing {
            Timing::OnePerRtt if timed != Some(seq) => None,
            _ => {
                timed = None;
                Some(now - sent)
            }
        };
        if let Some(r) = rtt {
            min_rtt = Some(min_rtt.map_or(r, |m| m.min(r)));
        }
        let sample = AckSample {
            snd_max: next_seq,
            rtt,
            srtt: min_rtt,
            min_rtt,
            in_flight: next_seq - una,
            ..AckSample::new(now, una, 1)
        };
        let was_slow_start = cc.cwnd() < cc.ssthresh();
        cc.on_ack_sample(&sample);
        cc.on_ack(&sample);
        if was_slow_start && cc.ssthresh().whole() != u32::MAX && out.exit.is_none() {
            out.exit = Some((now, cc.cwnd().whole()));
        }
        if una > round_end {
            round_end = next_seq;
            out.css_rounds += cc.in_css() as u32;
        }
        if cc.in_css() && !out.css_seen {
            out.css_seen = true;
            out.css_entry = Some(cc.cwnd().whole());
        }
    }
}

/// 100 Mb/s, 100 ms: a BDP of 833 packets, and a buffer of half that.
const LARGE: Path = Path {
    mbps: 100,
    rtt: SimDuration::from_millis(100),
    buffer: 833,
};

/// 10 Mb/s, 10 ms: a BDP of 8 packets; the buffer overflows before the window reaches
/// HyStart's 16 segments.
const SMALL: Path = Path {
    mbps: 10,
    rtt: SimDuration::from_millis(10),
    buffer: 4,
};

/// Slow start ended (by HyStart) before any loss.
fn exited_before_loss(out: &Outcome) -> bool {
    match (out.exit, out.first_drop) {
        (Some((exit, _)), Some((drop, _))) => exit < drop,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

#[test]
fn hystart_leaves_slow_start_before_the_first_loss_on_a_large_bdp_path() {
    let out = run(HystartMode::Linux, LARGE, Timing::EveryAck, Sending::Bursts);
    assert!(exited_before_loss(&out), "{out:?}");
    let (_, cwnd) = out.exit.unwrap();
    assert!(
        cwnd >= LARGE.bdp() / 2 && cwnd <= LARGE.bdp() + LARGE.buffer,
        "exit at {cwnd} segments, BDP {}",
        LARGE.bdp()
    );
}

#[test]
fn hystart_does_not_act_below_sixteen_segments_on_a_small_bdp_path() {
    let out = run(HystartMode::Linux, SMALL, Timing::EveryAck, Sending::Bursts);
    let (_, drop_cwnd) = out.first_drop.expect("the buffer overflows");
    assert!(drop_cwnd < 16, "{out:?}");
    assert!(out.exit.is_none(), "slow start ended by loss: {out:?}");
}

#[test]
fn without_hystart_slow_start_ends_by_loss() {
    let out = run(HystartMode::Off, LARGE, Timing::EveryAck, Sending::Bursts);
    assert!(out.exit.is_none(), "{out:?}");
    let (_, drop_cwnd) = out.first_drop.expect("slow start overflows the buffer");
    assert!(drop_cwnd > LARGE.bdp(), "{out:?}");
}

#[test]
fn hystarts_ack_train_needs_no_rtt_sample_per_ack() {
    // One timed segment per round trip never gives a round the 8 samples of the delay test,
    // but the ACK train needs only the ACKs' arrival times: as rounds begin with a flight's
    // first ACK (Linux 6.13+), a burst's ACKs that last half the minimum RTT end slow start
    // before the first loss, at the window where per-ACK samples end it too.
    let sampled = run(HystartMode::Linux, LARGE, Timing::EveryAck, Sending::Bursts);
    let out = run(
        HystartMode::Linux,
        LARGE,
        Timing::OnePerRtt,
        Sending::Bursts,
    );
    assert!(exited_before_loss(&out), "{out:?}");
    assert_eq!(out.exit, sampled.exit, "{out:?} {sampled:?}");
}

/// 100 Mb/s, 100 ms with a deep buffer (10 BDP): room for CSS's five rounds.
const DEEP: Path = Path {
    buffer: 10 * 833,
    ..LARGE
};

#[test]
fn hystart_plus_plus_spends_five_rounds_in_css_then_leaves_slow_start_before_loss() {
    // Paced, the RTT rises smoothly once the queue builds; 12.5 ms (clamp(100 ms / 8, 4,
    // 16)) more than the last round's minimum moves HyStart++ to CSS.
    let out = run(
        HystartMode::PlusPlus,
        DEEP,
        Timing::EveryAck,
        Sending::Paced,
    );
    assert!(out.css_seen, "{out:?}");
    assert!(exited_before_loss(&out), "{out:?}");
    let (entry, (_, exit)) = (out.css_entry.unwrap(), out.exit.unwrap());
    // The round CSS began in and four more (rounds as the sender counts them may straddle
    // HyStart++'s by one).
    assert!((4..=5).contains(&out.css_rounds), "{out:?}");
    // CSS grows a quarter as fast as slow start, x1.25 a round rather than x2: five
    // rounds take the window from its entry to 1.25^5 = 3.05 times that.
    let growth = exit as f64 / entry as f64;
    assert!(
        growth > 1.25f64.powi(4) && growth <= 1.25f64.powi(5),
        "{out:?}"
    );
}

#[test]
fn hystart_plus_plus_needs_an_rtt_sample_per_ack() {
    // One sample per round trip is never the 8 a round needs: slow start runs to loss.
    let out = run(
        HystartMode::PlusPlus,
        DEEP,
        Timing::OnePerRtt,
        Sending::Paced,
    );
    assert!(!out.css_seen && out.exit.is_none(), "{out:?}");
    assert!(out.first_drop.is_some(), "{out:?}");
}
