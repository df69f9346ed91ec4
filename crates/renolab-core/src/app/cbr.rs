//! Constant bit rate over UDP (ns-2's `Application/Traffic/CBR` on `Agent/UDP`): packets of a
//! fixed size at a fixed rate, optionally with random gaps, and no feedback.

use crate::packet::sack::SackBlocks;
use crate::packet::{Ecn, Packet, PacketKind};
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::units::BitsPerSec;

/// A constant-bit-rate source over UDP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CbrConfig {
    /// Sending rate (of whole packets on the wire).
    pub rate: BitsPerSec,
    /// Packet size on the wire, bytes.
    pub packet_bytes: u32,
    /// Random variation of each gap: the gap is interval x (1 + jitter x U(-1/2, 1/2))
    /// (ns-2's `random_ 1` is jitter 1).
    pub jitter: f64,
}

/// The sending side: when the next packet is due.
#[derive(Clone, Debug)]
pub struct CbrSource {
    config: CbrConfig,
    rng: RngStream,
    start: SimTime,
    stop: Option<SimTime>,
    /// Packets sent so far; also the next packet's sequence number.
    sent: u64,
    next: Option<SimTime>,
}

impl CbrSource {
    /// A source that will send from `start` until `stop`, drawing jitter from `rng`.
    pub fn new(config: CbrConfig, rng: RngStream) -> Self {
        CbrSource {
            config,
            rng,
            start: SimTime::ZERO,
            stop: None,
            sent: 0,
            next: None,
        }
    }

    /// The application starts at `now` and sends until `stop`.
    pub fn start(&mut self, now: SimTime, stop: Option<SimTime>) {
        self.start = now;
        self.stop = stop;
        self.next = Some(now);
    }

    /// The source stops sending.
    pub fn stop(&mut self) {
        self.next = None;
    }

    /// When the next packet is due, if any.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.next
    }

    /// Packet size on the wire.
    pub fn packet_bytes(&self) -> u32 {
        self.config.packet_bytes
    }

    /// Packets sent.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// The packet due at `now`, if one is: returns its sequence number and schedules the
    /// next. Without jitter packet k leaves exactly at start + k * size / rate (computed from
    /// k, so no rounding error accumulates).
    pub fn poll_send(&mut self, now: SimTime) -> Option<u32> {
        match self.next {
            Some(due) if due <= now => {}
            _ => return None,
        }
        let seq = self.sent as u32;
        self.sent += 1;
        let bits = self.config.packet_bytes as u128 * 8;
        let next = if self.config.jitter == 0.0 {
            SimTime(
                self.start.0
                    + (self.sent as u128 * bits * 1_000_000_000 / self.config.rate.0 as u128)
                        as u64,
            )
        } else {
            let interval = (bits * 1_000_000_000 / self.config.rate.0 as u128) as f64;
            let gap = interval * (1.0 + self.config.jitter * (self.rng.next_f64() - 0.5));
            SimTime(now.0 + gap.max(0.0) as u64)
        };
        self.next = match self.stop {
            Some(stop) if next >= stop => None,
            _ => Some(next),
        };
        Some(seq)
    }

    /// The datagram of flow `flow` to node `dst` due at `now`, if one is (see
    /// [`CbrSource::poll_send`]); [`CbrSource::poll_timeout`] then says when the next is.
    pub fn poll_datagram(&mut self, now: SimTime, flow: u32, dst: u32) -> Option<Packet> {
        let seq = self.poll_send(now)?;
        Some(Packet {
            flow,
            kind: PacketKind::Datagram,
            seq,
            size: self.config.packet_bytes,
            dst,
            retransmit: false,
            sent_at: now,
            sack: SackBlocks::EMPTY,
            ecn: Ecn::NONE,
        })
    }
}

/// The receiving side: what arrived.
#[derive(Clone, Debug, Default)]
pub struct CbrSink {
    /// Packets received.
    pub packets: u64,
    /// Bytes received (whole packets).
    pub bytes: u64,
}

impl CbrSink {
    /// A packet of `bytes` arrived.
    pub fn on_packet(&mut self, bytes: u32) {
        self.packets += 1;
        self.bytes += bytes as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::BitsPerSec;

    #[test]
    fn packets_leave_at_exact_multiples_of_the_interval() {
        let spec = CbrConfig {
            rate: BitsPerSec(3_000_000),
            packet_bytes: 1000,
            jitter: 0.0,
        };
        let mut s = CbrSource::new(spec, RngStream::derive(1, "x"));
        s.start(SimTime(5), Some(SimTime(10_000_000)));
        let mut times = vec![];
        while let Some(t) = s.poll_timeout() {
            assert_eq!(s.poll_send(t), Some(times.len() as u32));
            times.push(t.0);
        }
        // 1000 bytes at 3 Mb/s: 2.666... ms; k * 8000 / 3e6 s, floored to the ns.
        assert_eq!(&times[..4], &[5, 2_666_671, 5_333_338, 8_000_005]);
        assert_eq!(times.len(), 4, "stops at 10 ms");
    }

    #[test]
    fn jitter_varies_the_gaps_around_the_interval() {
        let spec = CbrConfig {
            rate: BitsPerSec(8_000_000),
            packet_bytes: 1000,
            jitter: 1.0,
        };
        let mut s = CbrSource::new(spec, RngStream::derive(1, "x"));
        s.start(SimTime::ZERO, None);
        let mut last = SimTime::ZERO;
        let mut gaps = vec![];
        for _ in 0..10_000 {
            let t = s.poll_timeout().unwrap();
            s.poll_send(t);
            gaps.push((t.0 - last.0) as f64);
            last = t;
        }
        let mean = gaps[1..].iter().sum::<f64>() / (gaps.len() - 1) as f64;
        assert!((mean - 1e6).abs() < 1e4, "{mean}");
        assert!(gaps[1..].iter().any(|&g| g < 0.6e6) && gaps[1..].iter().any(|&g| g > 1.4e6));
    }
}
