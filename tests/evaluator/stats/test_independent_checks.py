"""The verdict statistics against computations that share no code with them.

pass@k / pass^k by enumerating every k-subset of the n trials (tau-bench's definition:
the chance that k trials drawn without replacement hold at least one / only passes);
Fisher's exact test by enumerating every table with the observed margins in floating
point, with R's relative tolerance for ties; the Wilson interval as the roots of its
quadratic. Small hand-sized cases, all of them.
"""

from __future__ import annotations

import itertools
import math

import pytest
from tracesim.evaluator.stats.exact_test import fisher_exact
from tracesim.evaluator.stats.proportions import Z_95, pass_curves, wilson_interval
from tracesim.evaluator.stats.trials import roll_up, scenario_trials

CASES = [(n, c) for n in range(1, 8) for c in range(n + 1)]


def _enumerated(n: int, c: int, k: int) -> tuple[float, float]:
    trials = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    at_least_one = sum(any(trials[i] for i in s) for s in subsets) / len(subsets)
    all_pass = sum(all(trials[i] for i in s) for s in subsets) / len(subsets)
    return at_least_one, all_pass


@pytest.mark.parametrize(("n", "c"), CASES)
def test_pass_at_k_and_pass_hat_k_are_the_subset_frequencies(n: int, c: int) -> None:
    at_k, hat_k = pass_curves(n, c)
    for k in range(1, n + 1):
        at, hat = _enumerated(n, c, k)
        assert at_k[k - 1] == pytest.approx(at, abs=1e-12)
        assert hat_k[k - 1] == pytest.approx(hat, abs=1e-12)


def _fisher_by_tables(a: int, b: int, c: int, d: int) -> float:
    """Two-sided p: the probabilities of all tables with these margins that are no more
    likely than the observed one (R's `fisher.test`, relative tolerance 1e-7)."""
    row1, row2, col1 = a + b, c + d, a + c
    n = row1 + row2

    def log_p(x: int) -> float:  # x = the candidate's passes
        return (
            math.lgamma(row2 + 1)
            - math.lgamma(x + 1)
            - math.lgamma(row2 - x + 1)
            + math.lgamma(row1 + 1)
            - math.lgamma(col1 - x + 1)
            - math.lgamma(row1 - col1 + x + 1)
            - (math.lgamma(n + 1) - math.lgamma(col1 + 1) - math.lgamma(n - col1 + 1))
        )

    xs = range(max(0, col1 - row1), min(row2, col1) + 1)
    observed = math.exp(log_p(c))
    return min(
        1.0, sum(math.exp(log_p(x)) for x in xs if math.exp(log_p(x)) <= observed * (1 + 1e-7))
    )


@pytest.mark.parametrize("n1", [1, 3, 5, 6])
@pytest.mark.parametrize("n2", [1, 4, 5])
def test_fisher_two_sided_matches_every_table_of_its_margins(n1: int, n2: int) -> None:
    for p1 in range(n1 + 1):
        for p2 in range(n2 + 1):
            got = fisher_exact(p1, n1 - p1, p2, n2 - p2)
            assert got == pytest.approx(_fisher_by_tables(p1, n1 - p1, p2, n2 - p2), rel=1e-9)


def test_fisher_values_the_readme_quotes() -> None:
    assert fisher_exact(4, 0, 0, 4) == pytest.approx(2 / 70)  # 4/4 -> 0/4: 0.029
    assert fisher_exact(5, 0, 0, 5) == pytest.approx(2 / 252)  # 5/5 -> 0/5: 0.0079
    assert fisher_exact(5, 1, 3, 3) == pytest.approx(0.5454545, abs=1e-6)  # 5/6 -> 3/6: 0.55


@pytest.mark.parametrize(("n", "c"), [(30, 25), (30, 10), (10, 7), (5, 0), (5, 5), (1, 1)])
def test_wilson_bounds_are_the_roots_of_the_score_equation(n: int, c: int) -> None:
    """The Wilson bounds solve (p_hat - p)^2 = z^2 p (1 - p) / n for p."""
    p_hat, z2 = c / n, Z_95 * Z_95
    qa, qb, qc = 1 + z2 / n, -(2 * p_hat + z2 / n), p_hat * p_hat
    root = math.sqrt(qb * qb - 4 * qa * qc)
    low, high = wilson_interval(n, c)
    assert low == pytest.approx((-qb - root) / (2 * qa), abs=1e-12)
    assert high == pytest.approx((-qb + root) / (2 * qa), abs=1e-12)


def test_the_runs_pass_hat_k_is_the_mean_over_scenarios_up_to_the_fewest_trials() -> None:
    one = scenario_trials("a", [True, True, False, True])  # 3 of 4
    two = scenario_trials("b", [True, False])  # 1 of 2
    run = roll_up([one, two])
    assert sorted(run.pass_hat_k) == [1, 2]  # k up to the fewest trials of a scenario
    assert run.pass_hat_k[2] == pytest.approx((3 / 6 + 0 / 1) / 2)  # C(3,2)/C(4,2), C(1,2)=0
    assert run.pass_at_k[2] == pytest.approx((1.0 + 1.0) / 2)
    assert run.pass_rate == pytest.approx(4 / 6)
