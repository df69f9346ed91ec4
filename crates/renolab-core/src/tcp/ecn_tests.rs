//! ECN end to end between a scripted sender and receiver: which ACKs echo a CE mark, how
//! often the window comes down, CWR, and DCTCP's exact echo with delayed ACKs.

use super::cc::{Cc, Dctcp, Reno};
use super::config::{Dialect, ReceiverConfig, SenderConfig, Transfer};
use super::ecn::EchoMode;
use super::receiver::{AckOut, TcpReceiver};
use super::sender::TcpSender;
use super::window::Window;
use crate::packet::Ecn;
use crate::time::{SimDuration, SimTime};

const TRANSFER: Transfer = Transfer {
    mss: 1000,
    bytes: Some(200_000),
};

fn sender(cc: Cc) -> TcpSender {
    // RFC-dialect Reno recovery with IW 10 and ECN on.
    let config = SenderConfig {
        initial_window: 10,
        ecn: true,
        accecn: false,
        gso: crate::tcp::gso::Gso::OFF,
        ..super::sender::tests_support::config()
    };
    let mut s = TcpSender::new(config, TRANSFER, cc, 0);
    s.start(SimTime::ZERO);
    s
}

fn receiver(mode: EchoMode, delayed_ack: bool) -> TcpReceiver {
    let config = ReceiverConfig {
        delayed_ack,
        ack_every: 2,
        delack_timeout: SimDuration::from_millis(40),
        ack_bytes: 40,
        sack_option_bytes: 0,
        sack: false,
        dialect: Dialect::Rfc,
        ecn: mode,
    };
    TcpReceiver::new(config, TRANSFER)
}

/// What one scripted exchange showed.
#[derive(Default)]
struct Run {
    /// (segment acknowledged last, ECE) of every ACK, in order.
    acks: Vec<(u32, bool)>,
    /// Segments sent with CWR.
    cwr: Vec<u32>,
    /// cwnd after each ACK, by ACK number.
    cwnd: Vec<(u32, Window)>,
}

/// Runs `rounds` round trips without loss: what the sender sent in a round reaches the
/// receiver in order (CE on each segment in `marked`), then every ACK reaches the sender,
/// which sends at once what each allows (the next round's segments).
fn exchange(s: &mut TcpSender, r: &mut TcpReceiver, marked: &[u32], rounds: u64) -> Run {
    let mut run = Run::default();
    let drain = |s: &mut TcpSender, now, run: &mut Run, out: &mut Vec<(u32, Ecn)>| {
        while let Some(tx) = s.poll_transmit(now) {
            assert!(tx.ecn.is_ect(), "new data is ECT(0)");
            if tx.ecn.cwr() {
                run.cwr.push(tx.seq);
            }
            out.push((tx.seq, tx.ecn));
        }
    };
    let mut next = Vec::new();
    drain(s, SimTime::ZERO, &mut run, &mut next);
    for round in 0..rounds {
        let now = SimTime(round * 1_000_000);
        let segments = std::mem::take(&mut next);
        let mut acks: Vec<AckOut> = Vec::new();
        for (seq, ecn) in segments {
            let ecn = if marked.contains(&seq) {
                ecn.with_ce()
            } else {
                ecn
            };
            r.on_segment_ecn(now, seq, ecn);
            acks.extend(std::iter::from_fn(|| r.poll_transmit(now)));
        }
        for a in acks {
            run.acks.push((a.ack - 1, a.ece));
            s.on_ack_ecn(now, a.ack, &a.sack, a.ece);
            run.cwnd.push((a.ack, s.cwnd()));
            drain(s, now, &mut run, &mut next);
        }
    }
    run
}

fn reno() -> Cc {
    Cc::Reno(Reno::new(10, u32::MAX, false))
}

#[test]
fn a_ce_mark_is_echoed_until_cwr_and_reduces_the_window_once() {
    let (mut s, mut r) = (sender(reno()), receiver(EchoMode::Rfc3168, false));
    let run = exchange(&mut s, &mut r, &[3], 4);
    // One CWR, on the first segment sent after the reduction.
    assert_eq!(run.cwr.len(), 1, "{:?}", run.cwr);
    let cwr = run.cwr[0];
    // ECE on the ACKs of segments 3 .. cwr - 1, none before, none from the CWR segment on.
    for &(seq, ece) in &run.acks {
        assert_eq!(ece, (3..cwr).contains(&seq), "ACK of segment {seq}");
    }
    assert_eq!(s.stats().cwnd_reductions, 1);
    assert_eq!(s.stats().retransmits, 0, "no retransmission");
    assert_eq!(r.stats().ce_received, 1);
    // The reduction came on the ACK of segment 3 (ACK 4): slow start had grown cwnd to
    // 13 and segments 3 ..= 15 (13) were outstanding, so RFC 5681 eq. 4 halves to 6.
    let (_, before) = run.cwnd.iter().find(|(a, _)| *a == 3).copied().unwrap();
    let (_, after) = run.cwnd.iter().find(|(a, _)| *a == 4).copied().unwrap();
    assert_eq!(before, Window::segments(13));
    assert_eq!(after, Window::segments(6));
    // ECE ACKs do not grow the window: it stays at 6 until the CWR segment's ACK.
    for &(a, w) in &run.cwnd {
        if (4..=cwr).contains(&a) {
            assert_eq!(w, Window::segments(6), "ACK {a}");
        }
    }
}

#[test]
fn two_marks_in_one_window_reduce_once_and_a_mark_a_window_later_again() {
    let (mut s, mut r) = (sender(reno()), receiver(EchoMode::Rfc3168, false));
    let run = exchange(&mut s, &mut r, &[3, 6], 4);
    assert_eq!(s.stats().cwnd_reductions, 1);
    assert_eq!(run.cwr.len(), 1);
    // A mark on a segment sent after the reduction's window: a second reduction.
    let (mut s, mut r) = (sender(reno()), receiver(EchoMode::Rfc3168, false));
    let late = 40;
    let run = exchange(&mut s, &mut r, &[3, 6, late], 8);
    assert!(run.acks.iter().any(|&(seq, _)| seq > late));
    assert_eq!(s.stats().cwnd_reductions, 2);
    assert_eq!(run.cwr.len(), 2);
    assert_eq!(r.stats().ce_received, 3);
}

#[test]
fn the_dctcp_receiver_acks_a_change_of_ce_state_at_once_with_the_old_state() {
    // RFC 8257 §3.2 with delayed ACKs (every second segment): segments 0..9, CE on
    // 2, 3, 4 and 7.
    let mut r = receiver(EchoMode::Dctcp, true);
    let ce = [
        false, false, true, true, true, false, false, true, false, false,
    ];
    let mut acks = Vec::new();
    for (seq, &mark) in ce.iter().enumerate() {
        let ecn = Ecn::NONE.with_ect0();
        let ecn = if mark { ecn.with_ce() } else { ecn };
        r.on_segment_ecn(SimTime::ZERO, seq as u32, ecn);
        acks.extend(std::iter::from_fn(|| r.poll_transmit(SimTime::ZERO)).map(|a| (a.ack, a.ece)));
    }
    let t = r
        .poll_timeout()
        .expect("segment 9 waits for the delayed-ACK timer");
    r.on_timeout(t);
    acks.extend(std::iter::from_fn(|| r.poll_transmit(t)).map(|a| (a.ack, a.ece)));
    assert_eq!(
        acks,
        vec![
            (2, false),  // 0, 1: the second segment
            (3, true),   // 2: 0 -> 1, nothing pending: ACK now with the new state
            (5, true),   // 3, 4
            (6, false),  // 5: 1 -> 0, nothing pending
            (7, false),  // 7: 0 -> 1 with 6 pending: 6 flushed with the old state...
            (8, true),   // ... then 7 at once with the new one
            (9, false),  // 8: 1 -> 0
            (10, false), // 9: by the delayed-ACK timer
        ]
    );
    // The sender can count the marked segments exactly: ACKs with ECE cover 2, 3-4, 7.
    let mut prev = 0;
    let mut marked = 0;
    for &(a, ece) in &acks {
        if ece {
            marked += a - prev;
        }
        prev = a;
    }
    assert_eq!(marked, 4);
}

#[test]
fn dctcp_cuts_by_half_of_alpha_once_per_window() {
    let cc = Cc::Dctcp(Dctcp::new(Reno::new(10, u32::MAX, false)));
    let (mut s, mut r) = (sender(cc), receiver(EchoMode::Dctcp, false));
    let run = exchange(&mut s, &mut r, &[3, 4], 3);
    // alpha starts at 1: the first cut halves, and only once in the window.
    assert_eq!(s.stats().cwnd_reductions, 1);
    let (_, after) = run.cwnd.iter().find(|(a, _)| *a == 4).copied().unwrap();
    assert_eq!(after, Window::segments(13 - 13 / 2));
    // Exact echo: ECE exactly on the ACKs of segments 3 and 4, whatever CWR does.
    for &(seq, ece) in &run.acks {
        assert_eq!(ece, seq == 3 || seq == 4, "ACK of segment {seq}");
    }
}
