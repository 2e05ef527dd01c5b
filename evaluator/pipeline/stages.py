"""Per-conversation stages of an evaluation: derive tool calls, check assertions, score.

`ConversationWork` carries one conversation through the pipeline: its rows,
its merged tool calls per turn, and the results gathered at turn and
conversation level. Every stage records failures as results; none raises.
Stages append rows to column lists (`evaluator.output.output`) instead of
building an object per row: they run once per turn on every stored turn.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import orjson
from tracesim.evaluator.calls.merge import merge_tool_calls
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.audit import Unexplained, count_kinds, settle
from tracesim.evaluator.extract.lane import lane_calls
from tracesim.evaluator.extract.pairing.outcome import unanswered_calls
from tracesim.evaluator.load.load import ConversationData, DecodedSpans, explicit_calls
from tracesim.evaluator.metrics import tool_error_rate
from tracesim.evaluator.output.output import ScoreColumns, ToolCallColumns
from tracesim.evaluator.output.results_file import summarize
from tracesim.evaluator.output.results_model import ConversationResult
from tracesim.evaluator.output.shared import freeze, thaw
from tracesim.evaluator.pipeline.usage import metric_means, usage_results
from tracesim.evaluator.scoring.errors import conversation_end
from tracesim.evaluator.scoring.scoring import (
    FAILED_TURN_STATUSES,
    conversation_scores,
    turn_success,
)
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.schemas import MetricResult, ToolCall
from tracesim.schemas.eval_config import EvalConfig

__all__ = [
    "ConversationWork",
    "add_results",
    "derive_calls",
    "score_conversation",
    "stub_checks",
    "tag",
    "tool_checks",
]

log = logging.getLogger(__name__)


@dataclass
class ConversationWork:
    """One conversation being evaluated: rows, merged calls, results so far."""

    data: ConversationData
    calls: list[list[ToolCall]] = field(default_factory=list)
    turn_results: list[list[MetricResult]] = field(default_factory=list)
    conv_results: list[MetricResult] = field(default_factory=list)
    evidence: dict[str, int] = field(default_factory=dict)
    """Tool evidence no call explains, per kind (`evaluator.extract.audit`)."""

    def context(self, index: int | None) -> MetricContext:
        """The MetricContext of turn `index` (by position), or of the conversation (None).

        The spans' JSON columns are parsed on first access (`DecodedSpans`): extraction
        reads them as text, judges not at all.
        """
        data = self.data
        if index is None:
            spans = DecodedSpans([s for rows in data.spans_by_turn.values() for s in rows])
            return MetricContext(
                chat_id=data.chat_id,
                conversation=data.conversation,
                scenario=data.scenario,
                turns=data.turns,
                turn_tool_calls=self.calls,
                tool_calls=[c for calls in self.calls for c in calls],
                spans=spans,
            )
        turn = data.turns[index]
        return MetricContext(
            chat_id=data.chat_id,
            conversation=data.conversation,
            scenario=data.scenario,
            turns=data.turns,
            turn_tool_calls=self.calls,
            turn=turn,
            tool_calls=self.calls[index],
            spans=DecodedSpans(data.spans_by_turn.get(turn["turn_id"], [])),
        )


def tag(result: MetricResult, kind: str) -> MetricResult:
    """`result` with `details["kind"]` set (judge, check, check_info, custom, score), in place:
    callers tag results they just made (a copy per result is measurable at 100k turns)."""
    if result.details.get("kind") != kind:
        result.details = {"kind": kind, **result.details}
    return result


def add_results(works: Sequence[ConversationWork], results: Sequence[MetricResult]) -> None:
    """Give every conversation the judges would grade (not the traced-only ones whose spans
    carry no messages) its own copy of `results` (conversation level): the judges' not-run
    results."""
    from tracesim.evaluator.pipeline.production import has_messages

    if not results:
        return
    for work in works:
        if not work.data.traced_only or has_messages(work.data):
            work.conv_results.extend(
                r.model_copy(update={"details": _fresh(r.details)}) for r in results
            )


def _fresh(value: Any) -> Any:
    """A copy of JSON-like `value` whose dicts and lists are new (what `deepcopy` gives a
    result's details, at a fraction of its cost: 7 not-run results per conversation)."""
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    if type(value) is list:
        return [_fresh(v) for v in value]
    if value is None or isinstance(value, (str, int, float)):  # bool is an int
        return value
    return copy.deepcopy(value)


def derive_calls(work: ConversationWork, rows: ToolCallColumns) -> None:
    """Merge explicit and traced calls of every turn; append the `tool_calls` rows to `rows`."""
    data = work.data
    spans_by_turn = data.spans_by_turn
    # One view of the conversation's spans for all its turns: parsed once, not per turn
    # (a fresh context per turn made long conversations quadratic).
    context = ConversationSpans(chain.from_iterable(spans_by_turn.values()))
    audit: list[Unexplained] = []
    for turn in data.turns:
        turn_id = int(turn["turn_id"])
        try:
            spans = spans_by_turn.get(turn_id, ())
            # unambiguous evidence is read without pairing (`extract.lane`: same calls)
            traced = lane_calls(spans)
            if traced is None:
                traced = extract_tool_calls(spans, context=context, audit=audit)
            merged = merge_tool_calls(explicit_calls(turn), traced)
        except Exception:  # noqa: BLE001 - one turn's spans never stop the evaluation
            log.exception("chat %s turn %s: tool-call derivation failed", data.chat_id, turn_id)
            merged = explicit_calls(turn)
        work.calls.append(merged)
        work.turn_results.append([])
        rows.add_turn(data.chat_id, turn_id, turn.get("run_id"), merged)
    # settled first: `settle` would take an unanswered call's own id for an explanation
    items = settle(audit, chain.from_iterable(work.calls)) if audit else []
    items.extend(unanswered_calls(chain.from_iterable(work.calls)))
    if items:
        work.evidence = count_kinds(items)


_PARSED_LIMIT = 1024
"""Distinct assertion lists kept parsed (a run plays few scenarios, many times each)."""


def tool_checks(
    work: ConversationWork,
    *,
    parsed: dict[bytes, list[Any]] | None = None,
    config: EvalConfig | None = None,
) -> None:
    """Check the scenario's assertions, plus `config`'s policies and tool validity (every
    conversation); a bad assertion is one not-graded result.

    `parsed` caches parsed assertion lists across conversations (keyed by their
    JSON): the conversations of one scenario share them.
    """
    from tracesim.evaluator.checks.assertions import AssertionConfigError, parse_assertions
    from tracesim.evaluator.checks.memo import CheckSet
    from tracesim.evaluator.checks.rules import config_assertions, rule_facts

    data = work.data
    raw = list(data.scenario.get("assertions") or []) + config_assertions(config)
    if not raw:
        return
    where = f"scenario {data.scenario.get('scenario_id') or data.conversation.get('scenario_id')!r} (chat {data.chat_id})"
    try:
        key = orjson.dumps(raw, default=repr) if parsed is not None else b""
        checks = parsed.get(key) if parsed is not None else None
        if checks is None:
            checks = CheckSet(parse_assertions(list(raw), where=where))
            if parsed is not None and len(parsed) < _PARSED_LIMIT:
                parsed[key] = checks
    except AssertionConfigError as exc:
        work.conv_results.append(
            MetricResult(
                name="assertions", label="error", reason=str(exc), details={"kind": "check"}
            )
        )
        return
    assertions = checks.assertions
    by_id = {int(t["turn_id"]): i for i, t in enumerate(data.turns)}
    size = max(by_id, default=-1) + 1
    aligned: list[list[ToolCall] | None] = [None] * size  # None: turn not stored
    for turn_id, index in by_id.items():
        aligned[turn_id] = work.calls[index]
    ended_by = _ending_error(data)
    if ended_by is not None:  # turns the agent's error kept from happening: checked as empty
        last = max((a.turn for a in assertions if a.turn is not None), default=-1)
        aligned.extend([] for _ in range(size, last + 1))
    try:
        facts = rule_facts(data, assertions, config)
        checked = checks.check(aligned, facts=facts, kind="check")
    except Exception as exc:  # noqa: BLE001
        log.exception("%s: assertions failed", where)
        work.conv_results.append(
            MetricResult(
                name="assertions",
                label="error",
                reason=f"checking failed: {exc}",
                details={"kind": "check"},
            )
        )
        return
    for turn_id, result in checked:  # tagged "check"; shared by turns with the same calls
        if turn_id is None or turn_id not in by_id:
            if turn_id is not None or ended_by is not None:  # changed below: its own copy
                result = thaw(result)
            if turn_id is None and ended_by is not None:  # the whole conversation was cut short
                _ungradeable(result, "not_graded", f"the conversation was cut short: {ended_by}")
            if turn_id is not None:
                result.details["missing_turn"] = turn_id
                if ended_by is not None and turn_id >= size:
                    _ungradeable(
                        result, "not_reached", f"turn {turn_id} was never reached: {ended_by}"
                    )
            work.conv_results.append(result)
        else:
            turn = data.turns[by_id[turn_id]]
            if turn.get("status") in FAILED_TURN_STATUSES:
                result = thaw(result)
                _ungradeable(
                    result,
                    "not_graded",
                    f"turn {turn_id} ended with {turn.get('status')}: the agent gave no answer",
                )
            work.turn_results[by_id[turn_id]].append(result)


def stub_checks(work: ConversationWork) -> None:
    """Each replayed turn's `unstubbed_tool_calls` check (`evaluator.checks.stubs`)."""
    from tracesim.evaluator.checks.stubs import stub_check

    for index, turn in enumerate(work.data.turns):
        calls = work.calls[index] if index < len(work.calls) else ()
        stubs = work.data.scenario.get("tool_stubs") or ()
        names = {s.get("name") for s in stubs if isinstance(s, dict)}
        result = stub_check(
            work.data.spans_by_turn.get(turn["turn_id"], ()),
            [c for c in calls if c.name in names],
        )
        if result is not None:
            work.turn_results[index].append(result)


def _ending_error(data: ConversationData) -> str | None:
    """How the conversation was cut short (the agent's error, an interruption), or None."""
    last = data.turns[-1] if data.turns else {}
    if last.get("status") in FAILED_TURN_STATUSES:
        return f"turn {last.get('turn_id')} ended with {last.get('status')}"
    if data.conversation.get("status") in ("error", "interrupted"):
        return str(data.conversation.get("error") or "the conversation ended with an error")
    return None


def _ungradeable(result: MetricResult, label: str, why: str) -> None:
    """A check on a turn that errored or never happened is not graded (an error is not the
    agent's mistake, and no call is not a pass of `expected: []`); its details keep what
    was expected."""
    result.value, result.passed, result.label = None, None, label
    result.reason = f"not graded: {why}" + (f"; {result.reason}" if result.reason else "")


_SUCCESSES: dict[tuple[tuple[str, bool], ...], MetricResult] = {}
"""`turn_success` results by their deciding (metric, passed) pairs, shared (`freeze`)."""


def _turn_success(status: str | None, results: Sequence[MetricResult]) -> MetricResult:
    """`turn_success(status, results)`, one shared result per distinct set of deciding
    outcomes (all that decides it when the turn did not fail)."""
    if status in FAILED_TURN_STATUSES:
        return turn_success(status, results)
    key = tuple((r.name, r.passed) for r in results if r.value is not None and r.passed is not None)
    success = _SUCCESSES.get(key)  # type: ignore[arg-type]
    if success is None:
        if len(_SUCCESSES) > 4096:
            _SUCCESSES.clear()
        success = _SUCCESSES[key] = freeze(turn_success(status, results))  # type: ignore[index]
    return success


def _record(
    results: list[MetricResult],
    turn_id: int | None,
    keys: tuple[str | None, str],
    scores: ScoreColumns,
    tally: MetricTally,
    skip: MetricResult | None = None,
) -> tuple[list[dict[str, Any]], int, int]:
    """Append `results` to `scores` and `tally`; return their summaries (without `skip`) and
    the (passed, total) count of graded tool checks among them."""
    run_id, chat_id = keys
    scores.add_all(run_id, chat_id, turn_id, results)
    summaries = []
    passed = total = 0
    add, add_label = tally.add, tally.add_label
    for result in results:
        value = result.value
        if value is not None:
            name = result.name
            add(name, value)
            add_label(name, result.label)
            if result.passed is not None and result.details.get("kind") == "check":
                total += 1
                passed += bool(result.passed)
        if result is not skip:
            summaries.append(summarize(result))
    return summaries, passed, total


def score_conversation(
    work: ConversationWork, config: EvalConfig, *, scores: ScoreColumns, tally: MetricTally
) -> tuple[ConversationResult, dict[str, Any]]:
    """Turn success per turn, then turn success ratio, final score and status.

    Every result is appended to `scores` and its value to `tally`. Returns the
    conversation's summary (kept in memory) and its `results.json` entry.
    """
    data = work.data
    first_turn = data.turns[0] if data.turns else {}
    run_id = data.conversation.get("run_id") or first_turn.get("run_id")
    keys = (run_id, data.chat_id)
    turns: list[dict[str, Any]] = []
    successes: list[MetricResult] = []
    flags: list[bool | None] = []
    passed = total = 0
    for index, turn in enumerate(data.turns):
        results = work.turn_results[index]
        success = _turn_success(turn.get("status"), results)
        results.append(success)
        successes.append(success)
        turn_id = int(turn["turn_id"])
        summaries, p, t = _record(results, turn_id, keys, scores, tally, skip=success)
        passed, total = passed + p, total + t
        flag = None if success.value is None else bool(success.passed)
        flags.append(flag)
        entry = {
            "turn_id": turn_id,
            "status": turn.get("status"),
            "success": flag,
            "num_tool_calls": len(work.calls[index]),
            "metrics": summaries,
        }
        if turn.get("source") == "traced":  # messages read from the spans (SPEC §14)
            entry.update(
                source="traced",
                trace_id=turn.get("trace_id"),
                user_message=turn.get("user_message"),
                agent_message=turn.get("agent_message"),
                message_convention=turn.get("message_convention"),
            )
        turns.append(entry)
    goal = next((r for r in work.conv_results if r.name == "goal_completion" and r.graded), None)
    num_calls = sum(len(calls) for calls in work.calls)
    if config.tool_checks and num_calls:
        all_calls = [c for calls in work.calls for c in calls]
        work.conv_results.append(tag(tool_error_rate(all_calls), "check_info"))
    end = conversation_end(data.conversation, data.turns)
    checks = [r for r in work.conv_results if r.details.get("kind") in ("check", "custom")]
    ratio, final = conversation_scores(
        successes,
        goal,
        goal_completion_weight=config.goal_completion_weight,
        partial_failure_threshold=config.partial_failure_threshold,
        checks=checks,
        ended=(end.status, end.text) if end is not None else None,
    )
    if end is not None:
        final.details["error_source"] = end.source
    work.conv_results.extend([ratio, final])
    work.conv_results.extend(usage_results(work, config, num_calls))
    summaries, p, t = _record(work.conv_results, None, keys, scores, tally)
    passed, total = passed + p, total + t
    conversation = ConversationResult(
        chat_id=data.chat_id,
        run_id=run_id,
        scenario_id=data.conversation.get("scenario_id")
        or first_turn.get("scenario_id")
        or data.scenario.get("scenario_id"),
        num_turns=len(data.turns),
        num_tool_calls=num_calls,
        final_score=final.value,
        status=final.label or "",
        turn_success_ratio=ratio.value,
        goal_completion=goal.value if goal else None,
        assertions_passed=passed,
        assertions_total=total,
        reason=final.reason,
        turn_success=flags,
        error=end.message if end is not None else None,
        error_source=end.source if end is not None else None,
    )
    if conversation.scenario_id is not None:  # a trial of its scenario (evaluator.stats)
        conversation.metric_means = metric_means(work)
    entry = conversation.model_dump(exclude={"metrics", "turns", "metric_means"})
    entry["metrics"] = summaries
    entry["turns"] = turns
    return conversation, entry
