//! Values that change at given instants: piecewise-constant schedules over simulated time.
//!
//! A [`Schedule`] holds a value from time 0 and replaces it at each of its later steps
//! (`rate = { schedule = [["0s", "50Mbps"], ["10s", "5Mbps"]] }`). The value in effect at `t`
//! is the one of the last step at or before `t`: a change takes effect exactly at its
//! instant, and whatever is decided at that instant (a packet's serialisation start, its
//! arrival at the far end) sees the new value.

use crate::time::SimTime;

/// A value from time 0, changed at increasing instants.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule<T> {
    /// `(instant, value)`, the first at time 0, instants strictly increasing.
    steps: Box<[(SimTime, T)]>,
}

impl<T> Schedule<T> {
    /// The schedule of `steps`: the first at time 0, instants strictly increasing (the
    /// scenario checks both, naming the offending entry; here they are a caller's bug).
    pub fn new(steps: Vec<(SimTime, T)>) -> Self {
        assert!(
            steps.first().is_some_and(|s| s.0 == SimTime::ZERO),
            "a schedule starts at time 0"
        );
        assert!(
            steps.windows(2).all(|w| w[0].0 < w[1].0),
            "a schedule's instants increase"
        );
        Schedule {
            steps: steps.into_boxed_slice(),
        }
    }

    /// `value` at every instant.
    pub fn constant(value: T) -> Self {
        Schedule {
            steps: Box::new([(SimTime::ZERO, value)]),
        }
    }

    /// True when the value never changes.
    pub fn is_constant(&self) -> bool {
        self.steps.len() == 1
    }

    /// The steps, `(instant, value)`, in order.
    pub fn steps(&self) -> &[(SimTime, T)] {
        &self.steps
    }

    /// Position of the step in effect at `t`.
    #[inline]
    fn index_at(&self, t: SimTime) -> usize {
        // The first step is at 0 <= t: at least one step is at or before t.
        self.steps.partition_point(|s| s.0 <= t) - 1
    }

    /// The value in effect at `t`.
    #[inline]
    pub fn at(&self, t: SimTime) -> &T {
        &self.steps[self.index_at(t)].1
    }

    /// The value in effect at `t`, to change its state (a loss model's).
    #[inline]
    pub fn at_mut(&mut self, t: SimTime) -> &mut T {
        let i = self.index_at(t);
        &mut self.steps[i].1
    }

    /// The first instant after `t` at which the value changes, if any.
    #[inline]
    pub fn next_change_after(&self, t: SimTime) -> Option<SimTime> {
        self.steps.get(self.index_at(t) + 1).map(|s| s.0)
    }

    /// The values, in order.
    pub fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.steps.iter().map(|s| &s.1)
    }

    /// The schedule with each value mapped by `f`, at the same instants.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> Schedule<U> {
        Schedule {
            steps: self.steps.iter().map(|(t, v)| (*t, f(v))).collect(),
        }
    }

    /// The time-weighted mean of `f(value)` over `[0, end)` (the value at 0 if `end` is 0).
    pub fn mean_until(&self, end: SimTime, f: impl Fn(&T) -> f64) -> f64 {
        if end == SimTime::ZERO || self.is_constant() {
            return f(&self.steps[0].1);
        }
        let mut sum = 0.0;
        for (i, (start, value)) in self.steps.iter().enumerate() {
            if *start >= end {
                break;
            }
            let stop = self.steps.get(i + 1).map_or(end, |next| next.0.min(end));
            sum += f(value) * (stop.0 - start.0) as f64;
        }
        sum / end.0 as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(steps: &[(u64, u32)]) -> Schedule<u32> {
        Schedule::new(steps.iter().map(|&(t, v)| (SimTime(t), v)).collect())
    }

    #[test]
    fn a_step_takes_effect_exactly_at_its_instant() {
        let sched = s(&[(0, 50), (10, 5), (20, 7)]);
        let at = |t| *sched.at(SimTime(t));
        assert_eq!(
            [at(0), at(9), at(10), at(19), at(20), at(1000)],
            [50, 50, 5, 5, 7, 7]
        );
        assert_eq!(sched.next_change_after(SimTime(0)), Some(SimTime(10)));
        assert_eq!(sched.next_change_after(SimTime(10)), Some(SimTime(20)));
        assert_eq!(sched.next_change_after(SimTime(25)), None);
        assert!(!sched.is_constant() && Schedule::constant(1).is_constant());
    }

    #[test]
    fn the_mean_weighs_each_value_by_how_long_it_holds() {
        let sched = s(&[(0, 10), (10, 20), (30, 40)]);
        let mean = |end| sched.mean_until(SimTime(end), |&v| v as f64);
        assert_eq!(mean(10), 10.0);
        assert_eq!(mean(30), (10.0 * 10.0 + 20.0 * 20.0) / 30.0);
        assert_eq!(mean(40), (100.0 + 400.0 + 400.0) / 40.0);
        assert_eq!(mean(0), 10.0);
    }

    #[test]
    #[should_panic(expected = "starts at time 0")]
    fn a_schedule_must_start_at_zero() {
        s(&[(5, 1)]);
    }
}
