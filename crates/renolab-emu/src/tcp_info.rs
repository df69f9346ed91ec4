//! The kernel's `struct tcp_info` (`include/uapi/linux/tcp.h`), read by offset from the
//! bytes `getsockopt(TCP_INFO)` returns, so that older kernels (which return a shorter
//! struct) are read correctly: a field beyond the returned length is `None`.

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
}
