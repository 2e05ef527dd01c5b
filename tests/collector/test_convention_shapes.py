"""Any JSON shape in any attribute a convention reader expects (SPEC §9): the readers
(hot fields, routing keys, turn rows) never raise, whatever the shape; a span whose
attribute surprises a reader anyway is stored with only its derived fields NULL; and a
request holding one is never dead-lettered.

The keys fuzzed are every attribute name of every convention in `schemas.conventions`
(so a new reader of a new key is covered without touching this file), each given
numbers, bools, nulls, lists, nested objects, huge and empty strings, and JSON text of
all of those.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector import Collector
from tracesim.collector.decode.decode import SpanBatch, decode_traces
from tracesim.collector.decode.decode_logs import LogBatch, decode_logs
from tracesim.collector.routing.hot_fields import HOT_ATTRIBUTES, hot_fields
from tracesim.collector.routing.routing_keys import (
    ROUTING_ATTRIBUTES,
    own_key,
    resource_key,
    session_key,
)
from tracesim.schemas import conventions
from tracesim.schemas.conventions import GENAI, HAYSTACK, TRACESIM

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request


def _convention_strings() -> tuple[list[str], list[str]]:
    """(attribute-like names, every other constant) of all conventions."""
    keys: set[str] = set(HOT_ATTRIBUTES | ROUTING_ATTRIBUTES)
    values: set[str] = set()
    for name in conventions.__all__:
        holder = getattr(conventions, name)
        for attr, value in vars(holder).items() if isinstance(holder, type) else ():
            if attr.startswith("_") or not isinstance(value, str):
                continue
            (keys if "." in value or value.islower() else values).add(value)
            values.add(value)
    return sorted(keys), sorted(values)


KEYS, WORDS = _convention_strings()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(["", "0", "-1", "5", "1e400", " 7 ", "null", "true", "[]", "{}"]),
    st.sampled_from(WORDS),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(
                [
                    "replies",
                    "meta",
                    "usage",
                    "model",
                    "prompt_tokens",
                    "completion_tokens",
                    "input_tokens",
                    "output_tokens",
                    "input",
                    "output",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


def _as_json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


attribute_values = st.one_of(
    json_values,
    json_values.map(_as_json_text),  # JSON text of any shape: what JSON-reading readers parse
    st.sampled_from(["x" * 200_000, "{" * 5000, "[" * 5000, '{"replies": ' * 300]),
)
attribute_maps = st.dictionaries(st.sampled_from(KEYS), attribute_values, min_size=1, max_size=5)
span_names = st.one_of(
    st.sampled_from(
        [TRACESIM.TURN_SPAN, TRACESIM.CONVERSATION_SPAN, GENAI.EXECUTE_TOOL_SPAN_PREFIX, "chat x"]
    ),
    st.text(max_size=10),
)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(name=span_names, attrs=attribute_maps)
def test_the_readers_survive_any_shape(name: str, attrs: dict[str, Any]) -> None:
    _check_readers(name, attrs)


def _check_readers(name: str, attrs: dict[str, Any]) -> None:
    """Every reader of one attribute map returns values of its column's type."""
    operation, tool, model, tokens_in, tokens_out = hot_fields(name, attrs)
    assert operation is None or isinstance(operation, str)
    assert tool is None or isinstance(tool, str)
    assert model is None or isinstance(model, str)
    assert tokens_in is None or isinstance(tokens_in, int)
    assert tokens_out is None or isinstance(tokens_out, int)
    route = resource_key(attrs)
    chat, turn, _rule = own_key(attrs, route)
    assert chat is None or isinstance(chat, str)
    assert turn is None or isinstance(turn, int)
    session = session_key(attrs)
    assert session is None or isinstance(session, str)


ODD: list[Any] = [
    5,
    -1,
    2**63 - 1,
    1.5,
    True,
    False,
    None,
    "",
    "x" * 100_000,
    [],
    [5],
    [None],
    {},
    {"a": {}},
    [[[]]],
    "5",
    "{",
    "[]",
]
"""Values that are not what a reader expects, put at every place of every document."""
TEMPLATES: dict[str, Any] = {
    HAYSTACK.LLM_OUTPUT: {
        "replies": [{"meta": {"model": "m", "usage": {"prompt_tokens": 1, "completion_tokens": 2}}}]
    },
    conventions.MLFLOW.CHAT_USAGE: {"input_tokens": 1, "output_tokens": 2},
    conventions.LANGFUSE.USAGE_DETAILS: {"prompt_tokens": 1, "completion_tokens": 2, "input": 3},
    TRACESIM.EXPLICIT_TOOL_CALLS: [{"name": "t", "arguments": {"a": 1}}],
    TRACESIM.SCENARIO: {"goal": "g", "knowledge": [{"content": "c"}]},
}
"""A valid JSON document of every attribute a reader parses as JSON."""


def _mutations(document: Any) -> list[Any]:
    """`document` with each of its nodes (and itself) replaced by each odd value in turn."""
    out = list(ODD)
    if isinstance(document, dict):
        for key, child in document.items():
            out.extend({**document, key: mutant} for mutant in _mutations(child))
    elif isinstance(document, list) and document:
        out.extend([mutant, *document[1:]] for mutant in _mutations(document[0]))
    return out


def _shape_table() -> list[tuple[str, Any]]:
    """(key, value): every convention key with every odd value, raw and as JSON text, and
    every mutation of every JSON document a reader parses."""
    table = [(key, value) for key in KEYS for value in ODD]
    table += [(key, _as_json_text(value)) for key in KEYS for value in ODD]
    for key, document in TEMPLATES.items():
        table += [(key, _as_json_text(mutant)) for mutant in _mutations(document)]
    return table


SHAPES = _shape_table()


def test_every_reader_survives_every_shape_of_every_key() -> None:
    """The table, exhaustively: each key alone, beside the keys that select its reader."""
    selectors = [
        {},
        {
            conventions.OPENINFERENCE.SPAN_KIND: "LLM",
            conventions.OPENINFERENCE.LLM_TOKEN_COUNT_PROMPT: 1,
        },
        {conventions.MLFLOW.SPAN_TYPE: '"CHAT_MODEL"'},
        {conventions.LANGFUSE.OBSERVATION_TYPE: conventions.LANGFUSE.TYPE_GENERATION},
        {conventions.TRACELOOP.SPAN_KIND: conventions.TRACELOOP.KIND_TOOL},
        {HAYSTACK.LLM_OUTPUT: _as_json_text(TEMPLATES[HAYSTACK.LLM_OUTPUT])},
    ]
    assert len(SHAPES) > 1000
    for key, value in SHAPES:
        for selector in selectors:
            attrs = {**selector, key: value}
            _check_readers("execute_tool x", attrs)
    batch = SpanBatch()
    spans = [
        span(TRACESIM.TURN_SPAN, attrs={TRACESIM.CHAT_ID: "c", key: value}) for key, value in SHAPES
    ]
    decode_traces(trace_request(spans), batch)
    assert len(batch) == len(SHAPES)
    assert batch.unreadable == 0


def _plain(name: str, attrs: dict[str, Any] | None = None) -> Any:
    return span(name, attrs=attrs or {TRACESIM.CHAT_ID: "c1", TRACESIM.TURN_ID: 0})


@FUZZ
@given(name=span_names, attrs=attribute_maps, resource=attribute_maps)
def test_decoding_stores_every_span_and_record_whatever_the_shapes(
    name: str, attrs: dict[str, Any], resource: dict[str, Any]
) -> None:
    spans = [_plain("a"), span(name, attrs=attrs), _plain("b")]
    batch = SpanBatch()
    decode_traces(ExportTraceServiceRequest(resource_spans=[]), batch)
    decode_traces(trace_request(spans, resource=resource), batch)
    assert batch.columns["name"] == ["a", name, "b"]
    logs = LogBatch()
    decode_logs(logs_request([log_record("x", attrs=attrs)], resource=resource), logs)
    assert len(logs) == 1


@pytest.mark.parametrize(
    "value",
    [
        '{"replies": 5}',
        '{"replies": true}',
        '{"replies": [5, null, {"meta": 3}, {"meta": {"usage": [1]}}]}',
        '{"replies": [{"meta": {"usage": {"prompt_tokens": "x", "completion_tokens": {}}}}]}',
        '{"replies": {"meta": 1}}',
        "[1, 2]",
        "null",
        "",
    ],
)
def test_one_odd_haystack_reply_among_plain_spans_loses_nothing(db_path: Path, value: str) -> None:
    """The issue's reproduction: 4 plain spans and one odd `haystack.agent.step.llm.output`
    in one request: all 5 stored (none dead-lettered), the odd span's model and tokens NULL."""
    with Collector(db_path, grpc_port=0, http_port=None) as running:
        client = GrpcClient(running.grpc_endpoint)
        try:
            spans = [_plain(f"plain-{index}") for index in range(4)]
            spans.append(span("odd", attrs={HAYSTACK.LLM_OUTPUT: value, TRACESIM.CHAT_ID: "c"}))
            client.export(trace_request(spans))
        finally:
            client.close()
        assert running.flush(30)
        rows = running.query("SELECT name, chat_id, model, input_tokens FROM spans ORDER BY name")[
            1
        ]
        stats = running.stats()
    assert [row[0] for row in rows] == ["odd", *(f"plain-{index}" for index in range(4))]
    assert tuple(rows[0][1:]) == ("c", None, None)
    assert stats.dead_letters == 0 and stats.spans_stored == 5


def test_a_reader_that_raises_nulls_only_that_spans_derived_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever reader a future convention adds: if it raises, decoding still stores the span,
    with NULL derived fields, and counts it."""
    from tracesim.collector.decode import decode as decode_module

    def broken(name: str, attrs: dict[str, Any], kind: str | None = None, events: Any = ()) -> Any:
        if name == "boom":
            raise TypeError("'int' object is not iterable")
        return hot_fields(name, attrs, kind, events)

    monkeypatch.setattr(decode_module, "hot_fields", broken)
    batch = SpanBatch()
    decode_traces(
        trace_request(
            [_plain("ok"), span("boom", attrs={GENAI.REQUEST_MODEL: "m", TRACESIM.CHAT_ID: "c"})]
        ),
        batch,
    )
    assert batch.columns["name"] == ["ok", "boom"]
    assert batch.columns["model"] == [None, None]
    assert batch.columns["chat_id"] == ["c1", "c"]
    assert batch.unreadable == 1
    logs = LogBatch()
    decode_logs(ExportLogsServiceRequest(), logs)
    assert logs.unreadable == 0
