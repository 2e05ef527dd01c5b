"""The error rates the README quotes for `compare`'s verdicts, computed exactly: the chance
that `regressed` is called, summed over every pair of pass counts the two sides' trials can
give (binomial), with the same Fisher test and rule as `scenario_verdict`."""

from __future__ import annotations

from math import comb

import pytest
from tracesim.evaluator.stats.verdict import scenario_verdict


def _binomial(n: int, p: float, k: int) -> float:
    return comb(n, k) * p**k * (1 - p) ** (n - k)


def p_regressed(base_rate: float, cand_rate: float, n_base: int, n_cand: int) -> float:
    """P(verdict == regressed) when the baseline passes each trial with `base_rate` and the
    candidate with `cand_rate`."""
    total = 0.0
    for a in range(n_base + 1):
        for c in range(n_cand + 1):
            if scenario_verdict(n_base, a, n_cand, c).verdict == "regressed":
                total += _binomial(n_base, base_rate, a) * _binomial(n_cand, cand_rate, c)
    return total


def test_an_unchanged_agent_is_rarely_called_regressed() -> None:
    assert p_regressed(0.7, 0.7, 6, 6) == pytest.approx(0.0015, abs=5e-5)
    assert p_regressed(0.5, 0.5, 10, 10) == pytest.approx(0.0064, abs=5e-5)
    # over 20 independent scenarios: about 3% (12% at the 50%-of-10 rate)
    assert 1 - (1 - p_regressed(0.7, 0.7, 6, 6)) ** 20 == pytest.approx(0.030, abs=1e-3)
    assert 1 - (1 - p_regressed(0.5, 0.5, 10, 10)) ** 20 == pytest.approx(0.12, abs=5e-3)


def test_the_power_the_readme_quotes() -> None:
    assert p_regressed(0.9, 0.3, 6, 6) == pytest.approx(0.26, abs=5e-3)
    assert p_regressed(1.0, 0.5, 8, 8) == pytest.approx(0.36, abs=5e-3)
    assert p_regressed(0.8, 0.6, 20, 20) == pytest.approx(0.19, abs=5e-3)
