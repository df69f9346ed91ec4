"""renolab.stats: the one mean-and-confidence-interval helper, its documented n < 2 rule."""

from __future__ import annotations

import math

import pytest

from renolab.stats import MeanCI, mean_ci, student_t_quantile


def test_mean_and_student_t_half_width_by_hand():
    # 1, 2, 3: mean 2, s = 1, t_{0.975, 2} = 4.3026527 -> half-width 4.3026527 / sqrt(3).
    result = mean_ci([1.0, 2.0, 3.0])
    assert isinstance(result, MeanCI)
    assert result.mean == 2.0 and result.n == 3
    assert result.half_width == pytest.approx(4.3026527 / math.sqrt(3), rel=1e-7)


def test_the_confidence_level_sets_the_quantile():
    half_99 = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0], confidence=0.99).half_width
    assert half_99 == pytest.approx(student_t_quantile(0.995, 4) * math.sqrt(2.5) / math.sqrt(5), rel=1e-12)
    assert half_99 > mean_ci([1.0, 2.0, 3.0, 4.0, 5.0]).half_width


def test_missing_values_are_left_out_and_counted_out():
    assert mean_ci([1.0, None, float("nan"), 3.0]) == mean_ci([1.0, 3.0])
    assert mean_ci([1.0, None, 3.0]).n == 2


def test_fewer_than_two_values_have_no_interval():
    one = mean_ci([5.0])
    assert (one.mean, one.n) == (5.0, 1) and math.isnan(one.half_width)
    none = mean_ci([])
    assert none.n == 0 and math.isnan(none.mean) and math.isnan(none.half_width)
    assert math.isnan(mean_ci([None, float("nan")]).mean)


def test_equal_values_have_a_zero_half_width():
    assert mean_ci([2.5, 2.5, 2.5]) == (2.5, 0.0, 3)


def test_quantile_arguments_are_checked():
    with pytest.raises(ValueError, match="p must be in"):
        student_t_quantile(1.0, 3)
    with pytest.raises(ValueError, match="df must be positive"):
        student_t_quantile(0.975, 0)


def test_wilson_interval_stays_in_0_1_and_contains_the_proportion():
    from renolab.stats import wilson_interval

    lo, hi = wilson_interval(9, 10)
    assert 0.0 <= lo < 0.9 < hi <= 1.0
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(0, 10)[0] == 0.0
    assert round(wilson_interval(5, 10)[0], 4) == 0.2366  # the textbook value for 5 of 10
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


def test_spearman_ranks_with_ties_and_no_spread():
    from renolab.stats import spearman

    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert spearman([1, 2, 3], [5, 5, 5]) == 0.0  # nothing to rank
    assert abs(spearman([1, 2, 3, 4], [1, 3, 2, 4]) - 0.8) < 1e-12
