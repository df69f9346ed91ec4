//! Scripted tests of the Linux sender (`profile = "linux"`, recovery `prr`): SACKs and
//! losses by hand, then exact transmissions, windows and timers (RFC 6937 PRR, RFC 8985
//! RACK-TLP, as Linux runs them).

use super::{CaState, LinuxSender, XmitTimer};
use crate::packet::sack::SackBlocks;
use crate::tcp::cc::Cc;
use crate::tcp::cc::{Growth, Reno};
use crate::tcp::config::{Dialect, SenderConfig, Transfer};
use crate::tcp::gso::Gso;
use crate::tcp::recovery::RecoveryKind;
use crate::tcp::rtt::RtoConfig;
use crate::tcp::sender::TcpSender;
use crate::tcp::window::Window;
use crate::time::{SimDuration, SimTime};

fn linux_sender(iw: u32, segments: u64) -> TcpSender {
    linux_sender_pacing(iw, segments, false)
}

fn linux_sender_pacing(iw: u32, segments: u64, pacing: bool) -> TcpSender {
    linux_sender_gso(iw, segments, pacing, Gso::OFF)
}

fn linux_sender_gso(iw: u32, segments: u64, pacing: bool, gso: Gso) -> TcpSender {
    let config = SenderConfig {
        header_bytes: 52,
        initial_window: iw,
        initial_ssthresh: u32::MAX,
        receiver_window: u32::MAX,
        dupack_threshold: 3,
        rto: RtoConfig {
            initial: SimDuration::from_secs(1),
            min: SimDuration::from_millis(200),
            max: SimDuration::from_secs(120),
            granularity: SimDuration::ZERO,
        },
        handshake: false,
        dialect: Dialect::Linux,
        recovery: RecoveryKind::Prr,
        limited_transmit: false,
        clock_phase: None,
        pacing,
        ecn: false,
        accecn: false,
        gso,
    };
    let transfer = Transfer {
        mss: 1448,
        bytes: Some(segments * 1448),
    };
    let cc = Cc::Reno(Reno::new(iw, u32::MAX, false).with_growth(Growth::Linux));
    let mut s = TcpSender::new(config, transfer, cc, 0);
    s.start(SimTime::ZERO);
    s
}

fn ms(n: u64) -> SimTime {
    SimTime(n * 1_000_000)
}

fn drain(s: &mut TcpSender, now: SimTime) -> Vec<(u32, bool)> {
    std::iter::from_fn(|| s.poll_transmit(now))
        .map(|t| (t.seq, t.retransmit))
        .collect()
}

/// An ACK of everything below `ack` with SACK blocks `blocks`, then what leaves.
fn ack(s: &mut TcpSender, t: SimTime, ack: u32, blocks: &[(u32, u32)]) -> Vec<(u32, bool)> {
    let mut b = SackBlocks::EMPTY;
    for &(start, end) in blocks {
        b.push(start, end);
    }
    s.on_ack(t, ack, &b);
    drain(s, t)
}

fn linux(s: &TcpSender) -> &LinuxSender {
    match s {
        TcpSender::Linux(l) => l,
        _ => panic!("the linux sender"),
    }
}

#[test]
fn rack_enters_recovery_on_the_third_sack_and_prr_sends_one_segment_per_two_delivered() {
    let mut s = linux_sender(20, 1000);
    assert_eq!(drain(&mut s, ms(0)).len(), 20);
    // Segment 0 is lost; 1, 2 and 3 arrive. The first two SACKs wait for the reordering
    // window (min RTT / 4); the third reaches the duplicate threshold: RACK's window is
    // then zero and segment 0, sent before the SACKed ones an RTT ago, is lost.
    // Each SACKed segment leaves the flight, so a new one goes (as Limited Transmit would).
    assert_eq!(ack(&mut s, ms(100), 0, &[(1, 2)]), vec![(20, false)]);
    assert_eq!(ack(&mut s, ms(100), 0, &[(1, 3)]), vec![(21, false)]);
    assert_eq!(linux(&s).ca, CaState::Disorder);
    // Recovery: ssthresh = cwnd / 2 = 10; PRR sends ceil(10 x 1 / 20) - 0 = 1: the
    // retransmission.
    assert_eq!(ack(&mut s, ms(101), 0, &[(1, 4)]), vec![(0, true)]);
    assert_eq!(linux(&s).ca, CaState::Recovery);
    assert_eq!(s.ssthresh(), Window::segments(10));
    assert_eq!(s.stats().fast_retransmits, 1);
    // Each further SACKed segment: ceil(10 x delivered / 20) - sent: 0, 1, 0, 1, ...
    let mut sent = Vec::new();
    for k in 5..=12 {
        sent.push(ack(&mut s, ms(102), 0, &[(1, k)]).len());
    }
    assert_eq!(sent, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    // New data went out (22, 23, ...), as PRR releases it after the retransmission.
    assert_eq!(s.snd_max(), 26);
}

#[test]
fn recovery_ends_at_ssthresh_when_everything_outstanding_at_its_start_is_acknowledged() {
    let mut s = linux_sender(20, 1000);
    drain(&mut s, ms(0));
    for k in 2..=4 {
        ack(&mut s, ms(100), 0, &[(1, k)]);
    }
    // The retransmission of 0 arrives: everything up to 22 (snd_max when recovery began)
    // is acknowledged.
    ack(&mut s, ms(200), 22, &[]);
    assert_eq!(linux(&s).ca, CaState::Open);
    // cwnd = ssthresh = 10, then the 18 segments this ACK newly delivered count towards
    // congestion avoidance (tcp_cong_avoid_ai()): one segment more.
    assert_eq!(s.cwnd(), Window::segments(11));
}

#[test]
fn rack_marks_a_segment_lost_after_a_quarter_of_the_min_rtt_of_reordering_window() {
    let mut s = linux_sender(10, 1000);
    drain(&mut s, ms(0));
    // Only segment 1 is SACKed (below the duplicate threshold): segment 0 gets the
    // reordering window, min RTT (100 ms) / 4 = 25 ms, plus Linux's 2 ms timer slack.
    assert_eq!(ack(&mut s, ms(100), 0, &[(1, 2)]), vec![(10, false)]);
    assert_eq!(s.poll_timeout(), Some(ms(127)));
    assert_eq!(linux(&s).timer, XmitTimer::Reordering);
    s.on_timeout(ms(127));
    assert_eq!(drain(&mut s, ms(127)), vec![(0, true)]);
    assert_eq!(linux(&s).ca, CaState::Recovery);
}

#[test]
fn a_tail_loss_probe_goes_two_srtt_after_the_last_ack_and_its_sack_reveals_the_loss() {
    let mut s = linux_sender(10, 10);
    drain(&mut s, ms(0));
    // 8 and 9 are lost at the tail: the ACK of 0..7 brings SRTT = 100 ms; two segments are
    // out, so the probe waits 2 SRTT + 2 ms (not the 300 ms RTO).
    assert!(ack(&mut s, ms(100), 8, &[]).is_empty());
    assert_eq!(s.poll_timeout(), Some(ms(302)));
    assert_eq!(linux(&s).timer, XmitTimer::LossProbe);
    s.on_timeout(ms(302));
    // No new data left: the probe resends the last segment.
    assert_eq!(drain(&mut s, ms(302)), vec![(9, true)]);
    assert_eq!(linux(&s).probes, 1);
    // Its SACK arrives: 8, sent before 9's probe and older than RACK's RTT, is lost.
    assert_eq!(ack(&mut s, ms(402), 8, &[(9, 10)]), vec![(8, true)]);
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn a_timeout_retransmits_the_head_with_cwnd_one_and_keeps_ssthresh_set_in_recovery() {
    let mut s = linux_sender(20, 1000);
    drain(&mut s, ms(0));
    for k in 2..=4 {
        ack(&mut s, ms(100), 0, &[(1, k)]);
    }
    let ssthresh = s.ssthresh();
    // Nothing more comes back. The reordering timer armed by the first SACK fires first
    // (Linux keeps it over the head's retransmission), finds nothing new, and arms the
    // retransmission timer, which fires 300 ms later.
    let mut deadline = s.poll_timeout().unwrap();
    assert_eq!(deadline, ms(127));
    s.on_timeout(deadline);
    assert_eq!(s.stats().timeouts, 0);
    deadline = s.poll_timeout().unwrap();
    assert_eq!(deadline, ms(427));
    s.on_timeout(deadline);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(
        s.ssthresh(),
        ssthresh,
        "an RTO in recovery keeps the threshold"
    );
    let sent = drain(&mut s, deadline);
    assert_eq!(sent[0], (0, true), "the head first");
    assert_eq!(linux(&s).ca, CaState::Loss);
}

#[test]
fn pacing_spaces_segments_at_the_rate_after_the_first_ten() {
    let mut s = linux_sender_pacing(40, 1000, true);
    drain(&mut s, ms(0));
    // The ACK of 0..9 gives SRTT 100 ms; in slow start (cwnd < ssthresh / 2 with ssthresh
    // infinite) Linux paces at 200 % of cwnd / SRTT.
    let sent = ack(&mut s, ms(100), 10, &[]);
    let rate = s.pacing_rate().unwrap();
    let cwnd = s.cwnd().whole() as u64;
    assert_eq!(
        rate.0,
        8 * 1500 * cwnd * 2 * 10,
        "2 x cwnd x 1500 bytes per 100 ms"
    );
    // The first ten segments went unpaced; after that one per 1500-byte serialisation.
    assert!(!sent.is_empty());
    let gap = rate.tx_time_ns(1500);
    let release = s.poll_timeout().unwrap();
    assert!(
        release.0 > 100_000_000 && release.0 <= 100_000_000 + gap,
        "{release}"
    );
    let first = drain(&mut s, release);
    assert_eq!(first.len(), 1, "one segment per release");
    assert_eq!(s.poll_timeout(), Some(SimTime(release.0 + gap)));
}

/// 30 segments out at 0 ms, their ACKs every 0.2 ms from 100 ms on, two segments each, with
/// GSO buffers of at least 8 segments: what leaves on each ACK.
fn gso_ack_clock(gso: Gso) -> Vec<Vec<(u32, bool)>> {
    let mut s = linux_sender_gso(30, 1000, false, gso);
    assert_eq!(drain(&mut s, SimTime::ZERO).len(), 30);
    (1..=3)
        .map(|i| {
            ack(
                &mut s,
                SimTime(100_000_000 + (i - 1) * 200_000),
                2 * i as u32,
                &[],
            )
        })
        .collect()
}

#[test]
fn a_gso_buffer_the_window_would_cut_short_waits_for_the_ack_due_within_a_millisecond() {
    let gso = Gso {
        min_tso_segs: 8,
        ..Gso::LINUX
    };
    let sent = gso_ack_clock(gso);
    // 100 ms: the sender last sent 100 ms ago, so room for 4 goes at once
    // (tcp_tso_should_defer(): "only if the last write was recent").
    assert_eq!(sent[0], (30..34).map(|q| (q, false)).collect::<Vec<_>>());
    // 100.2 ms: room for 4 again, less than a buffer of 8 and less than a third of cwnd 34,
    // and the next ACK is due now: the buffer waits.
    assert!(sent[1].is_empty());
    // 100.4 ms: room for 8, a whole buffer: it leaves.
    assert_eq!(sent[2], (34..42).map(|q| (q, false)).collect::<Vec<_>>());
    // Without GSO each ACK's room leaves at once.
    let lens: Vec<usize> = gso_ack_clock(Gso::OFF).iter().map(Vec::len).collect();
    assert_eq!(lens, [4, 4, 4]);
}
