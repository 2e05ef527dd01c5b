"""Fisher's exact test on a 2x2 table of pass counts, computed exactly with fractions.

Table: baseline (passed a, failed b), candidate (passed c, failed d). With the
margins fixed, the candidate's passes follow a hypergeometric distribution.
The two-sided p-value sums the probabilities of every table no more likely than
the one observed (the usual definition, as in R's `fisher.test` and
`scipy.stats.fisher_exact`); `less` / `greater` sum one tail of the candidate's
passes.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

__all__ = ["Alternative", "fisher_exact"]

Alternative = Literal["two-sided", "less", "greater"]


def _pmf(a: int, row1: int, row2: int, col1: int) -> Fraction:
    """P(candidate passes = a) with margins: row sums row1 (baseline), row2, pass total col1.
    Here `a` counts the *candidate's* passes."""
    return Fraction(math.comb(row2, a) * math.comb(row1, col1 - a), math.comb(row1 + row2, col1))


def fisher_exact(
    base_passed: int,
    base_failed: int,
    cand_passed: int,
    cand_failed: int,
    *,
    alternative: Alternative = "two-sided",
) -> float:
    """The p-value of Fisher's exact test that the two pass rates are equal.

    `less`: the alternative that the candidate passes less often than the baseline;
    `greater`: more often. An empty side (no trials) gives 1.0: nothing to test."""
    counts = (base_passed, base_failed, cand_passed, cand_failed)
    if min(counts) < 0:
        raise ValueError(f"counts must be >= 0 (got {counts})")
    row1 = base_passed + base_failed
    row2 = cand_passed + cand_failed
    col1 = base_passed + cand_passed
    if row1 == 0 or row2 == 0:
        return 1.0
    low = max(0, col1 - row1)
    high = min(row2, col1)
    observed = _pmf(cand_passed, row1, row2, col1)
    if alternative == "less":
        p = sum((_pmf(x, row1, row2, col1) for x in range(low, cand_passed + 1)), Fraction(0))
    elif alternative == "greater":
        p = sum((_pmf(x, row1, row2, col1) for x in range(cand_passed, high + 1)), Fraction(0))
    else:
        p = sum(
            (q for q in (_pmf(x, row1, row2, col1) for x in range(low, high + 1)) if q <= observed),
            Fraction(0),
        )
    return min(1.0, float(p))
