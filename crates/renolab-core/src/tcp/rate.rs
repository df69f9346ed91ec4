//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02; Linux
//! `net/ipv4/tcp_rate.c`): what each ACK says about the rate at which the path delivers.
//!
//! Each segment carries, from when it was sent, a snapshot of the connection's delivery
//! state ([`TxSnapshot`]); when it is acknowledged or SACKed, the difference between the
//! connection's state now and that snapshot is a sample of the delivery rate over an
//! interval at least one round trip long.

use crate::time::{SimDuration, SimTime};

/// One ACK's delivery-rate sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    /// Segments delivered over `interval` (the draft's `rs.delivered`).
    pub delivered: u32,
    /// The interval the segments were delivered over (the draft's `rs.interval`: the longer
    /// of the send and the ACK intervals).
    pub interval: SimDuration,
    /// The connection's delivered count when the sampled segment was sent
    /// (`rs.prior_delivered`): a round trip ends when an ACK's sample has this at or beyond
    /// the delivered count at the round's start.
    pub prior_delivered: u64,
    /// The sample was taken while the application, not the network, limited sending: it
    /// may underestimate the path (`rs.is_app_limited`).
    pub app_limited: bool,
    /// RTT of the most recently sent segment this ACK delivered.
    pub rtt: Option<SimDuration>,
    /// Segments newly marked lost while processing this ACK.
    pub losses: u32,
}

impl RateSample {
    /// The delivery rate in segments per second, if the interval is not empty.
    pub fn segments_per_sec(&self) -> Option<f64> {
        (self.interval.as_nanos() > 0)
            .then(|| self.delivered as f64 * 1e9 / self.interval.as_nanos() as f64)
    }
}

/// The connection's delivery state copied into a segment when it is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    /// `C.delivered` at send time.
    pub delivered: u64,
    /// `C.delivered_time` at send time.
    pub delivered_time: SimTime,
    /// `C.first_sent_time` at send time: when the first segment of the current flight was
    /// sent.
    pub first_sent_time: SimTime,
    /// The connection was application-limited when this segment was sent.
    pub app_limited: bool,
    /// Segments in flight just after this one left, it included (Google's BBRv3 tree:
    /// `tx.in_flight`).
    pub in_flight: u32,
    /// `C.lost` at send time, modulo 2^32 (the kernel's `u32 tx.lost`; differences wrap).
    pub lost: u32,
    /// `C.delivered_ce` at send time, modulo 2^32 (`tx.delivered_ce`; differences wrap).
    pub delivered_ce: u32,
}

/// What the segment an ACK's sample comes from says beyond the rate (the fields Google's
/// BBRv3 tree adds to Linux's `struct rate_sample`): valid on every ACK that delivered
/// something, also when the rate sample itself is discarded as shorter than the min RTT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSample {
    /// Segments in flight just after the sampled segment left, it included
    /// (`rs->tx_in_flight`); 0 when the ACK delivered nothing.
    pub tx_in_flight: u32,
    /// Segments marked lost since it left (`rs->lost` = `tp->lost - tx.lost`).
    pub lost: u32,
    /// Segments delivered since it left (`rs->delivered`).
    pub delivered: u32,
    /// Of those, delivered by ACKs echoing CE (`rs->delivered_ce`).
    pub delivered_ce: u32,
    /// It left while the application limited sending (`rs->is_app_limited`).
    pub app_limited: bool,
}

/// The connection's delivery state (the draft's `C.delivered`, `C.delivered_time`,
/// `C.first_sent_time`, `C.app_limited`; Linux `tp->delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`), and the sample being built for the current ACK.
#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    /// Segments delivered (cumulatively ACKed or SACKed) so far.
    pub delivered: u64,
    /// When `delivered` last grew.
    pub delivered_time: SimTime,
    /// Send time of the most recently delivered segment: the start of the current flight.
    pub first_sent_time: SimTime,
    /// While non-zero, the delivered count at which the application-limited period ends.
    pub app_limited_until: u64,
    /// Of the delivered segments, those the receiver got CE-marked (`tp->delivered_ce`),
    /// counted as the ACKs report them: AccECN's ACE field, or under RFC 3168 every segment
    /// an ECN-Echo ACK delivers (`tcp_count_delivered()`).
    pub delivered_ce: u64,
    /// The last ACK's [`TxSample`].
    pub last_tx: TxSample,
    /// The sample of the ACK being processed: from the most recently sent segment it
    /// delivered.
    sample: Option<Building>,
}

/// A sample while the ACK's segments are being delivered.
#[derive(Clone, Copy, Debug)]
struct Building {
    prior_delivered: u64,
    prior_time: SimTime,
    send_interval: SimDuration,
    app_limited: bool,
    /// Send time and number of the segment the sample comes from.
    xmit_time: SimTime,
    seq: u32,
    /// Its snapshot's flight, lost and CE counts.
    tx_in_flight: u32,
    tx_lost: u32,
    tx_delivered_ce: u32,
}

impl RateEstimator {
    /// The snapshot for a segment sent at `now`, with `packets_out` segments already out
    /// (draft §3.2 "Transmitting a data packet"; Linux `tcp_rate_skb_sent()`), `in_flight`
    /// in the network with it and `lost` marked lost so far.
    pub fn on_sent(
        &mut self,
        now: SimTime,
        packets_out: u32,
        in_flight: u32,
        lost: u64,
    ) -> TxSnapshot {
        if packets_out == 0 {
            // The first segment of a flight: the send and ACK phases start now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
            in_flight,
            lost: lost as u32,
            delivered_ce: self.delivered_ce as u32,
        }
    }

    /// Segment `seq`, last sent at `xmit_time` with snapshot `tx`, was delivered by the ACK
    /// being processed (draft §3.3 "Upon receiving an ACK"; Linux
    /// `tcp_rate_skb_delivered()`): the most recently sent such segment gives the sample.
    pub fn on_delivered(&mut self, seq: u32, xmit_time: SimTime, tx: &TxSnapshot) {
        self.delivered += 1;
        let newer = match self.sample {
            None => true,
            Some(b) => xmit_time > b.xmit_time || (xmit_time == b.xmit_time && seq > b.seq),
        };
        if newer {
            self.sample = Some(Building {
                prior_delivered: tx.delivered,
                prior_time: tx.delivered_time,
                send_interval: xmit_time.saturating_since(tx.first_sent_time),
                app_limited: tx.app_limited,
                xmit_time,
                seq,
                tx_in_flight: tx.in_flight,
                tx_lost: tx.lost,
                tx_delivered_ce: tx.delivered_ce,
            });
            self.first_sent_time = xmit_time;
        }
    }

    /// Finishes the ACK at `now` (Linux `tcp_rate_gen()`): `delivered` segments were newly
    /// delivered, `losses` newly marked lost (`lost` so far), with [`Self::delivered_ce`]
    /// already counting the CE marks it reported; samples shorter than `min_rtt` are discarded (they cannot span a round trip), but
    /// still give [`Self::last_tx`]. Returns the sample, if the ACK gives one.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: SimTime,
        delivered: u32,
        losses: u32,
        lost: u64,
        min_rtt: Option<SimDuration>,
        rtt: Option<SimDuration>,
    ) -> Option<RateSample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if delivered > 0 {
            self.delivered_time = now;
        }
        self.last_tx = TxSample::default();
        let b = self.sample.take()?;
        self.last_tx = TxSample {
            tx_in_flight: b.tx_in_flight,
            lost: (lost as u32).wrapping_sub(b.tx_lost),
            delivered: (self.delivered - b.prior_delivered) as u32,
            delivered_ce: (self.delivered_ce as u32).wrapping_sub(b.tx_delivered_ce),
            app_limited: b.app_limited,
        };
        let ack_interval = now.saturating_since(b.prior_time);
        // The longer of the send and ACK phases, so that neither a burst of sends nor a
        // burst of ACKs (ACK compression) inflates the rate.
        let interval = b.send_interval.max(ack_interval);
        if min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivered: (self.delivered - b.prior_delivered) as u32,
            interval,
            prior_delivered: b.prior_delivered,
            app_limited: b.app_limited,
            rtt,
            losses,
        })
    }

    /// The application has nothing to send while the window has room (draft §3.4; Linux
    /// `tcp_rate_check_app_limited()`): samples until this flight is delivered may
    /// underestimate the path.
    pub fn on_app_limited(&mut self, in_flight: u32) {
        self.app_limited_until = (self.delivered + in_flight as u64).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    #[test]
    fn a_sample_spans_from_the_send_of_the_acked_segment_to_its_ack() {
        let mut r = RateEstimator::default();
        // Ten segments sent back to back at t = 0 .. 9 ms, ACKed one by one 100 ms later.
        let snaps: Vec<_> = (0..10)
            .map(|i| (t(i), r.on_sent(t(i), i as u32, 0, 0)))
            .collect();
        let mut last = None;
        for (i, (sent, tx)) in snaps.iter().enumerate() {
            r.on_delivered(i as u32, *sent, tx);
            last = r.on_ack(t(100 + i as u64), 1, 0, 0, None, None);
        }
        let s = last.unwrap();
        // The 10th segment was sent with nothing delivered; delivered 10 over
        // max(send 9 ms, ack 109 ms) = 109 ms.
        assert_eq!(
            (s.delivered, s.interval, s.prior_delivered),
            (10, t(109) - t(0), 0)
        );
        assert!(!s.app_limited);
    }

    #[test]
    fn samples_shorter_than_the_min_rtt_are_dropped() {
        let mut r = RateEstimator::default();
        let tx = r.on_sent(t(0), 0, 0, 0);
        r.on_delivered(0, t(0), &tx);
        let ms = SimDuration::from_millis;
        assert_eq!(r.on_ack(t(5), 1, 0, 0, Some(ms(10)), None), None);
    }

    #[test]
    fn samples_are_delivered_over_interval_through_an_application_limited_pause() {
        let mut r = RateEstimator::default();
        // A flight of four segments sent 1 ms apart, ACKed one by one 100 ms later.
        let tx: Vec<_> = (0..4).map(|i| r.on_sent(t(i), i as u32, 0, 0)).collect();
        let mut samples = vec![];
        for (i, snap) in tx.iter().enumerate() {
            r.on_delivered(i as u32, t(i as u64), snap);
            let s = r.on_ack(t(100 + i as u64), 1, 0, 0, None, None).unwrap();
            samples.push((
                s.delivered,
                s.interval.as_nanos() / 1_000_000,
                s.app_limited,
            ));
        }
        // Each: everything delivered since the flight began, over the ACK phase.
        assert_eq!(
            samples,
            vec![
                (1, 100, false),
                (2, 101, false),
                (3, 102, false),
                (4, 103, false)
            ]
        );
        // The application runs dry with nothing in flight; it writes again at 200 ms.
        r.on_app_limited(0);
        let a = r.on_sent(t(200), 0, 0, 0);
        r.on_delivered(4, t(200), &a);
        let s = r.on_ack(t(300), 1, 0, 0, None, None).unwrap();
        assert_eq!(
            (s.delivered, s.interval, s.app_limited),
            (1, t(100) - t(0), true)
        );
        // That ACK delivered the bubble: the next segment's sample is the network's again.
        let b = r.on_sent(t(301), 0, 0, 0);
        r.on_delivered(5, t(301), &b);
        let s = r.on_ack(t(451), 1, 0, 0, None, None).unwrap();
        assert_eq!(
            (s.delivered, s.interval, s.app_limited),
            (1, t(150) - t(0), false)
        );
        assert_eq!(s.prior_delivered, 5);
    }

    #[test]
    fn app_limited_marks_samples_until_the_flight_is_delivered() {
        let mut r = RateEstimator::default();
        r.on_app_limited(2);
        let a = r.on_sent(t(0), 0, 0, 0);
        assert!(a.app_limited);
        r.on_delivered(0, t(0), &a);
        assert!(r.on_ack(t(50), 1, 0, 0, None, None).unwrap().app_limited);
        r.delivered = 5;
        r.on_ack(t(60), 0, 0, 0, None, None);
        assert_eq!(r.app_limited_until, 0, "the bubble is gone");
        assert!(!r.on_sent(t(61), 1, 0, 0).app_limited);
    }

    #[test]
    fn the_tx_sample_counts_the_flight_losses_and_ce_marks_since_the_sampled_segment_left() {
        let mut r = RateEstimator::default();
        // Two segments leave with 5 and 6 in flight, 1 lost so far; three are then lost.
        let a = r.on_sent(t(0), 0, 5, 1);
        let b = r.on_sent(t(1), 1, 6, 1);
        r.on_delivered(0, t(0), &a);
        r.delivered_ce += 1;
        r.on_ack(t(100), 1, 0, 4, None, None);
        // The first ACK echoed CE: one CE-marked delivery since `a` left.
        assert_eq!(
            r.last_tx,
            TxSample {
                tx_in_flight: 5,
                lost: 3,
                delivered: 1,
                delivered_ce: 1,
                app_limited: false
            }
        );
        r.on_delivered(1, t(1), &b);
        r.on_ack(t(101), 1, 0, 4, None, None);
        // `b` left before either delivery: both count, the CE-marked one too.
        assert_eq!(
            (
                r.last_tx.tx_in_flight,
                r.last_tx.delivered,
                r.last_tx.delivered_ce
            ),
            (6, 2, 1)
        );
        // An ACK that delivers nothing gives no tx sample.
        r.on_ack(t(102), 0, 0, 4, None, None);
        assert_eq!(r.last_tx, TxSample::default());
    }
}
