"""Many large gRPC exports at once cannot fill the collector's memory (SPEC §9): at most
`grpc_workers + grpc_max_waiting` calls are held, the rest are answered UNAVAILABLE (which
OTLP exporters retry) without being read, and every acknowledged span is stored."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tracesim.collector import Collector
from tracesim.collector.receivers.grpc_admission import STREAMS_PER_CONNECTION, Admission

from tests.collector.otlp import GrpcClient, span, trace_request

WORKERS, WAITING, CALLS = 2, 2, 10


def _until(condition: Callable[[], bool]) -> bool:
    """Wait for a condition of the receiver's state (polled; not a timing assertion)."""
    deadline = time.monotonic() + 60
    while not condition() and time.monotonic() < deadline:
        threading.Event().wait(0.01)
    return condition()


def _export_all(
    endpoint: str, names: list[str], size: int, outcome: dict[str, grpc.RpcError | None]
) -> list[threading.Thread]:
    """Start one large export per name at once, each on its own connection; each thread
    puts its answer (None: OK) in `outcome` when it has it."""

    def export(name: str) -> None:
        client = GrpcClient(endpoint, own_connection=True)
        try:
            client.export(trace_request([span(name, attrs={"pad": "p" * size})]))
            outcome[name] = None
        except grpc.RpcError as error:
            outcome[name] = error
        finally:
            client.close()

    threads = [threading.Thread(target=export, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    return threads


def test_calls_past_the_limit_get_unavailable_and_acknowledged_are_stored(
    db_path: Path, gate: threading.Event
) -> None:
    with Collector(
        db_path, grpc_port=0, http_port=None, grpc_workers=WORKERS, grpc_max_waiting=WAITING
    ) as running:
        assert running._grpc is not None
        admission: Admission = running._grpc.admission
        names = [f"big-{i}" for i in range(CALLS)]
        outcome: dict[str, grpc.RpcError | None] = {}
        exports = _export_all(running.grpc_endpoint or "", names, 2 << 20, outcome)
        # the admitted calls are held by the gate, and the others are answered meanwhile
        # (the refusal never waits behind the busy handler threads)
        assert _until(lambda: len(outcome) == CALLS - WORKERS - WAITING)
        assert admission.admitted == WORKERS + WAITING == admission.peak
        assert admission.refused == CALLS - WORKERS - WAITING
        refused = dict(outcome)
        for error in refused.values():
            assert error is not None and error.code() == grpc.StatusCode.UNAVAILABLE  # retryable
            assert "retry later" in (error.details() or "")
        gate.set()
        for thread in exports:
            thread.join(90)
        acknowledged = {name for name, error in outcome.items() if error is None}
        assert acknowledged == set(names) - set(refused)
        assert admission.admitted == 0  # every admission came back
        assert running.flush(30)
        stored = {row[0] for row in running.query("SELECT name FROM spans")[1]}
        assert stored == acknowledged
        # what an exporter does next: retry the refused ones, which now get through
        client = GrpcClient(running.grpc_endpoint)
        for name in sorted(refused):
            client.export(trace_request([span(name)]))
        client.close()
        assert running.flush(30)
        stored = {row[0] for row in running.query("SELECT name FROM spans")[1]}
        assert stored == set(names)


def test_a_call_without_the_token_is_refused_before_admission(
    db_path: Path, gate: threading.Event
) -> None:
    with Collector(
        db_path,
        grpc_port=0,
        http_port=None,
        auth_token="s3cret",
        grpc_workers=1,
        grpc_max_waiting=0,
    ) as running:
        assert running._grpc is not None
        admission = running._grpc.admission
        good = GrpcClient(running.grpc_endpoint, token="s3cret")
        held = good._traces.future(
            trace_request([span("held")]), metadata=good._metadata, timeout=60
        )
        assert _until(lambda: admission.admitted == 1)  # the only slot is taken
        wrong = GrpcClient(running.grpc_endpoint, token="wrong")
        for _ in range(3):  # answered while the slot is held: no admission, no handler
            with pytest.raises(grpc.RpcError) as caught:
                wrong.export(trace_request([span("nope")], resource={"pad": "p" * (1 << 20)}))
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        wrong.close()
        assert admission.refused == 0 and admission.peak == 1
        gate.set()
        held.result(60)
        good.export(trace_request([span("yes")]))
        good.close()
        assert admission.admitted == 0
        assert running.flush(30)
        stored = {row[0] for row in running.query("SELECT name FROM spans")[1]}
        assert stored == {"held", "yes"}


def test_a_call_cancelled_while_waiting_gives_its_admission_back(
    db_path: Path, gate: threading.Event
) -> None:
    with Collector(
        db_path, grpc_port=0, http_port=None, grpc_workers=1, grpc_max_waiting=1
    ) as running:
        assert running._grpc is not None
        admission = running._grpc.admission
        client = GrpcClient(running.grpc_endpoint)
        held = client._traces.future(trace_request([span("held")]), timeout=60)
        assert _until(lambda: admission.admitted == 1)  # the one worker takes it: it's held
        waiting = client._traces.future(trace_request([span("cancelled")]), timeout=60)
        assert _until(lambda: admission.admitted == 2)
        waiting.cancel()
        gate.set()
        held.result(60)
        assert _until(lambda: admission.admitted == 0)
        client.export(trace_request([span("after")]))
        client.close()
        assert running.flush(30)
        stored = {row[0] for row in running.query("SELECT name FROM spans")[1]}
        assert stored == {"held", "after"}


def test_the_official_exporter_retries_a_refused_export_until_it_is_stored(
    db_path: Path, gate: threading.Event
) -> None:
    with Collector(
        db_path, grpc_port=0, http_port=None, grpc_workers=1, grpc_max_waiting=0
    ) as running:
        assert running._grpc is not None
        admission = running._grpc.admission
        endpoint = running.grpc_endpoint or ""
        holder = GrpcClient(endpoint)
        held = holder._traces.future(trace_request([span("held")]), timeout=60)
        assert _until(lambda: admission.admitted == 1)  # the only slot is taken
        provider = TracerProvider()
        provider.add_span_processor(
            SimpleSpanProcessor(GrpcExporter(endpoint=endpoint, insecure=True, timeout=60))
        )
        emitting = threading.Thread(
            target=lambda: provider.get_tracer("t").start_span("retried").end()
        )
        emitting.start()
        assert _until(lambda: admission.refused >= 1)  # refused once; the exporter backs off
        gate.set()
        held.result(60)
        emitting.join(90)
        provider.shutdown()
        holder.close()
        assert running.flush(30)
        stored = {row[0] for row in running.query("SELECT name FROM spans")[1]}
        assert stored == {"held", "retried"}


def test_one_connection_cannot_take_every_admission(db_path: Path, gate: threading.Event) -> None:
    with Collector(db_path, grpc_port=0, http_port=None, grpc_workers=1) as running:
        assert running._grpc is not None
        admission = running._grpc.admission
        greedy = GrpcClient(running.grpc_endpoint or "", own_connection=True)
        calls = [
            greedy._traces.future(trace_request([span(f"greedy-{i}")]), timeout=60)
            for i in range(STREAMS_PER_CONNECTION + 4)
        ]
        assert _until(lambda: admission.admitted == STREAMS_PER_CONNECTION)
        other = GrpcClient(running.grpc_endpoint or "", own_connection=True)
        late = other._traces.future(trace_request([span("other")]), timeout=60)
        assert _until(lambda: admission.admitted == STREAMS_PER_CONNECTION + 1)
        gate.set()
        for call in [*calls, late]:
            call.result(60)
        greedy.close()
        other.close()
        # the 4 over the connection's limit waited in the client, never admitted meanwhile
        assert admission.peak == STREAMS_PER_CONNECTION + 1 and admission.refused == 0
        assert running.flush(30)
        assert running.query("SELECT count(*) FROM spans")[1] == [[STREAMS_PER_CONNECTION + 5]]
