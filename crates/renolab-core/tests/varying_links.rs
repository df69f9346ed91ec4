//! Links that change during a run: mahimahi traces, rate, delay and loss schedules, outages.
//! Each test puts packets into a [`Network`] at chosen instants and checks when (and
//! whether) each reaches the far end, to the nanosecond.

use renolab_core::engine::{Event, Scheduler};
use renolab_core::packet::sack::SackBlocks;
use renolab_core::packet::{Ecn, Packet, PacketId, PacketKind};
use renolab_core::sim::{run, Driver, Network};
use renolab_core::time::SimTime;
use renolab_core::trace::{NoTrace, TraceRequest};
use renolab_core::Scenario;

const MS: u64 = 1_000_000;

/// A driver that runs the network's link events and keeps what arrives.
struct Recorder {
    network: Network,
    sched: Scheduler,
    tracer: NoTrace,
    arrived: Vec<(SimTime, Packet)>,
}

impl Driver for Recorder {
    type Tracer = NoTrace;
    fn parts(&mut self) -> (&mut Network, &mut Scheduler, &mut NoTrace) {
        (&mut self.network, &mut self.sched, &mut self.tracer)
    }
    fn deliver(&mut self, now: SimTime, packet: Packet, _id: PacketId) {
        self.arrived.push((now, packet));
    }
}

impl Recorder {
    /// One link a -> b with `settings` (TOML keys of the `[[link]]` table; a long
    /// drop-tail queue unless they give one).
    fn link(settings: &str) -> Recorder {
        let queue = if settings.contains("queue") {
            ""
        } else {
            r#"queue = { kind = "droptail", limit = 100000 }"#
        };
        let text = format!(
            r#"
            simulation = {{ duration = "100s" }}
            [[link]]
            from = "a"
            to = "b"
            {queue}
            {settings}
            [[flow]]
            name = "u"
            kind = "cbr"
            rate = "1Mbps"
            src = "a"
            dst = "b"
            "#
        );
        let scenario = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
        Recorder {
            network: Network::from_scenario(&scenario),
            sched: Scheduler::new(),
            tracer: NoTrace,
            arrived: Vec::new(),
        }
    }

    /// Runs the link events due up to `until`.
    fn run_until(&mut self, until: SimTime) {
        while self.sched.peek_time().is_some_and(|t| t <= until) {
            let (now, event) = self.sched.pop().unwrap();
            match event {
                Event::TxEnd { dir } => Network::on_tx_end(self, now, dir),
                Event::Arrive { dir } => Network::on_arrive(self, now, dir),
                other => panic!("a bare network scheduled {other:?}"),
            }
        }
    }

    /// Runs the events due up to `at`, then puts `n` packets of `size` bytes in at a.
    fn send(&mut self, at: SimTime, n: u32, size: u32) {
        self.run_until(at);
        for _ in 0..n {
            let seq = self.network.flow_counters()[0].data_sent as u32;
            let packet = Packet {
                flow: 0,
                kind: PacketKind::Datagram,
                seq,
                size,
                dst: 1,
                retransmit: false,
                sent_at: at,
                sack: SackBlocks::EMPTY,
                ecn: Ecn::NONE,
            };
            Network::inject(self, at, 0, packet);
        }
    }

    /// Arrival instants, ms.
    fn arrivals_ms(&mut self) -> Vec<f64> {
        self.run_until(SimTime(u64::MAX));
        self.arrived
            .iter()
            .map(|(t, _)| t.0 as f64 / MS as f64)
            .collect()
    }
}

/// Writes `lines` (one timestamp each) as a trace file; returns its path.
fn trace_file(name: &str, lines: impl IntoIterator<Item = u64>) -> String {
    let dir = std::env::temp_dir().join(format!("renolab-varying-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let text: String = lines.into_iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn trace_link(path: &str) -> Recorder {
    Recorder::link(&format!("rate = {{ trace = {path:?} }}"))
}

// ----- traces ------------------------------------------------------------------------------

#[test]
fn a_saturated_trace_link_delivers_n_times_1500_bytes_a_millisecond_of_n_opportunities() {
    for n in 1..=3u64 {
        let path = trace_file(
            &format!("n{n}"),
            (1..=50).flat_map(|ms| std::iter::repeat_n(ms, n as usize)),
        );
        let mut link = trace_link(&path);
        link.send(SimTime::ZERO, 400, 1500);
        let arrivals = link.arrivals_ms();
        assert_eq!(arrivals.len(), 400);
        for m in 1..=200u64 {
            let bytes = arrivals.iter().filter(|&&t| t <= m as f64).count() as i64 * 1500;
            let expected = (n * m * 1500).min(400 * 1500) as i64;
            assert!(
                (bytes - expected).abs() <= 1500,
                "n {n}, {m} ms: {bytes} bytes"
            );
        }
    }
}

#[test]
fn forty_byte_packets_share_an_opportunity_and_a_packet_may_span_two() {
    let path = trace_file("share", [1, 2, 3, 4]);
    let mut link = trace_link(&path);
    // 40 + 4 bytes each: 34 fill 1496 of ms 1's 1504, the 35th spans ms 1 and ms 2.
    link.send(SimTime::ZERO, 36, 40);
    let arrivals = link.arrivals_ms();
    assert!(arrivals[..34].iter().all(|&t| t == 1.0), "{arrivals:?}");
    assert_eq!(&arrivals[34..], &[2.0, 2.0]);
    // 1004-byte packets: the second takes ms 1's last 500 bytes and 504 of ms 2.
    let mut link = trace_link(&path);
    link.send(SimTime::ZERO, 3, 1000);
    assert_eq!(link.arrivals_ms(), [1.0, 2.0, 3.0]);
}

#[test]
fn bytes_of_an_opportunity_that_finds_the_queue_empty_are_lost() {
    let path = trace_file("lost", [1, 1001]);
    let mut link = trace_link(&path);
    link.send(SimTime::ZERO, 1, 1000); // leaves at 1 ms, 500 bytes of it unused
    link.send(SimTime(1_500_000), 1, 100); // too late for them: the next one is at 1001 ms
    link.send(SimTime(2003 * MS), 1, 100); // at an opportunity's instant: misses it
    assert_eq!(link.arrivals_ms(), [1.0, 1001.0, 3003.0]);
}

#[test]
fn the_trace_repeats_with_its_last_timestamp_as_period() {
    let path = trace_file("repeat", [0, 5, 10]);
    let mut link = trace_link(&path);
    link.send(SimTime::ZERO, 7, 1500);
    // Time 0's opportunity is missed by packets arriving at 0; 10 ms holds the period's
    // last and the next one's first.
    assert_eq!(
        link.arrivals_ms(),
        [5.0, 10.0, 10.0, 15.0, 20.0, 20.0, 25.0]
    );
}

#[test]
fn a_trace_link_adds_its_propagation_delay_and_queues_in_its_queue() {
    let path = trace_file("delay", [1]);
    let mut link = Recorder::link(&format!(
        "rate = {{ trace = {path:?} }}\ndelay = \"10ms\"\nqueue = {{ kind = \"droptail\", limit = 3 }}"
    ));
    link.send(SimTime::ZERO, 5, 1500);
    // Three wait, two are refused; one leaves each millisecond.
    assert_eq!(link.arrivals_ms(), [11.0, 12.0, 13.0]);
    assert_eq!(link.network.dirs()[0].stats.overflow_drops, 2);
}

// ----- schedules ---------------------------------------------------------------------------

#[test]
fn a_rate_change_takes_effect_at_its_instant_even_within_a_packet() {
    let mut link = Recorder::link(r#"rate = { schedule = [["0s", "8Mbps"], ["10ms", "4Mbps"]] }"#);
    link.send(SimTime::ZERO, 12, 1000);
    let expected: Vec<f64> = (1..=10).map(|m| m as f64).chain([12.0, 14.0]).collect();
    assert_eq!(link.arrivals_ms(), expected);
    // Half a packet at 8 Mb/s before 10 ms, the other half at 4 Mb/s after.
    let mut link = Recorder::link(r#"rate = { schedule = [["0s", "8Mbps"], ["10ms", "4Mbps"]] }"#);
    link.send(SimTime(9_500_000), 1, 1000);
    assert_eq!(link.arrivals_ms(), [11.0]);
}

#[test]
fn a_delay_change_applies_from_its_instant_and_packets_stay_in_order() {
    let mut link = Recorder::link(
        r#"rate = "8Mbps"
        delay = { schedule = [["0s", "30ms"], ["10ms", "5ms"]] }"#,
    );
    link.send(SimTime::ZERO, 40, 1000);
    let arrivals = link.arrivals_ms();
    // Serialisation ends at 1, 2, ... ms; until 10 ms the delay is 30 ms.
    assert_eq!(
        &arrivals[..9],
        &[31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0]
    );
    // From 10 ms on, 5 ms, but never before the packet sent before: they wait for 39 ms
    // until end + 5 ms passes it.
    for (i, &t) in arrivals.iter().enumerate().skip(9) {
        let end = (i + 1) as f64;
        assert_eq!(t, (end + 5.0).max(39.0), "packet {i}");
    }
    assert!(arrivals.windows(2).all(|w| w[0] <= w[1]));
    let seqs: Vec<u32> = link.arrived.iter().map(|(_, p)| p.seq).collect();
    assert_eq!(seqs, (0..40).collect::<Vec<u32>>(), "in the order sent");
}

#[test]
fn a_scheduled_loss_model_judges_by_the_arrival_instant() {
    let mut link = Recorder::link(
        r#"rate = "8Mbps"
        loss = { schedule = [["0s", { kind = "uniform", p = 0.0 }], ["5ms", { kind = "uniform", p = 1.0 }], ["8ms", { kind = "uniform", p = 0.0 }]] }"#,
    );
    link.send(SimTime::ZERO, 10, 1000);
    // Arrivals at 1..10 ms; those at 5, 6 and 7 ms are lost.
    assert_eq!(link.arrivals_ms(), [1.0, 2.0, 3.0, 4.0, 8.0, 9.0, 10.0]);
    assert_eq!(link.network.dirs()[0].stats.random_drops, 3);
}

// ----- outages -----------------------------------------------------------------------------

#[test]
fn an_outage_holds_the_queue_and_loses_what_is_on_the_link() {
    let mut link = Recorder::link(
        r#"rate = "8Mbps"
        delay = "5ms"
        outages = [["10ms", "20ms"]]"#,
    );
    link.send(SimTime::ZERO, 14, 1000);
    link.send(SimTime(12 * MS), 1, 1000); // arrives during the outage: waits in the queue
    let arrivals = link.arrivals_ms();
    // Serialisation ends at 1, 2, ... ms and takes 5 ms to propagate: the packets ending at
    // 1 to 4 ms arrive before 10 ms. Those ending at 5 to 9 ms are propagating at 10 ms,
    // the one ending at 10 ms is being sent: all six are lost. The queue (four, then five)
    // waits for 20 ms.
    assert_eq!(arrivals, [6.0, 7.0, 8.0, 9.0, 26.0, 27.0, 28.0, 29.0, 30.0]);
    let dir = &link.network.dirs()[0];
    assert_eq!(dir.stats.outage_drops, 6);
    assert_eq!(link.network.flow_counters()[0].data_dropped, 6);
    assert_eq!(link.network.packets_alive(), 0);
}

#[test]
fn an_outage_on_a_trace_link_skips_its_opportunities() {
    let path = trace_file("outage", 1..=100);
    let mut link = Recorder::link(&format!(
        "rate = {{ trace = {path:?} }}\noutages = [[\"3ms\", \"6ms\"]]"
    ));
    link.send(SimTime::ZERO, 5, 1500);
    // ms 1 and 2 carry one each; ms 3 to 5 are down; the rest go at 6, 7 and 8 ms.
    assert_eq!(link.arrivals_ms(), [1.0, 2.0, 6.0, 7.0, 8.0]);
}

// ----- whole runs --------------------------------------------------------------------------

/// A two-flow dumbbell whose bottleneck has `rate`, `delay` and `extra` TOML keys.
fn dumbbell(rate: &str, delay: &str, extra: &str) -> Scenario {
    let text = format!(
        r#"
        [simulation]
        duration = "5s"
        [[topology]]
        kind = "dumbbell"
        n = 2
        access = {{ rate = "100Mbps", delay = "1ms" }}
        bottleneck = {{ rate = {rate}, delay = {delay}, queue = {{ kind = "droptail", limit = 50 }} {extra} }}
        [[flow]]
        name = "f1"
        variant = "cubic"
        src = "s1"
        dst = "d1"
        [[flow]]
        name = "f2"
        variant = "newreno"
        src = "s2"
        dst = "d2"
        start = "0.1s"
        "#
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_varying_link_that_never_varies_runs_exactly_as_a_fixed_one() {
    let (rate, delay) = (r#""10Mbps""#, r#""10ms""#);
    let fixed = run(&dumbbell(rate, delay, ""), &TraceRequest::default(), true).unwrap();
    for (rate, delay, extra) in [
        (rate, delay, r#", outages = [["100s", "101s"]]"#),
        (
            rate,
            r#"{ schedule = [["0s", "10ms"], ["100s", "20ms"]] }"#,
            "",
        ),
        (
            r#"{ schedule = [["0s", "10Mbps"], ["100s", "1Mbps"]] }"#,
            delay,
            "",
        ),
    ] {
        let s = dumbbell(rate, delay, extra);
        let varying = run(&s, &TraceRequest::default(), true).unwrap();
        assert_eq!(varying.flows, fixed.flows, "{extra}");
        assert_eq!(varying.links, fixed.links, "{extra}");
        assert_eq!(varying.summary.events, fixed.summary.events, "{extra}");
    }
}

#[test]
fn tcp_over_a_trace_link_fills_its_mean_rate_and_conserves_every_packet() {
    // 2 opportunities every millisecond: 24 Mb/s of MTU packets.
    let path = trace_file("tcp", (1..=1000).flat_map(|ms| [ms, ms]));
    let s = Scenario::from_toml_str(&format!(
        r#"
        [simulation]
        duration = "10s"
        profile = "linux"
        [[link]]
        from = "s"
        to = "r"
        rate = "1Gbps"
        delay = "1ms"
        [[link]]
        name = "cell"
        from = "r"
        to = "d"
        rate = {{ trace = {path:?} }}
        delay = "20ms"
        queue = {{ kind = "droptail", limit = 200 }}
        outages = [["4s", "4.2s"]]
        [[flow]]
        name = "f"
        variant = "cubic"
        src = "s"
        dst = "d"
        "#
    ))
    .unwrap();
    let out = run(&s, &TraceRequest::default(), true).unwrap();
    let goodput = out.flows[0].bytes_delivered as f64 * 8.0 / 10.0;
    // 1448 payload bytes of each 1500: 23.2 Mb/s, less the outage and the start.
    assert!(goodput > 0.85 * 23.17e6 && goodput < 23.17e6, "{goodput}");
    let cell = out.links.iter().find(|l| l.link == "cell").unwrap();
    assert!(cell.stats.outage_drops > 0);
    assert!(
        cell.utilisation > 0.9 && cell.utilisation <= 1.0,
        "{}",
        cell.utilisation
    );
}
