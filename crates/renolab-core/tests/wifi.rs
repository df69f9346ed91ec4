//! TCP and CBR over a shared 802.11 medium, on whole scenarios: a fade costs MAC retries
//! first and reaches TCP only when they run out; the audit counts what stations hold.

use renolab_core::sim::{run, RunOutput, StationResult};
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

/// A server behind an access point, one station: `flow` and `medium_extra` complete it.
fn cell(medium_extra: &str, flow: &str) -> String {
    format!(
        r#"
        [simulation]
        duration = "20s"
        [[link]]
        from = "server"
        to = "ap"
        rate = "100Mbps"
        delay = "5ms"
        [[medium]]
        name = "wlan"
        kind = "wifi"
        standard = "802.11b"
        data_rate = "11Mbps"
        basic_rate = "1Mbps"
        nodes = ["ap", "sta"]
        {medium_extra}
        [[flow]]
        name = "down"
        src = "server"
        dst = "sta"
        {flow}
        "#
    )
}

fn go(text: &str, audit: bool) -> RunOutput {
    let s = Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &TraceRequest::default(), audit).expect("run")
}

fn station<'a>(out: &'a RunOutput, name: &str) -> &'a StationResult {
    out.stations.iter().find(|s| s.station == name).unwrap()
}

#[test]
fn a_tcp_download_over_80211b_is_held_to_what_the_mac_carries_and_conserves_packets() {
    // A window of 64 segments never fills the access point's 500-packet queue.
    let out = go(
        &cell("", "variant = \"newreno\"\noptions = { window = 64 }"),
        true,
    );
    let flow = &out.flows[0];
    // One 1500-byte frame and half a TCP ACK's exchange per segment: at most 6 Mb/s of IP
    // packets at 11 Mb/s; TCP's share is above 4 Mb/s.
    let goodput = flow.throughput_bps();
    assert!((4.0e6..6.0e6).contains(&goodput), "{goodput}");
    assert_eq!((flow.retransmits, flow.drops), (0, 0));
    let ap = station(&out, "wlan/ap");
    let sta = station(&out, "wlan/sta");
    assert_eq!(
        ap.stats.frames_received,
        sta.stats.frames_sent - sta.stats.retries
    );
    assert_eq!(
        sta.stats.frames_received,
        ap.stats.frames_sent - ap.stats.retries
    );
    assert!(ap.stats.frames_sent >= flow.segments_sent);
    // The ACKs contend with the data: some exchanges collide, and cost retries only.
    assert!(ap.stats.collisions > 0 && ap.stats.collisions == sta.stats.collisions);
    assert_eq!(ap.stats.retry_drops + sta.stats.retry_drops, 0);
    assert!(ap.airtime_share > 0.5, "{}", ap.airtime_share);
}

#[test]
fn a_fade_costs_mac_retries_first_and_reaches_tcp_only_when_they_run_out() {
    // Per frame at the station: fades start with probability 0.01 and last 10 frames on
    // average, in which every frame is lost: most fades end within a frame's 7 attempts.
    let fade = "station.sta = { loss = { kind = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.1 } }";
    let out = go(&cell(fade, "variant = \"sack\""), true);
    let ap = station(&out, "wlan/ap");
    let flow = &out.flows[0];
    assert!(ap.stats.retries > 500, "{}", ap.stats.retries);
    assert!(ap.stats.retry_drops > 0);
    assert_eq!(
        flow.data_drops, ap.stats.retry_drops,
        "what TCP loses, the MAC gave up"
    );
    assert!(flow.retransmits < ap.stats.retries / 10);
    // The same channel on a point-to-point link: every fade's packets reach TCP.
    let wired = go(
        r#"
        [simulation]
        duration = "20s"
        [[link]]
        from = "server"
        to = "sta"
        rate = "6Mbps"
        loss = { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.1, applies_to = "data" }
        [[flow]]
        name = "down"
        variant = "sack"
        src = "server"
        dst = "sta"
        "#,
        false,
    );
    let loss_rate =
        |f: &renolab_core::sim::FlowResult| f.data_drops as f64 / f.segments_sent as f64;
    let (over_air, over_wire) = (loss_rate(flow), loss_rate(&wired.flows[0]));
    assert!(over_air * 10.0 < over_wire, "{over_air} vs {over_wire}");
    assert!(flow.throughput_bps() > 2.0 * wired.flows[0].throughput_bps());
}

#[test]
fn stations_send_to_each_other_directly_and_a_full_queue_drops() {
    let text = r#"
        [simulation]
        duration = "5s"
        [[medium]]
        name = "adhoc"
        kind = "wifi"
        standard = "802.11g"
        nodes = ["a", "b", "c"]
        queue = { kind = "droptail", limit = 10 }
        [[flow]]
        name = "ab"
        kind = "cbr"
        rate = "40Mbps"
        packet_bytes = 1500
        src = "a"
        dst = "b"
        [[flow]]
        name = "cb"
        kind = "cbr"
        rate = "40Mbps"
        packet_bytes = 1500
        src = "c"
        dst = "b"
    "#;
    let out = go(text, true);
    let (a, c) = (station(&out, "adhoc/a"), station(&out, "adhoc/c"));
    assert!(a.stats.queue_drops > 0 && c.stats.queue_drops > 0);
    assert_eq!(a.stats.max_queue, 10);
    let delivered: u64 = out.flows.iter().map(|f| f.bytes_delivered).sum();
    // Two saturated 802.11g stations at 54 Mb/s carry about 28 Mb/s between them.
    let mbps = delivered as f64 * 8.0 / 5.0 / 1e6;
    assert!((24.0..32.0).contains(&mbps), "{mbps}");
    assert_eq!(station(&out, "adhoc/b").stats.frames_sent, 0);
    // Every packet refused was dropped on the station's place, and counted on its flow.
    let refused: u64 = out.stations.iter().map(|s| s.stats.queue_drops).sum();
    assert_eq!(refused, out.flows.iter().map(|f| f.data_drops).sum::<u64>());
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_another() {
    let text = cell(
        "loss = { kind = \"ber\", ber = 1e-5 }",
        "variant = \"reno\"",
    );
    let a = go(&text, false);
    let b = go(&text, false);
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.stations, b.stations);
    let other = go(
        &text.replace("duration = \"20s\"", "duration = \"20s\"\nseed = 2"),
        false,
    );
    assert_ne!(a.stations[0].stats, other.stations[0].stats);
}
