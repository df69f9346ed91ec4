//! Tests of the estimates and the limits they enforce.

use crate::Scenario;

fn scenario(extra_sim: &str, link: &str, flow: &str) -> Result<Scenario, String> {
    Scenario::from_toml_str(&format!(
        "[simulation]\n{extra_sim}\n[[link]]\nfrom = \"a\"\nto = \"b\"\n{link}\n[[flow]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\n{flow}\n"
    ))
    .map_err(|e| e.to_string())
}

#[test]
fn an_ordinary_scenario_estimates_a_modest_run() {
    let s = scenario(
        "",
        "rate = \"10Mbps\"\ndelay = \"10ms\"",
        "bytes = 1000000\nmss = 1000",
    )
    .unwrap();
    let e = s.estimate();
    assert_eq!(e.data_packets, 1000);
    // Plus the timer's worst case: an expiry per max_rto (60 s) until the time limit
    // (an hour), each resending a segment.
    let timeouts = 3600 / 60;
    assert_eq!(
        e.events,
        1000 + 500 + 2 * timeouts,
        "each data packet and each delayed ACK arrives once"
    );
    assert!(e.memory_bytes < 1 << 20, "{e:?}");
}

#[test]
fn a_hundred_gigabit_link_for_a_million_seconds_is_refused_naming_the_duration() {
    let e = scenario(
        "duration = \"1000000s\"",
        "rate = \"100Gbps\"\ndelay = \"1ms\"",
        "kind = \"cbr\"\nrate = \"100Gbps\"\npacket_bytes = 40",
    )
    .unwrap_err();
    assert!(
        e.starts_with("simulation.duration: the run would take about"),
        "{e}"
    );
    assert!(e.contains("simulation.max_events = 10000000000"), "{e}");
}

#[test]
fn an_unlimited_flow_that_would_run_out_of_segment_numbers_is_refused() {
    let e = scenario(
        "duration = \"600s\"",
        "rate = \"100Gbps\"",
        "mss = 1000\nheader_bytes = 0",
    )
    .unwrap_err();
    assert!(e.starts_with("simulation.duration: flow \"f\" could send about 7.50e9 segments in 600 s, more than the 4294967295 a flow can number"), "{e}");
}

#[test]
fn counts_above_the_caps_are_refused_naming_the_section() {
    use super::{check_counts, MAX_FLOWS, MAX_LINKS, MAX_MEDIA, MAX_NODES};
    assert!(check_counts(MAX_NODES, MAX_LINKS, MAX_MEDIA, MAX_FLOWS).is_ok());
    let e = |r: crate::scenario::Result<()>| r.unwrap_err().to_string();
    assert_eq!(
        e(check_counts(3, MAX_LINKS + 1, 0, 1)),
        "link: 100001 links is more than the 100000 allowed"
    );
    assert_eq!(
        e(check_counts(3, 1, MAX_MEDIA + 1, 1)),
        "medium: 100001 media is more than the 100000 allowed"
    );
    assert!(e(check_counts(MAX_NODES + 1, 2, 0, 1)).starts_with("link: the links join 20001 nodes"));
    assert_eq!(
        e(check_counts(3, 2, 0, MAX_FLOWS + 1)),
        "flow: 1000001 flows is more than the 1000000 allowed"
    );
}

#[test]
fn max_events_can_be_raised_and_lowered() {
    let s = "rate = \"10Mbps\"";
    let f = "bytes = 1000000\nmss = 1000";
    assert!(scenario("max_events = 100", s, f)
        .unwrap_err()
        .starts_with("flow[0].bytes: the run would take about"));
    assert!(scenario("max_events = 100000", s, f).is_ok());
}

#[test]
fn an_enormous_queue_that_cbr_could_fill_is_refused_naming_the_limit() {
    let e = scenario(
        "duration = \"10s\"",
        "rate = \"1Gbps\"\nqueue = { kind = \"droptail\", limit = 4000000000 }",
        "kind = \"cbr\"\nrate = \"10Gbps\"\npacket_bytes = 40",
    )
    .unwrap_err();
    assert!(
        e.starts_with("link[0].queue.limit: the run could need about"),
        "{e}"
    );
    assert!(e.contains("simulation.max_memory"), "{e}");
}

#[test]
fn a_timer_shorter_than_the_round_trip_counts_its_spurious_copies() {
    // 100 ms of serialisation per segment, a 10 ms timer that never backs off: up to
    // 100 expiries in a second, each leaving a copy in the network.
    let s = scenario(
        "duration = \"1s\"",
        "rate = \"80kbps\"\ndelay = \"0s\"\nqueue = { kind = \"droptail\", limit = 100000 }",
        "bytes = 3000\nmss = 960\noptions = { min_rto = \"10ms\", max_rto = \"10ms\", initial_rto = \"10ms\", handshake = false }",
    )
    .unwrap();
    let e = s.estimate();
    assert!(e.peak_packets >= 100, "{e:?}");
    assert!(e.events >= 2 * 100, "{e:?}");
    let out = crate::sim::run(&s, &crate::trace::TraceRequest::default(), false).unwrap();
    assert!(
        out.summary.peak_packets <= e.peak_packets,
        "{:?} {e:?}",
        out.summary
    );
    assert!(out.summary.events <= e.events, "{:?} {e:?}", out.summary);
}

#[test]
fn the_same_queue_under_a_windowed_tcp_flow_is_fine() {
    scenario(
        "duration = \"10s\"",
        "rate = \"1Gbps\"\nqueue = { kind = \"droptail\", limit = 4000000000 }",
        "options = { window = 1000 }",
    )
    .unwrap();
}

#[test]
fn trace_sizes_scale_with_packets_and_hops() {
    let s = scenario(
        "",
        "rate = \"10Mbps\"",
        "bytes = 1000000\nmss = 1000\nreceiver = { delayed_ack = false }",
    )
    .unwrap();
    let e = s.estimate();
    assert_eq!(e.trace_bytes("cwnd"), Some(1000 * 36));
    // Each hop record (35 bytes): enqueue, dequeue, receive; for 1000 segments, 1000
    // ACKs and the timer's worst case of 60 resends in the hour's time limit.
    assert_eq!(e.trace_bytes("hops"), Some(3 * (2000 + 60) * 35));
    assert_eq!(e.trace_bytes("nope"), None);
}

#[test]
fn a_medium_counts_three_events_a_frame_and_its_stations_queues_as_places_packets_wait() {
    let wlan = |extra: &str| {
        Scenario::from_toml_str(&format!(
            r#"
            simulation = {{ duration = "10s" }}
            [[medium]]
            name = "wlan"
            kind = "wifi"
            data_rate = "11Mbps"
            nodes = ["ap", "sta"]
            {extra}
            [[flow]]
            name = "u"
            kind = "cbr"
            rate = "1Mbps"
            packet_bytes = 1000
            src = "sta"
            dst = "ap"
            "#
        ))
        .map_err(|e| e.to_string())
    };
    let e = wlan("").unwrap().estimate();
    // 1250 packets a second for 10 s, each a contention, a data frame and an Ack on the air,
    // plus the CBR source's own send.
    assert_eq!(e.data_packets, 1250);
    assert_eq!(e.events, 1250 * 3 + 1250);
    assert_eq!(e.hops, 1250);
    // A station's queue that could hold more than memory allows is named.
    let err = Scenario::from_toml_str(
        r#"
        simulation = { duration = "100s" }
        medium = { name = "w", kind = "wifi", nodes = ["a", "b"], station.a = { queue = { kind = "droptail", limit = 4000000000 } } }
        flow = { name = "u", kind = "cbr", rate = "100Mbps", packet_bytes = 40, src = "a", dst = "b" }
        "#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("medium[0].station.a.queue.limit: the run could need about 9.3 GiB of memory (medium[0].station.a may queue 62500002 packets)"),
        "{err}"
    );
}

/// The benchmark dumbbell of `renolab.bench.reference_scenario`: `flows` unlimited Reno flows
/// (ns-2 profile, 1500-byte packets) from S_i over 10x-faster 1 ms access links, a
/// `bottleneck_bps` 8 ms bottleneck with a one-BDP DropTail queue, to D_i; flow i starts at
/// (i-1) x `spacing_ms`.
fn dumbbell(flows: usize, bottleneck_bps: u64, duration: &str, spacing_ms: f64) -> Scenario {
    let bdp = (bottleneck_bps * 20).div_ceil(1000 * 8 * 1500);
    let access = format!(
        "rate = \"{}bps\"\ndelay = \"1ms\"\nqueue = {{ kind = \"droptail\", limit = 100000 }}\n",
        10 * bottleneck_bps
    );
    let mut text = format!(
        "[simulation]\nseed = 1\nprofile = \"ns2\"\nduration = \"{duration}\"\n\
         [[link]]\nfrom = \"r1\"\nto = \"r2\"\nrate = \"{bottleneck_bps}bps\"\ndelay = \"8ms\"\n\
         queue = {{ kind = \"droptail\", limit = {bdp} }}\n"
    );
    for i in 1..=flows {
        text += &format!("[[link]]\nfrom = \"s{i}\"\nto = \"r1\"\n{access}");
        text += &format!("[[link]]\nfrom = \"r2\"\nto = \"d{i}\"\n{access}");
        text += &format!(
            "[[flow]]\nname = \"f{i}\"\nvariant = \"reno\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\n\
             start = \"{}ms\"\nmss = 1460\nheader_bytes = 40\nreceiver = {{ delayed_ack = false }}\n\
             options = {{ window = 100000, initial_window = 2, initial_rto = \"3s\", min_rto = \"200ms\", clock_granularity = \"10ms\" }}\n",
            (i - 1) as f64 * spacing_ms
        );
    }
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Within a factor of ten either way.
fn within_ten_times(estimate: f64, truth: f64) -> bool {
    estimate <= 10.0 * truth && truth <= 10.0 * estimate
}

#[test]
fn shared_bottlenecks_estimate_within_ten_times_of_the_measured_run() {
    // Events and peak packets alive of full-length runs of the benchmark dumbbells (`renolab
    // bench`'s 1- and 10-flow reference cases, its --large case, and issue 18's 1000 flows
    // starting 1 ms apart), measured with the release build; the estimate must be within
    // 10x of the events and at least the peak, within 10x of it too.
    let cases = [
        (1, 1_000_000_000, "30s", 10.0, 17_087_527u64, 3_417u64),
        (10, 1_000_000_000, "30s", 10.0, 17_182_030, 3_417),
        (100, 10_000_000_000, "10s", 10.0, 53_114_893, 34_172),
        (1000, 10_000_000_000, "10s", 1.0, 55_170_491, 34_298),
    ];
    for (flows, rate, duration, spacing, events, peak) in cases {
        let e = dumbbell(flows, rate, duration, spacing).estimate();
        let case = format!("{flows} flows over {rate} bit/s for {duration}: {e:?}");
        assert!(within_ten_times(e.events as f64, events as f64), "{case}");
        assert!(e.peak_packets >= peak, "{case}");
        assert!(
            within_ten_times(e.peak_packets as f64, peak as f64),
            "{case}"
        );
        if flows == 1000 {
            // `renolab run` peaked at 105 MB of RSS, the interpreter and results included.
            assert!(
                within_ten_times(e.memory_bytes as f64, 104_560_000.0),
                "{case}"
            );
        }
    }
}

#[test]
fn a_thousand_flows_on_one_bottleneck_pass_the_default_limits() {
    // Refused twice before the link was shared: 4.75e10 events (each flow at its path's
    // line rate) and 53.7 GiB (every 100 Gb/s x 1 ms access wire and queue full at once).
    let e = dumbbell(1000, 10_000_000_000, "10s", 1.0).estimate();
    assert!(e.events < super::DEFAULT_MAX_EVENTS / 100, "{e:?}");
    assert!(e.memory_bytes < super::DEFAULT_MAX_MEMORY / 100, "{e:?}");
}

#[test]
fn short_dumbbell_runs_stay_within_their_estimates() {
    // Cheap enough to run here: a second, past slow start, the flows starting 0.1 ms apart so
    // that they all share the bottleneck.
    for flows in [1, 20] {
        let s = dumbbell(flows, 1_000_000_000, "1s", 0.1);
        let e = s.estimate();
        let out = crate::sim::run(&s, &crate::trace::TraceRequest::default(), false).unwrap();
        let (events, peak) = (out.summary.events, out.summary.peak_packets);
        let case = format!("{flows} flows: {events} events, peak {peak}; {e:?}");
        assert!(within_ten_times(e.events as f64, events as f64), "{case}");
        assert!(peak <= e.peak_packets, "{case}");
        assert!(
            within_ten_times(e.peak_packets as f64, peak as f64),
            "{case}"
        );
    }
}

#[test]
fn runaway_scenarios_are_still_refused_naming_the_field_and_the_way_out() {
    let raise = "more than simulation.max_events = 10000000000; shorten the run or raise simulation.max_events";
    // One CBR flow filling 100 Gb/s for 1000 s.
    let e = scenario(
        "duration = \"1000s\"",
        "rate = \"100Gbps\"\ndelay = \"1ms\"",
        "kind = \"cbr\"\nrate = \"100Gbps\"\npacket_bytes = 1500",
    )
    .unwrap_err();
    assert!(e.starts_with("simulation.duration: the run would take about 1.67e10 events (flow \"f\" alone: about 8.33e9 packets over 1 hop(s) in 1000 s of simulated time)"), "{e}");
    assert!(e.ends_with(raise), "{e}");
    // A hundred TCP flows sharing 100 Gb/s for 1000 s: each gets a hundredth of the link,
    // together as much as one alone.
    let text = format!(
        "[simulation]\nduration = \"1000s\"\n[[link]]\nfrom = \"r1\"\nto = \"r2\"\nrate = \"100Gbps\"\n{}",
        (1..=100)
            .map(|i| format!("[[link]]\nfrom = \"s{i}\"\nto = \"r1\"\nrate = \"1000Gbps\"\n[[flow]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"r2\"\nmss = 1460\n"))
            .collect::<String>()
    );
    let e = Scenario::from_toml_str(&text).unwrap_err().to_string();
    assert!(
        e.starts_with("simulation.duration: the run would take about "),
        "{e}"
    );
    assert!(e.ends_with(raise), "{e}");
}

#[test]
fn every_flow_of_the_largest_scenario_has_its_own_pcap_source() {
    use crate::trace::pcap::{flow_source, node_ip};
    // All flows from the last node, the case where only the address and port tell them
    // apart.
    let last_node = super::MAX_NODES as u32 - 1;
    let sources: std::collections::HashSet<([u8; 4], u16)> = (0..super::MAX_FLOWS)
        .map(|i| flow_source(i, last_node))
        .collect();
    assert_eq!(sources.len(), super::MAX_FLOWS);
    // And none is another node's address.
    assert!(sources
        .iter()
        .all(|(ip, _)| ip[1] > 0 || *ip == node_ip(last_node)));
}
