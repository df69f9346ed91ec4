//! Shared pieces of the fuzz targets: endpoint settings drawn from the fuzzer's bytes, and
//! the invariants every sender and receiver must keep whatever it is fed.
//!
//! Settings are drawn over the whole range the scenario validation accepts (and a little
//! beyond where the state machines should cope anyway), so the targets also explore
//! combinations no scenario in the test suites uses.

use arbitrary::{Arbitrary, Unstructured};
use renolab_core::packet::sack::SackBlocks;
use renolab_core::tcp::cc::{Cc, NewReno, Reno, Vegas, VegasConfig};
use renolab_core::tcp::recovery::{NewRenoConfig, RecoveryKind, RetransmitGuard, TimerReset};
use renolab_core::tcp::rtt::RtoConfig;
use renolab_core::tcp::{
    Dialect, ReceiverConfig, SenderConfig, TcpReceiver, TcpSender, Transfer, Window,
};
use renolab_core::time::{SimDuration, SimTime};

/// What the application hands TCP: a small finite transfer or an unlimited one.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct ArbTransfer {
    mss: u16,
    /// Segments (1..=256) when finite; `None`: unlimited.
    segments: Option<u8>,
    /// Bytes short of a whole last segment.
    short: u16,
}

impl ArbTransfer {
    /// The transfer.
    pub fn transfer(self) -> Transfer {
        let mss = (self.mss as u32).max(1);
        Transfer {
            mss,
            bytes: self.segments.map(|n| {
                let full = (n as u64 + 1) * mss as u64;
                full - (self.short as u64 % mss as u64)
            }),
        }
    }
}

/// Receiver settings.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct ArbReceiver {
    delayed_ack: bool,
    ack_every: u8,
    delack_timeout_us: u32,
    sack: bool,
    ns2: bool,
}

impl ArbReceiver {
    /// A receiver for `transfer`.
    pub fn receiver(self, transfer: Transfer) -> TcpReceiver {
        TcpReceiver::new(
            ReceiverConfig {
                delayed_ack: self.delayed_ack,
                ack_every: (self.ack_every as u32).max(1),
                delack_timeout: SimDuration::from_micros(self.delack_timeout_us as u64),
                ack_bytes: 40,
                sack_option_bytes: 0,
                sack: self.sack,
                dialect: if self.ns2 { Dialect::Ns2 } else { Dialect::Rfc },
                ecn: renolab_core::tcp::ecn::EchoMode::Off,
            },
            transfer,
        )
    }
}

/// Sender settings: variant, recovery, dialect and every option.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct ArbSender {
    variant: u8,
    ns2: bool,
    initial_window: u8,
    initial_ssthresh: u32,
    receiver_window: u16,
    dupack_threshold: u8,
    initial_rto_us: u32,
    min_rto_us: u32,
    max_rto_extra_us: u32,
    granularity_us: u16,
    clock_phase: u16,
    handshake: bool,
    limited_transmit: bool,
    partial_window_deflation: bool,
    slow_but_steady: bool,
    careful: u8,
    ssthresh_estimation: bool,
    sack_ns2: bool,
    alpha: u8,
    beta_extra: u8,
    gamma: u8,
}

impl ArbSender {
    /// The variant's name, for messages.
    pub fn variant_name(&self) -> &'static str {
        ["tahoe", "reno", "newreno", "sack", "vegas"][self.variant as usize % 5]
    }

    /// A sender of `transfer` under these settings.
    pub fn sender(self, transfer: Transfer) -> TcpSender {
        let iw = (self.initial_window as u32 % 64).max(1);
        let ssthresh = self.initial_ssthresh.max(2);
        let keep_fraction = self.ns2;
        let newreno = NewRenoConfig {
            partial_window_deflation: self.partial_window_deflation,
            timer_reset: if self.slow_but_steady {
                TimerReset::SlowButSteady
            } else {
                TimerReset::Impatient
            },
            careful: match self.careful % 3 {
                0 => RetransmitGuard::AfterRecover,
                1 => RetransmitGuard::Heuristic,
                _ => RetransmitGuard::Off,
            },
            hoe_sending: self.ssthresh_estimation,
        };
        let vegas = VegasConfig {
            alpha: self.alpha as u32 % 8,
            beta: self.alpha as u32 % 8 + self.beta_extra as u32 % 8,
            gamma: self.gamma as u32 % 8,
        };
        let (cc, recovery) = match self.variant % 5 {
            0 => (
                Cc::Reno(Reno::new(iw, ssthresh, keep_fraction)),
                RecoveryKind::Tahoe,
            ),
            1 => (
                Cc::Reno(Reno::new(iw, ssthresh, keep_fraction)),
                RecoveryKind::Reno,
            ),
            2 => (
                Cc::NewReno(NewReno::new(
                    iw,
                    ssthresh,
                    self.ssthresh_estimation,
                    keep_fraction,
                )),
                RecoveryKind::NewReno(newreno),
            ),
            3 => (
                Cc::Reno(Reno::new(iw, ssthresh, keep_fraction)),
                if self.sack_ns2 {
                    RecoveryKind::Sack
                } else {
                    RecoveryKind::Rfc6675
                },
            ),
            _ => (
                Cc::Vegas(Vegas::new(iw, ssthresh, vegas)),
                RecoveryKind::Reno,
            ),
        };
        let min = SimDuration::from_micros(self.min_rto_us as u64);
        let granularity = SimDuration::from_micros(self.granularity_us as u64);
        let config = SenderConfig {
            header_bytes: 40,
            initial_window: iw,
            initial_ssthresh: ssthresh,
            receiver_window: (self.receiver_window as u32).max(1),
            dupack_threshold: (self.dupack_threshold as u32 % 8).max(1),
            rto: RtoConfig {
                initial: SimDuration::from_micros((self.initial_rto_us as u64).max(1)),
                min,
                max: SimDuration(min.0 + self.max_rto_extra_us as u64 * 1_000),
                granularity,
            },
            handshake: self.handshake,
            dialect: if self.ns2 { Dialect::Ns2 } else { Dialect::Rfc },
            recovery,
            limited_transmit: self.limited_transmit,
            clock_phase: None,
            pacing: false,
            ecn: false,
        };
        let tick = granularity.as_nanos();
        let phase = if tick > 0 {
            self.clock_phase as u64 * 1_000 % tick
        } else {
            0
        };
        TcpSender::new(config, transfer, cc, phase)
    }
}

/// SACK blocks from the fuzzer, placed relative to `base`.
pub fn sack_blocks(base: u32, raw: &[(u8, u8)]) -> SackBlocks {
    let mut blocks = SackBlocks::EMPTY;
    for &(start, len) in raw.iter().take(3) {
        let start = base.saturating_add(start as u32);
        blocks.push(start, start.saturating_add(len as u32));
    }
    blocks
}

/// Checks what must hold of a sender after any call.
pub fn check_sender(s: &TcpSender) {
    assert!(
        s.cwnd() >= Window::segments(1),
        "cwnd {} < 1 segment",
        s.cwnd()
    );
    assert!(
        s.ssthresh() >= Window::segments(2),
        "ssthresh {} < 2 segments",
        s.ssthresh()
    );
    assert!(
        s.snd_una() <= s.snd_max(),
        "snd_una {} beyond snd_max {}",
        s.snd_una(),
        s.snd_max()
    );
    if let Some(n) = s.transfer().segments() {
        assert!(
            s.snd_max() <= n,
            "sent segment {} of a {n}-segment transfer",
            s.snd_max()
        );
    }
    let st = s.stats();
    assert!(st.retransmits <= st.segments_sent);
}

/// Checks what must hold of a receiver after any call.
pub fn check_receiver(r: &TcpReceiver, transfer: Transfer, rcv_nxt_before: u32) {
    assert!(r.rcv_nxt() >= rcv_nxt_before, "rcv_nxt went back");
    assert_eq!(
        r.stats().bytes_delivered,
        transfer.bytes_before(r.rcv_nxt()),
        "bytes delivered differ from the in-order prefix (segments 0..{})",
        r.rcv_nxt()
    );
    if let Some(n) = transfer.segments() {
        assert_eq!(
            r.stats().finished_at.is_some(),
            r.rcv_nxt() >= n,
            "finished flag disagrees with rcv_nxt {} of {n} segments",
            r.rcv_nxt()
        );
    }
}

/// Checks an ACK the receiver sent.
pub fn check_ack(r: &TcpReceiver, ack: u32, sack: &SackBlocks) {
    assert_eq!(ack, r.rcv_nxt(), "cumulative ACK is not rcv_nxt");
    let blocks: Vec<(u32, u32)> = sack.iter().collect();
    for (i, &(start, end)) in blocks.iter().enumerate() {
        assert!(start < end, "empty SACK block {start}..{end}");
        assert!(
            start > ack,
            "SACK block {start}..{end} at or below the cumulative ACK {ack}"
        );
        for seq in start..end {
            assert!(
                r.out_of_order().contains(seq),
                "SACK block covers {seq}, never received"
            );
        }
        for &(s2, e2) in &blocks[i + 1..] {
            assert!(
                end < s2 || e2 < start,
                "SACK blocks {start}..{end} and {s2}..{e2} overlap or touch"
            );
        }
    }
}

/// Draws a time step in microseconds: mostly small, sometimes long.
pub fn step(u: &mut Unstructured<'_>) -> arbitrary::Result<SimDuration> {
    let us: u32 = u.arbitrary()?;
    Ok(SimDuration::from_micros(match us % 4 {
        0 => 0,
        1 => (us >> 2) as u64 % 1_000,
        2 => (us >> 2) as u64 % 1_000_000,
        _ => (us >> 2) as u64,
    }))
}

/// `now` advanced by `d`, saturating (the state machines only ever see increasing times).
pub fn later(now: SimTime, d: SimDuration) -> SimTime {
    SimTime(now.0.saturating_add(d.0).min(u64::MAX / 4))
}
