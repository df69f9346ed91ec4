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
    // Each hop record (34 bytes): enqueue, dequeue, receive; for 1000 segments, 1000
    // ACKs and the timer's worst case of 60 resends in the hour's time limit.
    assert_eq!(e.trace_bytes("hops"), Some(3 * (2000 + 60) * 34));
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
        err.starts_with("medium[0].station.a.queue.limit: the run could need about 8.4 GiB of memory (medium[0].station.a may queue 62500002 packets)"),
        "{err}"
    );
}
