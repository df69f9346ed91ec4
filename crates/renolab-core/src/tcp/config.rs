//! Settings of a TCP flow's sender and receiver, resolved from the scenario.

use super::gso::Gso;
use super::recovery::RecoveryKind;
use super::rtt::RtoConfig;
use crate::time::SimDuration;

/// What the sender's application hands TCP: `bytes` in segments of `mss` (the last may be
/// shorter), or an endless supply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Payload bytes per segment.
    pub mss: u32,
    /// Bytes to send; `None` for an unlimited (bulk until the end) transfer.
    pub bytes: Option<u64>,
}

impl Transfer {
    /// Number of segments, `None` when unlimited.
    pub fn segments(&self) -> Option<u32> {
        self.bytes
            .map(|b| b.div_ceil(self.mss as u64).min(u32::MAX as u64) as u32)
    }

    /// Payload bytes of segments `0..seq` together.
    pub fn bytes_before(&self, seq: u32) -> u64 {
        let full = seq as u64 * self.mss as u64;
        self.bytes.map_or(full, |b| full.min(b))
    }

    /// Payload bytes carried by segment `seq`.
    #[inline]
    pub fn payload(&self, seq: u32) -> u32 {
        match self.bytes {
            Some(b) => {
                let start = seq as u64 * self.mss as u64;
                b.saturating_sub(start).min(self.mss as u64) as u32
            }
            None => self.mss,
        }
    }
}

/// Where ns-2.35's one-way agents and the RFCs differ, which to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// RFC 5681 / 6298: ssthresh halves the flight size; exact RTT clock.
    Rfc,
    /// ns-2.35: ssthresh halves `min(cwnd, window)`; RTTs in ticks with a random clock
    /// phase; leaving fast recovery opens the window once more.
    Ns2,
    /// A Linux 6.x host at its default sysctls: ssthresh from cwnd, the kernel's RTT
    /// estimator, its delayed-ACK and SACK-compression rules (docs/variants/linux.md).
    Linux,
}

/// Sender settings. Windows are in segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderConfig {
    /// Bytes added to every segment on the wire (IP + TCP headers).
    pub header_bytes: u32,
    /// Initial congestion window.
    pub initial_window: u32,
    /// Initial slow-start threshold (`u32::MAX` for "arbitrarily high", RFC 5681 §3.1).
    pub initial_ssthresh: u32,
    /// The receiver's advertised window; the sender never has more outstanding.
    pub receiver_window: u32,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// Retransmission timer.
    pub rto: RtoConfig,
    /// A SYN / SYN-ACK exchange precedes data (ns-2's `syn_`).
    pub handshake: bool,
    /// RFC or ns-2 arithmetic where they differ.
    pub dialect: Dialect,
    /// How losses detected by duplicate ACKs are recovered.
    pub recovery: RecoveryKind,
    /// RFC 3042 Limited Transmit: one new segment on each of the first two duplicate ACKs
    /// (ns-2's `singledup_`).
    pub limited_transmit: bool,
    /// Phase of the RTT tick clock (ns-2's `boot_time_`); `None`: drawn from the flow's
    /// random stream in [0, tick).
    pub clock_phase: Option<SimDuration>,
    /// Space segments at the pacing rate (the controller's, else Linux's default of 200 %
    /// of cwnd/SRTT in slow start, 120 % after), as Linux's internal TCP pacing does.
    pub pacing: bool,
    /// ECN negotiated (RFC 3168): data is ECN-capable and ECN-Echo reduces the window.
    pub ecn: bool,
    /// Accurate ECN (RFC 9768) asked for on the SYN (the Linux sender's; with `ecn`): the
    /// ACE field of each ACK counts the CE marks.
    pub accecn: bool,
    /// The Linux sender's segmentation offload: buffers of several segments leave back to
    /// back (the other senders send one segment at a time whatever it says).
    pub gso: Gso,
}

/// Receiver settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// Delay ACKs of in-order segments (RFC 5681 §4.2).
    pub delayed_ack: bool,
    /// With delayed ACKs: acknowledge at least every this many full segments.
    pub ack_every: u32,
    /// With delayed ACKs: longest an in-order segment waits for its ACK.
    pub delack_timeout: SimDuration,
    /// Size of an ACK without SACK blocks on the wire, bytes (timestamps included).
    pub ack_bytes: u32,
    /// Bytes a SACK option takes besides its 8-byte blocks: 0 as ns-2 counts it, 4 as Linux
    /// writes it beside timestamps (NOP, NOP, kind, length).
    pub sack_option_bytes: u32,
    /// Report SACK blocks (RFC 2018).
    pub sack: bool,
    /// RFC 5681 §4.2 or ns-2's `DelAckSink` rules where they differ (ns-2 also ACKs
    /// segment 0 at once, and holds the ACK of a duplicate of the highest in-order segment
    /// like a new one).
    pub dialect: Dialect,
    /// How Congestion Experienced is echoed (RFC 3168, DCTCP's RFC 8257, or not at all).
    pub ecn: super::ecn::EchoMode,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_segment_carries_the_remainder() {
        let t = Transfer {
            mss: 1000,
            bytes: Some(2500),
        };
        assert_eq!(t.segments(), Some(3));
        assert_eq!(
            (t.payload(0), t.payload(1), t.payload(2)),
            (1000, 1000, 500)
        );
        assert_eq!(
            Transfer {
                mss: 1000,
                bytes: None
            }
            .payload(7),
            1000
        );
    }
}
