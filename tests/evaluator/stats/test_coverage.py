"""The metric intervals cover what they claim on the few scenarios comparisons have.

A plain percentile bootstrap called "95%" covered the true mean 74% of the time over 3
scenarios and 85% over 6 (normal data): confident and wrong. Seeded simulation, so the
test is deterministic."""

from __future__ import annotations

import random

import pytest
from tracesim.evaluator.stats.bootstrap import bootstrap_mean_ci, paired_change_ci


@pytest.mark.parametrize("n", [3, 6, 10])
def test_a_95_percent_interval_covers_about_95_percent(n: int) -> None:
    rng = random.Random(n)
    sims = 300
    covered = 0
    for sim in range(sims):
        values = [rng.gauss(0.0, 1.0) for _ in range(n)]
        low, high = bootstrap_mean_ci(values, resamples=1000, seed=sim)
        covered += low <= 0.0 <= high
    assert covered / sims >= 0.89  # plain percentile: 0.74 (n=3), 0.85 (n=6)


def test_few_scenarios_give_a_wide_interval_not_a_confident_one() -> None:
    """Three scenarios dropped a whole point, three did not move: the mean change is -0.5,
    but six scenarios cannot place it within [-0.83, -0.17] at 95%."""
    mean, (low, high) = paired_change_ci([1.0] * 6, [0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    assert mean == pytest.approx(-0.5)
    assert low <= -0.9 and high >= -0.1


@pytest.mark.parametrize(
    ("df", "expected"), [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423)]
)
def test_the_t_quantile_matches_the_printed_tables(df: int, expected: float) -> None:
    from tracesim.evaluator.stats.student_t import t_cdf, t_quantile

    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-4)
    assert t_cdf(0.0, df) == 0.5
