//! How flows that cross the same link share it: a max-min fair division of what each
//! resource (a link direction, a shared medium) can carry over the run.
//!
//! Each flow asks for a volume (the bytes it would send with its path to itself) and gets,
//! by progressive filling, an equal part of every resource it crosses until either its demand
//! is met or one of its resources is full; what is left goes on to the others. Volumes over
//! the whole run rather than rates, so that flows active at different times do not count as
//! sharing a link they never use together. The result is what a fluid model of fair TCP
//! would carry: the estimate needs an order of magnitude, not the last packet.

/// Rounds of progressive filling at most: each freezes at least one flow or fills at least
/// one resource, and real scenarios settle in a handful. Past the cap, the flows still
/// growing get an equal share of what is left on their tightest resource, which keeps the
/// division feasible and the cost bounded (32 passes over the paths) for a million flows.
const MAX_ROUNDS: usize = 32;
/// A resource with less than this fraction of its capacity left counts as full.
const FULL: f64 = 1e-9;

/// What one flow gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Share {
    /// Volume it carries, in the demand's unit (at most its demand).
    pub volume: f64,
    /// The resource it fills with others, if one stops it before its demand is met.
    pub full_at: Option<u32>,
}

/// The max-min fair division of `capacity` (per resource) among flows with `demand`, flow
/// `f` crossing the resources `paths[f]` (a resource crossed twice is listed twice and
/// consumed twice). A flow that crosses no resource gets its demand.
pub(super) fn max_min(capacity: &[f64], paths: &[Vec<u32>], demand: &[f64]) -> Vec<Share> {
    let mut shares: Vec<Share> = demand
        .iter()
        .map(|_| Share {
            volume: 0.0,
            full_at: None,
        })
        .collect();
    let mut left = capacity.to_vec();
    let mut growing: Vec<usize> = Vec::with_capacity(demand.len());
    for (f, path) in paths.iter().enumerate() {
        if path.is_empty() || demand[f] <= 0.0 {
            shares[f].volume = demand[f].max(0.0);
        } else {
            growing.push(f);
        }
    }
    // Growing flows crossing each resource (with their multiplicity).
    let mut crossing = vec![0u32; capacity.len()];
    let is_full = |left: &[f64], r: u32| left[r as usize] <= FULL * capacity[r as usize];
    for round in 0..=MAX_ROUNDS {
        if growing.is_empty() {
            break;
        }
        crossing.iter_mut().for_each(|c| *c = 0);
        for &f in &growing {
            for &r in &paths[f] {
                crossing[r as usize] += 1;
            }
        }
        if round == MAX_ROUNDS {
            // Out of rounds: an equal part of the tightest resource's remainder each.
            for &f in &growing {
                let part = paths[f]
                    .iter()
                    .map(|&r| left[r as usize].max(0.0) / crossing[r as usize] as f64)
                    .fold(f64::INFINITY, f64::min);
                shares[f].volume += part.min(demand[f] - shares[f].volume);
            }
            break;
        }
        // The largest equal step every growing flow can take.
        let mut step = f64::INFINITY;
        for &f in &growing {
            step = step.min(demand[f] - shares[f].volume);
        }
        for (r, &n) in crossing.iter().enumerate() {
            if n > 0 {
                step = step.min(left[r].max(0.0) / n as f64);
            }
        }
        for &f in &growing {
            shares[f].volume += step;
            for &r in &paths[f] {
                left[r as usize] -= step;
            }
        }
        growing.retain(|&f| {
            if let Some(&r) = paths[f].iter().find(|&&r| is_full(&left, r)) {
                shares[f].full_at = Some(r);
                return false;
            }
            shares[f].volume < demand[f] * (1.0 - FULL)
        });
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volumes(capacity: &[f64], paths: &[Vec<u32>], demand: &[f64]) -> Vec<f64> {
        max_min(capacity, paths, demand)
            .iter()
            .map(|s| (s.volume * 1e6).round() / 1e6)
            .collect()
    }

    #[test]
    fn flows_on_one_link_split_it_equally() {
        let paths = vec![vec![0], vec![0], vec![0], vec![0]];
        assert_eq!(volumes(&[100.0], &paths, &[1e9; 4]), vec![25.0; 4]);
        let s = max_min(&[100.0], &paths, &[1e9; 4]);
        assert!(s.iter().all(|s| s.full_at == Some(0)));
    }

    #[test]
    fn a_flow_that_asks_less_leaves_the_rest_to_the_others() {
        let paths = vec![vec![0], vec![0], vec![0]];
        assert_eq!(
            volumes(&[100.0], &paths, &[10.0, 1e9, 1e9]),
            vec![10.0, 45.0, 45.0]
        );
        assert_eq!(
            max_min(&[100.0], &paths, &[10.0, 1e9, 1e9])[0].full_at,
            None
        );
    }

    #[test]
    fn the_classic_parking_lot_is_max_min_fair() {
        // Links 0 (capacity 10) and 1 (capacity 20); flow 0 crosses both, flow 1 link 0,
        // flow 2 and 3 link 1: link 0 splits 5/5, link 1 gives the rest (15) to 2 and 3.
        let paths = vec![vec![0, 1], vec![0], vec![1], vec![1]];
        assert_eq!(
            volumes(&[10.0, 20.0], &paths, &[1e9; 4]),
            vec![5.0, 5.0, 7.5, 7.5]
        );
    }

    #[test]
    fn a_flow_crossing_nothing_or_asking_nothing_gets_its_demand() {
        let paths = vec![vec![], vec![0]];
        assert_eq!(volumes(&[1.0], &paths, &[7.0, 0.0]), vec![7.0, 0.0]);
    }

    #[test]
    fn a_resource_crossed_twice_is_consumed_twice() {
        let paths = vec![vec![0, 0], vec![0]];
        let v = volumes(&[90.0], &paths, &[1e9, 1e9]);
        assert_eq!(v, vec![30.0, 30.0]);
    }

    #[test]
    fn past_the_round_cap_the_division_stays_within_capacity() {
        // Demands 1, 2, 3, ...: every round freezes one flow.
        let n = 3 * MAX_ROUNDS;
        let paths = vec![vec![0]; n];
        let demand: Vec<f64> = (1..=n).map(|d| d as f64).collect();
        let v = volumes(&[1e6], &paths, &demand);
        assert_eq!(v, demand, "enough room for every demand");
        let total: f64 = volumes(&[1000.0], &paths, &demand).iter().sum();
        assert!((total - 1000.0).abs() < 1e-3, "{total}");
    }
}
