//! A loss model that changes at given instants (`loss = { schedule = [["0s", { kind =
//! "uniform", p = 0 }], ["15s", { kind = "gilbert_elliott", ... }]] }`): the model in effect
//! when a packet reaches the far end judges it. Each scheduled model keeps its own state
//! and random stream, and draws only while it is in effect.

use super::{Loss, LossCause};
use crate::packet::Packet;
use crate::schedule::Schedule;
use crate::time::SimTime;

/// Loss models in effect one after another.
#[derive(Debug, Clone)]
pub struct ScheduledLoss {
    models: Schedule<Loss>,
}

impl ScheduledLoss {
    /// `models`, each in effect from its instant to the next one's.
    pub fn new(models: Schedule<Loss>) -> Self {
        ScheduledLoss { models }
    }

    /// The models and their instants.
    pub fn models(&self) -> &Schedule<Loss> {
        &self.models
    }

    /// Decides the fate of `packet` reaching the far end at `now`, by the model in effect.
    #[inline]
    pub fn judge(&mut self, now: SimTime, packet: &Packet) -> Option<LossCause> {
        self.models.at_mut(now).judge(now, packet)
    }

    /// [`ScheduledLoss::judge`] for a frame on a shared medium.
    #[inline]
    pub fn judge_frame(
        &mut self,
        now: SimTime,
        frame_bytes: u32,
        packet: Option<&Packet>,
    ) -> Option<LossCause> {
        self.models
            .at_mut(now)
            .judge_frame(now, frame_bytes, packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::{LossModel, Periodic, Uniform};
    use crate::packet::sack::SackBlocks;
    use crate::packet::{Ecn, PacketKind};
    use crate::rng::RngStream;

    #[test]
    fn the_model_in_effect_at_arrival_judges_and_only_it_advances() {
        let packet = Packet {
            flow: 0,
            kind: PacketKind::Data,
            seq: 0,
            size: 1000,
            dst: 1,
            retransmit: false,
            sent_at: SimTime::ZERO,
            sack: SackBlocks::EMPTY,
            ecn: Ecn::NONE,
        };
        let never: Loss = LossModel::Uniform(Uniform::new(0.0, RngStream::derive(1, "a"))).into();
        let every_second: Loss = LossModel::Periodic(Periodic::new(2, 0)).into();
        let mut loss = ScheduledLoss::new(Schedule::new(vec![
            (SimTime(0), never),
            (SimTime(10), every_second),
        ]));
        let fates: Vec<bool> = [0, 5, 9, 10, 11, 12, 13]
            .iter()
            .map(|&t| loss.judge(SimTime(t), &packet).is_some())
            .collect();
        // Packets before t = 10 did not count towards the periodic model.
        assert_eq!(fates, [false, false, false, false, true, false, true]);
    }
}
