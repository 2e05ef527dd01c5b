"""`policy` and `tool_validity` assertions: parsed with the others, checked with turn facts.

Unlike the metric assertions they read more than one turn's calls: the user's
messages (`only_after`) and the tool definitions (`tool_validity`), handed in
as `RuleFacts` by the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracesim.evaluator.checks.policy import PolicyError, check_policy, parse_policy
from tracesim.evaluator.checks.validity import check_validity
from tracesim.schemas import MetricResult, ToolCall
from tracesim.schemas.tool_definitions import ToolDefinitionError, tool_definitions

__all__ = ["RULE_TYPES", "RuleFacts", "evaluate_rule", "parse_rule"]

RULE_TYPES = ("policy", "tool_validity")


@dataclass(frozen=True)
class RuleFacts:
    """What policy and validity rules read besides the calls."""

    texts: Sequence[str] = ()
    """Each turn's user message, by turn_id (for `only_after`)."""
    definitions: Sequence[Any] = ()
    """Tool definitions (`schemas.tool_definitions.ToolDefinition`) for `tool_validity`."""
    source: str = "scenario tools"
    """Where the definitions came from (said in the reason)."""


def parse_rule(raw: Mapping[str, Any], kind: str, fail: Any) -> Any:
    """A policy's rules, or tool_validity's inline `tools` (None: the scenario's or the
    spans' definitions). `fail(field, problem)` raises the caller's config error."""
    if kind == "policy":
        try:
            return parse_policy(raw)
        except PolicyError as exc:
            fail(exc.field, str(exc))
    if raw.get("tools") is None:
        return None
    try:
        return tool_definitions(raw["tools"])
    except ToolDefinitionError as exc:
        fail("tools", str(exc))


def evaluate_rule(
    assertion: Any, turns: Sequence[Sequence[ToolCall] | None], facts: RuleFacts
) -> MetricResult:
    """Check one parsed policy or tool_validity assertion over `turns`."""
    if assertion.type == "policy":
        return check_policy(assertion.expected, turns, texts=facts.texts, turn=assertion.turn)
    definitions, source = facts.definitions, facts.source
    if assertion.expected is not None:
        definitions, source = assertion.expected, "assertion tools"
    return check_validity(turns, definitions, turn=assertion.turn, source=source)


def config_assertions(config: Any) -> list[dict[str, Any]]:
    """`evaluation.policies` and `evaluation.tool_validity` as assertions (every conversation)."""
    if config is None:
        return []
    extra: list[dict[str, Any]] = [{"type": "policy", **rule} for rule in config.policies]
    if config.tool_validity is True:
        extra.append({"type": "tool_validity"})
    elif config.tool_validity:
        extra.append({"type": "tool_validity", "tools": list(config.tool_validity)})
    return extra


def rule_facts(data: Any, assertions: Sequence[Any], config: Any = None) -> RuleFacts | None:
    """The RuleFacts of one conversation (`ConversationData`), None when no rule needs them:
    user messages by turn_id; tool definitions from the scenario's `tools`, else the spans'."""
    kinds = {a.type for a in assertions}
    if not kinds & set(RULE_TYPES):
        return None
    size = max((int(t["turn_id"]) for t in data.turns), default=-1) + 1
    texts = [""] * size
    for turn in data.turns:
        texts[int(turn["turn_id"])] = turn.get("user_message") or ""
    if "tool_validity" not in kinds:
        return RuleFacts(texts=texts)
    raw = data.scenario.get("tools")
    if raw:
        try:
            return RuleFacts(texts=texts, definitions=tool_definitions(raw))
        except ToolDefinitionError:
            pass  # the scenario was validated at load; a stored one may be older
    from tracesim.evaluator.checks.validity import tool_definitions_from_spans
    from tracesim.evaluator.load.load import DecodedSpans

    spans = DecodedSpans([s for rows in data.spans_by_turn.values() for s in rows])
    return RuleFacts(
        texts=texts,
        definitions=tool_definitions_from_spans(spans),
        source="traced tool definitions",
    )


def check_config_rules(config: Any) -> None:
    """Validate `evaluation.policies` / `evaluation.tool_validity` before anything runs;
    ValueError names the entry and the key (`evaluation.policies[1].before: ...`)."""
    from tracesim.evaluator.checks.assertions import AssertionConfigError, parse_assertions

    if config is None:
        return
    entries = [
        (f"evaluation.policies[{i}]", {"type": "policy", **p})
        for i, p in enumerate(config.policies)
    ]
    if config.tool_validity not in (True, False):
        entries.append(("evaluation.tool_validity", config_assertions(config)[-1]))
    for where, raw in entries:
        try:
            parse_assertions([raw], where=where)
        except AssertionConfigError as exc:
            field = exc.field.partition(".")[2]
            raise ValueError(f"{where}{'.' + field if field else ''}: {exc.problem}") from None
