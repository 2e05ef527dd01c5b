"""Pure decoding: values, hot fields of every convention, routing keys, OTLP/JSON ids."""

from __future__ import annotations

import json

import pytest
from tracesim.collector.decode.decode import SpanBatch, check_spans, decode_traces
from tracesim.collector.decode.decode_json import traces_request_from_json
from tracesim.collector.errors import InvalidRequest
from tracesim.collector.routing.hot_fields import hot_fields

from tests.collector.otlp import span, trace_request


@pytest.mark.parametrize(
    ("name", "attrs", "expected"),
    [
        (
            "x",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "a",
                "gen_ai.response.model": "b",
                "gen_ai.usage.input_tokens": 1,
                "gen_ai.usage.prompt_tokens": 9,
                "gen_ai.usage.completion_tokens": "4",
            },
            ("chat", None, "b", 1, 4),
        ),
        (
            "x",
            {"openinference.span.kind": "TOOL", "tool.name": "t"},
            ("execute_tool", "t", None, None, None),
        ),
        (
            "x",
            {
                "openinference.span.kind": "LLM",
                "llm.model_name": "m",
                "llm.token_count.prompt": 7,
                "llm.token_count.completion": 2,
            },
            ("chat", None, "m", 7, 2),
        ),
        ("x", {"openinference.span.kind": "AGENT"}, ("invoke_agent", None, None, None, None)),
        (
            "x",
            {"traceloop.span.kind": "tool", "traceloop.entity.name": "search"},
            ("execute_tool", "search", None, None, None),
        ),
        (
            "x",
            {"traceloop.span.kind": "task", "traceloop.entity.name": "search"},
            (None, None, None, None, None),
        ),
        ("execute_tool get_weather", {}, ("execute_tool", "get_weather", None, None, None)),
        (
            "execute_tool w",
            {"gen_ai.tool.name": "real", "tool.name": "other"},
            ("execute_tool", "real", None, None, None),
        ),
    ],
)
def test_hot_fields(name: str, attrs: dict, expected: tuple) -> None:
    assert hot_fields(name, attrs) == expected


def test_attribute_types_are_kept() -> None:
    batch = SpanBatch()
    decode_traces(
        trace_request(
            [
                span(
                    "s",
                    attrs={
                        "s": "x",
                        "empty": "",
                        "i": -3,
                        "f": 0.25,
                        "b": True,
                        "arr": [1, "two", False],
                        "kv": {"nested": {"deep": 1}},
                        "raw": b"\x00\x01",
                        "tracesim.chat_id": 12,
                        "tracesim.turn_id": "not-an-int",
                    },
                )
            ]
        ),
        batch,
    )
    attrs = json.loads(batch.columns["attributes"][0])
    assert attrs == {
        "s": "x",
        "empty": "",
        "i": -3,
        "f": 0.25,
        "b": True,
        "arr": [1, "two", False],
        "kv": {"nested": {"deep": 1}},
        "raw": "AAE=",
        "tracesim.chat_id": 12,
        "tracesim.turn_id": "not-an-int",
    }
    assert batch.columns["chat_id"] == ["12"] and batch.columns["turn_id"] == [None]


def test_json_ids_and_enums() -> None:
    request = traces_request_from_json(
        json.dumps(
            {
                "resourceSpans": [
                    {
                        "scopeSpans": [
                            {
                                "spans": [
                                    {
                                        "traceId": "5B8EFFF798038103D269B633813FC60C",
                                        "spanId": "EEE19B7EC3C1B174",
                                        "parentSpanId": "EEE19B7EC3C1B173",
                                        "name": "a",
                                        "kind": "SPAN_KIND_PRODUCER",
                                        "links": [
                                            {
                                                "traceId": "5b8efff798038103d269b633813fc60c",
                                                "spanId": "eee19b7ec3c1b170",
                                            }
                                        ],
                                    },
                                    {
                                        "traceId": "5B8EFFF7",
                                        "spanId": "EEE19B7EC3C1B174",
                                        "name": "short",
                                        "kind": 5,
                                    },
                                ]
                            }
                        ]
                    }
                ]
            }
        ).encode()
    )
    assert check_spans(request)[:2] == (1, 1)
    batch = SpanBatch()
    decode_traces(request, batch)
    assert batch.columns["trace_id"] == ["5b8efff798038103d269b633813fc60c"]
    assert batch.columns["parent_span_id"] == ["eee19b7ec3c1b173"]
    assert batch.columns["kind"] == ["PRODUCER"]
    assert json.loads(batch.columns["links"][0])[0]["span_id"] == "eee19b7ec3c1b170"


def test_json_structure_errors() -> None:
    with pytest.raises(InvalidRequest):
        traces_request_from_json(b"[1, 2]")
    with pytest.raises(InvalidRequest):
        traces_request_from_json(
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"kind": {}}]}]}]}'
        )
