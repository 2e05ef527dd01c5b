"""SPEC §9 SIGTERM / shutdown with gRPC calls in flight: a call running in the ingest and
calls admitted but not read yet each end acknowledged-and-stored or with a code OTLP
exporters retry; none hangs the shutdown or keeps its admission."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import grpc
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request
from tests.collector.test_grpc_admission import _until

RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}


def test_calls_in_flight_at_shutdown_are_stored_if_acknowledged(
    db_path: Path, gate: threading.Event
) -> None:
    running = Collector(
        db_path, grpc_port=0, http_port=None, grpc_workers=1, grpc_max_waiting=2
    ).start()
    assert running._grpc is not None and running._ingest is not None
    admission, ingest = running._grpc.admission, running._ingest
    endpoint = running.grpc_endpoint or ""
    outcome: dict[str, grpc.StatusCode] = {}

    def export(name: str) -> None:
        client = GrpcClient(endpoint)
        try:
            client.export(trace_request([span(name, attrs={"pad": "p" * (256 << 10)})]))
            outcome[name] = grpc.StatusCode.OK
        except grpc.RpcError as error:
            outcome[name] = error.code()
        finally:
            client.close()

    names = ["running", "waiting-1", "waiting-2"]
    exports = [threading.Thread(target=export, args=(name,)) for name in names]
    for thread in exports:
        thread.start()
    assert _until(lambda: admission.admitted == 3)
    stopping = threading.Thread(target=running.shutdown, kwargs={"timeout": 30})
    stopping.start()
    assert _until(lambda: ingest._closed)  # shutdown refuses new requests from here on
    gate.set()
    stopping.join(90)
    for thread in exports:
        thread.join(90)
    assert not stopping.is_alive() and admission.admitted == 0
    assert set(outcome) == set(names)
    acknowledged = {name for name, code in outcome.items() if code == grpc.StatusCode.OK}
    assert all(code in RETRYABLE for name, code in outcome.items() if name not in acknowledged)
    with duckdb.connect(str(db_path), read_only=True) as con:
        stored = {row[0] for row in con.execute("SELECT name FROM spans").fetchall()}
    assert stored == acknowledged
