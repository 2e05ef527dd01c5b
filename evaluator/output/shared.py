"""A metric result shared by several turns, its stored forms encoded once.

Checks computed once per distinct input (`evaluator.checks.memo`) hand the same
result to every turn that made the same calls. Such a result is never changed in
place (`freeze` copies; `thaw` gives a private copy to change): its `scores` row
pieces (threshold, details as JSON) and its `results.json` summary are encoded
on first use and reused (`ScoreColumns.add`, `summarize`).
"""

from __future__ import annotations

import copy
from typing import Any

from tracesim.schemas.results import MetricResult

__all__ = ["SharedResult", "freeze", "thaw"]


class SharedResult(MetricResult):
    """A `MetricResult` several turns hold: read-only, with its encodings cached.

    The caches are plain instance attributes (`_row`: its `scores` values, details as
    JSON; `_summary`: its `results.json` summary), set by `freeze` and filled on
    first use: pydantic's private attributes cost ~1 us a read on this hot path.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_"):
            raise TypeError(f"a shared result is read-only (set {name!r} on thaw(result))")
        object.__setattr__(self, name, value)

    def model_copy(self, *, update: Any = None, deep: bool = False) -> MetricResult:
        """A plain copy (the caches would not describe a changed copy)."""
        return thaw(self).model_copy(update=update, deep=deep)


def freeze(result: MetricResult) -> SharedResult:
    """`result` itself, made a `SharedResult` (the caller hands it over: it is no longer
    changed in place). Changing its class costs nothing next to copying its fields."""
    if type(result) is SharedResult:
        return result
    if type(result) is not MetricResult:  # a subclass: its own fields stay its own
        fields = {name: getattr(result, name) for name in MetricResult.model_fields}
        result = MetricResult.model_construct(_fields_set=set(result.model_fields_set), **fields)
    object.__setattr__(result, "__class__", SharedResult)
    object.__setattr__(result, "_row", None)
    object.__setattr__(result, "_summary", None)
    return result  # type: ignore[return-value]


def thaw(result: MetricResult) -> MetricResult:
    """A plain `MetricResult` to change in place: `result` itself unless it is shared."""
    if type(result) is not SharedResult:
        return result
    fields = {name: getattr(result, name) for name in MetricResult.model_fields}
    fields["details"] = copy.deepcopy(fields["details"])
    return MetricResult.model_construct(_fields_set=set(result.model_fields_set), **fields)
