//! Reading the headers of the IPv4 datagrams the kernels send: just what the emulator needs
//! to route a packet, give it to the right flow, and show loss models and traces the same
//! packet kinds and segment numbers the simulator uses.
//!
//! Parsing never trusts a length field: every offset is checked against the bytes read, and
//! anything that is not a well-formed IPv4 datagram is [`Parsed::Other`] (still routed when
//! its addresses are, never interpreted further).

/// IANA protocol number of TCP.
const PROTO_TCP: u8 = 6;
/// IANA protocol number of UDP.
const PROTO_UDP: u8 = 17;

/// TCP flags (RFC 9293 §3.1).
pub const FIN: u8 = 0x01;
/// SYN flag.
pub const SYN: u8 = 0x02;
/// RST flag.
pub const RST: u8 = 0x04;
/// ACK flag.
pub const ACK: u8 = 0x10;

/// The TCP fields of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tcp {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgement number.
    pub ack: u32,
    /// Flags byte.
    pub flags: u8,
    /// Payload bytes.
    pub payload: u32,
    /// MSS option (RFC 9293 §3.7.1), on SYNs.
    pub mss_option: Option<u16>,
    /// Timestamps option present (RFC 7323 §3).
    pub timestamps: bool,
}

impl Tcp {
    /// True for a SYN without ACK.
    pub fn is_syn(&self) -> bool {
        self.flags & (SYN | ACK) == SYN
    }

    /// True for a SYN-ACK.
    pub fn is_syn_ack(&self) -> bool {
        self.flags & (SYN | ACK) == SYN | ACK
    }
}

/// An IPv4 datagram's header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// Total length from the header (checked against the bytes read).
    pub len: u32,
}

/// What a datagram is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// A TCP segment.
    Tcp(Ipv4, Tcp),
    /// A UDP datagram.
    Udp(Ipv4),
    /// Another IPv4 protocol (ICMP, ...).
    OtherIpv4(Ipv4),
    /// Not an IPv4 datagram (IPv6, truncated, malformed).
    Other,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parses `packet` (starting at its IPv4 header, as a TUN device without packet information
/// delivers it).
pub fn parse(packet: &[u8]) -> Parsed {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return Parsed::Other;
    }
    let ihl = (packet[0] & 0x0f) as usize * 4;
    let total = be16(packet, 2) as usize;
    if ihl < 20 || total < ihl || total > packet.len() {
        return Parsed::Other;
    }
    let ip = Ipv4 {
        src: [packet[12], packet[13], packet[14], packet[15]],
        dst: [packet[16], packet[17], packet[18], packet[19]],
        len: total as u32,
    };
    // A fragment other than the first has no transport header (the kernels here send none:
    // DF is set and the MTU fits every segment).
    let fragment_offset = be16(packet, 6) & 0x1fff;
    if fragment_offset != 0 {
        return Parsed::OtherIpv4(ip);
    }
    let l4 = &packet[ihl..total];
    match packet[9] {
        PROTO_TCP => parse_tcp(l4).map_or(Parsed::OtherIpv4(ip), |t| Parsed::Tcp(ip, t)),
        PROTO_UDP => Parsed::Udp(ip),
        _ => Parsed::OtherIpv4(ip),
    }
}

fn parse_tcp(seg: &[u8]) -> Option<Tcp> {
    if seg.len() < 20 {
        return None;
    }
    let offset = (seg[12] >> 4) as usize * 4;
    if offset < 20 || offset > seg.len() {
        return None;
    }
    let mut tcp = Tcp {
        src_port: be16(seg, 0),
        dst_port: be16(seg, 2),
        seq: be32(seg, 4),
        ack: be32(seg, 8),
        flags: seg[13],
        payload: (seg.len() - offset) as u32,
        mss_option: None,
        timestamps: false,
    };
    // RFC 9293 §3.2: kind 0 ends the list, kind 1 is one byte, others carry their length.
    let options = &seg[20..offset];
    let mut i = 0;
    while i < options.len() {
        match options[i] {
            0 => break,
            1 => i += 1,
            kind => {
                let len = *options.get(i + 1)? as usize;
                if len < 2 || i + len > options.len() {
                    return Some(tcp); // malformed options: keep the header, ignore them
                }
                match (kind, len) {
                    (2, 4) => tcp.mss_option = Some(be16(options, i + 2)),
                    (8, 10) => tcp.timestamps = true,
                    _ => {}
                }
                i += len;
            }
        }
    }
    Some(tcp)
}

/// The node index of renolab address `ip` (10.x.y.z, the inverse of
/// `renolab_core::trace::pcap::node_ip`), if it is one.
pub fn node_of_ip(ip: [u8; 4]) -> Option<u32> {
    if ip[0] != 10 {
        return None;
    }
    let n = (ip[1] as u32) << 16 | (ip[2] as u32) << 8 | ip[3] as u32;
    n.checked_sub(1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use renolab_core::trace::pcap::node_ip;

    /// A TCP segment from `src` to `dst` with `options` and `payload` bytes of data.
    pub(crate) fn segment(
        src: [u8; 4],
        dst: [u8; 4],
        ports: (u16, u16),
        seq: u32,
        flags: u8,
        options: &[u8],
        payload: usize,
    ) -> Vec<u8> {
        let tcp_len = 20 + options.len() + payload;
        let total = 20 + tcp_len;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[6] = 0x40;
        b[8] = 64;
        b[9] = PROTO_TCP;
        b[12..16].copy_from_slice(&src);
        b[16..20].copy_from_slice(&dst);
        let t = &mut b[20..];
        t[0..2].copy_from_slice(&ports.0.to_be_bytes());
        t[2..4].copy_from_slice(&ports.1.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[12] = (((20 + options.len()) / 4) as u8) << 4;
        t[13] = flags;
        t[20..20 + options.len()].copy_from_slice(options);
        b
    }

    #[test]
    fn a_syn_yields_its_mss_and_timestamps_options() {
        // MSS 1460, SACK-permitted, timestamps, NOP, window scale: Linux's SYN layout.
        let opts = [
            2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
        ];
        let p = segment(
            [10, 0, 0, 1],
            [10, 0, 0, 3],
            (10_000, 20_000),
            77,
            SYN,
            &opts,
            0,
        );
        let Parsed::Tcp(ip, tcp) = parse(&p) else {
            panic!("not parsed as TCP: {:?}", parse(&p))
        };
        assert_eq!((ip.src, ip.dst, ip.len), ([10, 0, 0, 1], [10, 0, 0, 3], 60));
        assert!(tcp.is_syn() && !tcp.is_syn_ack());
        assert_eq!((tcp.src_port, tcp.dst_port, tcp.seq), (10_000, 20_000, 77));
        assert_eq!(
            (tcp.mss_option, tcp.timestamps, tcp.payload),
            (Some(1460), true, 0)
        );
    }

    #[test]
    fn payload_length_excludes_options() {
        let opts = [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
        let p = segment([10, 0, 0, 1], [10, 0, 0, 2], (1, 2), 5, ACK, &opts, 1448);
        let Parsed::Tcp(ip, tcp) = parse(&p) else {
            panic!("not TCP")
        };
        assert_eq!((ip.len, tcp.payload, tcp.timestamps), (1500, 1448, true));
    }

    #[test]
    fn malformed_datagrams_are_never_read_past_their_end() {
        let good = segment([10, 0, 0, 1], [10, 0, 0, 2], (1, 2), 5, ACK, &[], 10);
        assert_eq!(parse(&good[..19]), Parsed::Other);
        let mut v6 = good.clone();
        v6[0] = 0x60;
        assert_eq!(parse(&v6), Parsed::Other);
        let mut long = good.clone();
        long[2..4].copy_from_slice(&4000u16.to_be_bytes());
        assert_eq!(
            parse(&long),
            Parsed::Other,
            "total length beyond the bytes read"
        );
        let mut offset = good.clone();
        offset[20 + 12] = 15 << 4; // 60-byte TCP header in a 30-byte segment
        assert!(matches!(parse(&offset), Parsed::OtherIpv4(_)));
        let mut option = segment(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            (1, 2),
            5,
            SYN,
            &[2, 40, 0, 0],
            0,
        );
        assert!(matches!(parse(&option), Parsed::Tcp(_, t) if t.mss_option.is_none()));
        option[20 + 20 + 1] = 0; // option length 0 would loop for ever
        assert!(matches!(parse(&option), Parsed::Tcp(..)));
        for cut in 0..good.len() {
            let _ = parse(&good[..cut]); // no panic at any length
        }
    }

    #[test]
    fn renolab_addresses_map_back_to_nodes() {
        for node in [0, 1, 254, 255, 70_000] {
            assert_eq!(node_of_ip(node_ip(node)), Some(node));
        }
        assert_eq!(node_of_ip([192, 168, 0, 1]), None);
        assert_eq!(node_of_ip([10, 0, 0, 0]), None);
    }
}
