"""Wilson intervals and tau-bench's pass@k / pass^k against values computed by hand."""

from __future__ import annotations

import pytest
from tracesim.evaluator.stats import pass_at_k, pass_hat_k, wilson_interval
from tracesim.evaluator.stats.proportions import pass_curves


def test_wilson_seven_of_ten() -> None:
    # p = 0.7, z^2 = 3.8415: centre 0.89207 / 1.38415 = 0.64450,
    # half = 1.41602 * sqrt(0.021 + 0.0096037) = 0.24772.
    low, high = wilson_interval(10, 7)
    assert low == pytest.approx(0.39678, abs=1e-4)
    assert high == pytest.approx(0.89222, abs=1e-4)


def test_wilson_never_leaves_zero_one_and_is_not_empty_at_the_ends() -> None:
    low, high = wilson_interval(10, 0)
    assert low == 0.0
    assert high == pytest.approx(0.27753, abs=1e-4)
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(1 - 0.27753, abs=1e-4)
    assert high == 1.0


def test_wilson_of_no_trial_is_none() -> None:
    assert wilson_interval(0, 0) is None


def test_pass_at_k_and_pass_hat_k_two_of_five() -> None:
    # pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10; pass^2 = C(2,2)/C(5,2) = 1/10.
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    # k = 1: both are the pass rate.
    assert pass_at_k(5, 2, 1) == pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    # k = n: pass@n is 1 when anything passed, pass^n only when everything did.
    assert pass_at_k(5, 2, 5) == 1.0
    assert pass_hat_k(5, 2, 5) == 0.0
    assert pass_hat_k(5, 5, 5) == 1.0


def test_pass_at_k_with_too_few_failures_to_fill_k_is_one() -> None:
    # 4 passes of 5: any 2 trials hold at least one pass (C(1, 2) = 0).
    assert pass_at_k(5, 4, 2) == 1.0
    # pass^3 = C(4,3)/C(5,3) = 4/10.
    assert pass_hat_k(5, 4, 3) == pytest.approx(0.4)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, 1, 0), (3, 1, 4), (-1, 0, 1)])
def test_bad_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


@pytest.mark.parametrize(("n", "c"), [(1, 0), (1, 1), (5, 2), (7, 7), (12, 0), (40, 13), (300, 151)])
def test_pass_curves_are_the_same_floats_as_one_k_at_a_time(n: int, c: int) -> None:
    at_k, hat_k = pass_curves(n, c)
    assert at_k == [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert hat_k == [pass_hat_k(n, c, k) for k in range(1, n + 1)]


def test_pass_curves_of_ten_thousand_trials() -> None:
    # One binomial and gcd per k took 21 s here; the curves end where they must.
    at_k, hat_k = pass_curves(10_000, 5_000)
    assert at_k[0] == hat_k[0] == 0.5
    assert at_k[-1] == 1.0 and hat_k[-1] == 0.0
    assert at_k[5_000] == 1.0  # any 5,001 of the trials hold one of the 5,000 passes
    assert 0.0 < hat_k[9] < hat_k[8] < 0.5
