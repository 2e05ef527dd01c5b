"""arksim's custom metric classes, run as tracesim custom metrics without a change.

A file listed in `custom_metrics_file_paths` may define arksim `QuantitativeMetric` /
`QualitativeMetric` subclasses (`from arksim.evaluator import ...`). When arksim is not
installed, `arksim_api_installed` makes `arksim.evaluator` importable (while the file is
imported) from
`checks.arksim_api`; when it is, its own classes are used. Each concrete class is
instantiated as arksim does (no argument) and wrapped in `ArksimMetric`, which hands it
arksim's `ScoreInput` built from tracesim's `MetricContext`:

- `chat_history`: the conversation up to and including the turn; `current_turn`: the
  turn's user message and reply; `tool_calls`: the turn's merged calls (the
  conversation's at conversation scope); `knowledge` (arksim's "Knowledge i:" blocks),
  `user_goal`, `profile` from the scenario (`knowledge`: the fact the LLM user was
  shown in the turn when `user.knowledge` gives one a turn, as arksim's evaluator does);
- a `QuantResult` keeps its value in the metric's `score_range` (as arksim reports it, so
  arksim's `numeric_thresholds` apply unchanged) and passes the turn at 60% of the range's
  maximum (arksim's per-metric failure threshold);
- a `QualResult`'s value is the score's `label`, its value 0.0 when the label is one of
  its `evaluation.failure_labels` (arksim's `qualitative_failure_labels`, whose gate fails
  the run as in arksim) and 1.0 otherwise, so its mean is the share without a failure
  label; it never decides a turn by itself;
- `scope: conversation` metrics run once per conversation, as in arksim;
- a metric whose `__init__` takes `llm` gets the judge model (`checks.arksim_llm`).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import math
import sys
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tracesim.evaluator.checks import arksim_api
from tracesim.evaluator.checks.arksim_llm import failure_labels_of, instantiate
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.checks.custom import CustomMetric
from tracesim.schemas.conventions import TRACESIM
from tracesim.schemas.results import MetricResult

__all__ = [
    "ARKSIM_FAILURE_SHARE",
    "ArksimMetric",
    "arksim_metrics_of",
    "arksim_api_installed",
]

ARKSIM_FAILURE_SHARE = 0.6
"""arksim fails a turn whose metric value is below this share of its range's maximum."""


@contextmanager
def arksim_api_installed() -> Iterator[None]:
    """While a metrics file is imported, make `arksim.evaluator` importable from
    `checks.arksim_api` unless arksim is installed (then the file gets arksim's own
    classes); removed afterwards, so nothing else in the process sees a fake arksim."""
    if "arksim.evaluator" in sys.modules or importlib.util.find_spec("arksim") is not None:
        yield
        return
    package = types.ModuleType("arksim")
    package.__path__ = []  # a package, so `arksim.evaluator` resolves
    evaluator = types.ModuleType("arksim.evaluator")
    for name in arksim_api.__all__:
        setattr(evaluator, name, getattr(arksim_api, name))
    evaluator.__all__ = list(arksim_api.__all__)
    package.evaluator = evaluator  # type: ignore[attr-defined]
    sys.modules["arksim"], sys.modules["arksim.evaluator"] = package, evaluator
    try:
        yield
    finally:
        for name in ("arksim.evaluator", "arksim"):
            if sys.modules.get(name) in (package, evaluator):
                del sys.modules[name]


def _bases() -> tuple[tuple[type, ...], tuple[type, ...], type]:
    """(quantitative bases, qualitative bases, ScoreInput class) in use."""
    quant: list[type] = [arksim_api.QuantitativeMetric]
    qual: list[type] = [arksim_api.QualitativeMetric]
    score_input: type = arksim_api.ScoreInput
    real = sys.modules.get("arksim.evaluator")
    if real is not None and getattr(real, "QuantitativeMetric", None) is not quant[0]:
        quant.append(real.QuantitativeMetric)
        qual.append(real.QualitativeMetric)
        score_input = real.ScoreInput
    return tuple(quant), tuple(qual), score_input


def arksim_metrics_of(module: Any, *, where: str) -> list[ArksimMetric]:
    """The concrete arksim metric classes `module` defines, instantiated and wrapped."""
    quant, qual, _ = _bases()
    found = []
    for value in vars(module).values():
        if not inspect.isclass(value) or value in quant + qual or inspect.isabstract(value):
            continue
        if not issubclass(value, quant + qual):
            continue
        try:
            instance = instantiate(value)
        except Exception as exc:  # noqa: BLE001 - said as a config error naming the class
            raise ValueError(
                f"arksim metric {value.__name__} in {where} cannot be created without "
                f"arguments ({type(exc).__name__}: {exc}); give its __init__ parameters "
                "defaults, as arksim requires"
            ) from exc
        found.append(ArksimMetric(instance, quantitative=issubclass(value, quant)))
    return found


def _profile(value: Any) -> str:
    if isinstance(value, Mapping):
        return "\n".join(f"{key}: {item}" for key, item in value.items())
    return "" if value is None else str(value)


def _knowledge(items: Any) -> str:
    """arksim's combined knowledge text: `Knowledge i:` blocks."""
    if isinstance(items, str):
        return items
    texts = [
        str(item.get("content", "")) if isinstance(item, Mapping) else str(item)
        for item in items or []
    ]
    return "\n\n".join(f"Knowledge {i}:\n{text}" for i, text in enumerate(texts, 1))


def _shown_knowledge(ctx: MetricContext) -> str | None:
    """The fact the LLM user was shown in this turn (`user.knowledge` per turn, on the
    turn's `tracesim.turn` span), as arksim hands its metrics the turn's knowledge."""
    for span in ctx.spans:
        if span.get("name") != TRACESIM.TURN_SPAN:
            continue
        attributes = span.get("attributes")
        if isinstance(attributes, str):
            try:
                attributes = json.loads(attributes)
            except ValueError:
                continue
        if isinstance(attributes, Mapping):
            value = attributes.get(TRACESIM.USER_KNOWLEDGE)
            if isinstance(value, str) and value:
                return value
    return None


class ArksimMetric(CustomMetric):
    """An arksim metric instance as a tracesim `CustomMetric`."""

    def __init__(self, inner: Any, *, quantitative: bool) -> None:
        self.inner = inner
        self.quantitative = quantitative
        self.name = str(inner.name)  # type: ignore[misc]
        scope = getattr(inner, "scope", "turn")
        self.level = scope if scope in ("turn", "conversation") else "turn"  # type: ignore[misc]
        self.threshold = (  # type: ignore[misc]
            ARKSIM_FAILURE_SHARE * float(tuple(inner.score_range)[1]) if quantitative else None
        )

    def score_input(self, ctx: MetricContext) -> Any:
        """arksim's ScoreInput for one turn (or the whole conversation)."""
        _, _, score_input = _bases()
        messages = ctx.messages(upto_turn=ctx.turn_id)
        scenario = ctx.scenario or {}
        goal = scenario.get("goal")
        shown = _shown_knowledge(ctx) if ctx.turn is not None else None
        return score_input(
            chat_history=messages,
            current_turn=messages[-2:],
            knowledge=_knowledge([shown] if shown else scenario.get("knowledge")),
            user_goal="" if goal is None else str(goal),
            profile=_profile(scenario.get("user_profile")),
            tool_calls=list(ctx.tool_calls),
        )

    def score(self, ctx: MetricContext) -> MetricResult:  # type: ignore[override]
        """Run the arksim metric (its `run`, else `score` / `evaluate`) and convert."""
        payload = self.score_input(ctx)
        inner = self.inner
        if hasattr(inner, "run"):
            result = inner.run(payload)
        else:
            result = inner.score(payload) if self.quantitative else inner.evaluate(payload)
        details: dict[str, Any] = {"kind": "custom", "arksim": type(inner).__name__}
        llm = getattr(inner, "_llm", None)
        if hasattr(llm, "spent"):
            details["llm"] = llm.spent()  # the metric's own requests (not the judges')
        metadata = getattr(result, "metadata", None)
        if metadata:
            details["metadata"] = dict(metadata)
        reason = getattr(result, "reason", None) or ""
        if self.quantitative:
            details["score_range"] = list(inner.score_range)
            value = float(result.value)
            if not math.isfinite(value):  # never a score: said, not stored as NaN
                return MetricResult(
                    name=self.name,
                    label="error",
                    reason=f"the metric returned {value} (not a number in its score_range)",
                    details=details,
                )
            return MetricResult(name=self.name, value=value, reason=reason, details=details)
        label = str(result.value)
        failing = failure_labels_of(self.name)
        if failing is None:  # no failure label configured: a label, never pass/fail
            return MetricResult(
                name=self.name, value=1.0, label=label, reason=reason, details=details
            )
        bad = label in failing  # the share without a failure label; the label gate fails
        return MetricResult(  # the run, as arksim's does, not the turn (passed stays None)
            name=self.name, value=0.0 if bad else 1.0, label=label, reason=reason, details=details
        )
