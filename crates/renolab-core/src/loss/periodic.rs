//! Periodic loss: every N-th packet, the deterministic loss of the analytic response-function
//! models ("the number of packets between two successive losses is always 1/p", RFC 9438 §5;
//! Mathis et al. 1997).

/// Drops every `every`-th packet it sees, after letting `offset` packets through first.
#[derive(Debug, Clone)]
pub struct Periodic {
    every: u64,
    /// Packets still to pass before the next drop, this one included.
    until_drop: u64,
}

impl Periodic {
    /// Drops packets number `offset + every`, `offset + 2 every`, ... (counting from 1);
    /// `every` is at least 1.
    pub fn new(every: u64, offset: u64) -> Self {
        let every = every.max(1);
        Periodic {
            every,
            until_drop: offset.saturating_add(every),
        }
    }

    /// The period, packets.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// True if the next packet is dropped.
    #[inline]
    pub fn judge(&mut self) -> bool {
        self.until_drop -= 1;
        if self.until_drop == 0 {
            self.until_drop = self.every;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drops(mut p: Periodic, n: u64) -> Vec<u64> {
        (1..=n).filter(|_| p.judge()).collect()
    }

    #[test]
    fn every_nth_packet_is_dropped() {
        assert_eq!(drops(Periodic::new(4, 0), 14), [4, 8, 12]);
    }

    #[test]
    fn the_offset_delays_the_first_drop() {
        assert_eq!(drops(Periodic::new(4, 3), 16), [7, 11, 15]);
    }

    #[test]
    fn a_period_of_one_drops_everything() {
        assert_eq!(drops(Periodic::new(1, 0), 3), [1, 2, 3]);
    }

    #[test]
    fn the_loss_fraction_is_one_in_every() {
        let mut p = Periodic::new(1000, 17);
        let lost = (0..1_000_017).filter(|_| p.judge()).count();
        assert_eq!(lost, 1000);
    }
}
