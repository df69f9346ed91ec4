//! Scripted sender tests: feed ACKs by hand, check what goes out and the window after
//! each event, exactly.

use crate::packet::sack::SackBlocks;
use crate::tcp::cc::{Cc, NewReno, Reno, Vegas, VegasConfig};
use crate::tcp::config::{Dialect, SenderConfig, Transfer};
use crate::tcp::recovery::{NewRenoConfig, RecoveryKind, TimerReset};
use crate::tcp::sender::{tests_support, SegmentKind, TcpSender, Transmit};
use crate::tcp::window::Window;
use crate::time::SimDuration;
use crate::time::SimTime;

fn config(recovery: RecoveryKind) -> SenderConfig {
    SenderConfig {
        recovery,
        ..tests_support::config()
    }
}

fn sender_with(cc: Cc, recovery: RecoveryKind, segments: u64) -> TcpSender {
    let transfer = Transfer {
        mss: 1000,
        bytes: Some(segments * 1000),
    };
    let mut s = TcpSender::new(config(recovery), transfer, cc, 0);
    s.start(SimTime::ZERO);
    s
}

fn reno(iw: u32, segments: u64) -> TcpSender {
    sender_with(
        Cc::Reno(Reno::new(iw, u32::MAX, false)),
        RecoveryKind::Reno,
        segments,
    )
}

/// Everything the sender sends at `now`, polling until `None`: a segment marked
/// [`Transmit::last`] (where the engine stops polling) must be the last one.
fn drain(s: &mut TcpSender, now: SimTime) -> Vec<(u32, bool)> {
    let sent: Vec<Transmit> = std::iter::from_fn(|| s.poll_transmit(now)).collect();
    let early = sent.iter().rev().skip(1).find(|t| t.last);
    assert!(early.is_none(), "{early:?} marked last, then more went");
    sent.iter().map(|t| (t.seq, t.retransmit)).collect()
}

#[test]
fn the_segment_that_fills_the_window_is_marked_last() {
    // Reno's recovery leaves the choice to the window: the engine can stop polling at the
    // segment that fills it.
    let mut s = reno(2, 100);
    let first: Vec<bool> = std::iter::from_fn(|| s.poll_transmit(ms(0)))
        .map(|t| t.last)
        .collect();
    assert_eq!(first, vec![false, true]);
    s.on_ack(ms(10), 1, &SackBlocks::EMPTY);
    let next: Vec<bool> = std::iter::from_fn(|| s.poll_transmit(ms(10)))
        .map(|t| t.last)
        .collect();
    assert_eq!(next, vec![false, true], "slow start: two for one");
    // The end of the transfer spends it too.
    let mut short = reno(4, 1);
    assert!(short.poll_transmit(ms(0)).unwrap().last);
    assert_eq!(short.poll_transmit(ms(0)), None);
}

fn ack(s: &mut TcpSender, t: SimTime, a: u32) -> Vec<(u32, bool)> {
    s.on_ack(t, a, &SackBlocks::EMPTY);
    drain(s, t)
}

/// The sender's settings, to change between events.
fn config_mut(s: &mut TcpSender) -> &mut SenderConfig {
    match s {
        TcpSender::Reno(c) => &mut c.conn_mut().config,
        TcpSender::Classic(c) => &mut c.conn_mut().config,
        TcpSender::Vegas(c) => &mut c.conn_mut().config,
        TcpSender::Ns2Vegas(c) => &mut c.conn_mut().config,
        TcpSender::Linux(_) => panic!("a classic sender"),
    }
}

/// ns-2's Vegas sender.
fn classic(s: &TcpSender) -> &super::ClassicSender<Vegas, crate::tcp::recovery::VegasNs2> {
    match s {
        TcpSender::Ns2Vegas(c) => c,
        _ => panic!("ns-2's Vegas sender"),
    }
}

fn ms(n: u64) -> SimTime {
    SimTime(n * 1_000_000)
}

fn w(n: u32) -> Window {
    Window::segments(n)
}

/// Fast retransmits, retransmissions and timeouts so far.
fn loss_counts(s: &TcpSender) -> (u64, u64, u64) {
    let st = s.stats();
    (st.fast_retransmits, st.retransmits, st.timeouts)
}

#[test]
fn sends_the_initial_window_then_waits() {
    let mut s = reno(2, 100);
    assert_eq!(drain(&mut s, ms(0)), vec![(0, false), (1, false)]);
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
}

#[test]
fn each_ack_in_slow_start_releases_two_segments() {
    let mut s = reno(1, 100);
    drain(&mut s, ms(0));
    assert_eq!(ack(&mut s, ms(100), 1), vec![(1, false), (2, false)]);
    assert_eq!(s.cwnd(), w(2));
    // The RTT sample (100 ms) set the RTO to 300 ms from this ACK.
    assert_eq!(s.poll_timeout(), Some(ms(400)));
}

/// Sends segments 0..12 with cwnd 12 and ssthresh high: returns the sender.
fn twelve_outstanding(mut s: TcpSender) -> TcpSender {
    drain(&mut s, ms(0));
    let mut a = 1;
    while s.snd_max() < 12 {
        ack(&mut s, ms(100), a);
        a += 1;
    }
    // ACKs up to 3: window 12 at una 3 lets 3..15 go; keep it simple: una = 3.
    s
}

#[test]
fn reno_fast_retransmits_after_three_duplicates_and_deflates_on_new_data() {
    let mut s = twelve_outstanding(reno(1, 100));
    let una = s.snd_una();
    let max = s.snd_max();
    let flight = max - una;
    assert!(ack(&mut s, ms(101), una).is_empty());
    assert!(ack(&mut s, ms(101), una).is_empty());
    assert_eq!(
        ack(&mut s, ms(102), una),
        vec![(una, true)],
        "fast retransmit on the 3rd"
    );
    assert_eq!(s.ssthresh(), w(flight / 2));
    assert_eq!(s.cwnd(), w(flight / 2));
    assert_eq!(s.inflated_cwnd(), w(flight / 2 + 3));
    assert!(s.in_fast_recovery());
    // A 4th duplicate inflates by one.
    ack(&mut s, ms(103), una);
    assert_eq!(s.inflated_cwnd(), w(flight / 2 + 4));
    // New data ends recovery: cwnd deflates to ssthresh.
    ack(&mut s, ms(150), max);
    assert!(!s.in_fast_recovery());
    assert_eq!(s.inflated_cwnd(), w(flight / 2));
    assert_eq!(loss_counts(&s), (1, 1, 0));
}

#[test]
fn tahoe_restarts_slow_start_and_resends_from_the_hole() {
    let s = sender_with(
        Cc::Reno(Reno::new(1, u32::MAX, false)),
        RecoveryKind::Tahoe,
        100,
    );
    let mut s = twelve_outstanding(s);
    let una = s.snd_una();
    ack(&mut s, ms(101), una);
    ack(&mut s, ms(101), una);
    assert_eq!(ack(&mut s, ms(102), una), vec![(una, true)]);
    assert_eq!(s.cwnd(), w(1));
    assert!(!s.in_fast_recovery());
    // The next new ACK opens to 2 and resends what follows, again.
    assert_eq!(
        ack(&mut s, ms(200), una + 1),
        vec![(una + 1, true), (una + 2, true)]
    );
}

fn newreno(cfg: NewRenoConfig) -> TcpSender {
    sender_with(
        Cc::NewReno(NewReno::new(1, u32::MAX, false, false)),
        RecoveryKind::NewReno(cfg),
        100,
    )
}

#[test]
fn newreno_retransmits_the_next_hole_on_a_partial_ack_and_stays_in_recovery() {
    let mut s = twelve_outstanding(newreno(NewRenoConfig::default()));
    let una = s.snd_una();
    let max = s.snd_max();
    for _ in 0..3 {
        ack(&mut s, ms(101), una);
    }
    assert!(s.in_fast_recovery());
    let before = s.inflated_cwnd();
    // Segments una and una+2 were lost: the retransmission of una brings a partial ACK.
    assert_eq!(ack(&mut s, ms(150), una + 2), vec![(una + 2, true)]);
    assert!(s.in_fast_recovery());
    // Partial window deflation: down by the 2 acknowledged, up by one.
    assert_eq!(s.inflated_cwnd(), before.minus(1));
    ack(&mut s, ms(200), max);
    assert!(!s.in_fast_recovery());
    assert_eq!(loss_counts(&s), (1, 2, 0));
}

#[test]
fn impatient_newreno_restarts_the_timer_only_on_the_first_partial_ack() {
    let cfg = NewRenoConfig::default();
    assert_eq!(
        cfg.timer_reset,
        TimerReset::Impatient,
        "RFC 6582 §3.2 step 5"
    );
    let mut s = twelve_outstanding(newreno(cfg));
    let una = s.snd_una();
    for _ in 0..3 {
        ack(&mut s, ms(101), una);
    }
    ack(&mut s, ms(150), una + 1);
    let after_first = s.poll_timeout();
    ack(&mut s, ms(250), una + 2);
    assert_eq!(
        s.poll_timeout(),
        after_first,
        "second partial ACK leaves the timer"
    );
}

#[test]
fn slow_but_steady_newreno_restarts_the_timer_on_every_partial_ack() {
    let cfg = NewRenoConfig {
        timer_reset: TimerReset::SlowButSteady,
        ..NewRenoConfig::default()
    };
    let mut s = twelve_outstanding(newreno(cfg));
    let una = s.snd_una();
    for _ in 0..3 {
        ack(&mut s, ms(101), una);
    }
    ack(&mut s, ms(150), una + 1);
    let after_first = s.poll_timeout();
    ack(&mut s, ms(250), una + 2);
    assert_eq!(
        s.poll_timeout(),
        after_first.map(|t| t + SimDuration::from_millis(100))
    );
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    let mut s = twelve_outstanding(reno(1, 100));
    config_mut(&mut s).limited_transmit = true;
    let una = s.snd_una();
    let max = s.snd_max();
    assert_eq!(ack(&mut s, ms(101), una), vec![(max, false)]);
    assert_eq!(ack(&mut s, ms(101), una), vec![(max + 1, false)]);
    assert_eq!(
        ack(&mut s, ms(101), una),
        vec![(una, true)],
        "then the fast retransmit"
    );
}

#[test]
fn limited_transmit_segments_are_left_out_of_the_flight_a_fast_retransmit_halves() {
    let mut s = twelve_outstanding(reno(1, 100));
    config_mut(&mut s).limited_transmit = true;
    let una = s.snd_una();
    let flight = s.snd_max() - una;
    ack(&mut s, ms(101), una);
    ack(&mut s, ms(101), una);
    assert_eq!(
        s.snd_max() - una,
        flight + 2,
        "two segments by Limited Transmit"
    );
    ack(&mut s, ms(101), una);
    // RFC 5681 §3.2 step 2: ssthresh = FlightSize / 2 without them.
    assert_eq!(s.ssthresh(), w(flight / 2));
}

#[test]
fn a_timeout_goes_back_to_the_first_unacked_segment_with_a_doubled_rto() {
    let mut s = reno(4, 100);
    drain(&mut s, ms(0));
    s.on_timeout(ms(999));
    assert_eq!(s.stats().timeouts, 0, "not yet due");
    s.on_timeout(ms(1000));
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(s.cwnd(), w(1));
    assert_eq!(s.ssthresh(), w(2));
    assert_eq!(drain(&mut s, ms(1000)), vec![(0, true)]);
    assert_eq!(s.poll_timeout(), Some(ms(3000)), "backed off to 2 s");
    // The ACK of the retransmission gives no RTT sample (Karn); slow start resends 1, 2.
    assert_eq!(ack(&mut s, ms(1100), 1), vec![(1, true), (2, true)]);
}

#[test]
fn duplicates_of_segments_sent_before_a_timeout_do_not_fast_retransmit() {
    let mut s = reno(8, 100);
    drain(&mut s, ms(0));
    s.on_timeout(ms(1000));
    drain(&mut s, ms(1000));
    for _ in 0..5 {
        ack(&mut s, ms(1100), 0);
    }
    assert_eq!(
        s.stats().fast_retransmits,
        0,
        "snd_una has not passed recover"
    );
}

#[test]
fn a_finite_transfer_stops_at_its_last_segment() {
    let mut s = reno(10, 3);
    assert_eq!(drain(&mut s, ms(0)).len(), 3);
    ack(&mut s, ms(100), 3);
    assert!(s.is_complete());
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn with_a_handshake_data_waits_for_the_syn_ack() {
    let transfer = Transfer {
        mss: 1000,
        bytes: Some(10_000),
    };
    let cfg = SenderConfig {
        handshake: true,
        initial_window: 2,
        ..config(RecoveryKind::Reno)
    };
    let mut s = TcpSender::new(cfg, transfer, Cc::Reno(Reno::new(2, u32::MAX, false)), 0);
    s.start(ms(0));
    let syn = s.poll_transmit(ms(0)).unwrap();
    assert_eq!(syn.kind, SegmentKind::Syn);
    assert_eq!(s.poll_transmit(ms(0)), None);
    s.on_syn_ack(ms(100));
    assert_eq!(drain(&mut s, ms(100)), vec![(0, false), (1, false)]);
    // The SYN's RTT (100 ms) is the first sample: RTO = 100 + 4 * 50 = 300 ms.
    assert_eq!(s.poll_timeout(), Some(ms(400)));
}

#[test]
fn sack_recovery_retransmits_every_hole_before_the_first_partial_ack() {
    for mode in [RecoveryKind::Sack, RecoveryKind::Rfc6675] {
        let cc = Cc::Reno(Reno::new(1, u32::MAX, false));
        let mut s = twelve_outstanding(sender_with(cc, mode, 100));
        let una = s.snd_una();
        let max = s.snd_max();
        // una and una+2 are lost; the other segments of the window arrive one by one and
        // each brings a duplicate ACK with SACK blocks, newest block first.
        let mut sent = Vec::new();
        for arrived in (una + 1..max).filter(|&x| x != una + 2) {
            let mut b = SackBlocks::EMPTY;
            if arrived > una + 2 {
                b.push(una + 3, arrived + 1);
            }
            b.push(una + 1, una + 2);
            s.on_ack(ms(101), una, &b);
            sent.extend(drain(&mut s, ms(101)));
        }
        assert!(s.in_fast_recovery());
        let retransmitted: Vec<u32> = sent.iter().filter(|x| x.1).map(|x| x.0).collect();
        assert_eq!(retransmitted, vec![una, una + 2], "{mode:?}: {sent:?}");
        assert_eq!(s.stats().fast_retransmits, 1);
    }
}

#[test]
fn sack_blocks_reaching_past_the_data_sent_are_ignored() {
    // Found by fuzzing: blocks for segments never sent were kept on the scoreboard, and
    // RFC 6675 recovery then sent "new" data past them (segment 248 after 39), leaving
    // segments 40..248 never sent.
    let cc = Cc::Reno(Reno::new(40, u32::MAX, false));
    let cfg = SenderConfig {
        dupack_threshold: 1,
        ..config(RecoveryKind::Rfc6675)
    };
    let transfer = Transfer {
        mss: 1000,
        bytes: None,
    };
    let mut s = TcpSender::new(cfg, transfer, cc, 0);
    s.start(ms(0));
    let mut bogus = SackBlocks::EMPTY;
    bogus.push(255, 510);
    bogus.push(2, 248);
    s.on_ack(ms(0), 0, &bogus);
    assert_eq!(drain(&mut s, ms(0)).len(), 40);
    s.on_ack(ms(0), 0, &SackBlocks::EMPTY);
    let sent = drain(&mut s, ms(0));
    let new: Vec<u32> = sent.iter().filter(|x| !x.1).map(|x| x.0).collect();
    assert!(
        new.iter().enumerate().all(|(i, &seq)| seq == 40 + i as u32),
        "{sent:?}"
    );
}

/// ns-2's Vegas (Limited Transmit asked for, and ignored): segments 0..8 sent at 0 ms and
/// acknowledged at 100 ms, which lets 8..=16 go (cwnd 8 + 8/8).
fn ns2_vegas() -> TcpSender {
    let mut vegas = Vegas::new(8, 2, VegasConfig::default());
    vegas.reproduce_ns2_artefacts(1000);
    let cc = Cc::Vegas(vegas);
    let cfg = SenderConfig {
        dialect: Dialect::Ns2,
        limited_transmit: true,
        ..config(RecoveryKind::Reno)
    };
    let transfer = Transfer {
        mss: 1000,
        bytes: Some(100 * 1000),
    };
    let mut s = TcpSender::new(cfg, transfer, cc, 0);
    s.start(ms(0));
    drain(&mut s, ms(0));
    for a in 1..=8 {
        ack(&mut s, ms(100), a);
    }
    assert_eq!((s.snd_una(), s.snd_max(), s.cwnd()), (8, 17, w(9)));
    s
}

#[test]
fn ns2_vegas_retransmits_on_the_third_duplicate_inflates_by_further_ones_and_deflates() {
    let mut s = ns2_vegas();
    assert!(ack(&mut s, ms(110), 8).is_empty(), "no Limited Transmit");
    assert!(ack(&mut s, ms(111), 8).is_empty());
    let rto = classic(&s).conn().rtt.rto();
    // 9 - 9/4 = 7, plus the 3 duplicates: one new segment fits.
    assert_eq!(ack(&mut s, ms(112), 8), vec![(8, true), (17, false)]);
    assert_eq!(s.cwnd(), w(10));
    // Unlike Reno's, Vegas's fast retransmit backs the timer off.
    assert_eq!(s.poll_timeout(), Some(ms(112) + rto.saturating_double()));
    assert!(!s.in_fast_recovery());
    assert_eq!(
        ack(&mut s, ms(113), 8),
        vec![(18, false)],
        "a 4th duplicate inflates by one"
    );
    assert_eq!(s.cwnd(), w(11));
    // New data takes the inflation back and ends slow start.
    let sent = ack(&mut s, ms(200), 17);
    assert_eq!(sent, (19..24).map(|q| (q, false)).collect::<Vec<_>>());
    assert_eq!((s.cwnd(), s.ssthresh()), (w(7), w(2)));
    assert_eq!(loss_counts(&s), (1, 1, 0));
}

#[test]
fn ns2_vegas_retransmits_an_expired_segment_on_the_next_new_acks() {
    let mut s = ns2_vegas();
    ack(&mut s, ms(110), 8);
    ack(&mut s, ms(111), 8);
    assert_eq!(ack(&mut s, ms(112), 8), vec![(8, true), (17, false)]);
    // Segment 10 is lost too. The ACK of 8 and 9 comes 300 ms after 10 left, past its
    // fine-grained timeout (0.28 s with this ACK's sample): 10 goes at once. The round
    // also saw 6 segments queued: one off the window (10, three duplicates not deflated).
    assert_eq!(ack(&mut s, ms(400), 10), vec![(10, true), (18, false)]);
    assert_eq!(s.cwnd(), w(9));
    // ns-2 counts that as a third duplicate: the next one inflates.
    assert_eq!(ack(&mut s, ms(410), 10), vec![(19, false)]);
    // The ACK of everything deflates to 7. ns-2 still checks the segment after it, not
    // sent yet, finds its record "expired", sends it, and sends it again from the window.
    let sent = ack(&mut s, ms(500), 20);
    let mut want = vec![(20, false), (20, true)];
    want.extend((21..27).map(|q| (q, false)));
    assert_eq!(sent, want);
    assert_eq!(s.cwnd(), w(7));
    assert_eq!((s.stats().fast_retransmits, s.stats().retransmits), (1, 3));
}

/// What went out after each event, and the window after it: cwnd, ssthresh, inflated cwnd.
type Log = Vec<(Vec<(u32, bool)>, Window, Window, Window)>;

/// The same script on a sender: ACKs (with duplicates and a timeout), what went out after
/// each, and the window.
fn script(mut s: TcpSender) -> Log {
    let mut log = vec![(
        drain(&mut s, ms(0)),
        s.cwnd(),
        s.ssthresh(),
        s.inflated_cwnd(),
    )];
    let acks = [1, 2, 3, 3, 3, 3, 3, 3, 9, 10, 10, 10, 10, 14];
    for (i, &a) in acks.iter().enumerate() {
        let t = ms(10 * (i as u64 + 1));
        log.push((ack(&mut s, t, a), s.cwnd(), s.ssthresh(), s.inflated_cwnd()));
    }
    let late = ms(5_000);
    s.on_timeout(late);
    log.push((
        drain(&mut s, late),
        s.cwnd(),
        s.ssthresh(),
        s.inflated_cwnd(),
    ));
    log
}

#[test]
fn reno_with_reno_recovery_has_its_own_arm_that_behaves_as_the_generic_one() {
    let own = reno(4, 50);
    assert!(matches!(own, TcpSender::Reno(_)));
    let mut generic = own_config_as_generic();
    assert!(matches!(generic, TcpSender::Classic(_)));
    generic.start(SimTime::ZERO);
    assert_eq!(script(own), script(generic));
}

/// The Reno controller with Reno's recovery in the generic arm, as the flows had it before
/// their arm of their own.
fn own_config_as_generic() -> TcpSender {
    let transfer = Transfer {
        mss: 1000,
        bytes: Some(50_000),
    };
    TcpSender::Classic(super::ClassicSender::new(
        config(RecoveryKind::Reno),
        transfer,
        Cc::Reno(Reno::new(4, u32::MAX, false)),
        crate::tcp::recovery::Recovery::new(RecoveryKind::Reno),
        0,
        false,
    ))
}
