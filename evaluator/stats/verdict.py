"""One scenario's verdict between a baseline and a candidate, from their pass counts.

The test is Fisher's exact test, two-sided, at `alpha` (default 0.05): it asks
whether the two pass rates differ, and the sign of the change says which way.

- `regressed` / `improved`: the difference is significant (p < alpha) and the
  candidate's pass rate is lower / higher;
- `unchanged`: both sides have the same pass rate (identical results, e.g. a
  deterministic scenario passing or failing every trial on both sides): there
  is no difference to explain;
- `inconclusive`: the pass rates differ but not significantly (p >= alpha),
  or a side has no trial: the trials cannot tell a real change from chance.
  More trials (`num_conversations_per_scenario`) narrow it down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tracesim.evaluator.stats.exact_test import fisher_exact

__all__ = ["DEFAULT_ALPHA", "Verdict", "VerdictName", "decide", "holm_adjust", "scenario_verdict"]

DEFAULT_ALPHA = 0.05
"""Significance level of the exact test."""

VerdictName = Literal["regressed", "improved", "unchanged", "inconclusive"]


@dataclass(frozen=True)
class Verdict:
    """The verdict and the test's two-sided p-value (None when a side had no trial)."""

    verdict: VerdictName
    p_value: float | None


def scenario_verdict(
    base_trials: int,
    base_passed: int,
    cand_trials: int,
    cand_passed: int,
    *,
    alpha: float = DEFAULT_ALPHA,
) -> Verdict:
    """Compare the pass counts of one scenario (see the module for the rules)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1) (got {alpha})")
    for trials, passed in ((base_trials, base_passed), (cand_trials, cand_passed)):
        if not 0 <= passed <= trials:
            raise ValueError(f"need 0 <= passed <= trials (got {passed} of {trials})")
    if base_trials == 0 or cand_trials == 0:
        return Verdict("inconclusive", None)
    p = fisher_exact(base_passed, base_trials - base_passed, cand_passed, cand_trials - cand_passed)
    # Compare the rates exactly (cross-multiplied), never as floats.
    change = cand_passed * base_trials - base_passed * cand_trials
    return Verdict(decide(change, p, alpha=alpha), p)


def decide(change: int, p: float | None, *, alpha: float = DEFAULT_ALPHA) -> VerdictName:
    """The verdict from the sign of the pass-rate change and the (possibly adjusted) p-value."""
    if p is None:
        return "inconclusive"
    if change == 0:
        return "unchanged"
    if p < alpha:
        return "regressed" if change < 0 else "improved"
    return "inconclusive"


def holm_adjust(p_values: list[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values (None stays None and does not count as a test).

    Sorted ascending, the i-th smallest of m is multiplied by m - i (i from 0), kept
    monotone and capped at 1: rejecting where adjusted p < alpha holds the chance of any
    false verdict over all the scenarios at alpha."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(tested)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(tested):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted
