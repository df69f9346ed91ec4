//! Explicit Congestion Notification at the endpoints (RFC 3168 §6.1), and DCTCP's exact
//! echo (RFC 8257 §3.2).
//!
//! - The sender marks its data ECT(0) and, after reducing its window, sets CWR on the next
//!   segment ([`EcnSender`]). How it reduces is the sender's: the classic sender answers an
//!   ECN-Echo once per window without retransmitting (`sender/classic/ack.rs`,
//!   `respond_to_ecn_echo`), the Linux sender enters its CWR state (`sender/linux/ack.rs`).
//! - The receiver echoes what it saw ([`EcnEcho`]): classically ECE on every ACK from the
//!   first Congestion Experienced segment until a segment with CWR arrives; under DCTCP,
//!   ECE on exactly the ACKs of CE segments, an ACK sent at once whenever the CE state
//!   changes so that delayed ACKs never mix marked and unmarked segments.
//!
//! ECN is negotiated on the SYN exchange; renolab's flows either both do it or neither
//! (`options.ecn`), so the negotiation itself is not simulated.

use super::config::Dialect;
use crate::packet::Ecn;

/// How a receiver echoes Congestion Experienced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EchoMode {
    /// No ECN: nothing is echoed.
    #[default]
    Off,
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE segment until a CWR segment.
    Rfc3168,
    /// RFC 8257 §3.2 (Linux `dctcp_ece_ack_update()`): ECE mirrors the CE state of the
    /// segments the ACK covers; a change of state flushes the delayed ACK first.
    Dctcp,
}

/// The receiver's ECN state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnEcho {
    /// How it echoes.
    pub mode: EchoMode,
    /// RFC 3168: CE seen and no CWR since (Linux `TCP_ECN_DEMAND_CWR`). DCTCP: the CE
    /// state of the last segment (`DCTCP.CE`, Linux `ca->ce_state`).
    pub echo: bool,
}

/// What a data segment's ECN bits ask of the receiver's ACK policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EchoChange {
    /// DCTCP: the CE state changed; the segments received before this one must be
    /// acknowledged at once with the old state (if an ACK for them is pending).
    pub flush_with: Option<bool>,
    /// Acknowledge this segment at once.
    pub ack_now: bool,
    /// RFC 3168: the first CE since the last CWR (Linux enters quick-ACK mode for two ACKs).
    pub first_ce: bool,
}

impl EcnEcho {
    /// A receiver echoing per `mode`.
    pub fn new(mode: EchoMode) -> Self {
        EcnEcho { mode, echo: false }
    }

    /// A data segment carrying `ecn` arrived: update the state.
    #[inline]
    pub fn on_segment(&mut self, ecn: Ecn) -> EchoChange {
        match self.mode {
            EchoMode::Off => EchoChange::default(),
            EchoMode::Rfc3168 => {
                // RFC 3168 §6.1.3: CWR stops the echo, CE (even on that same segment)
                // starts it again.
                let mut change = EchoChange::default();
                if ecn.cwr() {
                    self.echo = false;
                }
                if ecn.is_ce() && !self.echo {
                    self.echo = true;
                    change.first_ce = true;
                }
                change
            }
            EchoMode::Dctcp => {
                let ce = ecn.is_ce();
                if ce == self.echo {
                    return EchoChange::default();
                }
                let old = self.echo;
                self.echo = ce;
                EchoChange {
                    flush_with: Some(old),
                    ack_now: true,
                    first_ce: false,
                }
            }
        }
    }

    /// The ECE flag of an ACK sent now.
    #[inline]
    pub fn ece(&self) -> bool {
        self.echo
    }
}

/// The sender's ECN state: what its segments carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnSender {
    /// ECN was negotiated: data is ECT(0) and ECN-Echo is heeded.
    pub enabled: bool,
    /// Retransmissions are ECT too: ns-2 (`ecn_` marks every segment) and Linux under a
    /// controller that needs ECN (DCTCP); RFC 3168 §6.1.5 forbids it otherwise.
    ect_on_retransmits: bool,
    /// CWR may go on a retransmission (ns-2's `SetCWRonRetransmit_`, default true); RFC
    /// 3168 and Linux put it on the next new data segment.
    cwr_on_retransmits: bool,
    /// The window was reduced: the next eligible segment carries CWR (Linux
    /// `TCP_ECN_QUEUE_CWR`, ns-2 `cong_action_`).
    cwr_due: bool,
}

impl EcnSender {
    /// The ECN state of a sender of `dialect`; `enabled` when ECN was negotiated,
    /// `needs_ecn` for a controller that relies on it (DCTCP, Linux `tcp_ca_needs_ecn()`).
    pub fn new(enabled: bool, dialect: Dialect, needs_ecn: bool) -> Self {
        let ns2 = dialect == Dialect::Ns2;
        EcnSender {
            enabled,
            ect_on_retransmits: ns2 || needs_ecn,
            cwr_on_retransmits: ns2,
            cwr_due: false,
        }
    }

    /// The window was reduced (for an ECN-Echo or a loss): announce it with CWR.
    #[inline]
    pub fn on_reduction(&mut self) {
        self.cwr_due = self.enabled;
    }

    /// The ECN bits of a data segment sent now (a retransmission if `retransmit`).
    #[inline]
    pub fn data_bits(&mut self, retransmit: bool) -> Ecn {
        if !self.enabled {
            return Ecn::NONE;
        }
        let mut bits = Ecn::NONE;
        if !retransmit || self.ect_on_retransmits {
            bits = bits.with_ect0();
        }
        if self.cwr_due && (!retransmit || self.cwr_on_retransmits) {
            self.cwr_due = false;
            bits = bits.with_cwr(true);
        }
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CE: Ecn = Ecn::NONE;

    fn ce() -> Ecn {
        CE.with_ect0().with_ce()
    }

    fn ect() -> Ecn {
        CE.with_ect0()
    }

    #[test]
    fn rfc3168_echoes_from_ce_until_cwr_and_cwr_with_ce_keeps_it() {
        let mut e = EcnEcho::new(EchoMode::Rfc3168);
        assert!(!e.on_segment(ect()).first_ce && !e.ece());
        assert!(e.on_segment(ce()).first_ce && e.ece());
        assert!(!e.on_segment(ce()).first_ce, "already echoing");
        e.on_segment(ect());
        assert!(e.ece(), "ECE until CWR");
        e.on_segment(ect().with_cwr(true));
        assert!(!e.ece(), "CWR stops it");
        e.on_segment(ce().with_cwr(true));
        assert!(e.ece(), "a CWR segment that is itself CE starts it again");
    }

    #[test]
    fn dctcp_changes_of_state_flush_with_the_old_state() {
        let mut e = EcnEcho::new(EchoMode::Dctcp);
        assert_eq!(e.on_segment(ect()), EchoChange::default());
        let c = e.on_segment(ce());
        assert_eq!(
            (c.flush_with, c.ack_now, e.ece()),
            (Some(false), true, true)
        );
        assert_eq!(e.on_segment(ce()), EchoChange::default());
        let c = e.on_segment(ect());
        assert_eq!(
            (c.flush_with, c.ack_now, e.ece()),
            (Some(true), true, false)
        );
    }

    #[test]
    fn the_sender_marks_new_data_and_announces_a_reduction_once() {
        let mut s = EcnSender::new(true, Dialect::Rfc, false);
        assert_eq!(s.data_bits(false), ect());
        s.on_reduction();
        assert_eq!(
            s.data_bits(true),
            Ecn::NONE,
            "RFC 3168 §6.1.5: no ECT, no CWR"
        );
        assert_eq!(s.data_bits(false), ect().with_cwr(true));
        assert_eq!(s.data_bits(false), ect(), "CWR once");
        let mut ns2 = EcnSender::new(true, Dialect::Ns2, false);
        ns2.on_reduction();
        assert_eq!(ns2.data_bits(true), ect().with_cwr(true));
        let mut off = EcnSender::new(false, Dialect::Rfc, false);
        off.on_reduction();
        assert_eq!(off.data_bits(false), Ecn::NONE);
    }
}
