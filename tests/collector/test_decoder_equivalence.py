"""The decoder process, and the native OTLP reader, store exactly what in-process decoding
through protobuf (upb) stores (issue 21).

The same requests, one batch each, go through a collector decoding in its own process
and one with a decoder process: every row of `spans`, `logs`, `turns` and
`conversations` (but `received_at`) and every counter must be equal, on the conformance
recordings and on hostile inputs (odd values, huge attributes, duplicates, bad ids).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from tracesim.collector import Collector
from tracesim.collector.decode import spans_tree
from tracesim.collector.decode.decode_json import logs_request_from_json, traces_request_from_json

from tests.collector.otlp import log_record, logs_request, span, trace_request
from tests.conformance.replay import discover, load

_TABLES = {
    "spans": "trace_id, span_id",
    "logs": "log_id",
    "turns": "chat_id, turn_id",
    "conversations": "chat_id",
}


def _recorded() -> list[Any]:
    """Every request of every conformance recording, as protobuf messages, in order."""
    requests = []
    for folder in discover():
        for signal, ext, body in load(folder).requests:
            if signal == "traces":
                requests.append(
                    traces_request_from_json(body)
                    if ext == "json"
                    else ExportTraceServiceRequest.FromString(body)
                )
            else:
                requests.append(
                    logs_request_from_json(body)
                    if ext == "json"
                    else ExportLogsServiceRequest.FromString(body)
                )
    return requests


def _odd(value: AnyValue) -> KeyValue:
    return KeyValue(key="odd", value=value)


def _hostile() -> list[Any]:
    """Values and shapes that stress decoding, routing and the column checks."""
    trace = bytes(range(1, 17))
    turn = span(
        "tracesim.turn",
        trace_id=trace,
        attrs={
            "tracesim.chat_id": "chat-h",
            "tracesim.turn_id": 2,
            "tracesim.user_message": "hi " * 50_000,  # ~150 KB
            "tracesim.explicit_tool_calls": "not json {",
        },
    )
    child = span("execute_tool", trace_id=trace, attrs={"gen_ai.tool.name": ["a", "list"]})
    nested = AnyValue()
    inner = nested.kvlist_value.values.add(key="k")
    inner.value.array_value.values.add().double_value = float("nan")
    inner.value.array_value.values.add().bytes_value = b"\x00\xff"
    inner.value.array_value.values.add().bool_value = True
    odd = span("odd", attrs={"gen_ai.usage.input_tokens": "100000000000000000000"})
    odd.attributes.extend(
        [
            _odd(nested),
            KeyValue(key="inf", value=AnyValue(double_value=float("inf"))),
            KeyValue(key="empty", value=AnyValue(string_value="")),
            KeyValue(key="unset", value=AnyValue()),
            KeyValue(key="odd", value=AnyValue(int_value=-(2**63))),  # a repeated key
            KeyValue(key="unicode", value=AnyValue(string_value="é\u2028\U0001f600\x00")),
        ]
    )
    odd.events.add(name="late", time_unix_nano=2**64 - 1)
    odd.links.add(trace_id=trace, span_id=b"\x01" * 8)
    late = span("late", start=2**64 - 10, duration_ns=5)
    bad_id = span("bad-id", span_id=b"\x00" * 8)
    conversation = span(
        "tracesim.conversation",
        attrs={"tracesim.chat_id": "chat-h", "tracesim.num_turns": "three"},
    )
    huge = span("huge", attrs={"blob": "x" * (2 << 20)})
    same = trace_request([child, odd])
    logs = logs_request(
        [
            log_record("hello", trace_id=trace, span_id=b"\x02" * 8),
            log_record("hello", trace_id=trace, span_id=b"\x02" * 8),  # the same record twice
            log_record("", attrs={"n": 2**62}, time=2**64 - 1),
        ]
    )
    return [same, trace_request([turn, late, bad_id]), same, logs, trace_request([huge]), logs] + [
        trace_request([conversation, odd])
    ]


def _store(db_path: Path, requests: list[Any], *, decoder_process: bool) -> dict[str, Any]:
    """Rows and counters after storing `requests` one batch each."""
    with Collector(
        db_path, grpc_port=None, http_port=None, decoder_process=decoder_process
    ) as collector:
        for request in requests:
            collector.ingest(request)
            assert collector.flush(60)
        stats = collector.stats()
        if decoder_process:
            assert collector._decoder is not None, "the decoder process did not start"
    out: dict[str, Any] = {
        "stats": (stats.spans_stored, stats.logs_stored, stats.rejected_spans),
        "noted": (stats.nulled_values, stats.unreadable_items, stats.dead_letters),
    }
    with duckdb.connect(str(db_path), read_only=True) as con:
        for table, key in _TABLES.items():
            out[table] = con.execute(
                f"SELECT * EXCLUDE (received_at) FROM {table} ORDER BY {key}"
                if table in ("spans", "logs")
                else f"SELECT * FROM {table} ORDER BY {key}"
            ).fetchall()
    return out


def test_the_decoder_process_stores_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = _recorded() + _hostile()
    here = _store(tmp_path / "here.duckdb", requests, decoder_process=False)
    there = _store(tmp_path / "there.duckdb", requests, decoder_process=True)
    with monkeypatch.context() as patch:  # every trace request read by upb, not natively
        patch.setattr(spans_tree, "_native", None)
        upb = _store(tmp_path / "upb.duckdb", requests, decoder_process=False)
    assert here["spans"], "nothing was stored: the comparison would prove nothing"
    assert here["turns"] and here["logs"] and here["conversations"]
    assert here["noted"][0] > 0  # hostile values were stored as NULL, and counted
    for name in ("stats", "noted", *_TABLES):
        assert there[name] == here[name], name
        assert upb[name] == here[name], name
