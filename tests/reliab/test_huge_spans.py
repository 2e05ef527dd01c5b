"""Spans at the edges of what OTLP carries (attack round 5; held without a change, kept as
a guard): 100,000 attributes on one span, a 10 MB attribute value, NaN and infinities,
and AnyValues nested as deep as protobuf parses are stored whole, and `inspect` and
`evaluate` read the file without error. Deeper nesting is refused by the protobuf parser
itself: the whole request is INVALID_ARGUMENT (a malformed request), nothing half stored.

Measured once (not asserted): `inspect` peaked at 290 MB RSS and `evaluate` at 315 MB
on this file, 1.4 and 1.8 CPU s."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
from click.testing import CliRunner
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request
from tracesim.cli import cli

TOOL = {"gen_ai.conversation.id": "c1", "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "t"}  # fmt: skip


def _nested(levels: int) -> AnyValue:
    """A value alternating array and kvlist `levels` times around a string."""
    value = AnyValue(string_value="leaf")
    for level in range(levels):
        outer = AnyValue()
        if level % 2:
            outer.kvlist_value.values.append(KeyValue(key=f"k{level}", value=value))
        else:
            outer.array_value.values.append(value)
        value = outer
    return value


def test_huge_and_odd_spans_are_stored_and_read(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    deep = span("deep", attrs=TOOL)
    deep.attributes.append(KeyValue(key="deep", value=_nested(20)))
    spans = [
        span("many", attrs={**TOOL, **{f"attr.{i}": i for i in range(100_000)}}),
        span("big", attrs={**TOOL, "gen_ai.tool.call.arguments": "x" * 10_000_000}),
        span("odd", attrs={**TOOL, "nan": math.nan, "inf": math.inf, "ninf": -math.inf}),
        deep,
    ]
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            for one in spans:
                client.export(trace_request([one]))
            assert collector.flush(60)
        finally:
            client.close()
        assert collector.stats().spans_stored == 4
    with duckdb.connect(str(db), read_only=True) as con:
        rows = dict(con.execute("SELECT name, attributes::VARCHAR FROM spans").fetchall())
    assert len(json.loads(rows["many"])) == 100_003
    assert len(json.loads(rows["big"])["gen_ai.tool.call.arguments"]) == 10_000_000
    assert '"leaf"' in rows["deep"]
    inspected = CliRunner().invoke(cli, ["inspect", "--db", str(db)])
    assert inspected.exit_code == 0, inspected.output
    evaluated = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    assert evaluated.exit_code in (0, 3), evaluated.output  # 3: nothing graded (no judge)
    assert "Traceback" not in evaluated.output
    assert (tmp_path / "o" / "results.json").exists()


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    size, length = len(payload), b""
    while True:
        byte, size = size & 0x7F, size >> 7
        length += bytes([byte | (0x80 if size else 0)])
        if not size:
            break
    return bytes([number << 3 | 2]) + length + payload


def test_nesting_past_the_parser_is_one_malformed_request(tmp_path: Path) -> None:
    import grpc
    import pytest

    value = _field(1, b"leaf")  # AnyValue.string_value
    for _ in range(200):  # AnyValue{array_value{values: [value]}}
        value = _field(5, _field(1, value))
    # the span's own bytes with one more attribute appended (fields may come in any order)
    inner = trace_request([span("deep", attrs=TOOL)]).resource_spans[0].scope_spans[0]
    deep_span = inner.spans[0].SerializeToString() + _field(
        9, _field(1, b"deep") + _field(2, value)
    )
    request = _field(1, _field(2, _field(2, deep_span)))
    with Collector(tmp_path / "t.duckdb", grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            with pytest.raises(grpc.RpcError) as raised:
                client.export(request)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            client.export(trace_request([span("after")]))  # ingest goes on
            assert collector.flush(30)
        finally:
            client.close()
        assert collector.stats().spans_stored == 1
