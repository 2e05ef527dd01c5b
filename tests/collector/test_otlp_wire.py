"""The native OTLP reader gives exactly the values protobuf (upb) gives (issue 21).

`spans_tree.tree_of_bytes` reads trace requests natively when `_otlp_wire` is built; every
row the collector stores derives from that tree, so the tree must equal upb's
(`tree_of_request`) value for value and type for type (compared by `repr`: 1 is not True,
NaN equals NaN), on every conformance recording, on hostile values, and on damaged bytes,
where the reader must either agree with upb or leave the request to it (never accept bytes
upb refuses).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from tracesim.collector.decode import spans_tree
from tracesim.collector.decode.decode import check_spans, check_spans_bytes
from tracesim.collector.decode.decode_json import traces_request_from_json

from tests.collector.otlp import span, trace_request
from tests.conformance.replay import discover, load

pytestmark = pytest.mark.skipif(not spans_tree.NATIVE, reason="the native reader is not built")


def _native(payload: bytes) -> Any:
    return spans_tree._native.decode_traces(payload)


def _upb(payload: bytes) -> Any:
    return spans_tree.tree_of_request(ExportTraceServiceRequest.FromString(payload))


def _recorded() -> list[bytes]:
    """Every trace request of every conformance recording, serialized."""
    found = []
    for folder in discover():
        for signal, ext, body in load(folder).requests:
            if signal == "traces":
                request = (
                    traces_request_from_json(body)
                    if ext == "json"
                    else ExportTraceServiceRequest.FromString(body)
                )
                found.append(request.SerializeToString())
    return found


def _hostile() -> bytes:
    """Every value kind, nesting, repeated keys, odd numbers, events and links."""
    nested = AnyValue()
    inner = nested.kvlist_value.values.add(key="k")
    inner.value.array_value.values.add().double_value = float("nan")
    for raw in (b"", b"\x00", b"\x00\xff", b"abc", b"abcd", bytes(range(256))):
        inner.value.array_value.values.add().bytes_value = raw
    inner.value.array_value.values.add().bool_value = True
    inner.value.array_value.values.add()  # an empty AnyValue
    odd = span("odd", attrs={"gen_ai.usage.input_tokens": "100000000000000000000"})
    odd.attributes.extend(
        [
            KeyValue(key="odd", value=nested),
            KeyValue(key="inf", value=AnyValue(double_value=float("-inf"))),
            KeyValue(key="zero", value=AnyValue(double_value=-0.0)),
            KeyValue(key="empty", value=AnyValue(string_value="")),
            KeyValue(key="false", value=AnyValue(bool_value=False)),
            KeyValue(key="int0", value=AnyValue(int_value=0)),
            KeyValue(key="unset", value=AnyValue()),
            KeyValue(key="", value=AnyValue(string_value="no key")),
            KeyValue(key="novalue"),
            KeyValue(key="odd", value=AnyValue(int_value=-(2**63))),  # a repeated key
            KeyValue(key="unicode", value=AnyValue(string_value="é\u2028\U0001f600\x00")),
        ]
    )
    odd.kind = 9  # past the known kinds
    odd.status.code = 7
    odd.status.message = "broken"
    odd.trace_state = "k=v"
    odd.flags = 0x301
    odd.dropped_attributes_count = 3
    odd.events.add(name="late", time_unix_nano=2**64 - 1).attributes.add(key="e").value.int_value = 1
    odd.events.add()
    odd.links.add(trace_id=bytes(range(16)), span_id=b"\x01" * 8, trace_state="x")
    odd.links.add().attributes.add(key="l").value.string_value = "v"
    negative = span("negative")
    negative.kind = -1
    negative.status.code = -5
    bad = span("bad-id", span_id=b"\x00" * 8)
    request = trace_request([odd, negative, bad], resource={"service.name": "s", "n": 2})
    request.resource_spans.add()  # no resource, no scope
    scoped = request.resource_spans.add().scope_spans.add()
    scoped.scope.name = "scope"
    scoped.scope.version = "1"
    scoped.scope.attributes.add(key="a").value.int_value = 1
    scoped.schema_url = "https://example.invalid/schema"
    scoped.spans.append(span("in-scope", attrs={"big": 2**62}))
    return request.SerializeToString()


def test_recordings_and_hostile_values_read_the_same() -> None:
    payloads = [*_recorded(), _hostile()]
    assert len(payloads) > 20
    for payload in payloads:
        assert repr(_native(payload)) == repr(_upb(payload))  # natively: no fallback
        request = ExportTraceServiceRequest.FromString(payload)
        assert check_spans_bytes(payload) == check_spans(request)
    assert check_spans_bytes(_hostile())[1] == 1  # the span with a zero id, named


@pytest.mark.parametrize(
    "text",
    [
        b"\xc0\xaf",  # overlong
        b"\xe0\x80\xaf",  # overlong
        b"\xed\xa0\x80",  # a surrogate
        b"\xf4\x90\x80\x80",  # past U+10FFFF
        b"\xf8\x88\x80\x80\x80",
        b"ok\xe2\x82",  # cut short
        b"abcdefgh\x80",
    ],
)
def test_texts_upb_refuses_are_never_accepted(text: bytes) -> None:
    for span_body in (
        _IDS + _field(5, 2, text),
        _IDS + _field(9, 2, _field(1, 2, text)),
        _IDS + _field(9, 2, _field(1, 2, b"k") + _field(2, 2, _field(1, 2, text))),
    ):
        payload = _request_with_span(span_body)
        with pytest.raises(DecodeError):
            ExportTraceServiceRequest.FromString(payload)
        assert check_spans_bytes(payload) is None
        _agrees_or_defers(payload)


def test_valid_multibyte_texts_are_checked_natively() -> None:
    text = "é\u2028\U0001f600\x00ascii-run-of-text".encode()
    payload = _request_with_span(_IDS + _field(5, 2, text) + _field(9, 2, _field(1, 2, text)))
    assert check_spans_bytes(payload) == (1, 0, "")


def test_tree_of_bytes_matches_with_and_without_the_native_reader() -> None:
    payload = _hostile()
    assert repr(spans_tree.tree_of_bytes(payload)) == repr(
        spans_tree.tree_of_bytes(payload, native=False)
    )
    assert repr(spans_tree.tree_of_bytes(memoryview(payload))) == repr(_upb(payload))


def _field(number: int, wire: int, body: bytes) -> bytes:
    tag = _varint(number << 3 | wire)
    return tag + (_varint(len(body)) + body if wire == 2 else body)


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _request_with_span(span_body: bytes) -> bytes:
    scope = _field(2, 2, span_body)
    return _field(1, 2, _field(2, 2, scope))


_IDS = _field(1, 2, bytes(range(1, 17))) + _field(2, 2, bytes(range(1, 9)))


@pytest.mark.parametrize(
    "span_body",
    [
        # what upb merges (a singular message twice) or reads otherwise: left to upb
        _IDS + _field(15, 2, _field(3, 0, b"\x02")) + _field(15, 2, _field(2, 2, b"m")),
        _IDS + _field(9, 2, _field(1, 2, b"k") + _field(2, 2, _field(1, 2, b"a")) * 2),
        _IDS + _field(9, 2, _field(2, 2, _field(3, 0, b"\x05") + _field(1, 2, b"s"))),
        _IDS + _field(5, 0, b"\x01"),  # a known field with another wire type
        _IDS + _field(20, 3, b"") + _field(20, 4, b""),  # a group
        _IDS + _field(5, 2, b"\xff\xfe"),  # invalid UTF-8: upb refuses the request
        _IDS + _field(9, 2, _field(2, 2, _field(1, 2, b"s") + _field(8, 0, b"\x01"))),
        # read natively, the same values
        _IDS + _field(99, 0, b"\x01") + _field(98, 5, b"abcd") + _field(97, 1, b"12345678"),
        _IDS + _field(6, 0, _varint(-3)) + _field(5, 2, b"a") + _field(5, 2, b"b"),
        _IDS + _field(9, 2, _field(1, 2, b"k") + _field(1, 2, b"j")),  # key twice, no value
        _IDS + _field(9, 2, _field(2, 2, _field(5, 2, b"") + _field(9, 0, b"\x01"))),
    ],
)
def test_wire_shapes_agree_or_are_left_to_upb(span_body: bytes) -> None:
    _agrees_or_defers(_request_with_span(span_body))


def test_resource_entity_references_are_left_to_upb() -> None:
    entity = _field(1, 2, b"\xff") + _field(2, 2, b"service")  # not UTF-8: upb refuses
    payload = _field(1, 2, _field(1, 2, _field(3, 2, entity)))
    with pytest.raises(spans_tree._native.Unsupported):
        _native(payload)
    _agrees_or_defers(payload)


def test_a_string_index_value_reads_as_none() -> None:
    value = _field(8, 0, b"\x03")
    payload = _request_with_span(_IDS + _field(9, 2, _field(1, 2, b"k") + _field(2, 2, value)))
    assert repr(_native(payload)) == repr(_upb(payload))
    assert _native(payload)[0][1][0][1][0][9] == {"k": None}


_KNOWN_FIELDS = {
    "ExportTraceServiceRequest": {1},
    "ResourceSpans": {1, 2, 3},
    "Resource": {1, 2, 3},
    "KeyValue": {1, 2, 3},
    "AnyValue": {1, 2, 3, 4, 5, 6, 7, 8},
    "ArrayValue": {1},
    "KeyValueList": {1},
    "EntityRef": {1, 2, 3, 4},
    "ScopeSpans": {1, 2, 3},
    "InstrumentationScope": {1, 2, 3, 4},
    "Span": set(range(1, 17)),
    "Event": {1, 2, 3, 4},
    "Link": {1, 2, 3, 4, 5, 6},
    "Status": {2, 3},
}


def test_the_reader_knows_every_field_of_the_installed_protocol() -> None:
    """A new OTLP field (a new text upb checks, a new oneof member) must be taught to
    `_otlp_wire.c` (or left to upb there) before this list is updated."""
    found: dict[str, set[int]] = {}
    todo = [ExportTraceServiceRequest.DESCRIPTOR]
    while todo:
        descriptor = todo.pop()
        if descriptor.name in found:
            continue
        found[descriptor.name] = {field.number for field in descriptor.fields}
        todo.extend(f.message_type for f in descriptor.fields if f.message_type is not None)
    assert found == _KNOWN_FIELDS


def _agrees_or_defers(payload: bytes) -> None:
    """The native reader gives upb's tree, or refuses (Unsupported) and upb decides; the
    native check gives `check_spans` of upb's message, or None (then upb decides)."""
    try:
        request = ExportTraceServiceRequest.FromString(payload)
        expected: Any = repr(spans_tree.tree_of_request(request))
        checked: Any = check_spans(request)
    except (DecodeError, RuntimeError, ValueError) as error:
        expected = checked = error
    counted = check_spans_bytes(payload)
    if counted is not None:
        assert not isinstance(checked, Exception), f"upb refuses what was checked: {checked}"
        assert counted == checked
    try:
        got = repr(_native(payload))
    except spans_tree._native.Unsupported:
        return
    assert not isinstance(expected, Exception), f"upb refuses what was read: {expected}"
    assert got == expected


def test_damaged_bytes_agree_or_are_left_to_upb() -> None:
    """Truncated, flipped and spliced bytes of real requests: never a different tree."""
    rng = random.Random(21)
    payloads = [*_recorded()[:12], _hostile()]
    for _ in range(600):
        payload = bytearray(rng.choice(payloads))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(payload))
            action = rng.random()
            if action < 0.5:
                payload[at] = rng.randrange(256)
            elif action < 0.8:
                del payload[at:]
                if not payload:
                    payload = bytearray(b"\x0a")
            else:
                payload[at:at] = rng.randbytes(rng.randint(1, 6))
        _agrees_or_defers(bytes(payload))


def test_a_collector_without_the_native_reader_says_so(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from tracesim.collector import Collector
    from tracesim.collector import collector as collector_module

    monkeypatch.setattr(collector_module, "NATIVE", False)
    with Collector(tmp_path / "t.duckdb", grpc_port=None, http_port=None):
        pass
    assert "native OTLP reader" in caplog.text and "not built" in caplog.text
