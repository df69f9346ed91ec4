"""Replication statistics: the mean and its Student-t confidence interval, in one place.

Every mean-and-interval renolab reports (sweep summaries, the studies' tables and claims,
``renolab validate``'s random scenarios) comes from here:

- :func:`mean_ci` gives the mean of the values, the half-width
  ``t_{1-(1-c)/2, n-1} * s / sqrt(n)`` of the confidence-*c* interval for the mean (``s`` the
  sample standard deviation, ddof = 1) and ``n``, the number of values used;
- missing values (``None`` and NaN) are left out, so ``n`` counts the values present;
- **with fewer than two values there is no interval: the half-width is NaN** (and with none
  the mean is NaN too).  A caller that must still decide something with one run (e.g.
  ``renolab validate --runs 1`` on a random scenario) says so where it decides.

:func:`student_t_quantile` computes the t quantile without scipy.  Two more statistics the
studies share: :func:`wilson_interval` (the interval of a proportion) and :func:`spearman`
(rank correlation); and :func:`jain_index`, the fairness of a run's shares, which runs, sweeps
and studies share.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import Any, NamedTuple

__all__ = ["MeanCI", "jain_index", "mean_ci", "spearman", "student_t_quantile", "wilson_interval"]


class MeanCI(NamedTuple):
    """What :func:`mean_ci` returns: ``mean, half_width, n = mean_ci(values)``."""

    mean: float
    #: Half-width of the confidence interval; NaN when n < 2.
    half_width: float
    #: Number of values present (missing ones left out).
    n: int


def mean_ci(values: Iterable[Any], confidence: float = 0.95) -> MeanCI:
    """Mean, half-width of the *confidence* interval for the mean (Student's t) and n.

    Missing values (None, NaN) are left out.  With fewer than two values the half-width is
    NaN, and with none the mean is NaN as well (see the module documentation).
    """
    import numpy as np

    x = np.asarray([math.nan if v is None else v for v in values], dtype=np.float64)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return MeanCI(math.nan, math.nan, 0)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(mean, math.nan, n)
    level = 1.0 - (1.0 - confidence) / 2.0
    half = student_t_quantile(level, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return MeanCI(mean, half, n)


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of the proportion *k* / *n* (95 % with the default *z*);
    (NaN, NaN) for n = 0.  Unlike the normal approximation it stays inside [0, 1] and is
    sensible for proportions near 0 or 1."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def spearman(x: Iterable[Any], y: Iterable[Any]) -> float:
    """Spearman's rank correlation of *x* and *y* (average ranks for ties), without scipy;
    0.0 when either has no spread (nothing to rank)."""
    import pandas as pd

    rx, ry = pd.Series(list(x)).rank(), pd.Series(list(y)).rank()
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(rx.corr(ry))


def jain_index(values: Iterable[Any]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of the allocations *values*: 1 when all
    are equal, 1/n when one gets everything; NaN for no values or all zeros.  Missing values
    (None, NaN) are left out.  Plain Python (``renolab run`` prints it without numpy);
    :func:`renolab.metrics.jain_index` is this."""
    x = [float(v) for v in values if v is not None and not math.isnan(v)]
    squares = sum(v * v for v in x)
    if not x or squares == 0.0:
        return math.nan
    return sum(x) ** 2 / (len(x) * squares)


# ----- Student's t quantile (no scipy) -----------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


@functools.lru_cache(maxsize=1024)
def student_t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t distribution with *df* degrees of freedom.

    Computed by bisection on the exact CDF, ``P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2)``
    (the regularised incomplete beta function, evaluated by its continued fraction),
    to about 1e-12 relative; e.g. ``student_t_quantile(0.975, 1) = 12.706``,
    ``(0.975, 10) = 2.228``, ``(0.975, 30) = 2.042``.  Beyond 10^5 degrees of freedom
    the Cornish-Fisher expansion around the normal quantile is used (error < 1e-12).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), not {p}")
    if not df > 0:
        raise ValueError(f"df must be positive, not {df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -student_t_quantile(1.0 - p, df)
    if df > 1e5:
        from statistics import NormalDist

        z = NormalDist().inv_cdf(p)
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        return z + g1 / df + g2 / df**2 + g3 / df**3
    tail = 2.0 * (1.0 - p)  # two-sided tail probability at the quantile

    def two_sided(t: float) -> float:
        return _betainc(df / 2.0, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1.0
    while two_sided(hi) > tail:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if two_sided(mid) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return (lo + hi) / 2.0
