//! Sizes of the headers a packet's size on the wire counts: the defaults of TCP segments,
//! ACKs and constant-bit-rate datagrams, and what the pcap writer builds.

/// An IPv4 header without options (RFC 791 §3.1: an IHL of 5 words).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// A TCP header without options (RFC 9293 §3.1: a data offset of 5 words).
pub const TCP_HEADER_BYTES: u32 = 20;
/// A UDP header (RFC 768).
pub const UDP_HEADER_BYTES: u32 = 8;
/// IPv4 and TCP headers without options: what a data segment adds to its payload, and the
/// size of a bare ACK, by default (ns-2's `tcpip_base_hdr_size_` and TCPSink's
/// `packetSize_` are the same 40 bytes).
pub const TCP_IP_HEADER_BYTES: u32 = IPV4_HEADER_BYTES + TCP_HEADER_BYTES;
/// IPv4 and UDP headers: the part of a constant-bit-rate datagram that is not payload.
pub const UDP_IP_HEADER_BYTES: u32 = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
