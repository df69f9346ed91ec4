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
}
