//! Proportional Rate Reduction (RFC 6937) as Linux runs it (`tcp_cwnd_reduction()` in
//! `net/ipv4/tcp_input.c`): during a window reduction (fast recovery, or ECN's CWR), each
//! ACK lets the sender send in proportion to what was delivered, so that the window comes
//! down to ssthresh smoothly over one round trip instead of in one step (RFC 6675) or after
//! a pause (Reno), and climbs back to ssthresh by slow start if the losses were heavy.

/// PRR's counters for one reduction episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// The window when the reduction began (`RecoverFS` of the RFC; Linux `prior_cwnd`).
    pub prior_cwnd: u32,
    /// Segments delivered since (`prr_delivered`).
    pub delivered: u32,
    /// Segments sent since (`prr_out`).
    pub out: u32,
}

impl Prr {
    /// A reduction from a window of `prior_cwnd` segments begins (Linux
    /// `tcp_init_cwnd_reduction()`).
    pub fn begin(prior_cwnd: u32) -> Self {
        Prr {
            prior_cwnd: prior_cwnd.max(1),
            delivered: 0,
            out: 0,
        }
    }

    /// An ACK delivered `delivered` segments (newly ACKed or SACKed) and revealed
    /// `newly_lost` losses; `in_flight` segments are in the network after it and the target
    /// is `ssthresh`. Returns the new cwnd: `in_flight + sndcnt`, `sndcnt` being what PRR
    /// allows now. `snd_una_advanced`: the cumulative ACK moved.
    pub fn on_ack(
        &mut self,
        delivered: u32,
        newly_lost: u32,
        snd_una_advanced: bool,
        in_flight: u32,
        ssthresh: u32,
    ) -> Option<u32> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let delta = ssthresh as i64 - in_flight as i64;
        let mut sndcnt: i64 = if delta < 0 {
            // RFC 6937 proportional part: sndcnt = CEIL(prr_delivered * ssthresh /
            // RecoverFS) - prr_out.
            let target = (ssthresh as u64 * self.delivered as u64).div_ceil(self.prior_cwnd as u64);
            target as i64 - self.out as i64
        } else {
            // Below ssthresh: packet conservation (what was delivered), plus one segment of
            // slow start when the cumulative ACK moves and nothing new was lost (Linux's
            // PRR-SSRB variant), but never past ssthresh.
            let mut n = (self.delivered as i64 - self.out as i64).max(delivered as i64);
            if snd_una_advanced && newly_lost == 0 {
                n += 1;
            }
            n.min(delta)
        };
        // Force the fast retransmit out on the ACK that starts recovery.
        if self.out == 0 {
            sndcnt = sndcnt.max(1);
        }
        Some((in_flight as i64 + sndcnt.max(0)) as u32)
    }

    /// A segment left during the reduction.
    pub fn on_sent(&mut self) {
        self.out += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 Figure 2's example: 20 segments outstanding, one lost, ssthresh 10: PRR
    /// sends one segment for every two delivered, spreading the reduction over the RTT.
    #[test]
    fn above_ssthresh_prr_sends_in_proportion_to_deliveries() {
        let mut p = Prr::begin(20);
        let ssthresh = 10;
        let mut in_flight = 19; // one lost
        let mut sent = vec![];
        for _ in 0..18 {
            in_flight -= 1; // one segment delivered per ACK
            let cwnd = p.on_ack(1, 0, false, in_flight, ssthresh).unwrap();
            let n = cwnd.saturating_sub(in_flight);
            for _ in 0..n {
                p.on_sent();
                in_flight += 1;
            }
            sent.push(n);
        }
        // Total sent over 18 deliveries: ceil(18 * 10 / 20) = 9.
        assert_eq!(sent.iter().sum::<u32>(), 9);
        // The first ACK sends the retransmission (forced), then every other ACK one.
        assert_eq!(&sent[..6], &[1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn below_ssthresh_prr_conserves_and_slow_starts_on_progress() {
        // Heavy loss: 5 in flight, ssthresh 10.
        let mut p = Prr::begin(20);
        p.out = 3;
        p.delivered = 2;
        // An ACK delivering 2 with snd_una advancing and no new loss: max(4-3, 2) + 1 = 3.
        assert_eq!(p.on_ack(2, 0, true, 5, 10), Some(8));
        // The same without progress: packet conservation only, 2.
        let mut q = Prr::begin(20);
        q.out = 3;
        q.delivered = 2;
        assert_eq!(q.on_ack(2, 0, false, 5, 10), Some(7));
        // Never past ssthresh: 9 in flight leaves room for one.
        let mut r = Prr::begin(20);
        r.out = 1;
        assert_eq!(r.on_ack(4, 0, true, 9, 10), Some(10));
    }

    #[test]
    fn nothing_delivered_changes_nothing() {
        assert_eq!(Prr::begin(10).on_ack(0, 0, true, 5, 5), None);
    }
}
