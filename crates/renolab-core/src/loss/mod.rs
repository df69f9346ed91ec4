//! Loss models applied to packets as they reach the far end of a link direction (they have
//! used the wire, as with ns-2's `link-lossmodel`). Several may be stacked on one direction;
//! the first that drops wins.
//!
//! Each random model owns its [`RngStream`] (passed to its constructor), so adding a model
//! or a flow elsewhere never shifts its draws. A [`Loss`] restricts a model to data or ACK
//! packets; packets outside its scope are not shown to the model at all, so they draw no
//! randomness and do not advance a drop list's packet counter.
//!
//! [`latency`] holds extra per-packet latency, which delays packets instead of dropping
//! them but lives on link directions like the loss models.
//!
//! [`RngStream`]: crate::rng::RngStream

mod ber;
mod gilbert_elliott;
pub mod latency;
mod list;
mod periodic;
mod scheduled;
mod uniform;

pub use ber::Ber;
pub use gilbert_elliott::{GilbertElliott, GilbertElliottConfig};
pub use latency::{ExtraLatency, LatencyDist};
pub use list::DropList;
pub use periodic::Periodic;
pub use scheduled::ScheduledLoss;
pub use uniform::Uniform;

use crate::packet::{Packet, PacketKind};
use crate::time::SimTime;

/// Why a loss model dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    /// A deterministic model (a drop list, a periodic loss) chose it.
    Scripted,
    /// A random (Bernoulli) loss.
    Random,
    /// At least one of its bits was in error.
    BitError,
    /// A Gilbert-Elliott (burst) loss.
    Burst,
}

/// A loss model on a link direction.
#[derive(Debug, Clone)]
pub enum LossModel {
    /// Deterministic drops by flow and segment number, or by packet index on the link.
    List(DropList),
    /// Each packet is lost independently with the same probability.
    Uniform(Uniform),
    /// Bit errors: the loss probability grows with the packet's size.
    Ber(Ber),
    /// Two-state Markov (bursty) loss.
    GilbertElliott(GilbertElliott),
    /// Every N-th packet.
    Periodic(Periodic),
    /// One model after another, at given instants.
    Scheduled(Box<ScheduledLoss>),
}

impl LossModel {
    /// Decides the fate of `packet`, reaching the far end at `now`; `Some(cause)` drops it.
    #[inline]
    pub fn judge(&mut self, now: SimTime, packet: &Packet) -> Option<LossCause> {
        match self {
            LossModel::List(l) => l.judge(packet).then_some(LossCause::Scripted),
            LossModel::Uniform(u) => u.judge().then_some(LossCause::Random),
            LossModel::Ber(b) => b.judge(packet.size).then_some(LossCause::BitError),
            LossModel::GilbertElliott(g) => g.judge().then_some(LossCause::Burst),
            LossModel::Periodic(p) => p.judge().then_some(LossCause::Scripted),
            LossModel::Scheduled(s) => s.judge(now, packet),
        }
    }

    /// Decides the fate of a frame of `frame_bytes` bytes on a shared medium, carrying
    /// `packet` (a data frame) or nothing (a control frame: Ack, RTS, CTS). Bit errors hit
    /// the frame's own bits; a drop list sees only frames that carry a packet.
    #[inline]
    pub fn judge_frame(
        &mut self,
        now: SimTime,
        frame_bytes: u32,
        packet: Option<&Packet>,
    ) -> Option<LossCause> {
        match (self, packet) {
            (LossModel::List(l), Some(p)) => l.judge(p).then_some(LossCause::Scripted),
            (LossModel::List(_), None) => None,
            (LossModel::Uniform(u), _) => u.judge().then_some(LossCause::Random),
            (LossModel::Ber(b), _) => b.judge(frame_bytes).then_some(LossCause::BitError),
            (LossModel::GilbertElliott(g), _) => g.judge().then_some(LossCause::Burst),
            // Every n-th frame that carries a packet, as on a link every n-th packet.
            (LossModel::Periodic(q), Some(_)) => q.judge().then_some(LossCause::Scripted),
            (LossModel::Periodic(_), None) => None,
            (LossModel::Scheduled(s), _) => s.judge_frame(now, frame_bytes, packet),
        }
    }
}

/// Which packets a loss model sees. The handshake packets (SYN, SYN-ACK) are seen only
/// with `All`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AppliesTo {
    /// Data segments only ([`PacketKind::Data`]).
    Data,
    /// Pure ACKs only ([`PacketKind::Ack`]).
    Ack,
    /// Every packet.
    #[default]
    All,
}

impl AppliesTo {
    /// True if packets of `kind` are in scope.
    #[inline]
    pub fn covers(self, kind: PacketKind) -> bool {
        match self {
            AppliesTo::All => true,
            AppliesTo::Data => matches!(kind, PacketKind::Data | PacketKind::Datagram),
            AppliesTo::Ack => kind == PacketKind::Ack,
        }
    }
}

/// A loss model restricted to some packets.
#[derive(Debug, Clone)]
pub struct Loss {
    model: LossModel,
    applies_to: AppliesTo,
}

impl Loss {
    /// `model` applied to the packets `applies_to` selects.
    pub fn new(model: LossModel, applies_to: AppliesTo) -> Self {
        Loss { model, applies_to }
    }

    /// The model.
    pub fn model(&self) -> &LossModel {
        &self.model
    }

    /// The packets it applies to.
    pub fn applies_to(&self) -> AppliesTo {
        self.applies_to
    }

    /// Decides the fate of `packet`, reaching the far end at `now`; `Some(cause)` drops it.
    /// Out-of-scope packets return `None` without consulting the model (no random draw, no
    /// counter advanced).
    #[inline]
    pub fn judge(&mut self, now: SimTime, packet: &Packet) -> Option<LossCause> {
        if !self.applies_to.covers(packet.kind) {
            return None;
        }
        self.model.judge(now, packet)
    }

    /// [`LossModel::judge_frame`] for a frame on a shared medium: a frame that carries a
    /// packet is in scope as its packet is; a control frame (no packet) only for `All`.
    #[inline]
    pub fn judge_frame(
        &mut self,
        now: SimTime,
        frame_bytes: u32,
        packet: Option<&Packet>,
    ) -> Option<LossCause> {
        let in_scope = match packet {
            Some(p) => self.applies_to.covers(p.kind),
            None => self.applies_to == AppliesTo::All,
        };
        if !in_scope {
            return None;
        }
        self.model.judge_frame(now, frame_bytes, packet)
    }
}

impl From<LossModel> for Loss {
    /// The model applied to every packet.
    fn from(model: LossModel) -> Self {
        Loss::new(model, AppliesTo::All)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::RngStream;

    const T0: SimTime = SimTime::ZERO;

    fn packet(kind: PacketKind) -> Packet {
        Packet {
            flow: 0,
            kind,
            seq: 0,
            size: 1000,
            dst: 1,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: crate::packet::sack::SackBlocks::EMPTY,
            ecn: crate::packet::Ecn::NONE,
        }
    }

    #[test]
    fn a_model_restricted_to_data_never_drops_acks_nor_draws_for_them() {
        let rng = RngStream::derive(1, "l");
        let mut data_only = Loss::new(
            LossModel::Uniform(Uniform::new(1.0, rng.clone())),
            AppliesTo::Data,
        );
        assert_eq!(data_only.judge(T0, &packet(PacketKind::Ack)), None);
        assert_eq!(
            data_only.judge(T0, &packet(PacketKind::Data)),
            Some(LossCause::Random)
        );
        // The ACK consumed no draw: a 50% model judging ACK, data gives the same data
        // decisions as one judging data alone.
        let half =
            |rng: RngStream| Loss::new(LossModel::Uniform(Uniform::new(0.5, rng)), AppliesTo::Data);
        let (mut a, mut b) = (half(rng.clone()), half(rng));
        for _ in 0..100 {
            a.judge(T0, &packet(PacketKind::Ack));
            assert_eq!(
                a.judge(T0, &packet(PacketKind::Data)),
                b.judge(T0, &packet(PacketKind::Data))
            );
        }
    }

    #[test]
    fn a_model_restricted_to_acks_drops_only_acks() {
        let model = LossModel::Uniform(Uniform::new(1.0, RngStream::derive(2, "l")));
        let mut acks_only = Loss::new(model, AppliesTo::Ack);
        assert_eq!(acks_only.judge(T0, &packet(PacketKind::Data)), None);
        assert_eq!(
            acks_only.judge(T0, &packet(PacketKind::Ack)),
            Some(LossCause::Random)
        );
    }

    #[test]
    fn each_model_reports_its_own_cause() {
        let rng = RngStream::derive(3, "l");
        let p = packet(PacketKind::Data);
        let mut list: Loss = LossModel::List(DropList::new(None, &[], &[0])).into();
        assert_eq!(list.judge(T0, &p), Some(LossCause::Scripted));
        let mut ber: Loss = LossModel::Ber(Ber::new(1.0, rng.clone())).into();
        assert_eq!(ber.judge(T0, &p), Some(LossCause::BitError));
        let ge = GilbertElliott::new(GilbertElliottConfig::gilbert(0.0, 0.0), rng);
        let mut ge: Loss = LossModel::GilbertElliott(ge).into();
        assert_eq!(ge.judge(T0, &p), None, "starts good, never leaves");
    }

    #[test]
    fn a_frame_is_judged_by_its_own_bits_and_control_frames_only_by_models_for_all() {
        let rng = RngStream::derive(4, "l");
        let p = packet(PacketKind::Data);
        // A BER that loses every bit: the frame's size decides, even a 14-byte Ack's.
        let mut ber: Loss = LossModel::Ber(Ber::new(1.0, rng.clone())).into();
        assert_eq!(ber.judge_frame(T0, 14, None), Some(LossCause::BitError));
        // Half the bits in error lose a 1-byte frame with 1 - 2^-8, not a 1000-byte packet's.
        let half = Ber::new(0.5, rng.clone());
        assert!(half.packet_loss_probability(1) < 0.997);
        // Data-only models leave control frames alone and draw nothing for them.
        let mut data_only = Loss::new(
            LossModel::Uniform(Uniform::new(1.0, rng.clone())),
            AppliesTo::Data,
        );
        assert_eq!(data_only.judge_frame(T0, 14, None), None);
        assert_eq!(
            data_only.judge_frame(T0, 1036, Some(&p)),
            Some(LossCause::Random)
        );
        // A drop list drops the frames of listed packets, never a control frame.
        let mut list: Loss = LossModel::List(DropList::new(Some(0), &[0], &[])).into();
        assert_eq!(list.judge_frame(T0, 20, None), None);
        assert_eq!(
            list.judge_frame(T0, 1036, Some(&p)),
            Some(LossCause::Scripted)
        );
        assert_eq!(
            list.judge_frame(T0, 1036, Some(&p)),
            None,
            "its first transmission only"
        );
    }
}
