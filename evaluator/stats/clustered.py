"""A run's pass-rate interval when its trials are clustered by scenario (SPEC §13).

Trials of one scenario share its difficulty: ten scenarios of five trials where some always
pass and some always fail hold far less information than fifty independent trials, and a
Wilson interval over the fifty is a confident wrong answer. This interval is Wilson's over
the *effective* number of trials n / deff, where the design effect deff is the ratio of the
scenario-clustered (sandwich) variance of the pooled pass rate to the binomial one. When
the scenarios spread more than chance (deff > 1) the normal quantile becomes Student's t
with scenarios - 1 degrees of freedom: m scenarios estimate that spread from m values only
(Satterthwaite's larger df covered 85-88% over 3 very different scenarios of 5-10 trials;
this covers 94-97%). With one trial per scenario the trials are independent and it is
exactly the Wilson interval over all trials.

When every trial passed (or every one failed) the data cannot tell identical scenarios
from always-passing ones, so the interval assumes the worst: one effective trial per
scenario (Wilson over the scenarios, normal quantile). Coverage measured on simulated
runs: `tests/evaluator/stats/test_clustered.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist

from tracesim.evaluator.stats.proportions import Z_95
from tracesim.evaluator.stats.student_t import t_quantile

__all__ = ["clustered_pass_rate_interval", "design_effect"]


def design_effect(counts: Sequence[tuple[int, int]]) -> float:
    """How many times the pooled pass rate's variance exceeds the binomial one, >= 1.

    `counts` is (trials, passes) per scenario. 1 with one trial per scenario (independent
    trials); n^2 / sum(n_i^2), as if each scenario were one trial, when every trial passed or
    every one failed (nothing to estimate the spread from)."""
    items = [(n, c) for n, c in counts if n > 0]
    n = sum(t for t, _ in items)
    m = len(items)
    if n == 0 or max(t for t, _ in items) == 1:
        return 1.0
    c = sum(p for _, p in items)
    if c in (0, n):
        return n / (n * n / sum(t * t for t, _ in items))
    if m < 2:
        return float(n)  # one scenario: every trial shares its difficulty
    p = c / n
    residuals = sum((pi - p * ti) ** 2 for ti, pi in items)
    clustered = m / (m - 1) * residuals / (n * n)
    return max(1.0, clustered / (p * (1 - p) / n))


def clustered_pass_rate_interval(
    counts: Sequence[tuple[int, int]], *, level: float = 0.95
) -> tuple[float, float] | None:
    """95% interval of the pooled pass rate sum(c_i) / sum(n_i) of scenarios given as
    (trials, passes); None when there is no trial."""
    items = [(n, c) for n, c in counts if n > 0]
    n = sum(t for t, _ in items)
    if n == 0:
        return None
    c = sum(p for _, p in items)
    deff = design_effect(items)
    between = 1 - 1 / deff  # the share of the variance the scenarios' spread makes
    estimated = between > 0 and 0 < c < n  # all passed or failed: deff assumed, not estimated
    df = len(items) - 1 if estimated else math.inf
    whole = 0 if math.isinf(df) else min(1000, max(1, int(df)))
    return _wilson(c / n, n / deff, _quantile(level, whole), c == 0, c == n)


@lru_cache(maxsize=256)
def _quantile(level: float, df: int) -> float:
    """The two-sided `level` quantile: normal for df = 0 (infinite: one trial per scenario
    gives Wilson's own interval), else Student's t (df capped at 1000 by the caller, where t
    and the normal agree to 0.1%: the exact t costs O(df))."""
    if df == 0:
        return Z_95 if level == 0.95 else NormalDist().inv_cdf(1 - (1 - level) / 2)
    return t_quantile(1 - (1 - level) / 2, df)


def _wilson(p: float, n: float, z: float, none: bool, all_: bool) -> tuple[float, float]:
    """Wilson's score interval of a rate p from n (possibly fractional) trials."""
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = (z / (1 + z2 / n)) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if none else max(0.0, centre - half)
    high = 1.0 if all_ else min(1.0, centre + half)
    return low, high
