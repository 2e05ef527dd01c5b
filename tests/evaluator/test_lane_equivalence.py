"""The lane (`evaluator.extract.lane`) answers what the general evidence model answers.

For every turn the lane claims, its calls equal `extract_tool_calls`' (every field,
provenance and order) and the general audit is empty: on every recording of the
conformance corpus, on the synthetic benchmark turns (both modes) and on a fuzz of tool
spans with hostile values in each common convention. This is the guard for new reader or
pairing rules: a rule the lane's predicate does not mirror fails here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import chain
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.audit import Unexplained
from tracesim.evaluator.extract.lane import lane_calls
from tracesim.evaluator.load.load import EXTRACTION_SPAN_COLUMNS, ConversationData
from tracesim.evaluator.store.duckdb_store import DuckDBStore

from benchmarks.synthetic_turns import build_database
from tests.conformance.replay import discover, load, store


def _dump(calls: list[Any]) -> list[dict[str, Any]]:
    return [call.model_dump() for call in calls]


def compare_turns(conversations: list[ConversationData]) -> tuple[int, int]:
    """Assert the lane's answer on every turn it claims; (claimed, turns)."""
    claimed = total = 0
    for data in conversations:
        rows = list(chain.from_iterable(data.spans_by_turn.values()))
        for turn in data.turns:
            spans = data.spans_by_turn.get(int(turn["turn_id"]), [])
            total += 1
            lane = lane_calls(spans)
            if lane is None:
                continue
            claimed += 1
            audit: list[Unexplained] = []
            general = extract_tool_calls(spans, context=ConversationSpans(rows), audit=audit)
            where = f"chat {data.chat_id} turn {turn['turn_id']}"
            assert _dump(lane) == _dump(general), where
            assert audit == [], where
    return claimed, total


def _stored(db: Path) -> list[ConversationData]:
    store_ = DuckDBStore(db, read_only=True)
    try:
        plan = store_.plan(run_id=None, max_rows=20_000)
        return [
            data
            for _, chunk in store_.chunks(plan, run_id=None, span_columns=EXTRACTION_SPAN_COLUMNS)
            for data in chunk
        ]
    finally:
        store_.close()


FOLDERS = discover()


def test_the_lane_equals_the_general_model_on_every_recording(tmp_path: Path) -> None:
    claimed = total = 0
    for folder in FOLDERS:
        db = store(load(folder), transport="grpc", workdir=tmp_path)
        c, t = compare_turns(_stored(db))
        claimed, total = claimed + c, total + t
    print(f"lane claimed {claimed} of {total} recorded turns")
    assert claimed > 0  # the lane is exercised on real telemetry, not only on fixtures


@pytest.mark.parametrize("distinct", [False, True])
def test_the_lane_equals_the_general_model_on_synthetic_turns(
    tmp_path: Path, distinct: bool
) -> None:
    db = tmp_path / "synthetic.duckdb"
    build_database(str(db), 400, scenarios=True, distinct=distinct)
    claimed, total = compare_turns(_stored(db))
    assert claimed == total == 400  # every synthetic turn is unambiguous


# --- fuzz: tool spans with hostile values in each common convention ---------------------

_BASE = datetime(2025, 3, 1, 12, 0, 0)
_TEXT = st.sampled_from(
    [
        "sunny",
        "Paris",
        "",
        " ",
        "<not specified>",
        "None",
        "null",
        "N/A",
        "{}",
        "[]",
        "{'a': 1}",
        "[1, 2]",
        '"quoted"',
        '{"output": "x"}',
        '{"output": "x", "kwargs": {}}',
        '{"result": "inner"}',
        '{"content": "inner"}',
        '{"content": [{"type": "text", "text": "t"}]}',
        '[{"type": "text", "text": "block"}]',
        "content='done' name='t' tool_call_id='call_9'",
        "<generator object f at 0x7f00aa>",
        '{"id": "call_7", "name": "t", "response": {"r": 1}}',
        '{"type": "tool", "content": "c", "tool_call_id": "call_8"}',
        "Grüße, 東京 ☀",
        '"{\\"a\\": 1}"',
        "ValueError: boom",
        "Traceback (most recent call last):\n  File x\nKeyError: 'k'",
        '{"error": "bad input"}',
        "Error executing tool t: inner cause",
    ]
)
_PLAIN = st.sampled_from(["sunny", "Paris", "Grüße, 東京 ☀", '{"temp": 21}', "42"])
_RESULT = st.one_of(*[_PLAIN] * 6, _TEXT, st.none())
_PLAIN_ARGS = st.dictionaries(
    st.sampled_from(["city", "q", "n", "units"]),
    st.one_of(st.integers(-3, 3), _PLAIN, st.booleans()),
    min_size=1,
    max_size=3,
).map(lambda d: orjson.dumps(d).decode())
_ARGS = st.one_of(
    *[_PLAIN_ARGS] * 6,
    st.dictionaries(
        st.sampled_from(["city", "q", "input", "n", "type", "kwargs", "arguments"]),
        st.one_of(st.integers(-3, 3), _TEXT, st.booleans()),
        max_size=3,
    ).map(lambda d: orjson.dumps(d).decode()),
    _TEXT,
    st.just('{"args": [], "kwargs": {"city": "Paris"}}'),
    st.just('{"args": ["x"], "kwargs": {}}'),
    st.just('{"type": "tool_call", "name": "t", "args": {"a": 1}, "id": "call_5"}'),
    st.just('{"inputs": {"a": 1}, "kwargs": {"tool_call_id": "call_6"}}'),
)
_CONVENTIONS = ("genai", "openinference", "openllmetry", "adk", "logfire")


def _tool_attributes(
    convention: str, name: str, call_id: str | None, args: str, result: str | None
) -> dict[str, Any]:
    keys = {
        "genai": (
            "gen_ai.tool.name",
            "gen_ai.tool.call.id",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
        ),
        "openinference": ("tool.name", "tool_call.id", "input.value", "output.value"),
        "openllmetry": (
            "traceloop.entity.name",
            "gen_ai.tool.call.id",
            "traceloop.entity.input",
            "traceloop.entity.output",
        ),
        "adk": (
            "gen_ai.tool.name",
            "gen_ai.tool.call.id",
            "gcp.vertex.agent.tool_call_args",
            "gcp.vertex.agent.tool_response",
        ),
        "logfire": ("gen_ai.tool.name", "gen_ai.tool.call.id", "tool_arguments", "tool_response"),
    }[convention]
    attributes: dict[str, Any] = {keys[0]: name, keys[2]: args}
    if convention == "openinference":
        attributes["openinference.span.kind"] = "TOOL"
    elif convention == "openllmetry":
        attributes["traceloop.span.kind"] = "tool"
    else:
        attributes["gen_ai.operation.name"] = "execute_tool"
    if call_id is not None:
        attributes[keys[1]] = call_id
    if result is not None:
        attributes[keys[3]] = result
    return attributes


@st.composite
def _turns(draw: Any, hostile: bool) -> list[dict[str, Any]]:
    """A turn: its turn span, a model reply requesting calls, and tool spans (`hostile`:
    arguments and results from the hostile pools too, else plain ones, the rest varied)."""
    count = draw(st.integers(1, 3))
    names = draw(
        st.lists(st.sampled_from(["weather", "refund", "search"]), min_size=count, max_size=count)
    )
    trace = "a" * 32
    rows = [
        _row(trace, "0000000000000001", "", "tracesim.turn", 0, {"tracesim.turn_id": 0}),
    ]
    requests = []
    tools = []
    for index, name in enumerate(names):
        args = draw(_ARGS if hostile else _PLAIN_ARGS)
        request_id = f"call_{index}"
        span_id = draw(
            st.sampled_from([request_id, request_id, request_id, None, None, "", "call_0", "x"])
        )
        convention = draw(st.sampled_from(_CONVENTIONS))
        result = draw(_RESULT if hostile else _PLAIN)
        attributes = _tool_attributes(convention, name, span_id, args, result)
        if draw(st.booleans()):
            attributes["session.id"] = "s-1"
        if draw(st.integers(0, 9)) == 0:
            attributes["error.type"] = draw(
                st.sampled_from(["ValueError", "tool_error", "Tool execution failed"])
            )
        status = draw(st.sampled_from(["OK", "UNSET", "UNSET", "UNSET", "ERROR"]))
        message = (
            draw(st.sampled_from([None, "upstream 503", "ValueError: bad city", "tool_error"]))
            if status == "ERROR"
            else None
        )
        events: list[dict[str, Any]] = []
        if draw(st.integers(0, 9)) == 0:
            events.append(
                {
                    "name": "exception",
                    "attributes": {
                        "exception.message": draw(_TEXT),
                        "exception.type": "ValueError",
                    },
                }
            )
        request_args = args if draw(st.integers(0, 6)) else '{"city": "Lyon"}'
        requests.append(
            {
                "type": "tool_call",
                "id": request_id,
                "name": name,
                "arguments": _json_or_text(request_args),
            }
        )
        tools.append(
            (f"{index + 3:016x}", name, attributes, status, message, events, 100 + 10 * index)
        )
    if draw(st.integers(0, 4)):
        output = [{"role": "assistant", "parts": requests}]
        rows.append(
            _row(
                trace,
                "0000000000000002",
                "0000000000000001",
                "chat m",
                10,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.output.messages": orjson.dumps(output).decode(),
                },
            )
        )
    if draw(st.integers(0, 3)) == 0:  # the next model input carries the answers
        answers = [
            {
                "role": "tool",
                "parts": [{"type": "tool_call_response", "id": r["id"], "response": "ok"}],
            }
            for r in requests
        ]
        rows.append(
            _row(
                trace,
                "00000000000000ff",
                "0000000000000001",
                "chat m",
                900,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": orjson.dumps(answers).decode(),
                },
            )
        )
    parent = draw(st.sampled_from(["0000000000000001"] * 5 + ["0000000000000003"]))
    for span_id, name, attributes, status, message, events, start in tools:
        row = _row(
            trace,
            span_id,
            parent if span_id != "0000000000000003" else "0000000000000001",
            f"execute_tool {name}" if draw(st.booleans()) else name,
            start,
            attributes,
        )
        row.update(status_code=status, status_message=message, events=orjson.dumps(events).decode())
        rows.append(row)
    return rows


def _json_or_text(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def _row(
    trace: str, span_id: str, parent: str, name: str, start_ms: int, attributes: dict[str, Any]
) -> dict[str, Any]:
    start = _BASE + timedelta(milliseconds=start_ms)
    return {
        "trace_id": trace,
        "span_id": span_id,
        "parent_span_id": parent or None,
        "name": name,
        "start_time": start,
        "end_time": start + timedelta(milliseconds=50),
        "duration_ms": 50.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": orjson.dumps(attributes).decode(),
        "events": "[]",
        "chat_id": "c",
        "turn_id": 0,
    }


_FUZZ_CLAIMS: list[bool] = []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_turns(hostile=True))
def test_the_lane_equals_the_general_model_on_hostile_tool_spans(
    rows: list[dict[str, Any]],
) -> None:
    _check_fuzzed(rows)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_turns(hostile=False))
def test_the_lane_equals_the_general_model_on_varied_plain_tool_spans(
    rows: list[dict[str, Any]],
) -> None:
    _check_fuzzed(rows)


def _check_fuzzed(rows: list[dict[str, Any]]) -> None:
    lane = lane_calls(rows)
    _FUZZ_CLAIMS.append(lane is not None)
    if lane is None:
        return
    audit: list[Unexplained] = []
    general = extract_tool_calls(rows, context=ConversationSpans(rows), audit=audit)
    assert _dump(lane) == _dump(general)
    assert audit == []


def test_the_fuzz_exercises_the_lane() -> None:
    """The fuzz above claims some turns and declines others (it tests both sides)."""
    if not _FUZZ_CLAIMS:
        pytest.skip("run with the fuzz")
    assert any(_FUZZ_CLAIMS) and not all(_FUZZ_CLAIMS)


def test_the_context_keys_a_claimed_span_may_carry_are_read_by_no_extraction_module() -> None:
    """`tool_row.CONTEXT_KEYS` and `HARMLESS_PREFIXES` stay harmless: no module of
    `evaluator.extract` names them (as a convention constant or a literal). A reader rule
    that starts reading one must take it out of the lane's keys (or mirror the rule)."""
    import re

    from tracesim.evaluator.extract.lane.tool_row import CONTEXT_KEYS, HARMLESS_PREFIXES
    from tracesim.schemas import conventions

    root = Path(__file__).resolve().parents[2] / "evaluator" / "extract"
    named: set[str] = set()
    for path in root.rglob("*.py"):
        if "lane" in path.relative_to(root).parts:
            continue
        text = path.read_text(encoding="utf-8")
        for owner, attribute in re.findall(r"\b([A-Z][A-Z_]+)\.([A-Z][A-Z0-9_]+)\b", text):
            value = getattr(getattr(conventions, owner, None), attribute, None)
            if isinstance(value, str):
                named.add(value)
        named.update(re.findall(r"[\"']([A-Za-z_][\w.:]*)[\"']", text))
    named.discard("")

    def clash(key: str, *, prefix: bool) -> list[str]:
        return sorted(
            n
            for n in named
            if n == key
            or (prefix and n.startswith(key))
            or (n.endswith((".", ":")) and key.startswith(n))
        )

    for key in CONTEXT_KEYS:
        assert not clash(key, prefix=False), (key, clash(key, prefix=False))
    for prefix in HARMLESS_PREFIXES:
        assert not clash(prefix, prefix=True), (prefix, clash(prefix, prefix=True))
