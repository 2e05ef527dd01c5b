"""OTLP/gRPC receiver: TraceService/Export and LogsService/Export on raw bytes.

Handlers take the request bytes undecoded (no deserializer) because the spool
stores exactly those bytes. Errors map once: InvalidRequest -> INVALID_ARGUMENT,
Busy -> UNAVAILABLE, oversized -> RESOURCE_EXHAUSTED (by gRPC itself), wrong
token -> UNAUTHENTICATED. Memory: at most `workers` requests are read at once and
`max_waiting` more calls wait holding a small window each (`grpc_admission`); calls
past that get UNAVAILABLE. A call with no message or more than one (the methods are
unary) is refused INVALID_ARGUMENT before anything is stored; a call whose request has
not arrived whole after `read_timeout` s is cancelled (`read_deadline`), so a client that
sends nothing cannot hold a worker. Compressed messages (gzip, every member, or deflate) are
inflated here, not by gRPC, like HTTP bodies (`inflate`: within the size limit, whole or
INVALID_ARGUMENT); gRPC's message flag is not visible to Python, so a message is taken
as compressed when it starts like gzip or zlib, which an OTLP request never does. With
`tls` the port only speaks TLS (plaintext clients fail the handshake).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from tracesim.collector.errors import Busy, InvalidRequest, TooLarge
from tracesim.collector.ingest import Ingest
from tracesim.collector.receivers.grpc_admission import (
    TRANSPORT_OPTIONS,
    Admission,
    AdmittingHandlers,
)
from tracesim.collector.receivers.inflate import inflate, looks_compressed
from tracesim.collector.receivers.read_deadline import DEFAULT_READ_TIMEOUT, ReadDeadlines
from tracesim.collector.receivers.responses import logs_response as _logs_response
from tracesim.collector.receivers.responses import trace_response as _trace_response
from tracesim.collector.receivers.tls import TlsConfig

__all__ = ["GrpcReceiver", "TRACE_METHOD", "LOGS_METHOD"]

TRACE_METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
LOGS_METHOD = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"


class GrpcReceiver:
    """A gRPC server bound to host:port, feeding `Ingest`."""

    def __init__(
        self,
        ingest: Ingest,
        *,
        host: str = "127.0.0.1",
        port: int = 4317,
        auth_token: str | None = None,
        max_request_bytes: int = 16 << 20,
        workers: int = 4,
        max_waiting: int = 64,
        tls: TlsConfig | None = None,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
    ) -> None:
        if workers < 1 or max_waiting < 0:
            raise ValueError(
                f"gRPC workers must be at least 1 and max_waiting at least 0, not {workers} "
                f"and {max_waiting}"
            )
        self._ingest = ingest
        self._max_request_bytes = max_request_bytes
        self._expected = f"Bearer {auth_token}".encode() if auth_token else None
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tracesim-grpc")
        self._server = grpc.server(
            self._pool,
            options=[
                ("grpc.max_receive_message_length", max_request_bytes),
                ("grpc.per_message_decompression", 0),  # `inflate` takes every gzip member
                ("grpc.so_reuseport", 0),
                *TRANSPORT_OPTIONS,
            ],
        )
        self.admission = Admission(workers + max_waiting)
        self.deadlines = ReadDeadlines(read_timeout)
        self._handlers = AdmittingHandlers(
            {
                TRACE_METHOD: (
                    self._handler(ingest.export_traces, _trace_response),
                    ExportTraceServiceResponse.SerializeToString,
                ),
                LOGS_METHOD: (
                    self._handler(ingest.export_logs, _logs_response),
                    ExportLogsServiceResponse.SerializeToString,
                ),
            },
            admission=self.admission,
            authorized=self._authorized,
        )
        self._server.add_generic_rpc_handlers((self._handlers,))
        address = f"{host}:{port}"
        try:
            try:
                if tls is None:
                    self.port = self._server.add_insecure_port(address)
                else:
                    credentials = grpc.ssl_server_credentials([tls.pem()])
                    self.port = self._server.add_secure_port(address, credentials)
            except RuntimeError:
                self.port = 0
            if not self.port:
                raise OSError(
                    f"cannot listen for OTLP gRPC on {address}: port in use? "
                    "choose another with --grpc-port (0 picks a free one)"
                )
        except BaseException:
            self._release()
            raise
        self.host = host

    def _release(self) -> None:
        """Free a server that will never start: stop it, drop it (its handlers refer back to
        this receiver, so keeping it would leave both to the cyclic GC) and shut the pool."""
        server, self._server = self._server, None
        server.stop(None)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._handlers.close()

    def _authorized(self, metadata: Any) -> bool:
        """Check the bearer token in a call's metadata (constant-time)."""
        if self._expected is None:
            return True
        for key, value in metadata or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else value
                return hmac.compare_digest(given, self._expected)
        return False

    def _handler(
        self, export: Callable[[bytes], tuple[int, str]], response: Callable[[int, str], Any]
    ) -> Callable[[Iterator[bytes], Any], Any]:
        """Wrap an Ingest export as a behaviour on the raw request bytes of an admitted,
        authorized call; it always gives the admission back."""

        def handle(requests: Iterator[bytes], context: grpc.ServicerContext) -> Any:
            try:
                clock = self.deadlines.watch(context.cancel)  # type: ignore[attr-defined]
                try:
                    payload = next(requests, None)
                    extra = payload is not None and next(requests, None) is not None
                finally:
                    cut = self.deadlines.done(clock)
                if cut:  # cancelled by its read deadline: nothing of it is stored
                    return None
                if payload is None:
                    context.abort(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "Export takes exactly one request message and got none",
                    )
                if extra:  # checked before storing anything
                    context.abort(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "Export takes exactly one request message and got more than one; "
                        "send each request on its own call",
                    )
                try:
                    if looks_compressed(payload):
                        payload = inflate(payload, self._max_request_bytes)
                    rejected, message = export(payload)
                except InvalidRequest as error:
                    context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
                except TooLarge as error:
                    context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
                except Busy as error:
                    context.abort(grpc.StatusCode.UNAVAILABLE, str(error))
                return response(rejected, message)
            finally:
                self.admission.leave()

        return handle

    def start(self) -> None:
        """Start serving."""
        self._server.start()

    def stop(self, grace: float | None = 5.0) -> None:
        """Stop accepting calls and wait up to `grace` s for those in flight."""
        self._server.stop(grace).wait()
        self._handlers.close()
        self.deadlines.close()
