//! The kernel's fixed-point arithmetic that BBR v1 and BBRv3 share (`tcp_bbr.c` in both
//! trees): rates from bandwidth and gain, the BDP, and their conversions to what renolab's
//! sender and traces take. Bandwidth is in segments per microsecond times 2^24 (`BW_UNIT`),
//! gains in 1/256 (`BBR_UNIT`).

use super::config::{BBR_SCALE, BW_SCALE, BW_UNIT};
use crate::units::BitsPerSec;

/// Linux `bbr_min_tso_rate` (1.2 Mb/s) in bytes per second.
const MIN_TSO_RATE_BYTES: u64 = 1_200_000 / 8;

/// Linux `bbr_min_tso_segs()` (v1 and v3): segments a GSO buffer has at least at a pacing
/// rate of `pacing_rate` bytes per second: one below 1.2 Mb/s, else two.
pub fn min_tso_segs(pacing_rate: u64) -> u32 {
    if pacing_rate < MIN_TSO_RATE_BYTES {
        1
    } else {
        2
    }
}

/// Linux `bbr_rate_bytes_per_sec()`: `rate` (`BW_UNIT`s) of `mss`-byte segments times `gain`,
/// less `margin_percent`, in bytes per second; the kernel's order of operations (in 128
/// bits, where the kernel's 64 would overflow only past 2.9 Tbit/s).
pub fn rate_bytes_per_sec(rate: u64, mss: u32, gain: u32, margin_percent: u32) -> u64 {
    let mut r = rate as u128 * mss as u128;
    r *= gain as u128;
    r >>= BBR_SCALE;
    r *= (1_000_000 / 100 * (100 - margin_percent.min(100))) as u128;
    (r >> BW_SCALE).min(u64::MAX as u128) as u64
}

/// Linux `bbr_bdp()` once there is a min RTT: `ceil(bw x min_rtt x gain)`, segments.
pub fn bdp(bw: u64, min_rtt_us: u32, gain: u32) -> u32 {
    let w = bw as u128 * min_rtt_us as u128;
    let bdp = ((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128);
    bdp.min(u32::MAX as u128) as u32
}

/// Segments `bw` delivers in `interval_us` (for `bbr_packets_in_net_at_edt()`).
pub fn delivered_in(bw: u64, interval_us: u64) -> u64 {
    ((bw as u128 * interval_us as u128) >> BW_SCALE) as u64
}

/// `bw` (`BW_UNIT`s of `mss`-byte segments) in payload bits per second.
pub fn bw_bps(bw: u64, mss: u32) -> f64 {
    bw as f64 * mss as f64 * 8e6 / BW_UNIT as f64
}

/// A pacing rate of `bytes_per_sec` payload bytes as the sender takes it, bits per second of
/// wire bytes: Linux paces payload bytes at `sk_pacing_rate`, so full segments leave
/// `mss / sk_pacing_rate` apart; the same spacing at wire size.
pub fn wire_pacing_rate(bytes_per_sec: u64, mss: u32, header_bytes: u32) -> BitsPerSec {
    let wire = mss as u128 + header_bytes as u128;
    let bps = bytes_per_sec as u128 * 8 * wire / mss as u128;
    BitsPerSec(bps.clamp(1, u64::MAX as u128) as u64)
}
