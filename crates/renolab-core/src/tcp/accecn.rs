//! Accurate ECN (RFC 9768): its negotiation on the SYN exchange, the receiver's ACE counter
//! of CE-marked packets, and the sender's decoding of it into newly CE-marked packets per
//! ACK, as Linux (6.18, `net/ipv4/tcp_input.c`: `tcp_ecn_rcv_synack()`,
//! `tcp_ecn_received_counters()`, `__tcp_accecn_process()`) does them.
//!
//! The ACE field is three TCP header bits, AE (the former NS), CWR and ECE. After the
//! handshake it carries the receiver's count of CE-marked packets, `r.cep`, modulo 8, on
//! every ACK. Both ends start the count at 5 (RFC 9768 §3.2.2.1, `TCP_ACCECN_CEP_INIT_OFFSET`)
//! so that a middlebox zeroing the bits is told apart. The sender keeps its own copy, `s.cep`,
//! and takes the difference modulo 8 as the packets newly marked.
//!
//! Three bits wrap after 8 marks. The receiver therefore acknowledges at once on every change
//! of the IP-ECN field it sees and whenever 6 CE marks wait unacknowledged (§3.2.2.5.1,
//! `TCP_ACCECN_ACE_MAX_DELTA`), and a sender that receives an ACK newly delivering more than 7
//! packets (after lost ACKs) cannot tell how often the field wrapped: without the AccECN
//! option's byte counters, Linux assumes the most marks the delivered packets allow that
//! agree with the field modulo 8 (`safe_delta`, §3.2.2.5.2). renolab does not send the option
//! (its byte counters decide only this case, which needs more than three consecutive ACKs
//! lost with delayed ACKs).
//!
//! Only AccECN is negotiated on renolab's SYNs: a flow with `options.ecn = true` (RFC 3168)
//! keeps its implicit agreement (both ends of a flow share its options), so that its SYN
//! and SYN-ACK carry no flags, as they always have in renolab's outputs.

use crate::packet::Codepoint;

/// What an end of a connection supports, and asks for on the SYN (`options.ecn`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnSupport {
    /// No ECN.
    #[default]
    Off,
    /// RFC 3168 ECN.
    Classic,
    /// Accurate ECN (RFC 9768), falling back to classic ECN against a classic peer.
    AccEcn,
}

/// The ACE field's initial count (`TCP_ACCECN_CEP_INIT_OFFSET`).
pub const CEP_INIT: u32 = 5;
/// The field's mask (`TCP_ACCECN_CEP_ACE_MASK`): three bits.
pub const ACE_MASK: u32 = 0b111;
/// CE marks the receiver lets wait before it must acknowledge (`TCP_ACCECN_ACE_MAX_DELTA`;
/// RFC 9768 §3.2.2.5.1: "SHOULD be 2 and MUST be no greater than 6").
pub const ACE_MAX_DELTA: u32 = 6;

/// The SYN's ECN flags (AE, CWR, ECE as an ACE value) of a client supporting `support`:
/// AccECN sets all three (RFC 9768 §3.1.1), RFC 3168 sets CWR and ECE.
pub fn syn_ace(support: EcnSupport) -> u8 {
    match support {
        EcnSupport::Off => 0b000,
        EcnSupport::Classic => 0b011,
        EcnSupport::AccEcn => 0b111,
    }
}

/// The ACE value reflecting an IP-ECN field on the handshake (RFC 9768 Table 3 for the
/// SYN-ACK's echo of the SYN, Table 4 for the first ACK's of the SYN-ACK): Not-ECT 010,
/// ECT(1) 011, ECT(0) 100, CE 110.
pub fn handshake_echo(codepoint: Codepoint) -> u8 {
    match codepoint {
        Codepoint::NotEct => 0b010,
        Codepoint::Ect1 => 0b011,
        Codepoint::Ect0 => 0b100,
        Codepoint::Ce => 0b110,
    }
}

/// The server's side of the negotiation: a server supporting `server` answers a SYN whose
/// flags are `syn_ace`, received with IP-ECN `syn_codepoint`, with the SYN-ACK's flags, and
/// the mode the connection then has (RFC 9768 §3.1.1, Table 2).
pub fn server_reply(server: EcnSupport, syn_ace: u8, syn_codepoint: Codepoint) -> (u8, EcnSupport) {
    let asks_ecn = syn_ace & 0b011 == 0b011;
    match server {
        EcnSupport::AccEcn if syn_ace == 0b111 => {
            (handshake_echo(syn_codepoint), EcnSupport::AccEcn)
        }
        // An RFC 3168 answer: ECE alone.
        EcnSupport::AccEcn | EcnSupport::Classic if asks_ecn => (0b001, EcnSupport::Classic),
        _ => (0b000, EcnSupport::Off),
    }
}

/// The client's side: a client supporting `client` reads the SYN-ACK's flags `synack_ace`;
/// `classic_allowed` is false for a controller that must not fall back to RFC 3168
/// (Prague: Linux `TCP_CONG_NO_FALLBACK_RFC3168`).
pub fn client_outcome(client: EcnSupport, synack_ace: u8, classic_allowed: bool) -> EcnSupport {
    match (client, synack_ace) {
        (EcnSupport::AccEcn, 0b010 | 0b011 | 0b100 | 0b110) => EcnSupport::AccEcn,
        (EcnSupport::AccEcn | EcnSupport::Classic, 0b001) if classic_allowed => EcnSupport::Classic,
        _ => EcnSupport::Off,
    }
}

/// The receiver's ACE counter (`tp->received_ce`, `received_ce_pending`, `prev_ecnfield`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceReceiver {
    /// `r.cep`: CE-marked packets received, from 5.
    cep: u32,
    /// CE marks since the last ACK.
    pending: u32,
    /// The IP-ECN field of the last packet.
    prev: Codepoint,
}

impl Default for AceReceiver {
    fn default() -> Self {
        AceReceiver {
            cep: CEP_INIT,
            pending: 0,
            prev: Codepoint::NotEct,
        }
    }
}

impl AceReceiver {
    /// A packet with IP-ECN `codepoint` arrived (`tcp_ecn_received_counters()`); true if it
    /// must be acknowledged at once: the field changed, or 6 marks wait.
    #[inline]
    pub fn on_packet(&mut self, codepoint: Codepoint) -> bool {
        if codepoint == Codepoint::Ce {
            self.cep = self.cep.wrapping_add(1);
            self.pending += 1;
        }
        let edge = codepoint != self.prev;
        self.prev = codepoint;
        edge || self.pending >= ACE_MAX_DELTA
    }

    /// The ACE field of an ACK sent now (and the pending marks are acknowledged).
    #[inline]
    pub fn ack(&mut self) -> u8 {
        self.pending = 0;
        (self.cep & ACE_MASK) as u8
    }

    /// CE-marked packets received (`r.cep` − 5).
    pub fn ce_packets(&self) -> u32 {
        self.cep.wrapping_sub(CEP_INIT)
    }
}

/// The sender's side (`tp->delivered_ce`, kept with the initial offset as `s.cep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceSender {
    /// `s.cep`: CE-marked packets the receiver reported, from 5.
    cep: u32,
}

impl Default for AceSender {
    fn default() -> Self {
        AceSender { cep: CEP_INIT }
    }
}

impl AceSender {
    /// An ACK carrying `ace` newly delivered `delivered` packets (acknowledged or SACKed):
    /// the packets newly reported CE-marked (`__tcp_accecn_process()`). An ACK that
    /// delivers nothing is not read: it may be reordered ("uncertain due to lack of data").
    #[inline]
    pub fn on_ack(&mut self, ace: u8, delivered: u32) -> u32 {
        if delivered == 0 {
            return 0;
        }
        let delta = (ace as u32).wrapping_sub(self.cep) & ACE_MASK;
        let newly = if delivered <= ACE_MASK {
            delta
        } else {
            // The field may have wrapped: the most marks the delivered packets allow, equal
            // to the field modulo 8.
            delivered - (delivered.wrapping_sub(delta) & ACE_MASK)
        };
        self.cep = self.cep.wrapping_add(newly);
        newly
    }

    /// CE-marked packets reported so far (`tp->delivered_ce`).
    pub fn ce_packets(&self) -> u32 {
        self.cep.wrapping_sub(CEP_INIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_negotiates_accecn_or_falls_back() {
        let syn = syn_ace(EcnSupport::AccEcn);
        assert_eq!(syn, 0b111);
        // AccECN server: the SYN-ACK reflects the SYN's IP-ECN field (Table 3).
        for (cp, ace) in [
            (Codepoint::NotEct, 0b010),
            (Codepoint::Ect1, 0b011),
            (Codepoint::Ect0, 0b100),
            (Codepoint::Ce, 0b110),
        ] {
            assert_eq!(
                server_reply(EcnSupport::AccEcn, syn, cp),
                (ace, EcnSupport::AccEcn)
            );
            assert_eq!(
                client_outcome(EcnSupport::AccEcn, ace, true),
                EcnSupport::AccEcn
            );
        }
        // A classic server answers ECE alone; the client falls back unless it may not.
        let (reply, mode) = server_reply(EcnSupport::Classic, syn, Codepoint::NotEct);
        assert_eq!((reply, mode), (0b001, EcnSupport::Classic));
        assert_eq!(
            client_outcome(EcnSupport::AccEcn, reply, true),
            EcnSupport::Classic
        );
        assert_eq!(
            client_outcome(EcnSupport::AccEcn, reply, false),
            EcnSupport::Off,
            "Prague"
        );
        // No ECN at the server: none.
        let (reply, mode) = server_reply(EcnSupport::Off, syn, Codepoint::NotEct);
        assert_eq!(
            (reply, mode, client_outcome(EcnSupport::AccEcn, reply, true)),
            (0, EcnSupport::Off, EcnSupport::Off)
        );
        // A classic client and an AccECN server: classic.
        let (reply, mode) = server_reply(
            EcnSupport::AccEcn,
            syn_ace(EcnSupport::Classic),
            Codepoint::NotEct,
        );
        assert_eq!((reply, mode), (0b001, EcnSupport::Classic));
        assert_eq!(
            client_outcome(EcnSupport::Classic, reply, true),
            EcnSupport::Classic
        );
        // A classic client never reads an AccECN answer as AccECN.
        assert_eq!(
            client_outcome(EcnSupport::Classic, 0b010, true),
            EcnSupport::Off
        );
    }

    #[test]
    fn the_ace_counter_wraps_and_the_sender_follows_it() {
        let (mut rx, mut tx) = (AceReceiver::default(), AceSender::default());
        let mut sent_ce = 0;
        // 100 ACKs, each for two packets, a varying number of them CE.
        for i in 0..100u32 {
            let ce = i % 3;
            for k in 0..2 {
                rx.on_packet(if k < ce {
                    Codepoint::Ce
                } else {
                    Codepoint::Ect1
                });
            }
            sent_ce += ce.min(2);
            let ace = rx.ack();
            assert_eq!(ace as u32, (5 + sent_ce) % 8, "r.cep mod 8");
            assert_eq!(tx.on_ack(ace, 2), ce.min(2));
        }
        assert_eq!((rx.ce_packets(), tx.ce_packets()), (sent_ce, sent_ce));
        assert!(sent_ce > 8, "the field wrapped");
    }

    #[test]
    fn lost_acks_are_survived_while_they_cover_at_most_seven_packets() {
        let (mut rx, mut tx) = (AceReceiver::default(), AceSender::default());
        // Seven packets, five marked, acknowledged by one surviving ACK (the others lost).
        for k in 0..7 {
            rx.on_packet(if k < 5 {
                Codepoint::Ce
            } else {
                Codepoint::Ect1
            });
        }
        assert_eq!(tx.on_ack(rx.ack(), 7), 5, "exact");
        // Twenty packets, three marked: the field cannot say how often it wrapped; the sender
        // assumes the most the twenty allow, ≡ 3 (mod 8): 19.
        for k in 0..20 {
            rx.on_packet(if k < 3 {
                Codepoint::Ce
            } else {
                Codepoint::Ect1
            });
        }
        let newly = tx.on_ack(rx.ack(), 20);
        assert_eq!(newly, 19);
        assert_eq!(newly % 8, 3);
        // The counters agree modulo 8 afterwards: the next ACK reads exactly again.
        rx.on_packet(Codepoint::Ce);
        assert_eq!(tx.on_ack(rx.ack(), 1), 1);
        // An ACK that delivers nothing is not read.
        rx.on_packet(Codepoint::Ce);
        let ace = rx.ack();
        assert_eq!(tx.on_ack(ace, 0), 0);
        assert_eq!(tx.on_ack(ace, 1), 1, "read with the next delivery");
    }

    #[test]
    fn the_receiver_acknowledges_at_once_on_each_change_and_after_six_marks() {
        let mut rx = AceReceiver::default();
        assert!(rx.on_packet(Codepoint::Ect1), "Not-ECT to ECT(1)");
        assert!(!rx.on_packet(Codepoint::Ect1));
        assert!(rx.on_packet(Codepoint::Ce), "ECT(1) to CE");
        for _ in 0..4 {
            assert!(!rx.on_packet(Codepoint::Ce));
        }
        assert!(
            rx.on_packet(Codepoint::Ce),
            "the sixth mark since the last ACK"
        );
        rx.ack();
        assert!(!rx.on_packet(Codepoint::Ce), "counted afresh after the ACK");
        assert!(rx.on_packet(Codepoint::Ect1));
    }
}
