"""gRPC request messages as they arrive (SPEC §9 "gzip accepted", malformed requests):
compressed exports are stored whole, every gzip member of them, as over HTTP; a message
that cannot be inflated whole is refused INVALID_ARGUMENT saying why, past the size
limit RESOURCE_EXHAUSTED, nothing of it stored, and the collector keeps serving. A call
must carry one message."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tracesim.collector import Collector
from tracesim.collector.receivers.receiver_grpc import TRACE_METHOD

from tests.collector.grpc_wire import WireStatus, raw_call
from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

LIMIT = 1 << 20
INVALID_ARGUMENT, RESOURCE_EXHAUSTED = 3, 8


@pytest.fixture
def small(db_path: Path) -> Iterator[Collector]:
    """A collector taking requests of at most 1 MiB (inflated)."""
    with Collector(db_path, grpc_port=0, http_port=None, max_request_bytes=LIMIT) as running:
        yield running


def _names(running: Collector) -> set[str]:
    assert running.flush(30)
    return {row[0] for row in running.query("SELECT name FROM spans")[1]}


def _send(running: Collector, message: bytes, *, encoding: str = "gzip") -> WireStatus:
    assert running.grpc_endpoint is not None
    return raw_call(
        running.grpc_endpoint, TRACE_METHOD, message, compressed=True, encoding=encoding
    )


def test_the_grpc_clients_gzip_exports_are_stored(small: Collector) -> None:
    assert small.grpc_endpoint is not None
    client = GrpcClient(small.grpc_endpoint, compression=grpc.Compression.Gzip)
    client.export(trace_request([span("zipped", attrs={"pad": "z" * (LIMIT // 2)})]))
    # the limit is on the inflated size: 2 MiB that gzip to a few KiB are refused
    with pytest.raises(grpc.RpcError) as caught:
        client.export(trace_request([span("too-big", attrs={"pad": "z" * 2 * LIMIT})]))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "exceeds" in (caught.value.details() or "")
    client.export_logs(logs_request([log_record("zipped log " * 1000)]))
    client.close()
    assert _names(small) == {"zipped"}
    assert small.query("SELECT count(*) FROM logs")[1] == [[1]]


def test_hand_built_compressed_messages_are_stored_whole_or_refused(small: Collector) -> None:
    one = trace_request([span("one-member")]).SerializeToString()
    assert _send(small, gzip.compress(one)).code == 0
    assert (
        _send(
            small,
            zlib.compress(trace_request([span("deflated")]).SerializeToString()),
            encoding="deflate",
        ).code
        == 0
    )
    first = trace_request([span("member-1")]).SerializeToString()
    second = trace_request([span("member-2")]).SerializeToString()
    # protobuf messages concatenate: two members inflate to one request with both spans
    assert _send(small, gzip.compress(first) + gzip.compress(second)).code == 0
    whole = gzip.compress(trace_request([span(f"t{i}") for i in range(50)]).SerializeToString())
    refused = {
        "truncated": (whole[: len(whole) - 9], "truncated"),
        "trailing garbage": (gzip.compress(first) + b"garbage!", "after the end of the gzip"),
        "corrupt": (whole[:10] + bytes(255 - b for b in whole[10:]), "not valid gzip"),
        "not compressed": (b"plain bytes flagged as compressed", "ExportTraceServiceRequest"),
    }
    for case, (message, reason) in refused.items():
        status = _send(small, message)
        assert status.code == INVALID_ARGUMENT, case
        assert reason in status.message, (case, status.message)
    bomb = gzip.compress(b"\n\x00" * LIMIT)  # 2 MiB inflated from a few KiB
    status = _send(small, bomb)
    assert status.code == RESOURCE_EXHAUSTED and "exceeds" in status.message
    assert _send(small, gzip.compress(one), encoding="br").code != 0  # unknown encoding
    # nothing of a refused message was stored, and the collector still serves
    client = GrpcClient(small.grpc_endpoint or "")
    client.export(trace_request([span("after")]))
    client.close()
    assert _names(small) == {"one-member", "deflated", "member-1", "member-2", "after"}
    assert small._grpc is not None and small._grpc.admission.admitted == 0


def test_a_call_without_a_message_or_with_an_empty_one(small: Collector) -> None:
    endpoint = small.grpc_endpoint or ""
    none = raw_call(endpoint, TRACE_METHOD, None, compressed=False, encoding=None)
    assert none.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "exactly one request message" in none.message
    empty = raw_call(endpoint, TRACE_METHOD, b"", compressed=False, encoding=None)
    assert empty.code == 0  # an empty ExportTraceServiceRequest: nothing to store
    assert _names(small) == set()
    assert small._grpc is not None and small._grpc.admission.admitted == 0


@pytest.mark.parametrize("count", [2, 3])
def test_a_unary_call_with_several_messages_is_refused_whole(small: Collector, count: int) -> None:
    """A client streaming 2 or 3 messages on the unary Export: INVALID_ARGUMENT, none stored
    (before, the first was stored, the others dropped, and OK answered)."""
    endpoint = small.grpc_endpoint or ""
    messages = [
        trace_request([span(f"extra-{count}-{index}")]).SerializeToString()
        for index in range(count)
    ]
    status = raw_call(endpoint, TRACE_METHOD, messages, compressed=False, encoding=None)
    assert status.code == INVALID_ARGUMENT, status
    assert "exactly one request message" in status.message
    assert f"got {count}" in status.message or "more than one" in status.message
    one = raw_call(endpoint, TRACE_METHOD, messages[:1], compressed=False, encoding=None)
    assert one.code == 0, one
    assert _names(small) == {f"extra-{count}-0"}
    assert small._grpc is not None and small._grpc.admission.admitted == 0


@pytest.mark.parametrize("sent", [None, "one message"])
def test_a_call_that_never_ends_its_request_is_cut_and_frees_its_worker(
    db_path: Path, sent: str | None
) -> None:
    """With one worker, a client that opens an Export and then stalls (no message, or one
    message and never the end of the stream) held it for good: every later export waited.
    Past the read timeout the call is cancelled and the next export is stored."""
    with Collector(
        db_path, grpc_port=0, http_port=None, grpc_workers=1, grpc_read_timeout=0.5
    ) as running:
        endpoint = running.grpc_endpoint or ""
        message = None if sent is None else trace_request([span("stalled")]).SerializeToString()
        try:
            stalled = raw_call(
                endpoint, TRACE_METHOD, message, compressed=False, encoding=None, end_stream=False
            )
        except ConnectionError:  # cut with RST_STREAM: the same outcome
            stalled = None
        assert stalled is None or stalled.code != 0
        client = GrpcClient(endpoint)
        try:
            client.export(trace_request([span("after")]))
        finally:
            client.close()
        assert _names(running) == {"after"}
        assert running._grpc is not None and running._grpc.deadlines.cut == 1


def test_finished_calls_are_not_held_by_their_read_clocks(small: Collector) -> None:
    """The deadline registry forgets a call once it was read: keeping a reference to its
    context kept gRPC's stream open, and the 17th call on a connection was refused."""
    endpoint = small.grpc_endpoint or ""
    client = GrpcClient(endpoint)
    try:
        for index in range(40):
            client.export(trace_request([span(f"held-{index}")]))
    finally:
        client.close()
    assert small._grpc is not None
    assert not small._grpc.deadlines._reading and small._grpc.deadlines.cut == 0
