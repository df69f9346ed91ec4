//! Segmentation offload as the Linux sender sizes it (`tcp_tso_autosize()` in
//! `net/ipv4/tcp_output.c`): with GSO on (a host's default), TCP hands the device socket
//! buffers of several segments, about 1 ms of data at the pacing rate, and they leave back
//! to back. The pacer spaces these buffers, not segments; a sender that does not pace still
//! builds them, and waits for a full one while an ACK is due (`tcp_tso_should_defer()`, in
//! the Linux sender).

use crate::time::SimDuration;
use crate::units::BitsPerSec;

/// The largest GSO buffer, payload bytes: `sk_gso_max_size`, an IPv4 device's
/// `GSO_LEGACY_MAX_SIZE` (65536) less `MAX_TCP_HEADER + 1` (320 + 1 on x86-64;
/// `sk_setup_caps()`).
pub const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;
/// Linux `net.ipv4.tcp_tso_rtt_log` (default 9): a path of min RTT below 2^9 us x 32 gets
/// `GSO_MAX_BYTES` halved per 2^9 us more in each buffer.
const TSO_RTT_LOG: u32 = 9;
/// Linux `net.ipv4.tcp_min_tso_segs` default.
pub const DEFAULT_MIN_TSO_SEGS: u32 = 2;
/// Linux `sk_pacing_shift` default (`sock_init_data()`): a buffer holds 2^-10 s of data
/// at the pacing rate.
pub const DEFAULT_PACING_SHIFT: u32 = 10;
/// The largest `pacing_shift` (an `sk_pacing_shift` beyond it leaves one-segment buffers).
pub const MAX_PACING_SHIFT: u32 = 31;
/// The largest `min_tso_segs` (the sysctl is a `u8`).
pub const MAX_MIN_TSO_SEGS: u32 = 255;

/// A Linux host's segmentation offload settings (`[flow.options]` `gso`, `min_tso_segs`,
/// `pacing_shift`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gso {
    /// The device offloads segmentation (`ethtool -K dev gso on`, the default): TCP builds
    /// buffers of several segments. Off: one segment per buffer (`sk_can_gso()` false).
    pub enabled: bool,
    /// Linux `net.ipv4.tcp_min_tso_segs`: segments a buffer has at least, for controllers
    /// without their own `min_tso_segs` hook (BBR has one).
    pub min_tso_segs: u32,
    /// Linux `sk_pacing_shift`: a buffer holds 2^-`pacing_shift` s at the pacing rate.
    pub pacing_shift: u32,
}

impl Gso {
    /// A Linux 6.x host's defaults: GSO on, `tcp_min_tso_segs` 2, `sk_pacing_shift` 10.
    pub const LINUX: Gso = Gso {
        enabled: true,
        min_tso_segs: DEFAULT_MIN_TSO_SEGS,
        pacing_shift: DEFAULT_PACING_SHIFT,
    };
    /// No offload: one segment per buffer.
    pub const OFF: Gso = Gso {
        enabled: false,
        ..Gso::LINUX
    };

    /// Linux `tcp_tso_autosize()` (with `tcp_tso_segs()`'s choice of minimum): segments per
    /// buffer for a sender pacing at `pacing_bytes` payload bytes per second (Linux
    /// `sk_pacing_rate`; `None` before an RTT sample, when it is still unlimited) in
    /// segments of `mss` payload bytes, with `min_rtt` the path's smallest RTT so far, and
    /// `min_segs` the controller's minimum (`ca_ops->min_tso_segs`) if it has one. 1 when
    /// GSO is off.
    pub fn autosize(
        &self,
        pacing_bytes: Option<u64>,
        mss: u32,
        min_rtt: Option<SimDuration>,
        min_segs: Option<u32>,
    ) -> u32 {
        if !self.enabled {
            return 1;
        }
        let mss = mss.max(1) as u64;
        let mut bytes = pacing_bytes.unwrap_or(u64::MAX) >> self.pacing_shift;
        if let Some(rtt) = min_rtt {
            let r = (rtt.0 / 1000) >> TSO_RTT_LOG;
            if r < u32::BITS as u64 {
                bytes = bytes.saturating_add(GSO_MAX_BYTES >> r);
            }
        }
        let segs = (bytes.min(GSO_MAX_BYTES) / mss) as u32;
        segs.max(min_segs.unwrap_or(self.min_tso_segs)).max(1)
    }
}

/// `sk_pacing_rate` counts payload bytes (`tcp_update_pacing_rate()` and BBR's
/// `bbr_rate_bytes_per_sec()` multiply by `mss_cache`); renolab's pacer counts wire bits:
/// the payload bytes per second of `rate` in segments of `mss` plus `header_bytes`.
pub fn payload_bytes_per_sec(rate: BitsPerSec, mss: u32, header_bytes: u32) -> u64 {
    let mss = mss as u64;
    // In 64 bits up to 2^64 / 2^16 bit/s (280 Tb/s) with a 64 kB mss.
    rate.0.saturating_mul(mss) / (8 * (mss + header_bytes as u64)).max(1)
}

impl Default for Gso {
    fn default() -> Self {
        Gso::LINUX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pacing rate of `payload_bps` bits of payload per second, in bytes.
    fn wire(payload_bps: u64) -> Option<u64> {
        Some(payload_bps / 8)
    }

    const MS20: Option<SimDuration> = Some(SimDuration::from_millis(20));

    #[test]
    fn a_buffer_holds_a_millisecond_at_the_pacing_rate_and_two_segments_at_least() {
        let g = Gso::LINUX;
        // 10 Mb/s: 1221 bytes per 2^-10 s, less than a segment: tcp_min_tso_segs.
        assert_eq!(g.autosize(wire(10_000_000), 1448, MS20, None), 2);
        // 50 Mb/s: 6104 bytes, 4 segments (BBR's fours in the kernel captures).
        assert_eq!(g.autosize(wire(50_000_000), 1448, MS20, None), 4);
        // 60 Mb/s (CUBIC's 1.2 x cwnd/srtt at 50 Mb/s): 5 segments.
        assert_eq!(g.autosize(wire(60_000_000), 1448, MS20, None), 5);
        // 1 Gb/s: 122 kB, capped at sk_gso_max_size: 45 segments.
        assert_eq!(g.autosize(wire(1_000_000_000), 1448, MS20, None), 45);
        // Before an RTT sample the rate is unlimited.
        assert_eq!(g.autosize(None, 1448, None, None), 45);
    }

    #[test]
    fn the_controller_minimum_and_the_options_apply() {
        let g = Gso::LINUX;
        // BBR's bbr_min_tso_segs() below 1.2 Mb/s.
        assert_eq!(g.autosize(wire(1_000_000), 1448, MS20, Some(1)), 1);
        let g = Gso {
            min_tso_segs: 8,
            ..Gso::LINUX
        };
        assert_eq!(g.autosize(wire(50_000_000), 1448, MS20, None), 8);
        let g = Gso {
            pacing_shift: 8, // 4 ms of data, as Wi-Fi drivers set it
            ..Gso::LINUX
        };
        assert_eq!(g.autosize(wire(50_000_000), 1448, MS20, None), 16);
        assert_eq!(Gso::OFF.autosize(wire(50_000_000), 1448, MS20, None), 1);
    }

    #[test]
    fn wire_rates_convert_to_payload_bytes() {
        // 1488 wire bytes carry 1448 of payload.
        assert_eq!(payload_bytes_per_sec(BitsPerSec(1488 * 8), 1448, 40), 1448);
    }

    #[test]
    fn short_paths_get_larger_buffers() {
        // tcp_tso_rtt_log: 64 kB >> (min_rtt_us >> 9): at 1 ms, r = 1, +32 kB.
        let g = Gso::LINUX;
        let ms1 = Some(SimDuration::from_millis(1));
        assert_eq!(g.autosize(wire(50_000_000), 1448, ms1, None), 26);
        // From 16.4 ms on the term is gone.
        let ms17 = Some(SimDuration::from_millis(17));
        assert_eq!(g.autosize(wire(50_000_000), 1448, ms17, None), 4);
    }
}
