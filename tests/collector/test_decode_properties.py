"""Property-based tests (hypothesis): decoding, column typing, spool scanning and gzip never
raise on any input, and keep every valid item."""

from __future__ import annotations

import gzip
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from tracesim.collector.decode.decode import SPAN_FIELDS, SpanBatch, decode_traces, span_is_valid
from tracesim.collector.decode.decode_logs import LogBatch
from tracesim.collector.receivers.inflate import inflate
from tracesim.collector.spool.spool import _HEADER, _MAGIC, SpoolRecord, _crc, scan_segment
from tracesim.collector.store.columns import table_of
from tracesim.collector.store.store import prepare

from tests.collector.otlp import span, trace_request

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_UINT64 = st.integers(min_value=0, max_value=2**64 - 1)
_scalars = st.one_of(
    st.text(max_size=20),
    _INT64,
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.binary(max_size=16),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),  # numbers as text
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_keys = st.sampled_from(
    [
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "llm.token_count.prompt",
        "tracesim.chat_id",
        "tracesim.turn_id",
        "tracesim.conversation_index",
        "tracesim.num_turns",
        "gen_ai.tool.name",
        "x",
    ]
)
_spans = st.builds(
    lambda name, attrs, start, end, ids: _raw_span(name, attrs, start, end, ids),
    st.sampled_from(["tracesim.turn", "tracesim.conversation", "op", "execute_tool t"]),
    st.dictionaries(_keys, _values, max_size=6),
    _UINT64,
    _UINT64,
    st.tuples(st.binary(min_size=15, max_size=17), st.binary(min_size=7, max_size=9)),
)


def _raw_span(name, attrs, start, end, ids):  # type: ignore[no-untyped-def]
    pb2_span = span(name, attrs=attrs, trace_id=ids[0], span_id=ids[1])
    pb2_span.start_time_unix_nano = start
    pb2_span.end_time_unix_nano = end
    return pb2_span


@FAST
@given(st.lists(_spans, max_size=8))
def test_any_span_decodes_and_prepares(spans: list) -> None:
    request = trace_request(spans)
    batch = SpanBatch()
    decode_traces(request, batch)
    prepared = prepare(batch, LogBatch(), [])
    valid = sum(span_is_valid(s) for s in spans)
    rows = prepared.spans.num_rows if prepared.spans is not None else 0
    assert rows == len({(s.trace_id, s.span_id) for s in spans if span_is_valid(s)})
    assert len(batch) == valid


@FAST
@given(st.lists(st.one_of(st.none(), _UINT64, st.integers(), st.text(max_size=3)), max_size=20))
def test_any_column_values_become_a_table(values: list) -> None:
    columns = {name: values for name in ("start_time", "input_tokens", "turn_id", "name")}
    table, nulled = table_of(columns, ("start_time", "input_tokens", "turn_id", "name"))
    assert table.num_rows == len(values)
    assert nulled >= 0


def _segment(payloads: list[bytes]) -> bytes:
    out = b""
    for seq, payload in enumerate(payloads, 1):
        out += _HEADER.pack(_MAGIC, 1, seq, len(payload), _crc(1, seq, payload)) + payload
    return out


@FAST
@given(st.lists(st.binary(min_size=1, max_size=60), min_size=1, max_size=12), st.data())
def test_spool_scan_keeps_every_record_a_flip_does_not_touch(payloads: list, data) -> None:
    segment = bytearray(_segment(payloads))
    offset = data.draw(st.integers(min_value=0, max_value=len(segment) - 1))
    segment[offset] ^= data.draw(st.integers(min_value=1, max_value=255))
    found = [item.seq for item in scan_segment(bytes(segment)) if isinstance(item, SpoolRecord)]
    start = 0
    for seq, payload in enumerate(payloads, 1):
        end = start + _HEADER.size + len(payload)
        if not start <= offset < end:
            assert seq in found
        start = end


@FAST
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=4))
def test_gzip_members_are_all_decoded(parts: list) -> None:
    body = b"".join(gzip.compress(part) for part in parts)
    assert inflate(body, 10_000) == b"".join(parts)


def test_strategies_cover_hostile_values() -> None:
    assert AnyValue(int_value=2**63 - 1).int_value == 2**63 - 1
    assert struct.calcsize("<2sBxQII") == _HEADER.size
    assert "start_time" in SPAN_FIELDS
