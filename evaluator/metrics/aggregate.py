"""`aggregate`: one metric's results over many turns, as one result (ADK's per-eval rollup).

Value = the mean (or min / max / sum) of the graded values; results that
could not grade are counted, never averaged in as 0. `passed`: with a
`threshold`, the aggregate value compared with it (``higher_is_better``
decides the direction); without one, True when every graded result passed
(None when none had a pass/fail, as informational counts). No graded value
at all: not graded.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracesim.evaluator.metrics.expected import not_graded
from tracesim.schemas import MetricResult

__all__ = ["AGGREGATIONS", "aggregate"]

AGGREGATIONS = ("mean", "min", "max", "sum")
"""How graded values combine."""


def aggregate(
    results: Sequence[MetricResult],
    *,
    how: str = "mean",
    threshold: float | None = None,
    higher_is_better: bool = True,
    name: str | None = None,
) -> MetricResult:
    """Combine one metric's per-turn results; ValueError for an unknown `how` or mixed names."""
    if how not in AGGREGATIONS:
        raise ValueError(f"how={how!r}: one of {', '.join(AGGREGATIONS)}")
    names = {r.name for r in results}
    if name is None:
        if len(names) > 1:
            raise ValueError(f"results of several metrics ({', '.join(sorted(names))}): pass name=")
        name = next(iter(names), "aggregate")
    graded = [r for r in results if r.value is not None]
    if not graded:
        return not_graded(name, f"none of {len(results)} results was graded")
    values = [float(r.value) for r in graded]  # type: ignore[arg-type]
    value = {
        "mean": lambda: sum(values) / len(values),
        "min": lambda: min(values),
        "max": lambda: max(values),
        "sum": lambda: sum(values),
    }[how]()
    verdicts = [r.passed for r in graded if r.passed is not None]
    if threshold is not None:
        passed: bool | None = value >= threshold if higher_is_better else value <= threshold
    else:
        passed = all(verdicts) if verdicts else None
    labels = {r.label for r in graded}
    return MetricResult(
        name=name,
        value=value,
        passed=passed,
        label=labels.pop() if len(labels) == 1 else None,
        reason=f"{how} of {len(graded)} graded results ({len(results) - len(graded)} not graded)"
        + (f"; {sum(verdicts)} of {len(verdicts)} passed" if verdicts else ""),
        details={
            "how": how,
            "graded": len(graded),
            "not_graded": len(results) - len(graded),
            "passed": sum(verdicts),
            "failed": len(verdicts) - sum(verdicts),
            "values": values,
            "threshold": threshold,
        },
    )
