"""The check stage: each conversation's scenario assertions and stub checks, as results.

`tool_checks` checks a scenario's assertions (and the config's policies and tool
validity) against the merged calls of every turn (`ConversationWork.calls`, from
`stages.derive_calls`); `stub_checks` adds each replayed turn's unstubbed-call check.
A bad assertion or a failed check becomes one not-graded result; nothing raises.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from tracesim.evaluator.load.load import ConversationData
from tracesim.evaluator.output.shared import thaw
from tracesim.evaluator.pipeline.stages import ConversationWork
from tracesim.evaluator.scoring.scoring import FAILED_TURN_STATUSES
from tracesim.schemas import MetricResult, ToolCall
from tracesim.schemas.eval_config import EvalConfig

__all__ = ["stub_checks", "tool_checks"]

log = logging.getLogger(__name__)


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
