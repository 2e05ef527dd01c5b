"""Extraction's fast paths give the general rule's answers (SPEC §5, §10).

Stored rows (JSON text) are screened by substring tests before any parse and read through
shortcuts (plain argument objects skip the envelope checks, key-set tests on dict views,
lazily built canonical keys). Each test here runs random inputs through the fast path and
through the general one (decoded rows, the plain rule written out) and wants one answer.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from typing import Any

from tracesim.evaluator.calls.canonical import canonical_args
from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.readers.envelopes import unwrap_arguments, unwrap_value
from tracesim.evaluator.extract.span import view_of
from tracesim.schemas import LANGCHAIN_MESSAGE as LC

from benchmarks.synthetic_turns import _tool_attributes
from tests.evaluator.rule_rows import model_row, rule_row

_VALUES: list[Any] = ["", "<not specified>", "x", '"quoted"', "{}", "[]", 1, 2.5, None, True]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.3:
        keys = ["a", "args", "kwargs", "inputs", "type", "input_str", "output", "result"]
        return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if depth < 3 and roll < 0.4:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if roll < 0.45:
        return json.dumps(_value(rng, depth + 1))
    return rng.choice(_VALUES)


def _mutated_turn(rng: random.Random, turn: int) -> list[dict[str, Any]]:
    """A benchmark turn (model span requesting two calls, tool spans of rotating conventions)
    with attributes randomly dropped or replaced."""
    calls = [("search_orders", {"customer": "c-1"}, f"call_{turn}_0", '{"orders": ["A-1"]}')]
    calls.append(("refund", {"order_id": "A-1", "amount": 10}, f"call_{turn}_1", "refunded"))
    rows = [model_row(1, [(cid, name, args) for name, args, cid, _ in calls], trace=turn + 1)]
    for k, (name, args, cid, result) in enumerate(calls):
        attributes = _tool_attributes((turn + k) % 5, name, args, cid, result)
        for key in list(attributes):
            roll = rng.random()
            if roll < 0.15:
                del attributes[key]
            elif roll < 0.3:
                attributes[key] = _value(rng)
        span_name = name if rng.random() < 0.5 else f"execute_tool {name}"
        status = {"status_code": "ERROR", "status_message": "boom"} if rng.random() < 0.2 else {}
        rows.append(rule_row(2 + k, span_name, attributes, trace=turn + 1, **status))
    rng.shuffle(rows)
    return rows


def _decoded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**row, "attributes": json.loads(row["attributes"]), "events": json.loads(row["events"])}
        for row in rows
    ]


def test_screened_rows_and_decoded_rows_give_the_same_calls() -> None:
    rng = random.Random(3)
    for turn in range(400):
        rows = _mutated_turn(rng, turn)
        fast = extract_tool_calls([dict(r) for r in rows], context=[dict(r) for r in rows])
        general = extract_tool_calls(_decoded(rows), context=_decoded(rows))
        assert [c.model_dump() for c in fast] == [c.model_dump() for c in general], rows


def _plain_unwrap_arguments(value: Any) -> tuple[Any, str]:
    """The argument envelopes of `unwrap_arguments`, every check made."""
    if isinstance(value, dict):
        if value.get("type") == LC.TOOL_CALL_TYPE and isinstance(value.get("args"), dict):
            return value["args"], str(value.get("id") or "")
        inputs, kwargs = value.get("inputs"), value.get("kwargs")
        if isinstance(inputs, dict) and (
            "input_str" in value or set(value) <= {"inputs", "kwargs"}
        ):
            call_id = kwargs.get(LC.TOOL_CALL_ID) if isinstance(kwargs, dict) else None
            return inputs, str(call_id or "")
        if isinstance(kwargs, dict) and (set(value) <= {"args", "kwargs"} or "args" in value):
            positional = value.get("args")
            return ({**kwargs, "args": positional} if positional else kwargs), ""
    return value, ""


def test_plain_argument_objects_skip_only_checks_that_cannot_apply() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        value = _value(rng)
        unwrapped = unwrap_arguments(value)
        assert (unwrapped.value, unwrapped.call_id) == _plain_unwrap_arguments(value), value


def test_result_envelopes_are_read_through_key_sets_as_through_key_tests() -> None:
    """LlamaIndex ToolCallResult / ToolOutput and OpenLLMetry callback payloads."""
    assert unwrap_value({"output": "x", "kwargs": {}}).value == "x"
    assert unwrap_value({"output": "x", "kwargs": {}, "more": 1}).value == {
        "output": "x",
        "kwargs": {},
        "more": 1,
    }
    result = unwrap_value({"tool_kwargs": {}, "tool_output": "y", "tool_id": "c1"})
    assert (result.value, result.call_id) == ("y", "c1")
    failed = unwrap_value({"tool_name": "t", "raw_output": "bad", "is_error": True})
    assert (failed.value, failed.failed) == ("bad", True)
    assert unwrap_value({"tool_name": "t"}).value == {"tool_name": "t"}


def test_call_piece_compares_as_its_canonical_key() -> None:
    """The lazily built key equals the eager one; equality and hashing follow it."""
    lazy = CallPiece("c1", "t", None, {"a": 1, "b": [1.0]})
    eager = CallPiece("c1", "t", canonical_args({"b": [1], "a": 1.0}))
    assert lazy.args_key == canonical_args({"a": 1, "b": [1.0]})
    assert lazy == eager and hash(lazy) == hash(eager)
    assert lazy.same_arguments({"b": [1], "a": 1.0})
    assert not lazy.same_arguments({"a": True, "b": [1]})
    assert eager.same_arguments({"a": 1, "b": [1]})
    assert lazy != CallPiece("c2", "t", None, {"a": 1, "b": [1.0]})


def test_stored_and_aware_start_times_sort_alike() -> None:
    """A stored naive UTC timestamp orders exactly as the same instant made aware."""
    rng = random.Random(9)
    base = datetime(2025, 1, 1, 12, 0, 0)
    for _ in range(200):
        start = base + timedelta(microseconds=rng.randint(-(10**12), 10**12))
        naive = view_of(rule_row(1, "s", {}, start_time=start))
        aware = view_of(rule_row(1, "s", {}, start_time=start.replace(tzinfo=timezone.utc)))
        assert naive.sort_key() == aware.sort_key()
        assert naive.sort_key() is naive.sort_key()  # computed once


def test_an_unhashable_operation_value_is_no_operation() -> None:
    """`gen_ai.operation.name` holding an object names no operation: the span is read by its
    other attributes (it used to raise inside the model-operation test and drop the span,
    or escape extraction altogether for a turn read from messages)."""
    row = rule_row(1, "t", {"gen_ai.operation.name": {"x": 1}, "gen_ai.tool.name": "t"})
    calls = extract_tool_calls([row])
    assert [c.name for c in calls] == ["t"]
    model = model_row(2, [("c1", "t", {"a": 1})])
    bad = rule_row(3, "agent", {"gen_ai.operation.name": ["chat"], "traceloop.span.kind": "x"})
    assert [c.id for c in extract_tool_calls([model, bad], context=[model, bad])] == ["c1"]


def test_one_conversation_context_serves_every_turn() -> None:
    """A message-only conversation (no tool span: the calls are the model's requests, their
    results the tool messages sent back): a shared `ConversationSpans` gives each turn the
    calls a fresh context gives, and views the conversation once."""
    from tests.evaluator.rule_rows import responses_row

    turns = [
        [model_row(1, [("c1", "lookup", {"q": 1})], trace=1)],
        [responses_row(2, [("c1", "found")], trace=2), model_row(3, [("c2", "book", {})], trace=2)],
        [responses_row(4, [("c2", "booked")], trace=3)],
    ]
    conversation = [row for rows in turns for row in rows]
    shared = ConversationSpans(iter([dict(r) for r in conversation]))
    for rows in turns:
        fresh = extract_tool_calls([dict(r) for r in rows], context=[dict(r) for r in conversation])
        reused = extract_tool_calls([dict(r) for r in rows], context=shared)
        assert [c.model_dump() for c in reused] == [c.model_dump() for c in fresh]
    assert [c.result for c in extract_tool_calls(turns[1], context=shared)] == ["booked"]
    assert shared.views() is shared.views()
