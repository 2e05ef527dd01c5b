"""Custom metrics from user Python files: a `@metric` decorator or a `CustomMetric` class.

    from tracesim.evaluator import metric, CustomMetric, MetricContext   # or from tracesim

    @metric(name="polite", level="turn", threshold=0.5)
    def polite(ctx: MetricContext) -> float:
        return 1.0 if "please" in (ctx.turn["agent_message"] or "") else 0.0

    class UsedRefundTool(CustomMetric):
        name = "used_refund_tool"
        level = "conversation"
        def score(self, ctx):
            return any(c.name == "refund" for c in ctx.tool_calls)

A metric may return a `MetricResult`, a float (its value), a bool (1.0 /
0.0, and pass/fail), or None (not graded); it may be async. Pass/fail: a
returned `MetricResult.passed` wins, then a bool, then `threshold` (or the
config's `turn_thresholds[name]`); a metric with none of these is reported
but does not decide turn success. A metric that raises is recorded as not
graded with the error as its reason; it never stops the evaluation.

`load_custom_metrics(paths)` imports each file once and collects every
`@metric` function and every `CustomMetric` subclass defined in it, and arksim's
`QuantitativeMetric` / `QualitativeMetric` subclasses as they are
(`checks.arksim_metrics`); a file
that is missing or fails to import, or two metrics with the same name, raise
`CustomMetricError` (a config error).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import inspect
import math
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from tracesim.evaluator.checks.context import MetricContext
from tracesim.schemas.duckdb_file import not_a_file
from tracesim.schemas.results import MetricResult

__all__ = [
    "CustomMetric",
    "CustomMetricError",
    "MetricScore",
    "load_custom_metrics",
    "metric",
    "run_custom_metric",
]

MetricScore = MetricResult | float | int | bool | None
"""What a custom metric may return."""

Level = Literal["turn", "conversation"]


class CustomMetricError(Exception):
    """A custom metrics file cannot be loaded (missing, import error, duplicate name)."""


class CustomMetric:
    """Base class of custom metrics: set `name` and `level`, implement `score(ctx)`."""

    name: ClassVar[str] = ""
    """Metric name in results and scores (unique)."""
    level: ClassVar[Level] = "turn"
    """`turn`: called for each turn; `conversation`: once per conversation."""
    threshold: ClassVar[float | None] = None
    """Pass when value >= threshold (makes the metric count toward turn success)."""

    def score(self, ctx: MetricContext) -> MetricScore:
        """Grade one turn or conversation."""
        raise NotImplementedError


class _FunctionMetric(CustomMetric):
    """A `@metric` function wrapped as a CustomMetric instance."""

    def __init__(
        self, fn: Callable[[MetricContext], Any], name: str, level: Level, threshold: float | None
    ):
        self.fn = fn
        self.name = name  # type: ignore[misc]
        self.level = level  # type: ignore[misc]
        self.threshold = threshold  # type: ignore[misc]

    def score(self, ctx: MetricContext) -> Any:
        return self.fn(ctx)

    def __call__(self, ctx: MetricContext) -> Any:
        return self.fn(ctx)


def metric(
    *, name: str | None = None, level: Level = "turn", threshold: float | None = None
) -> Callable[[Callable[[MetricContext], Any]], CustomMetric]:
    """Declare a function as a custom metric (name defaults to the function's name)."""
    if level not in ("turn", "conversation"):
        raise ValueError(f"metric level must be 'turn' or 'conversation', not {level!r}")

    def wrap(fn: Callable[[MetricContext], Any]) -> CustomMetric:
        return _FunctionMetric(fn, name or fn.__name__, level, threshold)

    return wrap


def _module_from_file(path: Path) -> Any:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_name = f"tracesim_custom_metrics_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise CustomMetricError(f"custom metrics file {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        from tracesim.evaluator.checks.arksim_metrics import arksim_api_installed

        with arksim_api_installed():  # arksim's metric classes, run as they are
            spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(module_name, None)
        raise CustomMetricError(
            f"custom metrics file {path} failed to import: {type(exc).__name__}: {exc}"
        ) from exc
    return module


def _metrics_of(module: Any, path: Path) -> list[CustomMetric]:
    from tracesim.evaluator.checks.arksim_metrics import arksim_metrics_of

    try:
        found: list[CustomMetric] = list(arksim_metrics_of(module, where=str(path)))
    except ValueError as exc:
        raise CustomMetricError(str(exc)) from exc
    for value in vars(module).values():
        if isinstance(value, CustomMetric):
            found.append(value)
        elif (
            inspect.isclass(value)
            and issubclass(value, CustomMetric)
            and value not in (CustomMetric, _FunctionMetric)
            and value.__module__ == module.__name__
        ):
            found.append(value())
    return found


def load_custom_metrics(
    paths: Iterable[str | Path], *, base_dir: str | Path | None = None
) -> list[CustomMetric]:
    """Import each file (relative to `base_dir`) and collect its metrics, in file order."""
    metrics: list[CustomMetric] = []
    seen: dict[str, Path] = {}
    for raw in paths:
        path = Path(raw)
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        path = path.resolve()
        kind = not_a_file(path)  # a device or FIFO would be read forever, or hang
        if kind is not None:
            raise CustomMetricError(
                f"custom metrics file {path} is {kind}, not a Python file "
                "(custom_metrics_file_paths)"
            )
        if not path.is_file():
            raise CustomMetricError(
                f"custom metrics file {path} does not exist (custom_metrics_file_paths)"
            )
        found = _metrics_of(_module_from_file(path), path)
        if not found:
            raise CustomMetricError(
                f"custom metrics file {path} defines no metric: decorate a function with @metric, "
                "subclass CustomMetric, or subclass arksim's QuantitativeMetric / "
                "QualitativeMetric"
            )
        for item in found:
            if not item.name:
                raise CustomMetricError(
                    f"custom metric {type(item).__name__} in {path} has no name"
                )
            if item.level not in ("turn", "conversation"):
                raise CustomMetricError(
                    f"custom metric {item.name!r} in {path}: bad level {item.level!r}"
                )
            if item.name in seen:
                raise CustomMetricError(
                    f"custom metric {item.name!r} is defined twice ({seen[item.name]} and {path})"
                )
            seen[item.name] = path
            metrics.append(item)
    return metrics


def _as_result(item: CustomMetric, raw: Any, thresholds: Mapping[str, float]) -> MetricResult:
    threshold = item.threshold if item.threshold is not None else thresholds.get(item.name)
    details = {"kind": "custom"}
    if isinstance(raw, MetricResult):
        result = raw.model_copy(update={"name": item.name, "details": {**details, **raw.details}})
        if result.passed is None and result.value is not None and threshold is not None:
            result.passed = result.value >= threshold
        return result
    if raw is None:
        return MetricResult(
            name=item.name, reason="the metric returned None (not graded)", details=details
        )
    if isinstance(raw, bool):
        return MetricResult(name=item.name, value=1.0 if raw else 0.0, passed=raw, details=details)
    if isinstance(raw, (int, float)) and math.isfinite(raw):
        passed = None if threshold is None else float(raw) >= threshold
        return MetricResult(name=item.name, value=float(raw), passed=passed, details=details)
    return MetricResult(
        name=item.name,
        label="error",
        reason=f"the metric returned {type(raw).__name__}; expected MetricResult, float, bool or None",
        details=details,
    )


def run_custom_metric(
    item: CustomMetric, ctx: MetricContext, *, thresholds: Mapping[str, float]
) -> MetricResult:
    """Call one metric on one context; an exception becomes a not-graded result with the error."""
    try:
        raw = item.score(ctx)
        if inspect.isawaitable(raw):
            raw = asyncio.run(_await(raw))
        return _as_result(item, raw, thresholds)
    except Exception as exc:  # noqa: BLE001 - a user's metric never stops the evaluation
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return MetricResult(
            name=item.name,
            label="error",
            reason=f"the metric raised {type(exc).__name__}: {exc} ({Path(frame.filename).name}:{frame.lineno})",
            details={"kind": "custom"},
        )


async def _await(awaitable: Any) -> Any:
    return await awaitable
