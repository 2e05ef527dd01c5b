"""Seeded percentile bootstrap intervals over scenarios: a mean, and a paired mean change.

Scenarios are the unit resampled (trials of one scenario are not independent of
each other's difficulty). The generator is `random.Random(seed)`, so the same
values and seed always give the same interval.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tracesim.schemas.eval_config import BOOTSTRAP_SEED

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED", "bootstrap_mean_ci", "paired_change_ci"]

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = BOOTSTRAP_SEED
"""Fixed so an interval is reproducible (`evaluation.seed` overrides it); any seed is as good."""


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile q in [0, 1] of sorted values."""
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_mean_ci(
    values: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of `values`; None when empty.

    One value gives the degenerate interval [v, v]: there is no spread to resample."""
    n = len(values)
    if n == 0:
        return None
    if n == 1 or min(values) == max(values):
        return float(values[0]), float(values[0])
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    alpha = (1 - level) / 2
    return _percentile(means, alpha), _percentile(means, 1 - alpha)


def paired_change_ci(
    before: Sequence[float],
    after: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, tuple[float, float] | None]:
    """Mean of the paired changes `after[i] - before[i]` and its bootstrap interval."""
    if len(before) != len(after):
        raise ValueError("paired values need the same length")
    changes = [b - a for a, b in zip(before, after, strict=True)]
    if not changes:
        return 0.0, None
    mean = sum(changes) / len(changes)
    return mean, bootstrap_mean_ci(changes, level=level, resamples=resamples, seed=seed)
