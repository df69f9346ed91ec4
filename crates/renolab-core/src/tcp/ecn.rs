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
//! - Accurate ECN (RFC 9768, [`super::accecn`]): the receiver counts CE-marked packets
//!   and puts the count modulo 8 in the ACE field of every ACK; the sender decodes it into
//!   the segments newly marked per ACK. Its data then carry no CWR, and an L4S controller's
//!   carry ECT(1).
//!
//! RFC 3168's ECN is agreed implicitly: renolab's flows either both do it or neither
//! (`options.ecn = true`). Accurate ECN is negotiated on the SYN exchange, falling back to
//! RFC 3168 or to none against a peer that does not support it.

use super::accecn::{self, AceReceiver, AceSender, EcnSupport};
use super::config::Dialect;
use crate::packet::{Codepoint, Ecn};

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
    /// RFC 9768: the ACE field of every ACK counts the CE-marked packets; an ACK goes at
    /// once on each change of the IP-ECN field and when 6 marks wait.
    AccEcn,
}

/// The receiver's ECN state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnEcho {
    /// How it echoes.
    pub mode: EchoMode,
    /// RFC 3168: CE seen and no CWR since (Linux `TCP_ECN_DEMAND_CWR`). DCTCP: the CE
    /// state of the last segment (`DCTCP.CE`, Linux `ca->ce_state`).
    pub echo: bool,
    /// AccECN: the count of CE marks.
    ace: AceReceiver,
    /// AccECN: the SYN-ACK's ACE flags, once a SYN was answered.
    synack_ace: u8,
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
        EcnEcho {
            mode,
            echo: false,
            ace: AceReceiver::default(),
            synack_ace: 0,
        }
    }

    /// A SYN carrying `syn` arrived: a receiver supporting AccECN answers an AccECN SYN in
    /// kind and falls back to RFC 3168 or none for another (RFC 9768 §3.1.1); one
    /// supporting RFC 3168 answers an AccECN SYN as RFC 3168 (ECE alone). A classic SYN
    /// carries no flags in renolab (the implicit agreement): the mode stays.
    pub fn on_syn(&mut self, syn: Ecn) {
        let support = match self.mode {
            EchoMode::Off => EcnSupport::Off,
            EchoMode::Rfc3168 | EchoMode::Dctcp => EcnSupport::Classic,
            EchoMode::AccEcn => EcnSupport::AccEcn,
        };
        if syn.ace() == 0 && support != EcnSupport::AccEcn {
            return;
        }
        let (reply, agreed) = accecn::server_reply(support, syn.ace(), syn.codepoint());
        self.synack_ace = reply;
        self.mode = match (agreed, self.mode) {
            (EcnSupport::AccEcn, _) => EchoMode::AccEcn,
            (EcnSupport::Classic, EchoMode::AccEcn) => EchoMode::Rfc3168,
            (EcnSupport::Classic, mode) => mode,
            (EcnSupport::Off, _) => EchoMode::Off,
        };
    }

    /// The ECN flags of the SYN-ACK.
    pub fn syn_ack_bits(&self) -> Ecn {
        Ecn::NONE.with_ace(self.synack_ace)
    }

    /// The TCP ECN flags of an ACK sent now: ECE, or under AccECN the ACE field (the CE
    /// marks it reports count as acknowledged).
    #[inline]
    pub fn ack_bits(&mut self, ece: bool) -> Ecn {
        match self.mode {
            EchoMode::AccEcn => Ecn::NONE.with_ace(self.ace.ack()),
            _ => Ecn::NONE.with_ece(ece),
        }
    }

    /// CE-marked packets counted under AccECN.
    pub fn ce_counted(&self) -> u32 {
        self.ace.ce_packets()
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
            EchoMode::AccEcn => EchoChange {
                ack_now: self.ace.on_packet(ecn.codepoint()),
                ..EchoChange::default()
            },
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
    /// AccECN was negotiated: ACKs carry the ACE counter, data no CWR.
    pub accecn: bool,
    /// What the SYN asks for (AccECN falls back on the SYN-ACK's answer).
    asks: EcnSupport,
    /// Data carry ECT(1), the L4S identifier (Linux `TCP_CONG_WANTS_ECT_1`: Prague).
    ect1: bool,
    /// An RFC 3168 answer to an AccECN SYN is accepted (Linux: unless the controller says
    /// `TCP_CONG_NO_FALLBACK_RFC3168`).
    classic_allowed: bool,
    /// The decoder of the ACE field.
    ace: AceSender,
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
            accecn: false,
            asks: if enabled {
                EcnSupport::Classic
            } else {
                EcnSupport::Off
            },
            ect1: false,
            classic_allowed: true,
            ace: AceSender::default(),
            ect_on_retransmits: ns2 || needs_ecn,
            cwr_on_retransmits: ns2,
            cwr_due: false,
        }
    }

    /// The sender asks for Accurate ECN on its SYN (and uses it without a handshake);
    /// `wants_ect1` for an L4S controller: ECT(1) on data, and no fallback to RFC 3168.
    pub fn with_accecn(mut self, wants_ect1: bool) -> Self {
        self.enabled = true;
        self.accecn = true;
        self.asks = EcnSupport::AccEcn;
        self.ect1 = wants_ect1;
        self.classic_allowed = !wants_ect1;
        self
    }

    /// The ECN flags of the SYN: AE, CWR and ECE for AccECN (RFC 9768 §3.1.1); none for
    /// RFC 3168's implicit agreement.
    pub fn syn_bits(&self) -> Ecn {
        match self.asks {
            EcnSupport::AccEcn => Ecn::NONE.with_ace(accecn::syn_ace(EcnSupport::AccEcn)),
            _ => Ecn::NONE,
        }
    }

    /// The SYN-ACK carried `synack`: an AccECN sender keeps AccECN, falls back to RFC 3168
    /// or turns ECN off, as the answer says (RFC 9768 §3.1.2).
    pub fn on_syn_ack(&mut self, synack: Ecn) {
        if self.asks != EcnSupport::AccEcn {
            return;
        }
        let agreed = accecn::client_outcome(self.asks, synack.ace(), self.classic_allowed);
        self.enabled = agreed != EcnSupport::Off;
        self.accecn = agreed == EcnSupport::AccEcn;
    }

    /// An ACK with TCP flags `ecn` newly delivered `delivered` segments: the segments newly
    /// reported CE-marked (AccECN's ACE field, RFC 9768 §3.2.2.5), or under RFC 3168 one if
    /// it echoed ECE. Zero when ECN is off.
    #[inline]
    pub fn on_ack(&mut self, ecn: Ecn, delivered: u32) -> u32 {
        if self.accecn {
            self.ace.on_ack(ecn.ace(), delivered)
        } else {
            u32::from(self.enabled && ecn.ece())
        }
    }

    /// CE-marked segments reported so far under AccECN.
    pub fn ce_reported(&self) -> u32 {
        self.ace.ce_packets()
    }

    /// The window was reduced (for an ECN-Echo or a loss): announce it with CWR.
    #[inline]
    pub fn on_reduction(&mut self) {
        // Under AccECN the ACE counter replaces CWR (RFC 9768 §3.2.2).
        self.cwr_due = self.enabled && !self.accecn;
    }

    /// The ECN bits of a data segment sent now (a retransmission if `retransmit`).
    #[inline]
    pub fn data_bits(&mut self, retransmit: bool) -> Ecn {
        if !self.enabled {
            return Ecn::NONE;
        }
        let mut bits = Ecn::NONE;
        if !retransmit || self.ect_on_retransmits {
            bits = if self.ect1 {
                bits.with_codepoint(Codepoint::Ect1)
            } else {
                bits.with_ect0()
            };
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
