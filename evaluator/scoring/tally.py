"""Running totals of metric values, so the run summary and the gates need no list of every value.

An evaluation streams its results chunk by chunk; what the summary and the
gates need from them fits in a few numbers per metric: how many graded
values, their sum, and, for each configured gate, how many values are on
the wrong side of its bound. `MetricTally.add` is called once per graded
value; `gate_stats` hands the gates what they compare.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tracesim.schemas.eval_config import EvalConfig

__all__ = ["GateStats", "MetricTally", "tally_values"]


@dataclass(frozen=True)
class GateStats:
    """What one gate is decided on: graded values, their sum, and how many miss the bound."""

    graded: int
    total: float
    failing: int


class MetricTally:
    """Count and sum per metric name, plus failing counts for the configured gates."""

    __slots__ = ("counts", "sums", "label_hits", "_bounds", "_failing", "_labels")

    def __init__(self, config: EvalConfig | None = None) -> None:
        self.counts: dict[str, int] = {}
        self.sums: dict[str, float] = {}
        self._bounds: dict[str, list[tuple[str, float]]] = {}
        self._failing: dict[tuple[str, str], int] = {}
        self.label_hits: dict[str, int] = {}
        """Graded values of each `failure_labels` metric that carried one of its labels."""
        self._labels: dict[str, frozenset[str]] = {}
        if config is not None:
            self._labels = {k: frozenset(v) for k, v in config.failure_labels.items()}
            for name, bound in config.thresholds.items():
                self._bounds.setdefault(name, []).append(("min", bound))
            for name, bound in config.max_thresholds.items():
                self._bounds.setdefault(name, []).append(("max", bound))

    def add(self, name: str, value: float) -> None:
        """Count one graded value of metric `name`."""
        counts = self.counts
        if name in counts:
            counts[name] += 1
            self.sums[name] += value
        else:
            counts[name] = 1
            self.sums[name] = value
        bounds = self._bounds.get(name)
        if bounds:
            for bound, threshold in bounds:
                if (value < threshold) if bound == "min" else (value > threshold):
                    key = (name, bound)
                    self._failing[key] = self._failing.get(key, 0) + 1

    def add_label(self, name: str, label: str | None) -> None:
        """Note the label of one graded value of `name` (counted when a label gate lists it)."""
        labels = self._labels.get(name)
        if labels and label in labels:
            self.label_hits[name] = self.label_hits.get(name, 0) + 1

    def merge(self, other: MetricTally) -> None:
        """Add the counts of `other` (a tally of later values, e.g. one chunk's) to these.

        Sums add per metric, so merging chunk tallies in chunk order gives the same
        floats whichever process tallied each chunk."""
        for name, count in other.counts.items():
            if name in self.counts:
                self.counts[name] += count
                self.sums[name] += other.sums[name]
            else:
                self.counts[name] = count
                self.sums[name] = other.sums[name]
        for key, failing in other._failing.items():
            self._failing[key] = self._failing.get(key, 0) + failing
        for name, hits in other.label_hits.items():
            self.label_hits[name] = self.label_hits.get(name, 0) + hits

    def mean(self, name: str) -> float | None:
        """Mean of the graded values of `name` (None when never graded)."""
        count = self.counts.get(name, 0)
        return self.sums[name] / count if count else None

    def gate_stats(self, name: str, bound: str) -> GateStats:
        """The numbers gate (`name`, `bound`) is decided on (bound: `min` or `max`)."""
        return GateStats(
            self.counts.get(name, 0),
            self.sums.get(name, 0.0),
            self._failing.get((name, bound), 0),
        )


def tally_values(
    values: Mapping[str, Sequence[float]] | Iterable[tuple[str, Sequence[float]]],
    config: EvalConfig | None = None,
) -> MetricTally:
    """A tally of lists of values by metric name (what callers holding every value have)."""
    tally = MetricTally(config)
    items = values.items() if isinstance(values, Mapping) else values
    for name, metric_values in items:
        for value in metric_values:
            tally.add(name, value)
    return tally
