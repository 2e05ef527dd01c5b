"""Pass-rate statistics of n trials with c passes: Wilson interval, pass@k, pass^k.

pass@k and pass^k are the unbiased estimators tau-bench uses: of k trials drawn
without replacement from the n run, the chance that at least one passes
(pass@k = 1 - C(n-c, k) / C(n, k)) and that all k pass (pass^k = C(c, k) / C(n, k)).
Computed exactly with integers, then turned into floats.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["Z_95", "pass_at_k", "pass_curves", "pass_hat_k", "wilson_interval"]

Z_95 = 1.959963984540054
"""The standard normal quantile of 0.975 (a two-sided 95% interval)."""


def _check(n: int, c: int, k: int | None = None) -> None:
    if n < 0 or c < 0 or c > n:
        raise ValueError(f"need 0 <= passes <= trials (got {c} passes of {n} trials)")
    if k is not None and not 1 <= k <= n:
        raise ValueError(f"k must be in 1..{n} (got {k})")


def wilson_interval(n: int, c: int, *, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of the pass rate c/n (95% by default); None when n = 0.

    Unlike the normal approximation it stays inside [0, 1] and is not empty at c = 0 or n."""
    _check(n, c)
    if n == 0:
        return None
    p = c / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = (z / (1 + z2 / n)) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if c == 0 else max(0.0, centre - half)  # exactly 0 / 1 at the ends
    high = 1.0 if c == n else min(1.0, centre + half)
    return low, high


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one of k trials passes), unbiased from c passes in n trials."""
    _check(n, c, k)
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: P(all k trials pass), unbiased from c passes in n trials."""
    _check(n, c, k)
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def pass_curves(n: int, c: int) -> tuple[list[float], list[float]]:
    """pass@k and pass^k for every k in 1..n (index k-1): the same floats as `pass_at_k`
    and `pass_hat_k`, in O(n) big-integer steps instead of three binomials and a gcd per k
    (those took 21 s for one scenario of 10,000 trials).

    The binomials are updated from k-1 to k exactly (C(m, k) = C(m, k-1) (m-k+1) / k);
    an int / int division is correctly rounded, as the Fraction's float was.
    """
    _check(n, c)
    at_k: list[float] = []
    hat_k: list[float] = []
    total = failing = passing = 1  # C(n, k), C(n-c, k), C(c, k) at k = 0
    for k in range(1, n + 1):
        total = total * (n - k + 1) // k
        failing = failing * max(n - c - k + 1, 0) // k
        passing = passing * max(c - k + 1, 0) // k
        at_k.append((total - failing) / total)
        hat_k.append(passing / total)
    return at_k, hat_k
