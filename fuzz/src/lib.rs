//! Shared pieces of the fuzz targets: endpoint settings drawn from the fuzzer's bytes, and
//! the invariants every sender and receiver must keep whatever it is fed.
//!
//! Settings are drawn over the whole range the scenario validation accepts (and a little
//! beyond where the state machines should cope anyway), so the targets also explore
//! combinations no scenario in the test suites uses.

use arbitrary::{Arbitrary, Unstructured};
use renolab_core::packet::sack::SackBlocks;
use renolab_core::rng::RngStream;
use renolab_core::tcp::cc::declare::OptionResult;
use renolab_core::tcp::cc::{
    BuildContext, Declaration, OptionDecl, OptionError, OptionKind, OptionReader, Variant,
    CONTROLLERS,
};
use renolab_core::tcp::recovery::{NewRenoConfig, RecoveryKind, RetransmitGuard, TimerReset};
use renolab_core::tcp::rtt::RtoConfig;
use renolab_core::tcp::{
    Dialect, ReceiverConfig, SenderConfig, TcpReceiver, TcpSender, Transfer, Window,
};
use renolab_core::time::{SimDuration, SimTime};
use serde_json::{json, Value};

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

/// Sender settings: controller, recovery, dialect and every option.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct ArbSender {
    /// Which registered controller (an index into `CONTROLLERS`).
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
    hoe_sending: bool,
    sack_ns2: bool,
    /// Draws for the controller's declared options, in their order (`None`: the default).
    options: [Option<u32>; 8],
}

/// The controller's options as the fuzzer draws them: each declared option of the
/// controller gets a value of its declared kind, within its range, or none.
struct DrawnOptions {
    values: Vec<(&'static str, Value)>,
}

impl DrawnOptions {
    fn draw(declaration: &Declaration, draws: &[Option<u32>; 8]) -> Self {
        let mut values = Vec::new();
        for (o, draw) in declaration.options.iter().zip(draws) {
            let Some(d) = *draw else { continue };
            let value = match o.kind {
                OptionKind::Bool => json!(d % 2 == 0),
                OptionKind::Int { min, max } => json!(min + d as u64 % (max - min + 1)),
                OptionKind::Float { min, max } => {
                    json!(min + (max - min) * (d as f64 / u32::MAX as f64))
                }
                OptionKind::Choice(names) => json!(names[d as usize % names.len()]),
                OptionKind::Other(_) => continue,
            };
            values.push((o.name, value));
        }
        DrawnOptions { values }
    }

    fn get(&self, option: &OptionDecl) -> Option<&Value> {
        self.values
            .iter()
            .find(|(n, _)| *n == option.name)
            .map(|(_, v)| v)
    }
}

impl OptionReader for DrawnOptions {
    fn bool(&self, o: &OptionDecl) -> OptionResult<bool> {
        Ok(self.get(o).and_then(Value::as_bool))
    }
    fn int(&self, o: &OptionDecl) -> OptionResult<u64> {
        Ok(self.get(o).and_then(Value::as_u64))
    }
    fn float(&self, o: &OptionDecl) -> OptionResult<f64> {
        Ok(self.get(o).and_then(Value::as_f64))
    }
    fn choice(&self, o: &OptionDecl) -> OptionResult<&'static str> {
        let OptionKind::Choice(names) = o.kind else {
            return Ok(None);
        };
        let chosen = self.get(o).and_then(Value::as_str);
        Ok(chosen.and_then(|c| names.iter().copied().find(|n| *n == c)))
    }
    fn value(&self, o: &OptionDecl) -> Option<Value> {
        self.get(o).cloned()
    }
    fn error(&self, o: &OptionDecl, message: String) -> OptionError {
        OptionError {
            field: o.name.to_string(),
            message,
        }
    }
}

impl ArbSender {
    /// The controller's declaration.
    fn declaration(&self) -> &'static Declaration {
        CONTROLLERS[self.variant as usize % CONTROLLERS.len()]
    }

    /// The variant's name, for messages.
    pub fn variant_name(&self) -> &'static str {
        self.declaration().name
    }

    /// A sender of `transfer` under these settings (`None` when the drawn options are not
    /// a valid configuration, as a scenario would refuse them).
    pub fn sender(self, transfer: Transfer) -> Option<TcpSender> {
        let iw = (self.initial_window as u32 % 64).max(1);
        let ssthresh = self.initial_ssthresh.max(2);
        let dialect = if self.ns2 { Dialect::Ns2 } else { Dialect::Rfc };
        let declaration = self.declaration();
        let options = DrawnOptions::draw(declaration, &self.options);
        let variant = Variant::configure(declaration.name, &options)?.ok()?;
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
            hoe_sending: self.hoe_sending,
        };
        let profile = if self.ns2 { "ns2" } else { "rfc" };
        let recovery = match declaration.recovery.default.under(profile) {
            "tahoe" => RecoveryKind::Tahoe,
            "newreno" => RecoveryKind::NewReno(newreno),
            "sack" | "rfc6675" if self.sack_ns2 => RecoveryKind::Sack,
            "sack" | "rfc6675" => RecoveryKind::Rfc6675,
            "prr" => RecoveryKind::Prr,
            _ => RecoveryKind::Reno,
        };
        let min = SimDuration::from_micros(self.min_rto_us as u64);
        let granularity = SimDuration::from_micros(self.granularity_us as u64);
        let receiver_window = (self.receiver_window as u32).max(1);
        let config = SenderConfig {
            header_bytes: 40,
            initial_window: iw,
            initial_ssthresh: ssthresh,
            receiver_window,
            dupack_threshold: (self.dupack_threshold as u32 % 8).max(1),
            rto: RtoConfig {
                initial: SimDuration::from_micros((self.initial_rto_us as u64).max(1)),
                min,
                max: SimDuration(min.0 + self.max_rto_extra_us as u64 * 1_000),
                granularity,
            },
            handshake: self.handshake,
            dialect,
            recovery,
            limited_transmit: self.limited_transmit,
            clock_phase: None,
            pacing: declaration.paces,
            ecn: false,
        };
        let tick = granularity.as_nanos();
        let phase = if tick > 0 {
            self.clock_phase as u64 * 1_000 % tick
        } else {
            0
        };
        let mut rng = RngStream::derive(1, "fuzz");
        let mut flow = BuildContext {
            initial_window: iw,
            initial_ssthresh: ssthresh,
            mss: transfer.mss,
            header_bytes: 40,
            receiver_window,
            dialect,
            rng: &mut rng,
        };
        let cc = variant.build(&mut flow)?;
        Some(TcpSender::new(config, transfer, cc, phase))
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
