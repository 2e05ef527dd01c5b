"""The LLM-judge and custom-metric stages of an evaluation, run chunk by chunk.

`JudgeStage` keeps one event loop (`asyncio.Runner`) and one `JudgeClient`
(cache, limiter, retries, usage) for the whole evaluation, so judging chunk
after chunk costs what judging everything at once did, and the usage adds
up across chunks. Traced-only chats (`evaluator.load.traced`) are judged when their
spans carry the turns' messages (SPEC §14), else skipped; without a scenario goal the
judges infer it from the conversation and their reasons say so. The cache reads and writes through its own cursor: the
pipeline's connection holds the evaluation's transaction, while an answer
paid for stays cached even if the evaluation fails later.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from tracesim.evaluator.checks.custom import CustomMetric, run_custom_metric
from tracesim.evaluator.judges import (
    BUILTIN_JUDGES,
    JudgeTask,
    not_run_result,
    run_judges,
    with_rubric,
)
from tracesim.evaluator.llm.cache import LLMCache
from tracesim.evaluator.llm.llm_client import JudgeClient, LLMUsage, judge_unavailable_reason
from tracesim.evaluator.pipeline.production import has_messages, note_inferred_goal
from tracesim.evaluator.pipeline.stages import ConversationWork, add_results
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

__all__ = ["JudgeStage", "judge_task_count", "not_run_results", "run_custom"]


def judge_task_count(config: EvalConfig, *, conversations: int, turns: int) -> int:
    """How many judge requests an evaluation of this size asks for (for the progress bar).

    `conversations` and `turns` count simulated ones only (traced-only chats are not judged).
    """
    levels = [BUILTIN_JUDGES[name].level for name in config.metrics]
    return sum(conversations if level == "conversation" else turns for level in levels)


def _judge_tasks(
    works: Sequence[ConversationWork], config: EvalConfig
) -> tuple[list[JudgeTask], list[tuple[int, int | None]]]:
    tasks: list[JudgeTask] = []
    where: list[tuple[int, int | None]] = []
    judges = [
        with_rubric(BUILTIN_JUDGES[name], config.judge_rubrics[name])
        if name in config.judge_rubrics
        else BUILTIN_JUDGES[name]
        for name in config.metrics
    ]
    for w, work in enumerate(works):
        if work.data.traced_only and not has_messages(work.data):
            continue  # production traces whose spans carry no user or agent message
        for judge in judges:
            if judge.level == "conversation":
                tasks.append((judge, work.context(None)))
                where.append((w, None))
            else:
                for index in range(len(work.data.turns)):
                    tasks.append((judge, work.context(index)))
                    where.append((w, index))
    return tasks, where


class JudgeStage:
    """Runs the configured judges on each chunk; a context manager (it owns a loop and a client)."""

    def __init__(self, config: EvalConfig, llm: LLMConfig | None, con: Any) -> None:
        self.config = config
        self.llm = llm
        self._con = con
        self._reason: str | None = None
        self._runner: asyncio.Runner | None = None
        self._client: JudgeClient | None = None
        self._cursor: Any = None
        if not config.metrics:
            self._usage = LLMUsage(
                model=llm.model if llm else None,
                reason="no judge selected (evaluation.metrics is empty)",
            )
        else:
            self._reason = judge_unavailable_reason(llm)
            if self._reason is None:
                assert llm is not None
                self._usage = LLMUsage(model=llm.model, enabled=True)
            else:
                self._usage = LLMUsage(model=llm.model if llm else None, reason=self._reason)

    @property
    def active(self) -> bool:
        """True when judges are selected and can run."""
        return bool(self.config.metrics) and self._reason is None

    @property
    def not_run_reason(self) -> str | None:
        """Why the selected judges cannot run (None when they can or none is selected)."""
        return self._reason

    @property
    def usage(self) -> LLMUsage:
        """Requests, cache hits, tokens and cost so far."""
        return self._client.usage if self._client is not None else self._usage

    def __enter__(self) -> JudgeStage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client, the loop and the cache cursor (safe twice)."""
        if self._runner is not None:
            if self._client is not None:
                self._runner.run(self._client.aclose())
            self._runner.close()
            self._runner = None
        if self._cursor is not None:
            self._cursor.close()
            self._cursor = None

    def run(self, works: Sequence[ConversationWork], advance: Callable[[], None]) -> None:
        """Judge one chunk: results are appended to the works' turn and conversation results."""
        config = self.config
        if not config.metrics:
            return
        if self._reason is not None:
            add_results(works, not_run_results(config, self._reason))
            return
        assert self.llm is not None
        if self._runner is None:
            self._runner = asyncio.Runner()
            self._cursor = self._con.cursor() if self._con is not None else None
            self._client = JudgeClient(self.llm, cache=LLMCache(self._cursor))
        tasks, where = _judge_tasks(works, config)
        results = self._judge_within_budget(tasks, advance)
        for (w, index), result in zip(where, results, strict=True):
            if not works[w].data.scenario.get("goal"):
                note_inferred_goal(result)
            if index is None:
                works[w].conv_results.append(result)
            else:
                works[w].turn_results[index].append(result)

    def _judge_within_budget(self, tasks: list[JudgeTask], advance: Callable[[], None]) -> list:
        """Judge `tasks`, in batches of the model's concurrency when a budget is set: once
        `max_judge_cost` is spent, the rest are not run (the evaluation itself goes on)."""
        assert self._client is not None and self._runner is not None and self.llm is not None
        budget = self.config.max_judge_cost
        if budget is None:
            return self._runner.run(
                run_judges(tasks, client=self._client, config=self.config, on_done=advance)
            )
        results: list[MetricResult] = []
        if self._client.price is None:  # a budget that cannot be counted is never spent blind
            from tracesim.evaluator.llm.llm_client import unpriced_reason

            reason = f"max_judge_cost cannot be kept: {unpriced_reason(self.llm)}"
            for judge, _ in tasks:
                result = not_run_result(judge.name, reason)
                result.details["level"] = judge.level
                results.append(result)
                advance()
            return results
        step = max(1, self.llm.max_concurrency)
        for start in range(0, len(tasks), step):
            batch = tasks[start : start + step]
            spent = self._client.usage.cost_usd
            if spent >= budget:
                reason = f"judge budget reached: ${spent:.4f} of max_judge_cost ${budget:.4f} spent"
                for judge, _ in batch:
                    result = not_run_result(judge.name, reason)
                    result.details["level"] = judge.level
                    results.append(result)
                    advance()
                continue
            results.extend(
                self._runner.run(
                    run_judges(batch, client=self._client, config=self.config, on_done=advance)
                )
            )
        return results


def not_run_results(config: EvalConfig, reason: str) -> list[MetricResult]:
    """One not-run result per selected judge, for `reason` (`add_results` gives each
    conversation its copy)."""
    results = []
    for name in config.metrics:
        result = not_run_result(name, reason)
        result.details["level"] = BUILTIN_JUDGES[name].level
        results.append(result)
    return results


def run_custom(
    works: Sequence[ConversationWork],
    metrics: Sequence[CustomMetric],
    config: EvalConfig,
    advance: Callable[[], None],
) -> None:
    """Run the custom metrics on every turn / conversation of one chunk."""
    if not metrics:
        return
    for work in works:
        for item in metrics:
            if item.level == "conversation":
                work.conv_results.append(
                    run_custom_metric(item, work.context(None), thresholds=config.turn_thresholds)
                )
            else:
                for index in range(len(work.data.turns)):
                    work.turn_results[index].append(
                        run_custom_metric(
                            item, work.context(index), thresholds=config.turn_thresholds
                        )
                    )
        advance()
