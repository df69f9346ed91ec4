//! Seeded random streams, one per component.
//!
//! Each component (a flow, a link direction, a loss model) draws from its own stream,
//! derived from the scenario seed and the component's *name*, never from a shared global
//! generator. Adding a flow therefore leaves every other component's draws unchanged, and
//! the same seed always gives the same run. The generator is xoshiro256++ seeded through
//! SplitMix64, written out here so that its output can never change under us with a
//! dependency upgrade.

/// FNV-1a, a stable 64-bit hash for deriving stream keys from names.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 step, used to expand a 64-bit key into a full generator state.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A xoshiro256++ pseudo-random stream.
#[derive(Clone, Debug)]
pub struct RngStream {
    s: [u64; 4],
}

impl RngStream {
    /// The stream of component `name` (e.g. `"flow/f1"`, `"link/bottleneck/fwd"`) under `seed`.
    pub fn derive(seed: u64, name: &str) -> Self {
        let mut key = seed ^ fnv1a(name.as_bytes()).rotate_left(17);
        let s = [
            splitmix64(&mut key),
            splitmix64(&mut key),
            splitmix64(&mut key),
            splitmix64(&mut key),
        ];
        RngStream { s }
    }

    /// A stream of its own for a part of this stream's component (a flow's congestion
    /// controller), seeded from this stream's next draw.
    pub fn split(&mut self) -> RngStream {
        let mut key = self.next_u64();
        RngStream {
            s: [
                splitmix64(&mut key),
                splitmix64(&mut key),
                splitmix64(&mut key),
                splitmix64(&mut key),
            ],
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform draw in [0, 1) with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (p <= 0 never, p >= 1 always).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = RngStream::derive(7, "flow/f1");
        let mut b = RngStream::derive(7, "flow/f1");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_of_different_components_differ() {
        let mut a = RngStream::derive(7, "flow/f1");
        let mut b = RngStream::derive(7, "flow/f2");
        let mut c = RngStream::derive(8, "flow/f1");
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_ne!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn golden_values_never_change() {
        // Pinned output: a change here breaks reproducibility of every stored result.
        let mut r = RngStream::derive(1, "flow/f1");
        let first = r.next_u64();
        let mut again = RngStream::derive(1, "flow/f1");
        assert_eq!(first, again.next_u64());
        assert_eq!(first, GOLDEN_FIRST);
    }

    const GOLDEN_FIRST: u64 = 12_858_099_102_145_683_001;

    #[test]
    fn uniform_draws_have_the_right_mean() {
        let mut r = RngStream::derive(3, "x");
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| r.next_f64()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }
}
