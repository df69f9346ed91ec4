//! Loss recovery: what the sender does between detecting a loss by duplicate ACKs and the
//! ACK that ends the episode. This is the second axis beside the congestion-control
//! variant (which only moves `cwnd` and `ssthresh`).

use crate::tcp::cc::NewRenoConfig;

/// Which SACK-based recovery to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackRecovery {
    /// ns-2.35's `Agent/TCP/Sack1`: a running `pipe_` counter, holes retransmitted once in
    /// order, the one the studies used.
    Ns2,
    /// RFC 6675's conservative algorithm: `pipe` recomputed from the scoreboard, `IsLost`,
    /// `NextSeg`.
    Rfc6675,
}

/// How the sender recovers from a loss detected by duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Tahoe: no fast recovery; resend from the hole on in slow start.
    GoBackN,
    /// Reno (RFC 5681 §3.2): inflate the window by each duplicate ACK; the first ACK of new
    /// data ends recovery, partial or not.
    Reno,
    /// NewReno (RFC 6582): partial ACKs retransmit the next hole and keep recovery going
    /// until everything outstanding at its start is acknowledged.
    NewReno(NewRenoConfig),
    /// SACK: the scoreboard says which segments to retransmit; a pipe estimate paces them.
    Sack(SackRecovery),
}

impl Recovery {
    /// True when the sender keeps a SACK scoreboard.
    pub fn uses_sack(&self) -> bool {
        matches!(self, Recovery::Sack(_))
    }

    /// Does an ACK of `ack` end the episode that began with `recover` outstanding?
    pub fn exits_on(&self, ack: u32, recover: u32) -> bool {
        match self {
            Recovery::GoBackN | Recovery::Reno => true,
            Recovery::NewReno(_) | Recovery::Sack(_) => ack >= recover,
        }
    }
}
