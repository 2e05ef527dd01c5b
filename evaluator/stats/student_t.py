"""Student's t distribution for whole degrees of freedom, exactly, without scipy.

P(|T| < t) has a finite closed form for integer df (Abramowitz & Stegun 26.7.3-4): a
series in cos(theta) with theta = atan(t / sqrt(df)). The quantile is found by bisection
on it. Used to widen the bootstrap intervals of small samples (`bootstrap.py`).
"""

from __future__ import annotations

import math

__all__ = ["t_cdf", "t_quantile"]


def _two_sided(t: float, df: int) -> float:
    """P(|T| < t) for t >= 0 and whole df >= 1."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        if df == 1:
            return 2 * theta / math.pi
        term, total = 1.0, 1.0
        for k in range(1, (df - 3) // 2 + 1):  # 1 + 2/3 c2 + (2*4)/(3*5) c2^2 + ...
            term *= (2 * k) / (2 * k + 1) * c2
            total += term
        return 2 / math.pi * (theta + s * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, (df - 2) // 2 + 1):  # 1 + 1/2 c2 + (1*3)/(2*4) c2^2 + ...
        term *= (2 * k - 1) / (2 * k) * c2
        total += term
    return s * total


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with whole `df` >= 1."""
    if df < 1:
        raise ValueError(f"df must be >= 1 (got {df})")
    half = _two_sided(abs(t), df) / 2
    return 0.5 + half if t >= 0 else 0.5 - half


def t_quantile(p: float, df: int) -> float:
    """The t with P(T <= t) = p (0 < p < 1), to about 1e-12."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1) (got {p})")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2
