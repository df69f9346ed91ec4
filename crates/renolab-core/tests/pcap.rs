//! pcap files of whole runs: every flow keeps its own addresses and ports, however many flows
//! a scenario has.

use renolab_core::trace::TraceRequest;
use renolab_core::{run, Scenario};

/// The (source address, source port) of every packet in a pcap file written by the core
/// (LINKTYPE_RAW: each record is an IPv4 packet; UDP or TCP ports follow the 20-byte header).
fn sources(pcap: &[u8]) -> Vec<([u8; 4], u16)> {
    let mut out = Vec::new();
    let mut at = 24; // the file header
    while at + 16 <= pcap.len() {
        let len = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let packet = &pcap[at + 16..at + 16 + len];
        let ip = packet[12..16].try_into().unwrap();
        out.push((ip, u16::from_be_bytes([packet[20], packet[21]])));
        at += 16 + len;
    }
    out
}

#[test]
fn flows_past_the_first_55536_send_from_distinct_addresses_and_ports() {
    // 55,538 CBR flows from one node: only flows 0, 55,535, 55,536 and 55,537 start within
    // the run, each sending one packet at t = 0.
    let mut toml = String::from(
        "[simulation]\nduration = \"1ms\"\n[[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = { kind = \"droptail\", limit = 100 }\n",
    );
    let sending = [0, 55_535, 55_536, 55_537];
    for i in 0..55_538 {
        let start = if sending.contains(&i) { "0s" } else { "1s" };
        toml.push_str(&format!(
            "[[flow]]\nname = \"f{i}\"\nkind = \"cbr\"\nrate = \"1Mbps\"\nsrc = \"a\"\ndst = \"b\"\nstart = \"{start}\"\n"
        ));
    }
    let scenario = Scenario::from_toml_str(&toml).unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("renolab-pcap-{}", std::process::id()));
    let request = TraceRequest {
        pcap_dir: Some(dir.clone()),
        ..TraceRequest::default()
    };
    let out = run(&scenario, &request, false).unwrap();
    assert_eq!(out.flows.iter().map(|f| f.segments_sent).sum::<u64>(), 4);
    let pcap = std::fs::read(dir.join("l.pcap")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let mut seen = sources(&pcap);
    seen.sort();
    assert_eq!(
        seen,
        [
            ([10, 0, 0, 1], 10_000),
            ([10, 0, 0, 1], 65_535),
            ([10, 1, 0, 1], 10_000),
            ([10, 1, 0, 1], 10_001),
        ]
    );
}
