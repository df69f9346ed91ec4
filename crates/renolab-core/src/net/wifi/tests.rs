//! The DCF's timing, to the nanosecond: a medium driven alone, its backoff draws replayed
//! from the stations' own streams.

use super::*;
use crate::loss::{GilbertElliott, GilbertElliottConfig, LossModel, Uniform};
use crate::packet::sack::SackBlocks;
use crate::packet::{Ecn, PacketKind};

const SEED: u64 = 7;

/// A medium of `n` stations (node i is station i) and the packets offered to it.
struct Bench {
    medium: Medium,
    pool: PacketPool,
    delivered: Vec<(SimTime, PacketId, u32)>,
    dropped: Vec<(SimTime, PacketId)>,
    frames: Vec<AirFrame>,
}

fn stream(station: u32) -> RngStream {
    RngStream::derive(SEED, &format!("medium/test/{station}/backoff"))
}

fn mac(data_bps: u64) -> MacConfig {
    MacConfig {
        phy: Phy::new(Standard::B, data_bps, 1_000_000).unwrap(),
        rts_threshold: None,
        short_retry_limit: phy::DEFAULT_SHORT_RETRY_LIMIT,
        long_retry_limit: phy::DEFAULT_LONG_RETRY_LIMIT,
    }
}

impl Bench {
    fn new(mac: MacConfig, n: u32, losses: impl Fn(u32) -> Vec<Loss>) -> Bench {
        let stations = (0..n)
            .map(|i| StationSetup {
                node: i,
                limit: QueueLimit::Packets(100_000),
                losses: losses(i),
                rng: stream(i),
            })
            .collect();
        let mut medium = Medium::new("test".into(), mac, stations);
        medium.set_tracing(true);
        Bench {
            medium,
            pool: PacketPool::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            frames: Vec::new(),
        }
    }

    fn offer(&mut self, now: SimTime, from: u32, to: u32, seq: u32) -> bool {
        let packet = Packet {
            flow: 0,
            kind: PacketKind::Datagram,
            seq,
            size: 1500,
            dst: to,
            retransmit: false,
            sent_at: now,
            sack: SackBlocks::EMPTY,
            ecn: Ecn::NONE,
        };
        let id = self.pool.insert(packet);
        let accepted = self.medium.offer(now, from, id, &packet, to);
        if !accepted {
            self.pool.remove(id);
        }
        self.collect();
        accepted
    }

    /// Runs every step due up to `until`.
    fn run(&mut self, until: SimTime) {
        while let Some(at) = self.medium.poll_timeout() {
            if at > until {
                break;
            }
            self.medium.on_timeout(at, &self.pool);
            for outcome in self.medium.take_outcomes() {
                match outcome {
                    Outcome::Deliver { id, to } => {
                        self.pool.remove(id);
                        self.delivered.push((at, id, to));
                    }
                    Outcome::RetryDrop { id, .. } => {
                        self.pool.remove(id);
                        self.dropped.push((at, id));
                    }
                }
            }
            self.collect();
        }
    }

    fn collect(&mut self) {
        for t in self.medium.take_trace() {
            if let AirTrace::Frame(f) = t {
                self.frames.push(f);
            }
        }
    }

    fn starts(&self, kind: FrameKind) -> Vec<SimTime> {
        self.frames
            .iter()
            .filter(|f| f.kind == kind)
            .map(|f| f.start)
            .collect()
    }
}

/// Backoffs station `station` draws with contention windows `cws`, as it draws them.
fn draws(station: u32, cws: &[u32]) -> Vec<u64> {
    let mut rng = stream(station);
    cws.iter()
        .map(|&cw| ((rng.next_u64() as u128 * (cw as u128 + 1)) >> 64) as u64)
        .collect()
}

fn at(d: SimDuration) -> SimTime {
    SimTime::ZERO + d
}

fn slots(phy: &Phy, n: u64) -> SimDuration {
    SimDuration(phy.slot.as_nanos() * n)
}

#[test]
fn a_frame_to_an_idle_medium_goes_at_once_and_its_ack_follows_after_sifs() {
    let mut bench = Bench::new(mac(11_000_000), 2, |_| Vec::new());
    let phy = bench.medium.mac().phy;
    bench.offer(SimTime::ZERO, 0, 1, 0);
    bench.run(SimTime::NEVER);
    let data_end = at(phy.data(1500));
    assert_eq!(bench.starts(FrameKind::Data), [SimTime::ZERO]);
    assert_eq!(bench.starts(FrameKind::Ack), [data_end + phy.sifs]);
    assert_eq!(bench.delivered, [(data_end, PacketId(0), 1)]);
    let sender = bench.medium.stats(0);
    assert_eq!(
        (sender.frames_sent, sender.retries, sender.collisions),
        (1, 0, 0)
    );
    assert_eq!(sender.airtime_ns, phy.data(1500).as_nanos());
    assert_eq!(bench.medium.stats(1).airtime_ns, phy.ack.as_nanos());
    assert_eq!(bench.medium.stats(1).frames_received, 1);
    // The sender drew a post-backoff after its frame, with nothing left to send.
    assert_eq!(sender.backoff_slots, draws(0, &[31])[0]);
}

/// One saturated station at `bps`: frame k + 1 starts DIFS plus its backoff after frame
/// k's Ack ends, exactly, and over many frames the MAC's throughput is payload / (DIFS +
/// mean backoff + frame + SIFS + Ack) with the mean backoff CWmin / 2 slots.
fn saturated_station_at(bps: u64) {
    const FRAMES: usize = 20_000;
    let mut bench = Bench::new(mac(bps), 2, |_| Vec::new());
    let phy = bench.medium.mac().phy;
    for seq in 0..FRAMES as u32 {
        bench.offer(SimTime::ZERO, 0, 1, seq);
    }
    bench.run(SimTime::NEVER);
    assert_eq!(bench.delivered.len(), FRAMES);
    let exchange = phy.data(1500) + phy.sifs + phy.ack;
    let backoffs = draws(0, &vec![31; FRAMES]);
    let mut expected = SimTime::ZERO; // the first frame: immediate access
    let data = bench.starts(FrameKind::Data);
    for (k, start) in data.iter().enumerate() {
        assert_eq!(*start, expected, "frame {k} at {bps} b/s");
        expected = *start + exchange + phy.difs + slots(&phy, backoffs[k]);
    }
    // Throughput up to the end of the last Ack, against the formula: every frame but the
    // first paid DIFS and a backoff.
    let last_ack_end = *data.last().unwrap() + exchange;
    let measured = (FRAMES as f64 * 1500.0 * 8.0) / last_ack_end.as_secs_f64();
    let drawn: u64 = backoffs[..FRAMES - 1].iter().sum();
    let exact = (FRAMES as f64 * 12_000.0)
        / (FRAMES as f64 * exchange.as_secs_f64()
            + (FRAMES - 1) as f64 * phy.difs.as_secs_f64()
            + drawn as f64 * phy.slot.as_secs_f64());
    assert!(
        (measured / exact - 1.0).abs() < 1e-12,
        "{measured} vs {exact}"
    );
    let mean_backoff = phy.slot.as_secs_f64() * phy.cw_min as f64 / 2.0;
    let formula = 12_000.0 / (phy.difs.as_secs_f64() + mean_backoff + exchange.as_secs_f64());
    eprintln!(
        "| {} | {:.4} | {:.4} | {:+.3} % |",
        bps as f64 / 1e6,
        formula / 1e6,
        measured / 1e6,
        100.0 * (measured / formula - 1.0)
    );
    assert!(
        (measured / formula - 1.0).abs() < 0.005,
        "{bps} b/s: {measured} vs {formula}"
    );
}

#[test]
fn one_saturated_station_meets_the_no_contention_formula_at_every_80211b_rate() {
    for bps in [1_000_000, 2_000_000, 5_500_000, 11_000_000] {
        saturated_station_at(bps);
    }
}

#[test]
fn two_backoffs_ending_in_one_slot_collide_and_both_senders_double_their_window() {
    let mut bench = Bench::new(mac(11_000_000), 3, |_| Vec::new());
    let phy = bench.medium.mac().phy;
    // Both find the medium idle at t = 0: immediate access for both, in the same slot.
    bench.offer(SimTime::ZERO, 0, 2, 0);
    bench.offer(SimTime::ZERO, 1, 2, 0);
    bench.run(SimTime::NEVER);
    let data = bench.starts(FrameKind::Data);
    assert_eq!(&data[..2], [SimTime::ZERO, SimTime::ZERO]);
    assert_eq!(bench.medium.stats(0).collisions, 1);
    assert_eq!(bench.medium.stats(1).collisions, 1);
    // Each sender waits out its Ack timeout and DIFS, then a backoff drawn from [0, 63].
    let resume = at(phy.data(1500) + phy.response_timeout + phy.difs);
    let b0 = draws(0, &[63])[0];
    let b1 = draws(1, &[63])[0];
    assert_ne!(b0, b1, "this seed separates them");
    let (first, b_first, b_second) = if b0 < b1 { (0, b0, b1) } else { (1, b1, b0) };
    let first_start = resume + slots(&phy, b_first);
    assert_eq!(data[2], first_start);
    assert_eq!(bench.frames[2].from, first);
    // The other froze its count while the first's exchange was on the air, with b_first
    // slots counted off, and resumes after DIFS.
    let first_ack_end = first_start + phy.data(1500) + phy.sifs + phy.ack;
    assert_eq!(
        data[3],
        first_ack_end + phy.difs + slots(&phy, b_second - b_first)
    );
    assert_eq!(bench.delivered.len(), 2);
    assert_eq!(
        bench.medium.stats(0).retries + bench.medium.stats(1).retries,
        2
    );
    // The receiver heard the collision: EIFS. It had nothing to send, so it only shows
    // in that neither sender could start before the senders' own deferral.
    assert!(resume < at(phy.data(1500) + phy.eifs));
}

#[test]
fn a_frame_the_receiver_never_gets_is_tried_seven_times_then_dropped() {
    let lossy = |i: u32| {
        if i == 1 {
            let rng = RngStream::derive(SEED, "loss");
            vec![Loss::from(LossModel::Uniform(Uniform::new(1.0, rng)))]
        } else {
            Vec::new()
        }
    };
    let mut bench = Bench::new(mac(11_000_000), 2, lossy);
    let phy = bench.medium.mac().phy;
    bench.offer(SimTime::ZERO, 0, 1, 0);
    bench.run(SimTime::NEVER);
    let data = bench.starts(FrameKind::Data);
    assert_eq!(data.len(), 7, "dot11ShortRetryLimit attempts");
    let backoffs = draws(0, &[63, 127, 255, 511, 1023, 1023, 31]);
    let mut expected = SimTime::ZERO;
    for (k, start) in data.iter().enumerate() {
        assert_eq!(*start, expected, "attempt {k}");
        expected =
            *start + phy.data(1500) + phy.response_timeout + phy.difs + slots(&phy, backoffs[k]);
    }
    assert!(bench.starts(FrameKind::Ack).is_empty());
    assert!(bench.delivered.is_empty());
    let last_end = *data.last().unwrap() + phy.data(1500);
    assert_eq!(bench.dropped, [(last_end, PacketId(0))]);
    let s = bench.medium.stats(0);
    assert_eq!((s.frames_sent, s.retries, s.retry_drops), (7, 6, 1));
    assert_eq!(bench.medium.stats(1).frame_errors, 7);
    // After giving up, CW is back to CWmin: the post-backoff came from [0, 31].
    assert_eq!(s.backoff_slots, backoffs.iter().sum::<u64>());
}

#[test]
fn a_lost_ack_makes_the_sender_repeat_a_frame_the_receiver_passes_up_only_once() {
    // The sender's receiver judges the Acks: good, bad, good, bad, ...
    let acks_alternate = |i: u32| {
        if i == 0 {
            let ge = GilbertElliott::new(
                GilbertElliottConfig::gilbert(1.0, 1.0),
                RngStream::derive(SEED, "loss"),
            );
            vec![Loss::from(LossModel::GilbertElliott(ge))]
        } else {
            Vec::new()
        }
    };
    let mut bench = Bench::new(mac(11_000_000), 2, acks_alternate);
    let phy = bench.medium.mac().phy;
    for seq in 0..3 {
        bench.offer(SimTime::ZERO, 0, 1, seq);
    }
    bench.run(SimTime::NEVER);
    // Acks 1, 3, 5 get through: frames 1, 2 (twice), 3 (twice).
    assert_eq!(bench.starts(FrameKind::Data).len(), 5);
    let delivered: Vec<u32> = bench.delivered.iter().map(|d| d.1 .0).collect();
    assert_eq!(delivered, [0, 1, 2], "each packet once");
    let s = bench.medium.stats(0);
    assert_eq!((s.retries, s.frame_errors, s.retry_drops), (2, 2, 0));
    // A corrupted Ack: the sender defers EIFS from its end.
    let data = bench.starts(FrameKind::Data);
    let ack = bench.starts(FrameKind::Ack);
    let backoffs = draws(0, &[31, 63]);
    assert_eq!(
        data[1],
        ack[0] + phy.ack + phy.difs + slots(&phy, backoffs[0])
    );
    assert_eq!(
        data[2],
        ack[1] + phy.ack + phy.eifs + slots(&phy, backoffs[1])
    );
    assert!(
        bench
            .frames
            .iter()
            .filter(|f| f.kind == FrameKind::Data)
            .nth(2)
            .unwrap()
            .retry
    );
}

#[test]
fn with_rts_cts_a_frame_waits_for_the_handshake_and_a_lost_rts_costs_only_the_rts() {
    let mut config = mac(11_000_000);
    config.rts_threshold = Some(0);
    // The receiver loses the first frame it hears (the RTS), then none: a chain that
    // starts in a state that loses everything and leaves it for good.
    let first_lost = |i: u32| {
        if i == 1 {
            let once = GilbertElliottConfig {
                p_gb: 1.0,
                p_bg: 0.0,
                loss_good: 1.0,
                loss_bad: 0.0,
            };
            let ge = GilbertElliott::new(once, RngStream::derive(SEED, "loss"));
            vec![Loss::from(LossModel::GilbertElliott(ge))]
        } else {
            Vec::new()
        }
    };
    let mut bench = Bench::new(config, 2, first_lost);
    let phy = bench.medium.mac().phy;
    bench.offer(SimTime::ZERO, 0, 1, 0);
    bench.run(SimTime::NEVER);
    let rts = bench.starts(FrameKind::Rts);
    assert_eq!(rts.len(), 2);
    let backoff = draws(0, &[63])[0];
    let second = at(phy.rts + phy.response_timeout + phy.difs) + slots(&phy, backoff);
    assert_eq!(rts, [SimTime::ZERO, second]);
    let cts = second + phy.rts + phy.sifs;
    assert_eq!(bench.starts(FrameKind::Cts), [cts]);
    let data = cts + phy.cts + phy.sifs;
    assert_eq!(bench.starts(FrameKind::Data), [data]);
    assert_eq!(bench.delivered[0].0, data + phy.data(1500));
    let s = bench.medium.stats(0);
    assert_eq!((s.rts_sent, s.frames_sent, s.retries), (2, 1, 1));
    // The RTS reserves the medium for the whole exchange.
    let first_rts = &bench.frames[0];
    let reserved = phy.sifs + phy.cts + phy.sifs + phy.data(1500) + phy.sifs + phy.ack;
    assert_eq!(first_rts.nav_us * 1000, reserved.as_nanos());
}

#[test]
fn a_frame_offered_while_the_medium_is_busy_backs_off() {
    let mut bench = Bench::new(mac(11_000_000), 3, |_| Vec::new());
    let phy = bench.medium.mac().phy;
    bench.offer(SimTime::ZERO, 0, 2, 0);
    bench.run(SimTime(1));
    // Station 1 gets a frame in the middle of station 0's.
    bench.offer(SimTime(1_000), 1, 2, 0);
    bench.run(SimTime::NEVER);
    let data = bench.starts(FrameKind::Data);
    let ack_end = at(phy.data(1500) + phy.sifs + phy.ack);
    assert_eq!(
        data[1],
        ack_end + phy.difs + slots(&phy, draws(1, &[31])[0])
    );
}

#[test]
fn a_full_interface_queue_refuses_packets_counting_the_frame_in_service() {
    let mut bench = Bench::new(mac(11_000_000), 2, |_| Vec::new());
    bench.medium.stations[0].limit = QueueLimit::Packets(2);
    assert!(bench.offer(SimTime::ZERO, 0, 1, 0));
    assert!(bench.offer(SimTime::ZERO, 0, 1, 1));
    assert!(!bench.offer(SimTime::ZERO, 0, 1, 2));
    assert_eq!(bench.medium.stats(0).queue_drops, 1);
    assert_eq!(bench.medium.stats(0).max_queue, 2);
    assert_eq!(bench.medium.packets(0).count(), 2);
    bench.run(SimTime::NEVER);
    assert_eq!(bench.delivered.len(), 2);
    assert_eq!(bench.medium.packets(0).count(), 0);
}
