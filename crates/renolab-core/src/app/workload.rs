//! Flow workloads: flows that arrive as the run goes, their sizes drawn from a distribution
//! (`[[workload]]`, docs/workloads.md). This is the random part only: when the next flow
//! arrives and how many bytes it carries, each drawn from the workload's own stream; the
//! simulation builds and retires the flows.

use std::sync::Arc;

use crate::rng::RngStream;
use crate::time::SimDuration;

/// Bytes of one packet in the pFabric CDF files below, which count flow sizes in packets
/// of 1460 bytes of payload.
const PFABRIC_PACKET_BYTES: f64 = 1460.0;

/// The web-search workload of the DCTCP paper (Alizadeh et al., "Data Center TCP",
/// SIGCOMM 2010, Fig. 4), as the pFabric paper's simulations tabulate it (Alizadeh et al.,
/// "pFabric", SIGCOMM 2013, §5; its ns-2 file `CDF_search.tcl`): (size in 1460-byte
/// packets, cumulative probability).
pub const WEBSEARCH_PACKETS: &[(f64, f64)] = &[
    (6.0, 0.0),
    (6.0, 0.15),
    (13.0, 0.2),
    (19.0, 0.3),
    (33.0, 0.4),
    (53.0, 0.53),
    (133.0, 0.6),
    (667.0, 0.7),
    (1333.0, 0.8),
    (3333.0, 0.9),
    (6667.0, 0.97),
    (20000.0, 1.0),
];

/// The data-mining workload of VL2 (Greenberg et al., "VL2", SIGCOMM 2009, Fig. 2), as the
/// pFabric paper's simulations tabulate it (its ns-2 file `CDF_dm.tcl`): (size in
/// 1460-byte packets, cumulative probability).
pub const DATAMINING_PACKETS: &[(f64, f64)] = &[
    (1.0, 0.0),
    (1.0, 0.5),
    (2.0, 0.6),
    (3.0, 0.7),
    (7.0, 0.8),
    (267.0, 0.9),
    (2107.0, 0.95),
    (66667.0, 0.99),
    (666667.0, 1.0),
];

/// The built-in size distributions, by the name a scenario gives them.
pub const BUILTIN_SIZES: &[&str] = &["websearch", "datamining"];

/// An empirical flow-size distribution: sizes (bytes) at cumulative probabilities, read as
/// piecewise linear between its points (as ns-2's `RandomVariable/Empirical` with
/// interpolation, which pFabric's scripts use). A first point with a probability above 0 is
/// a point mass at its size.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeCdf {
    points: Vec<(f64, f64)>,
}

impl SizeCdf {
    /// The CDF through `points` (size in bytes, cumulative probability), or why not: sizes
    /// of at least 1 byte that never decrease, probabilities in [0, 1] that never decrease,
    /// the last one 1. The error names the point at fault (from 0).
    pub fn new(points: Vec<(f64, f64)>) -> Result<Self, (usize, String)> {
        if points.is_empty() {
            return Err((0, "has no points".into()));
        }
        for (i, &(size, p)) in points.iter().enumerate() {
            if !(size.is_finite() && size >= 1.0) {
                return Err((i, format!("size {size} is not a number of bytes >= 1")));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err((i, format!("probability {p} is not in [0, 1]")));
            }
            if let Some(&(before, q)) = i.checked_sub(1).map(|j| &points[j]) {
                if size < before {
                    return Err((
                        i,
                        format!("size {size} is below the size before it ({before})"),
                    ));
                }
                if p < q {
                    return Err((
                        i,
                        format!("probability {p} is below the one before it ({q})"),
                    ));
                }
            }
        }
        let last = points.len() - 1;
        if points[last].1 != 1.0 {
            return Err((
                last,
                format!("the last probability is {}, not 1", points[last].1),
            ));
        }
        Ok(SizeCdf { points })
    }

    /// A built-in distribution by name ([`BUILTIN_SIZES`]).
    pub fn builtin(name: &str) -> Option<Self> {
        let packets = match name {
            "websearch" => WEBSEARCH_PACKETS,
            "datamining" => DATAMINING_PACKETS,
            _ => return None,
        };
        let points = (packets.iter())
            .map(|&(n, p)| (n * PFABRIC_PACKET_BYTES, p))
            .collect();
        Some(SizeCdf::new(points).expect("the built-in tables are well formed"))
    }

    /// The points, (bytes, cumulative probability).
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The size at cumulative probability `u` in [0, 1).
    fn quantile(&self, u: f64) -> f64 {
        let first = self.points[0];
        if u < first.1 {
            return first.0;
        }
        // The first point whose probability is above u (the last one's is 1 > u).
        let i = self.points.partition_point(|&(_, p)| p <= u);
        let Some(&(hi_size, hi_p)) = self.points.get(i) else {
            return self.points[self.points.len() - 1].0;
        };
        let (lo_size, lo_p) = self.points[i - 1];
        lo_size + (hi_size - lo_size) * (u - lo_p) / (hi_p - lo_p)
    }

    /// The mean size, bytes (of the piecewise linear distribution).
    pub fn mean(&self) -> f64 {
        let first = self.points[0];
        let point_mass = first.0 * first.1;
        point_mass
            + (self.points.windows(2))
                .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
                .sum::<f64>()
    }
}

/// How big a workload's flows are.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowSizes {
    /// An empirical CDF (a built-in one or a file's), shared by the runs of a scenario.
    Cdf(Arc<SizeCdf>),
    /// Every flow this many bytes.
    Fixed(u64),
    /// Pareto sizes of this mean (bytes) and shape (> 1, so that the mean exists).
    Pareto {
        /// Mean size, bytes.
        mean: f64,
        /// Shape (tail index) α.
        shape: f64,
    },
}

impl FlowSizes {
    /// The mean flow size, bytes.
    pub fn mean(&self) -> f64 {
        match self {
            FlowSizes::Cdf(cdf) => cdf.mean(),
            FlowSizes::Fixed(bytes) => *bytes as f64,
            FlowSizes::Pareto { mean, .. } => *mean,
        }
    }

    /// A flow size, bytes (at least 1), from `rng`: one draw per flow, whatever the
    /// distribution, so that a workload's flows keep their sizes when another distribution's
    /// parameters change.
    pub fn draw(&self, rng: &mut RngStream) -> u64 {
        let u = rng.next_f64();
        let bytes = match self {
            FlowSizes::Cdf(cdf) => cdf.quantile(u),
            FlowSizes::Fixed(bytes) => return *bytes,
            // Inverse transform: x_m / (1 - u)^(1/α), with x_m = mean (α - 1) / α.
            FlowSizes::Pareto { mean, shape } => {
                mean * (shape - 1.0) / shape / (1.0 - u).powf(1.0 / shape)
            }
        };
        (bytes.round() as u64).max(1)
    }
}

/// When a workload's flows arrive: a Poisson process of `per_second` flows a second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoissonArrivals {
    /// Mean arrival rate, flows per second.
    pub per_second: f64,
}

impl PoissonArrivals {
    /// The time to the next arrival: exponential, of mean 1 / `per_second`, in whole
    /// nanoseconds (rounded down).
    pub fn gap(&self, rng: &mut RngStream) -> SimDuration {
        // 1 - u is in (0, 1]: its logarithm is finite.
        let seconds = -(1.0 - rng.next_f64()).ln() / self.per_second;
        SimDuration((seconds * 1e9).min(u64::MAX as f64 / 2.0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cdf_draws_between_its_points_and_its_point_mass() {
        let cdf = SizeCdf::new(vec![(10.0, 0.5), (20.0, 1.0)]).unwrap();
        assert_eq!(cdf.quantile(0.0), 10.0);
        assert_eq!(cdf.quantile(0.49), 10.0);
        assert_eq!(cdf.quantile(0.75), 15.0);
        // Half the mass at 10, half spread evenly over [10, 20].
        assert_eq!(cdf.mean(), 0.5 * 10.0 + 0.5 * 15.0);
        let steps = SizeCdf::new(vec![(1.0, 0.0), (1.0, 0.5), (3.0, 1.0)]).unwrap();
        assert_eq!(steps.quantile(0.25), 1.0);
        assert_eq!(steps.quantile(0.75), 2.0);
    }

    #[test]
    fn a_bad_cdf_names_its_point() {
        assert_eq!(SizeCdf::new(vec![]).unwrap_err().0, 0);
        let down = SizeCdf::new(vec![(10.0, 0.2), (5.0, 1.0)]).unwrap_err();
        assert_eq!(down.0, 1);
        assert!(down.1.contains("below the size before"), "{}", down.1);
        let unfinished = SizeCdf::new(vec![(10.0, 0.2), (50.0, 0.9)]).unwrap_err();
        assert!(unfinished.1.contains("not 1"), "{}", unfinished.1);
        assert!(SizeCdf::new(vec![(0.5, 1.0)]).is_err());
    }

    #[test]
    fn the_built_in_workloads_have_their_published_means() {
        // pFabric (§5.1): the web-search flows average about 1.6 MB, the data-mining flows
        // about 7.4 MB (from these tables, read piecewise linear).
        let web = SizeCdf::builtin("websearch").unwrap().mean();
        let dm = SizeCdf::builtin("datamining").unwrap().mean();
        assert!((web - 1.6e6).abs() < 0.1e6, "websearch mean {web}");
        assert!((dm - 7.4e6).abs() < 0.3e6, "datamining mean {dm}");
        assert!(SizeCdf::builtin("hadoop").is_none());
    }

    #[test]
    fn draws_follow_the_distribution() {
        let mut rng = RngStream::derive(1, "workload/w");
        let n = 200_000;
        let pareto = FlowSizes::Pareto {
            mean: 100_000.0,
            shape: 2.5,
        };
        let mean = (0..n).map(|_| pareto.draw(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / 100_000.0 - 1.0).abs() < 0.03, "pareto mean {mean}");
        let web = FlowSizes::Cdf(Arc::new(SizeCdf::builtin("websearch").unwrap()));
        let small = (0..n).filter(|_| web.draw(&mut rng) <= 6 * 1460).count();
        assert!((small as f64 / n as f64 - 0.15).abs() < 0.01);
        assert_eq!(FlowSizes::Fixed(7).draw(&mut rng), 7);
        let arrivals = PoissonArrivals { per_second: 1000.0 };
        let total: u64 = (0..n).map(|_| arrivals.gap(&mut rng).as_nanos()).sum();
        let mean_gap = total as f64 / n as f64;
        assert!(
            (mean_gap / 1e6 - 1.0).abs() < 0.01,
            "mean gap {mean_gap} ns"
        );
    }
}
