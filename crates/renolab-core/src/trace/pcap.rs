//! pcap files of simulated traffic: one file per link (both directions), packets recorded as
//! they start transmission, with real IPv4/TCP/UDP headers built from the typed packet; and
//! one file per shared medium, every frame on its air as an 802.11 capture would show it.
//!
//! Classic libpcap format with nanosecond timestamps (magic `a1b23c4d`). A link's file has
//! link type LINKTYPE_RAW (101: the packet starts with its IPv4 header). A medium's has
//! LINKTYPE_IEEE802_11_RADIOTAP (127): a radiotap header (flags, rate, data retries), then
//! the 802.11 frame without its FCS: data frames (with the Retry bit on retransmissions,
//! their sequence number, LLC/SNAP and the IPv4 packet), Acks, RTSs and CTSs. Sequence and ACK numbers are
//! byte offsets (initial sequence number 0, so the first data byte is 1, as after a SYN);
//! ACKs carry their SACK blocks as a real SACK option; IPv4 and TCP checksums are correct;
//! payload bytes are zeros. Wireshark's TCP analysis then sees retransmissions, duplicate
//! ACKs and SACKs as it would on a real capture.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use crate::net::link_of;
use crate::net::wifi::{AirFrame, FrameKind};
use crate::packet::headers::{IPV4_HEADER_BYTES, TCP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::packet::{Packet, PacketKind};
use crate::time::SimTime;

/// Magic number of a classic pcap file with nanosecond timestamps.
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
/// The pcap format's version, 2.4.
const PCAP_VERSION: (u16, u16) = (2, 4);
/// Longest packet recorded whole.
const SNAPLEN: u32 = 65_535;
/// Link type: the packet starts with its IPv4 header.
const LINKTYPE_RAW: u32 = 101;
/// Link type: a radiotap header, then an 802.11 frame.
const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;
/// Radiotap (radiotap.org): version 0; present fields Flags (bit 1, u8), Rate (bit 2, u8,
/// in 500 kb/s) and Data Retries (bit 17, u8), each byte-aligned, after the 8-byte header.
const RADIOTAP_PRESENT: u32 = (1 << 1) | (1 << 2) | (1 << 17);
const RADIOTAP_BYTES: u16 = 8 + 3;
/// 802.11 frame control, first byte (9.2.4.1): type and subtype of data, Ack, CTS, RTS.
const FC_DATA: u8 = 0x08;
const FC_ACK: u8 = 0xd4;
const FC_CTS: u8 = 0xc4;
const FC_RTS: u8 = 0xb4;
/// Frame control, second byte: the Retry bit.
const FC_RETRY: u8 = 0x08;
/// LLC/SNAP header of an IPv4 packet: DSAP, SSAP, control, OUI 0, EtherType 0x0800.
const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
/// Bytes of the file header and of each record's header.
const FILE_HEADER_BYTES: usize = 24;
const RECORD_HEADER_BYTES: usize = 16;

/// IPv4 header fields: version 4 and an IHL of 5 words (RFC 791 §3.1), the don't-fragment
/// flag, the time to live (Linux's default), and the protocol numbers of TCP and UDP.
const IPV4_VERSION_IHL: u8 = 0x45;
const IPV4_DONT_FRAGMENT: u8 = 0x40;
const IPV4_TTL: u8 = 64;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;

/// Most TCP option bytes: a data offset of at most 15 words leaves 40 bytes past the fixed
/// header (RFC 9293 §3.1).
const MAX_TCP_OPTION_BYTES: usize = 40;
/// TCP option kinds and lengths: no-operation (RFC 9293 §3.2), maximum segment size (RFC
/// 9293 §3.2), SACK-permitted and SACK (RFC 2018 §§2-3, 8 bytes a block).
const TCPOPT_NOP: u8 = 1;
const TCPOPT_MSS: u8 = 2;
const TCPOPT_MSS_LEN: u8 = 4;
const TCPOPT_SACK_PERMITTED: u8 = 4;
const TCPOPT_SACK_PERMITTED_LEN: u8 = 2;
const TCPOPT_SACK: u8 = 5;
const SACK_BLOCK_BYTES: usize = 8;
/// TCP flags (RFC 9293 §3.1).
const TCP_SYN: u8 = 0x02;
const TCP_PSH: u8 = 0x08;
const TCP_ACK: u8 = 0x10;
/// TCP ECN-Echo and Congestion Window Reduced (RFC 3168 §6.1), tshark `tcp.flags.ece`,
/// `tcp.flags.cwr`.
const TCP_ECE: u8 = 0x40;
const TCP_CWR: u8 = 0x80;
/// The receive window every segment advertises (unscaled, the largest).
const TCP_WINDOW: u16 = u16::MAX;

/// What the pcap writer needs to know about a flow to build its headers.
#[derive(Clone, Copy, Debug)]
pub struct PcapFlow {
    /// Sender's IPv4 address.
    pub src_ip: [u8; 4],
    /// Receiver's IPv4 address.
    pub dst_ip: [u8; 4],
    /// Sender's port.
    pub src_port: u16,
    /// Receiver's port.
    pub dst_port: u16,
    /// UDP (constant bit rate) rather than TCP.
    pub udp: bool,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Bytes of the transfer, if finite.
    pub bytes: Option<u64>,
    /// Bytes of header the simulation counts in a data packet's size.
    pub header_bytes: u32,
    /// The connection negotiates SACK.
    pub sack: bool,
}

impl PcapFlow {
    fn byte_offset(&self, segment: u32) -> u32 {
        let b = segment as u64 * self.mss as u64;
        (self.bytes.map_or(b, |total| b.min(total)) as u32).wrapping_add(1)
    }
}

/// The address of node `index`: 10.0.y.z, where y.z is `index + 1` in base 256 (so node 0 is
/// 10.0.0.1).
pub fn node_ip(index: u32) -> [u8; 4] {
    let n = index + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The first source port given to a flow: above the well-known and most registered ports.
pub const FIRST_FLOW_PORT: u16 = 10_000;
/// Source ports per sender address: `FIRST_FLOW_PORT` to 65535.
pub const PORTS_PER_ADDRESS: u32 = u16::MAX as u32 + 1 - FIRST_FLOW_PORT as u32;
/// The destination port of a TCP flow (HTTP's, RFC 9110 §4.2.1).
pub const TCP_SERVER_PORT: u16 = 80;
/// The destination port of a constant-bit-rate flow (UDP discard, RFC 863).
pub const UDP_SINK_PORT: u16 = 9;

/// The sender's address and port of flow `index` sending from node `src`, distinct for every
/// flow however many there are: flows 0 to 55535 send from their node's address with ports
/// 10000 to 65535; each further block of 55536 flows moves the address's second octet up by
/// one (flow 55536 sends from 10.1.y.z port 10000), an address no node has.
pub fn flow_source(index: usize, src: u32) -> ([u8; 4], u16) {
    let group = index / PORTS_PER_ADDRESS as usize;
    let port = FIRST_FLOW_PORT as usize + index % PORTS_PER_ADDRESS as usize;
    let mut ip = node_ip(src);
    ip[1] += group as u8;
    (ip, port as u16)
}

/// The MAC address of node `index`: locally administered, 02:00:00 then `index + 1` in
/// three bytes (the same number as its IPv4 address's last three bytes).
pub fn node_mac(index: u32) -> [u8; 6] {
    let n = index + 1;
    [0x02, 0, 0, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The BSSID of medium `index`: 02:ff, then `index` in four bytes.
pub fn medium_bssid(index: u32) -> [u8; 6] {
    let [a, b, c, d] = index.to_be_bytes();
    [0x02, 0xff, a, b, c, d]
}

/// Refuses link and medium names that would write the same pcap file where file names are
/// compared without case (macOS, Windows): `Neck` and `neck`. (Names are unique, and limited
/// to ASCII letters, digits, `_` and `-`, so no other two can collide.)
pub fn check_file_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = std::collections::HashMap::new();
    for name in names {
        if let Some(other) = seen.insert(name.to_ascii_lowercase(), name) {
            return Err(format!(
                "pcap: {other:?} and {name:?} would write the same file where case does not count (pcap/{name}.pcap); rename one"
            ));
        }
    }
    Ok(())
}

/// Opens `<dir>/<name>.pcap` and writes a file header for `linktype`.
fn create_file(
    dir: &std::path::Path,
    name: &str,
    linktype: u32,
) -> Result<(PathBuf, BufWriter<File>), String> {
    let path = dir.join(format!("{}.pcap", name.replace('/', "_")));
    let f = super::create_fresh(&path)
        .map_err(|e| format!("pcap: cannot create {}: {e}", path.display()))?;
    let mut w = BufWriter::new(f);
    let mut header = Vec::with_capacity(FILE_HEADER_BYTES);
    header.extend_from_slice(&PCAP_MAGIC_NS.to_le_bytes());
    header.extend_from_slice(&PCAP_VERSION.0.to_le_bytes());
    header.extend_from_slice(&PCAP_VERSION.1.to_le_bytes());
    header.extend_from_slice(&0i32.to_le_bytes()); // GMT
    header.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
    header.extend_from_slice(&SNAPLEN.to_le_bytes());
    header.extend_from_slice(&linktype.to_le_bytes());
    w.write_all(&header)
        .map_err(|e| format!("pcap: cannot write {}: {e}", path.display()))?;
    Ok((path, w))
}

/// Appends one record (`bytes`, captured at `now`) to `file`.
fn write_record(
    file: &mut (PathBuf, BufWriter<File>),
    now: SimTime,
    bytes: &[u8],
) -> Result<(), String> {
    let (path, w) = file;
    let len = bytes.len().min(SNAPLEN as usize) as u32;
    let mut rec = [0u8; RECORD_HEADER_BYTES];
    rec[..4].copy_from_slice(&((now.0 / 1_000_000_000) as u32).to_le_bytes());
    rec[4..8].copy_from_slice(&((now.0 % 1_000_000_000) as u32).to_le_bytes());
    rec[8..12].copy_from_slice(&len.to_le_bytes());
    rec[12..16].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
    w.write_all(&rec)
        .and_then(|_| w.write_all(&bytes[..len as usize]))
        .map_err(|e| format!("pcap: cannot write {}: {e}", path.display()))
}

/// The open pcap files of a run.
#[derive(Debug)]
pub struct PcapSet {
    /// One writer per link (directions 2k and 2k+1 share file k).
    files: Vec<(PathBuf, BufWriter<File>)>,
    /// One writer per medium.
    media: Vec<(PathBuf, BufWriter<File>)>,
    /// The 802.11 frame being built (the IPv4 packet is built in `scratch`).
    frame: Vec<u8>,
    flows: Vec<PcapFlow>,
    ip_id: Vec<u16>,
    scratch: Vec<u8>,
    /// The first write that failed: the time of its record and why; nothing is written after it.
    error: Option<(SimTime, String)>,
    /// Time of the last record handed to a writer (what a failed final flush loses ends there).
    last: SimTime,
}

fn checksum_add(mut sum: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u32) << 8;
    }
    sum
}

fn checksum_fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl PcapSet {
    /// Creates `<dir>/<link name>.pcap` for every link in `links` (its forward direction's
    /// name), for packets of `flows`.
    pub fn create(
        dir: &std::path::Path,
        links: &[String],
        flows: Vec<PcapFlow>,
    ) -> Result<Self, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("pcap: cannot create {}: {e}", dir.display()))?;
        let files = links
            .iter()
            .map(|name| create_file(dir, name, LINKTYPE_RAW))
            .collect::<Result<Vec<_>, String>>()?;
        let n = flows.len();
        Ok(PcapSet {
            files,
            media: Vec::new(),
            frame: Vec::new(),
            flows,
            ip_id: vec![0; n],
            scratch: Vec::with_capacity(2048),
            error: None,
            last: SimTime::ZERO,
        })
    }

    /// Flow `flow`, created during the run, sends `capture`'s packets (flows are added in
    /// the order of their ids, after those given to [`PcapSet::create`]).
    pub fn add_flow(&mut self, flow: u32, capture: PcapFlow) {
        debug_assert_eq!(
            flow as usize,
            self.flows.len(),
            "flows are added in id order"
        );
        self.flows.push(capture);
        self.ip_id.push(0);
    }

    /// Also creates `<dir>/<medium name>.pcap` for every medium in `media`, in order.
    pub fn add_media(&mut self, dir: &std::path::Path, media: &[String]) -> Result<(), String> {
        for name in media {
            self.media
                .push(create_file(dir, name, LINKTYPE_IEEE802_11_RADIOTAP)?);
        }
        Ok(())
    }

    /// Records `p` starting transmission on link direction `dir` at `now` (a place past the
    /// links' directions, a medium's station, has no file: its frames go to the medium's).
    pub fn record(&mut self, now: SimTime, dir: u32, p: &Packet) {
        if self.error.is_some() || link_of(dir) as usize >= self.files.len() {
            return;
        }
        self.build_datagram(p);
        let datagram = std::mem::take(&mut self.scratch);
        self.record_raw(now, dir, &datagram);
        self.scratch = datagram;
    }

    /// Records `frame`, from node `from` to node `to`, on the air of medium `medium`.
    pub fn record_air(&mut self, medium: u32, frame: &AirFrame, from: u32, to: u32) {
        if self.error.is_some() || medium as usize >= self.media.len() {
            return;
        }
        if let Some(p) = &frame.packet {
            self.build_datagram(p);
        }
        let f = &mut self.frame;
        f.clear();
        f.extend_from_slice(&[0, 0]); // radiotap version, padding
        f.extend_from_slice(&RADIOTAP_BYTES.to_le_bytes());
        f.extend_from_slice(&RADIOTAP_PRESENT.to_le_bytes());
        f.push(0); // flags: no FCS at the end, long preamble
        f.push((frame.bps / 500_000) as u8);
        f.push(u8::from(frame.retry));
        let first = match frame.kind {
            FrameKind::Data => FC_DATA,
            FrameKind::Ack => FC_ACK,
            FrameKind::Cts => FC_CTS,
            FrameKind::Rts => FC_RTS,
        };
        f.push(first);
        f.push(if frame.retry { FC_RETRY } else { 0 });
        f.extend_from_slice(&(frame.nav_us.min(32_767) as u16).to_le_bytes());
        f.extend_from_slice(&node_mac(to)); // receiver address
        match frame.kind {
            FrameKind::Ack | FrameKind::Cts => {}
            FrameKind::Rts => f.extend_from_slice(&node_mac(from)),
            FrameKind::Data => {
                // Neither to nor from a DS: address 3 is the BSSID (9.3.2.1, Table 9-30).
                f.extend_from_slice(&node_mac(from));
                f.extend_from_slice(&medium_bssid(medium));
                f.extend_from_slice(&(frame.seq << 4).to_le_bytes());
                f.extend_from_slice(&LLC_SNAP_IPV4);
                f.extend_from_slice(&self.scratch);
            }
        }
        self.last = frame.start;
        if let Err(e) = write_record(&mut self.media[medium as usize], frame.start, &self.frame) {
            self.error = Some((frame.start, e));
        }
    }

    /// Builds the IPv4 packet of `p` into `scratch`.
    fn build_datagram(&mut self, p: &Packet) {
        let flow = self.flows[p.flow as usize];
        let forward = p.kind.is_forward();
        let (src, dst) = if forward {
            (flow.src_ip, flow.dst_ip)
        } else {
            (flow.dst_ip, flow.src_ip)
        };
        let (sport, dport) = if forward {
            (flow.src_port, flow.dst_port)
        } else {
            (flow.dst_port, flow.src_port)
        };
        let buf = &mut self.scratch;
        buf.clear();
        // IPv4 header, filled in below once the length is known.
        let ip_len = IPV4_HEADER_BYTES as usize;
        buf.resize(ip_len, 0);
        let proto = if flow.udp {
            let payload = p.size.saturating_sub(flow.header_bytes);
            buf.extend_from_slice(&sport.to_be_bytes());
            buf.extend_from_slice(&dport.to_be_bytes());
            buf.extend_from_slice(&((UDP_HEADER_BYTES + payload) as u16).to_be_bytes());
            buf.extend_from_slice(&[0, 0]); // checksum optional in IPv4
            buf.resize(buf.len() + payload as usize, 0);
            PROTO_UDP
        } else {
            let (seq, ack, flags, payload) = match p.kind {
                PacketKind::Data => {
                    let payload = p.size.saturating_sub(flow.header_bytes).min(flow.mss);
                    (flow.byte_offset(p.seq), 1, TCP_ACK | TCP_PSH, payload)
                }
                PacketKind::Ack => (1, flow.byte_offset(p.seq), TCP_ACK, 0),
                PacketKind::Syn => (0, 0, TCP_SYN, 0),
                PacketKind::SynAck => (0, 1, TCP_SYN | TCP_ACK, 0),
                PacketKind::Datagram => (0, 0, 0, 0),
            };
            let mut options = [0u8; MAX_TCP_OPTION_BYTES];
            let mut olen = 0;
            if matches!(p.kind, PacketKind::Syn | PacketKind::SynAck) {
                let mss = (flow.mss.min(u16::MAX as u32) as u16).to_be_bytes();
                options[..4].copy_from_slice(&[TCPOPT_MSS, TCPOPT_MSS_LEN, mss[0], mss[1]]);
                olen = 4;
                if flow.sack {
                    options[4..8].copy_from_slice(&[
                        TCPOPT_NOP,
                        TCPOPT_NOP,
                        TCPOPT_SACK_PERMITTED,
                        TCPOPT_SACK_PERMITTED_LEN,
                    ]);
                    olen = 8;
                }
            } else if p.kind == PacketKind::Ack && !p.sack.is_empty() {
                // Kind and length, then the blocks: 2 + 8n bytes, after two no-ops.
                let length = 2 + SACK_BLOCK_BYTES * p.sack.len();
                options[..4].copy_from_slice(&[TCPOPT_NOP, TCPOPT_NOP, TCPOPT_SACK, length as u8]);
                olen = 4;
                for (start, end) in p.sack.iter() {
                    options[olen..olen + 4].copy_from_slice(&flow.byte_offset(start).to_be_bytes());
                    options[olen + 4..olen + 8]
                        .copy_from_slice(&flow.byte_offset(end).to_be_bytes());
                    olen += SACK_BLOCK_BYTES;
                }
            }
            let flags = flags
                | if p.ecn.ece() { TCP_ECE } else { 0 }
                | if p.ecn.cwr() { TCP_CWR } else { 0 };
            let tcp_header = TCP_HEADER_BYTES as usize + olen;
            let tcp_start = buf.len();
            buf.extend_from_slice(&sport.to_be_bytes());
            buf.extend_from_slice(&dport.to_be_bytes());
            buf.extend_from_slice(&seq.to_be_bytes());
            buf.extend_from_slice(&ack.to_be_bytes());
            // Data offset in 32-bit words, then AE (RFC 9768 §3.2.2, the former NS bit).
            buf.push(((tcp_header / 4) as u8) << 4 | p.ecn.ae() as u8);
            buf.push(flags);
            buf.extend_from_slice(&TCP_WINDOW.to_be_bytes());
            buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
            buf.extend_from_slice(&options[..olen]);
            buf.resize(buf.len() + payload as usize, 0);
            // TCP checksum over the pseudo-header and the segment (the payload is zeros).
            let tcp_len = (buf.len() - tcp_start) as u32;
            let mut sum = checksum_add(0, &src);
            sum = checksum_add(sum, &dst);
            sum += PROTO_TCP as u32 + tcp_len;
            sum = checksum_add(sum, &buf[tcp_start..tcp_start + tcp_header]);
            let c = checksum_fold(sum).to_be_bytes();
            buf[tcp_start + 16] = c[0];
            buf[tcp_start + 17] = c[1];
            PROTO_TCP
        };
        let total = buf.len() as u16;
        let id = self.ip_id[p.flow as usize];
        self.ip_id[p.flow as usize] = id.wrapping_add(1);
        let ip = &mut buf[..ip_len];
        ip[0] = IPV4_VERSION_IHL;
        ip[1] = p.ecn.field(); // DSCP 0, then the ECN field (tshark `ip.dsfield.ecn`)
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        ip[4..6].copy_from_slice(&id.to_be_bytes());
        ip[6] = IPV4_DONT_FRAGMENT;
        ip[8] = IPV4_TTL;
        ip[9] = proto;
        ip[12..16].copy_from_slice(&src);
        ip[16..20].copy_from_slice(&dst);
        let c = checksum_fold(checksum_add(0, ip)).to_be_bytes();
        ip[10] = c[0];
        ip[11] = c[1];
    }

    /// Records a packet given as its real bytes (an IPv4 datagram), starting transmission on
    /// link direction `dir` at `now`: for engines whose packets are real, such as the
    /// emulator's.
    pub fn record_raw(&mut self, now: SimTime, dir: u32, datagram: &[u8]) {
        if self.error.is_some() {
            return;
        }
        self.last = now;
        if let Err(e) = write_record(&mut self.files[link_of(dir) as usize], now, datagram) {
            self.error = Some((now, e));
        }
    }

    /// Flushes every file; if a write failed, where the files stop and why.
    pub fn finish(mut self) -> Option<super::TraceFailure> {
        let failure = |(truncated_at, error): (SimTime, String)| super::TraceFailure {
            name: "pcap",
            truncated_at,
            error,
        };
        if let Some(e) = self.error.take() {
            return Some(failure(e));
        }
        for (path, w) in self.files.iter_mut().chain(&mut self.media) {
            if let Err(e) = w.flush() {
                // What was lost is the last records buffered, at most until `last`.
                let error = format!("pcap: cannot write {}: {e}", path.display());
                return Some(failure((self.last, error)));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_fold_carries() {
        // RFC 1071 example bytes: 00 01 f2 03 f4 f5 f6 f7 sum to 0xddf2 (before complement).
        let sum = checksum_add(0, &[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]);
        assert_eq!(checksum_fold(sum), !0xddf2);
    }

    #[test]
    fn node_addresses_are_distinct_and_private() {
        assert_eq!(node_ip(0), [10, 0, 0, 1]);
        assert_eq!(node_ip(255), [10, 0, 1, 0]);
    }

    #[test]
    fn flows_past_the_port_range_move_to_another_address_not_another_flows_port() {
        assert_eq!(flow_source(0, 0), ([10, 0, 0, 1], 10_000));
        assert_eq!(flow_source(55_535, 0), ([10, 0, 0, 1], 65_535));
        assert_eq!(flow_source(55_536, 0), ([10, 1, 0, 1], 10_000));
        assert_eq!(flow_source(100_000, 299), ([10, 1, 1, 44], 54_464));
        assert_eq!(flow_source(999_999, 0), ([10, 18, 0, 1], 10_351));
    }

    #[test]
    fn pcap_file_names_may_not_differ_only_in_case() {
        assert!(check_file_names(["neck", "access"]).is_ok());
        let e = check_file_names(["Neck", "access", "neck"]).unwrap_err();
        assert!(e.contains(r#""Neck" and "neck""#), "{e}");
    }
}
