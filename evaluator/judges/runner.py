"""Run judges over many turns and conversations: cache first, then bounded async requests.

`run_judges` never raises for one item: a missing key, a failed request, a
malformed answer or a turn that errored each become a `MetricResult` with
value None and a label saying which (`not_run`, `error`, `malformed`,
`skipped`) and a reason.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.judges.base import Judge, MalformedAnswer
from tracesim.evaluator.judges.prompt import judge_messages
from tracesim.evaluator.llm.cache import request_hash
from tracesim.evaluator.llm.llm_client import JudgeCallError, JudgeClient
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.results import MetricResult

__all__ = ["JudgeTask", "not_run_result", "run_judges"]

log = logging.getLogger(__name__)

JudgeTask = tuple[Judge, MetricContext]
"""One judge applied to one turn or conversation."""


def not_run_result(name: str, reason: str) -> MetricResult:
    """The result of a judge that could not run (value None, label `not_run`)."""
    return MetricResult(
        name=name, value=None, label="not_run", reason=reason, details={"kind": "judge"}
    )


def _threshold(judge: Judge, config: EvalConfig) -> float:
    return config.turn_thresholds.get(judge.name, config.turn_success_threshold)


async def run_judges(
    tasks: Sequence[JudgeTask],
    *,
    client: JudgeClient | None,
    config: EvalConfig,
    unavailable_reason: str = "LLM judges are not configured",
    on_done: Callable[[], None] | None = None,
) -> list[MetricResult]:
    """Grade every task; results are aligned with `tasks`."""
    results: list[MetricResult | None] = [None] * len(tasks)
    requests: list[dict | None] = [None] * len(tasks)
    for i, (judge, ctx) in enumerate(tasks):
        if client is None:
            results[i] = not_run_result(judge.name, unavailable_reason)
        elif judge.without_tool_calls is not None and ctx.turn is not None and not ctx.tool_calls:
            results[i] = _without_tool_calls(judge)
        elif ctx.turn is not None and ctx.turn.get("status") not in (None, "ok"):
            results[i] = MetricResult(
                name=judge.name,
                label="skipped",
                reason=f"turn ended with status {ctx.turn.get('status')}: nothing to judge",
                details={"kind": "judge"},
            )
        else:
            messages = judge_messages(judge, ctx, max_chars=config.max_context_chars)
            requests[i] = client.build_request(
                messages, schema_name=judge.name, schema=judge.schema
            )
    pending = [i for i, r in enumerate(requests) if r is not None]
    if client is not None and pending:
        client.cache.get_many(request_hash(requests[i]) for i in pending)  # type: ignore[arg-type]
    for i in range(len(tasks)):
        if results[i] is not None and on_done:
            on_done()
    if client is None or not pending:
        return results  # type: ignore[return-value]

    queue = iter(pending)

    async def worker() -> None:
        for i in queue:
            judge, _ = tasks[i]
            results[i] = await _grade(judge, requests[i], client, config)  # type: ignore[arg-type]
            if on_done:
                on_done()

    workers = max(1, min(len(pending), client.llm.max_concurrency * 4))
    try:
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        client.cache.flush()
    return results  # type: ignore[return-value]


def _without_tool_calls(judge: Judge) -> MetricResult:
    """The fixed verdict of a tool-call judge on a turn that called no tool (no request)."""
    label = judge.without_tool_calls or ""
    return MetricResult(
        name=judge.name,
        value=judge.read({"label": label, "reasoning": ""}).value,
        passed=judge.pass_labels is None or label in judge.pass_labels,
        label=label,
        reason="No tool calls in this turn",
        details={"kind": "judge", "severity": None, "requested": False},
    )


async def _grade(
    judge: Judge, request: dict, client: JudgeClient, config: EvalConfig
) -> MetricResult:
    details: dict = {"kind": "judge", "model": client.llm.model}
    try:
        verdict = await client.ask(request, parse=judge.parse)
    except MalformedAnswer as exc:
        return MetricResult(
            name=judge.name,
            label="malformed",
            reason=f"judge answer unusable: {exc}",
            details=details,
        )
    except JudgeCallError as exc:
        return MetricResult(name=judge.name, label="error", reason=str(exc), details=details)
    except Exception as exc:  # noqa: BLE001 - one judge never stops the evaluation
        log.exception("judge %s failed", judge.name)
        return MetricResult(
            name=judge.name,
            label="error",
            reason=f"judge crashed: {type(exc).__name__}: {exc}",
            details=details,
        )
    if judge.severity is not None:
        details["severity"] = judge.severity.get(verdict.label)
    if judge.pass_labels is not None:
        passed = verdict.label in judge.pass_labels
        details["passing_labels"] = sorted(judge.pass_labels)
    else:
        threshold = _threshold(judge, config)
        passed = verdict.value >= threshold
        details["threshold"] = threshold
    details["reasoning"] = verdict.reasoning
    reason = verdict.reasoning if len(verdict.reasoning) <= 400 else verdict.reasoning[:397] + "..."
    return MetricResult(
        name=judge.name,
        value=verdict.value,
        passed=passed,
        label=verdict.label,
        reason=reason,
        details=details,
    )
