//! The kernel's `struct tcp_info` (`include/uapi/linux/tcp.h`), read by offset from the
//! bytes `getsockopt(TCP_INFO)` returns, so that older kernels (which return a shorter
//! struct) are read correctly: a field beyond the returned length is `None`.

use renolab_core::tcp::cc::CcState;

/// `snd_ssthresh` of a connection that has not left slow start (`TCP_INFINITE_SSTHRESH`).
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Bytes of `struct tcp_info` up to `tcpi_total_rto_time` (Linux 6.7).
pub const LEN: usize = 248;

/// The fields of `TCP_INFO` the emulator reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// `tcpi_ca_state`: 0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss.
    pub ca_state: u8,
    /// `tcpi_rto`, microseconds.
    pub rto_us: u32,
    /// `tcpi_snd_mss`, bytes.
    pub snd_mss: u32,
    /// `tcpi_rtt` (smoothed RTT), microseconds.
    pub rtt_us: u32,
    /// `tcpi_rttvar`, microseconds.
    pub rttvar_us: u32,
    /// `tcpi_snd_ssthresh`, segments ([`INFINITE_SSTHRESH`] before the first loss).
    pub snd_ssthresh: u32,
    /// `tcpi_snd_cwnd`, segments.
    pub snd_cwnd: u32,
    /// `tcpi_total_retrans`: segments retransmitted over the connection's life.
    pub total_retrans: u32,
    /// `tcpi_pacing_rate`, payload bytes per second (Linux 3.15; `u64::MAX`: not pacing).
    pub pacing_rate: Option<u64>,
    /// `tcpi_bytes_acked` (Linux 4.1).
    pub bytes_acked: Option<u64>,
    /// `tcpi_min_rtt`, microseconds (Linux 4.10).
    pub min_rtt_us: Option<u32>,
    /// `tcpi_delivery_rate`, bytes per second (Linux 4.10).
    pub delivery_rate: Option<u64>,
    /// `tcpi_bytes_retrans` (Linux 4.19).
    pub bytes_retrans: Option<u64>,
    /// `tcpi_total_rto`: retransmission timeouts, SYN's included (Linux 6.7).
    pub total_rto: Option<u16>,
    /// `tcpi_total_rto_recoveries` (Linux 6.7).
    pub total_rto_recoveries: Option<u16>,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

impl TcpInfo {
    /// Reads the fields from the `len` bytes the kernel returned; `None` if even the
    /// fields every kernel since 2.6 has are missing.
    pub fn parse(b: &[u8]) -> Option<TcpInfo> {
        Some(TcpInfo {
            ca_state: *b.get(1)?,
            rto_us: u32_at(b, 8)?,
            snd_mss: u32_at(b, 16)?,
            rtt_us: u32_at(b, 68)?,
            rttvar_us: u32_at(b, 72)?,
            snd_ssthresh: u32_at(b, 76)?,
            snd_cwnd: u32_at(b, 80)?,
            total_retrans: u32_at(b, 100)?,
            pacing_rate: u64_at(b, 104),
            bytes_acked: u64_at(b, 120),
            min_rtt_us: u32_at(b, 148),
            delivery_rate: u64_at(b, 160),
            bytes_retrans: u64_at(b, 208),
            total_rto: u16_at(b, 240),
            total_rto_recoveries: u16_at(b, 242),
        })
    }

    /// ssthresh in segments as the `cwnd` trace records it (infinite for the kernel's
    /// TCP_INFINITE_SSTHRESH, as renolab's unset ssthresh).
    pub fn ssthresh_segments(&self) -> f64 {
        if self.snd_ssthresh >= INFINITE_SSTHRESH {
            f64::INFINITY
        } else {
            self.snd_ssthresh as f64
        }
    }
}

/// BBR's `struct tcp_bbr_info` (`TCP_CC_INFO`, `include/uapi/linux/inet_diag.h`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BbrInfo {
    /// `bbr_bw_lo | bbr_bw_hi << 32`: the bandwidth estimate, payload bytes per second.
    pub bw: u64,
    /// `bbr_min_rtt`, microseconds.
    pub min_rtt_us: u32,
    /// `bbr_pacing_gain`, in 1/256.
    pub pacing_gain: u32,
    /// `bbr_cwnd_gain`, in 1/256.
    pub cwnd_gain: u32,
}

/// `BBR_UNIT`: gains are in 1/256.
const BBR_UNIT: f64 = 256.0;

impl BbrInfo {
    /// Reads the 20 bytes BBR returns; `None` for anything shorter (another controller).
    pub fn parse(b: &[u8]) -> Option<BbrInfo> {
        Some(BbrInfo {
            bw: u32_at(b, 0)? as u64 | (u32_at(b, 4)? as u64) << 32,
            min_rtt_us: u32_at(b, 8)?,
            pacing_gain: u32_at(b, 12)?,
            cwnd_gain: u32_at(b, 16)?,
        })
    }

    /// BBR's mode, as the `cc` trace names it, told from the gains (`bbr_update_gains()`):
    /// Startup paces and sizes the window at the high gain (2.89), Drain paces below one
    /// at that window gain, ProbeRTT runs both at one, ProbeBW sizes the window at two.
    pub fn mode(&self) -> &'static str {
        let (pacing, cwnd) = (
            self.pacing_gain as f64 / BBR_UNIT,
            self.cwnd_gain as f64 / BBR_UNIT,
        );
        match () {
            _ if cwnd > 2.5 && pacing > 1.0 => "startup",
            _ if cwnd > 2.5 => "drain",
            _ if cwnd <= 1.0 && pacing <= 1.0 => "probe_rtt",
            _ => "probe_bw",
        }
    }
}

/// The `cc` trace's row for the kernel's state: pacing and delivery rates from `TCP_INFO`,
/// and BBR's estimate, min RTT, gains and mode from `TCP_CC_INFO`. The min RTT is BBR's own
/// (`bbr->min_rtt_us`, its 10 s filter, which ProbeRTT refreshes) under BBR, as renolab's
/// `cc` trace reports it; `TCP_INFO`'s `tcpi_min_rtt` (the connection's 5-minute filter,
/// usually the handshake's) for every other controller.
pub fn cc_state(info: &TcpInfo, bbr: Option<&BbrInfo>) -> CcState {
    let bps = |bytes: u64| bytes as f64 * 8.0;
    let nan = f64::NAN;
    let mut state = CcState::default()
        .with(
            "min_rtt_ns",
            info.min_rtt_us.map_or(nan, |us| us as f64 * 1e3),
        )
        .with(
            "pacing_rate_bps",
            info.pacing_rate.filter(|&r| r != u64::MAX).map_or(nan, bps),
        )
        .with("delivery_rate_bps", info.delivery_rate.map_or(nan, bps));
    if let Some(b) = bbr {
        state = state
            .with_mode(b.mode())
            .with("btl_bw_bps", bps(b.bw))
            .with("min_rtt_ns", b.min_rtt_us as f64 * 1e3)
            .with("pacing_gain", b.pacing_gain as f64 / BBR_UNIT)
            .with("cwnd_gain", b.cwnd_gain as f64 / BBR_UNIT);
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_from_their_kernel_offsets_and_missing_ones_are_none() {
        let mut b = vec![0u8; LEN];
        b[1] = 3;
        b[68..72].copy_from_slice(&20_150u32.to_ne_bytes());
        b[80..84].copy_from_slice(&42u32.to_ne_bytes());
        b[76..80].copy_from_slice(&INFINITE_SSTHRESH.to_ne_bytes());
        b[100..104].copy_from_slice(&7u32.to_ne_bytes());
        b[240..242].copy_from_slice(&2u16.to_ne_bytes());
        let info = TcpInfo::parse(&b).unwrap();
        assert_eq!((info.ca_state, info.rtt_us, info.snd_cwnd), (3, 20_150, 42));
        assert_eq!((info.total_retrans, info.total_rto), (7, Some(2)));
        assert_eq!(info.ssthresh_segments(), f64::INFINITY);
        // A 4.9 kernel returns 192 bytes: no bytes_retrans, no RTO count.
        let old = TcpInfo::parse(&b[..192]).unwrap();
        assert_eq!((old.bytes_retrans, old.total_rto), (None, None));
        assert_eq!(old.min_rtt_us, Some(0));
        assert_eq!(TcpInfo::parse(&b[..100]), None);
    }

    #[test]
    fn bbr_info_gives_the_estimate_and_the_mode_from_the_gains() {
        let mut b = [0u8; 20];
        let words: [u32; 5] = [2_500_000, 1, 20_150, 739, 739];
        for (i, w) in words.iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&w.to_ne_bytes());
        }
        let info = BbrInfo::parse(&b).unwrap();
        assert_eq!(info.bw, 2_500_000 + (1 << 32));
        assert_eq!((info.min_rtt_us, info.mode()), (20_150, "startup"));
        let with = |pacing, cwnd| {
            BbrInfo {
                pacing_gain: pacing,
                cwnd_gain: cwnd,
                ..info
            }
            .mode()
        };
        assert_eq!(with(88, 739), "drain");
        assert_eq!(with(320, 512), "probe_bw"); // probing
        assert_eq!(with(192, 512), "probe_bw"); // draining
        assert_eq!(with(256, 256), "probe_rtt");
        assert_eq!(BbrInfo::parse(&b[..16]), None); // not BBR
    }

    #[test]
    fn the_cc_row_has_rates_in_bits_and_no_pacing_rate_when_unlimited() {
        let mut b = vec![0u8; LEN];
        b[104..112].copy_from_slice(&u64::MAX.to_ne_bytes());
        b[148..152].copy_from_slice(&20_000u32.to_ne_bytes());
        b[160..168].copy_from_slice(&1_250_000u64.to_ne_bytes());
        let info = TcpInfo::parse(&b).unwrap();
        let row = cc_state(&info, None);
        assert!(row.named("pacing_rate_bps").is_nan());
        assert_eq!(row.named("delivery_rate_bps"), 10e6);
        assert_eq!(row.named("min_rtt_ns"), 20e6);
        assert!(row.named("mode").is_nan() && row.named("btl_bw_bps").is_nan());
        b[104..112].copy_from_slice(&2_500_000u64.to_ne_bytes());
        let row = cc_state(&TcpInfo::parse(&b).unwrap(), None);
        assert_eq!(row.named("pacing_rate_bps"), 20e6);
        let bbr = BbrInfo {
            bw: 1_250_000,
            min_rtt_us: 20_000,
            pacing_gain: 256,
            cwnd_gain: 512,
        };
        let bbr = BbrInfo {
            min_rtt_us: 21_300, // BBR's own filter, not tcpi_min_rtt
            ..bbr
        };
        let row = cc_state(&TcpInfo::parse(&b).unwrap(), Some(&bbr));
        assert_eq!(row.named("min_rtt_ns"), 21.3e6);
        let probe_bw = renolab_core::tcp::cc::cc_modes()
            .iter()
            .position(|m| *m == "probe_bw");
        assert_eq!(row.named("mode"), probe_bw.unwrap() as f64);
        assert_eq!(
            (row.named("btl_bw_bps"), row.named("cwnd_gain")),
            (10e6, 2.0)
        );
    }
}
