//! Accurate ECN end to end between a scripted Linux sender and a Linux receiver: the
//! handshake's negotiation and its fallbacks, the ACE counter across its wrap, and the
//! sender's count of CE-marked segments when ACKs are lost (RFC 9768).

use super::cc::{Cc, Growth, Reno};
use super::config::{Dialect, ReceiverConfig, SenderConfig, Transfer};
use super::ecn::EchoMode;
use super::receiver::TcpReceiver;
use super::recovery::RecoveryKind;
use super::sender::TcpSender;
use crate::packet::{Codepoint, Ecn};
use crate::time::{SimDuration, SimTime};

const TRANSFER: Transfer = Transfer {
    mss: 1448,
    bytes: Some(2000 * 1448),
};

fn sender(ecn: bool, accecn: bool) -> TcpSender {
    let config = SenderConfig {
        initial_window: 10,
        receiver_window: u32::MAX,
        handshake: true,
        dialect: Dialect::Linux,
        recovery: RecoveryKind::Prr,
        ecn,
        accecn,
        ..super::sender::tests_support::config()
    };
    let cc = Cc::Reno(Reno::new(10, u32::MAX, false).with_growth(Growth::Linux));
    let mut s = TcpSender::new(config, TRANSFER, cc, 0);
    s.start(SimTime::ZERO);
    s
}

fn receiver(mode: EchoMode, delayed_ack: bool) -> TcpReceiver {
    let config = ReceiverConfig {
        delayed_ack,
        ack_every: 2,
        delack_timeout: SimDuration::from_millis(40),
        ack_bytes: 52,
        sack_option_bytes: 4,
        sack: true,
        dialect: Dialect::Linux,
        ecn: mode,
    };
    TcpReceiver::new(config, TRANSFER)
}

fn ms(n: u64) -> SimTime {
    SimTime(n * 1_000_000)
}

/// The SYN exchange at 0 and 1 ms: the SYN's and the SYN-ACK's TCP flags.
fn handshake(s: &mut TcpSender, r: &mut TcpReceiver) -> (Ecn, Ecn) {
    let syn = s.poll_transmit(ms(0)).expect("the SYN");
    r.on_syn_ecn(ms(0), syn.ecn);
    let synack = r.poll_transmit(ms(0)).expect("the SYN-ACK");
    assert!(synack.syn);
    s.on_syn_ack_ecn(ms(1), synack.flags);
    (syn.ecn, synack.flags)
}

/// Round trips of 1 ms from 1 ms: each segment the sender sends reaches the receiver, CE
/// when `mark(seq)`, and each ACK reaches the sender unless `lose(ack number)`; the sender
/// sends at once what each allows. Returns the CE marks made, and those the receiver had
/// counted when it sent the last ACK that arrived (what the sender can know).
fn exchange(
    s: &mut TcpSender,
    r: &mut TcpReceiver,
    rounds: u64,
    mark: impl Fn(u32) -> bool,
    lose: impl Fn(u64) -> bool,
) -> (u64, u64) {
    let (mut marks, mut acks_sent, mut known) = (0, 0u64, 0u64);
    let mut next: Vec<(u32, Ecn)> = std::iter::from_fn(|| s.poll_transmit(ms(1)))
        .map(|t| (t.seq, t.ecn))
        .collect();
    for round in 1..=rounds {
        let now = ms(round);
        let mut acks = Vec::new();
        for (seq, ecn) in std::mem::take(&mut next) {
            let ecn = if mark(seq) && ecn.is_ect() {
                marks += 1;
                ecn.with_ce()
            } else {
                ecn
            };
            r.on_segment_ecn(now, seq, ecn);
            while let Some(a) = r.poll_transmit(now) {
                acks.push((a, r.ce_counted() as u64));
            }
        }
        for (a, counted) in acks {
            acks_sent += 1;
            if lose(acks_sent) {
                continue;
            }
            known = counted;
            s.on_ack_flags(now, a.ack, &a.sack, a.flags);
            next.extend(std::iter::from_fn(|| s.poll_transmit(now)).map(|t| (t.seq, t.ecn)));
        }
    }
    (marks, known)
}

#[test]
fn accecn_is_negotiated_on_the_handshake() {
    let (mut s, mut r) = (sender(true, true), receiver(EchoMode::AccEcn, false));
    let (syn, synack) = handshake(&mut s, &mut r);
    assert_eq!(
        syn.ace(),
        0b111,
        "RFC 9768 §3.1.1: AE, CWR and ECE on the SYN"
    );
    assert_eq!(synack.ace(), 0b010, "Table 3: the SYN arrived Not-ECT");
    assert_eq!(s.accecn(), Some(0));
    let data = s.poll_transmit(ms(1)).unwrap();
    assert_eq!(
        data.ecn.codepoint(),
        Codepoint::Ect0,
        "a classic controller's ECT(0)"
    );
}

#[test]
fn an_accecn_client_falls_back_to_rfc3168_or_to_no_ecn() {
    // Against an RFC 3168 receiver: ECE alone on the SYN-ACK, classic ECN.
    let (mut s, mut r) = (sender(true, true), receiver(EchoMode::Rfc3168, false));
    let (_, synack) = handshake(&mut s, &mut r);
    assert_eq!(synack.ace(), 0b001);
    assert_eq!((s.accecn(), s.ecn_enabled()), (None, true));
    // The classic echo then works as RFC 3168's: a CE mark comes back as ECE.
    exchange(&mut s, &mut r, 3, |seq| seq == 12, |_| false);
    assert_eq!(s.stats().cwnd_reductions, 1);
    // Against a receiver without ECN: none.
    let (mut s, mut r) = (sender(true, true), receiver(EchoMode::Off, false));
    let (_, synack) = handshake(&mut s, &mut r);
    assert_eq!(synack.ace(), 0);
    assert_eq!((s.accecn(), s.ecn_enabled()), (None, false));
    assert_eq!(s.poll_transmit(ms(1)).unwrap().ecn, Ecn::NONE);
    // An RFC 3168 client keeps renolab's implicit agreement: no flags on its SYN.
    let (mut s, mut r) = (sender(true, false), receiver(EchoMode::Rfc3168, false));
    let (syn, synack) = handshake(&mut s, &mut r);
    assert_eq!((syn, synack), (Ecn::NONE, Ecn::NONE));
    assert!(s.ecn_enabled());
}

#[test]
fn the_ace_counter_wraps_and_the_sender_counts_every_mark() {
    for delayed in [false, true] {
        let (mut s, mut r) = (sender(true, true), receiver(EchoMode::AccEcn, delayed));
        handshake(&mut s, &mut r);
        // One segment in five marked: several times the field's 8 values.
        let (marks, known) = exchange(&mut s, &mut r, 40, |seq| seq % 5 == 1, |_| false);
        assert!(marks > 16, "{marks}: the field wrapped at least twice");
        assert_eq!(known, marks);
        assert_eq!(r.ce_counted() as u64, marks);
        assert_eq!(s.accecn(), Some(marks), "delayed ACKs {delayed}");
    }
}

#[test]
fn lost_acks_are_survived_within_the_counters_limits() {
    // Every third ACK lost: an ACK that arrives covers at most a few segments, and the
    // sender's count stays exact.
    let (mut s, mut r) = (sender(true, true), receiver(EchoMode::AccEcn, true));
    handshake(&mut s, &mut r);
    let (marks, known) = exchange(&mut s, &mut r, 30, |seq| seq % 2 == 0, |n| n % 3 == 0);
    assert!(marks > 24, "{marks}");
    assert_eq!(s.accecn(), Some(known));
    // Nine ACKs in a row lost while every segment is marked: the receiver acknowledges at
    // once every 6 marks (RFC 9768 §3.2.2.5.1), so the next ACK arriving covers more than
    // 7 marks and the field has wrapped; the sender assumes the most marks the delivered
    // segments allow (§3.2.2.5.2), which here is exact since all of them were marked.
    let (mut s, mut r) = (sender(true, true), receiver(EchoMode::AccEcn, true));
    handshake(&mut s, &mut r);
    let (_, known) = exchange(&mut s, &mut r, 8, |_| true, |n| (20..29).contains(&n));
    assert!(known > 8, "{known}");
    assert_eq!(s.accecn(), Some(known));
    // Beyond the limits: with unmarked segments among those the lost ACKs covered, the
    // sender's assumption overcounts, by whole turns of the field.
    let (mut s, mut r) = (sender(true, true), receiver(EchoMode::AccEcn, true));
    handshake(&mut s, &mut r);
    let (_, known) = exchange(
        &mut s,
        &mut r,
        8,
        |seq| seq >= 30,
        |n| (20..29).contains(&n),
    );
    let counted = s.accecn().unwrap();
    assert!(
        counted > known && (counted - known) % 8 == 0,
        "{counted} vs {known}"
    );
}
