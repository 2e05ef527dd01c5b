"""OTLP/gRPC receiver: TraceService/Export and LogsService/Export on raw bytes.

Handlers take the request bytes undecoded (no deserializer) because the spool
stores exactly those bytes. Errors map once: InvalidRequest -> INVALID_ARGUMENT,
Busy -> UNAVAILABLE, oversized -> RESOURCE_EXHAUSTED (by gRPC itself), wrong
token -> UNAUTHENTICATED. gzip is handled by gRPC. With `tls` the port only
speaks TLS (plaintext clients fail the handshake).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from collector.errors import Busy, InvalidRequest
from collector.ingest import Ingest
from collector.receivers.responses import logs_response as _logs_response
from collector.receivers.responses import trace_response as _trace_response
from collector.receivers.tls import TlsConfig

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
        tls: TlsConfig | None = None,
    ) -> None:
        self._ingest = ingest
        self._expected = f"Bearer {auth_token}".encode() if auth_token else None
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tracesim-grpc")
        self._server = grpc.server(
            self._pool,
            options=[
                ("grpc.max_receive_message_length", max_request_bytes),
                ("grpc.so_reuseport", 0),
            ],
        )
        handlers = {
            "Export": grpc.unary_unary_rpc_method_handler(
                self._handler(ingest.export_traces, _trace_response),
                response_serializer=ExportTraceServiceResponse.SerializeToString,
            ),
        }
        logs_handlers = {
            "Export": grpc.unary_unary_rpc_method_handler(
                self._handler(ingest.export_logs, _logs_response),
                response_serializer=ExportLogsServiceResponse.SerializeToString,
            ),
        }
        self._server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    "opentelemetry.proto.collector.trace.v1.TraceService", handlers
                ),
                grpc.method_handlers_generic_handler(
                    "opentelemetry.proto.collector.logs.v1.LogsService", logs_handlers
                ),
            )
        )
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

    def _authorized(self, context: grpc.ServicerContext) -> bool:
        """Check the bearer token of a call (constant-time)."""
        if self._expected is None:
            return True
        for key, value in context.invocation_metadata():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else value
                return hmac.compare_digest(given, self._expected)
        return False

    def _handler(
        self, export: Callable[[bytes], tuple[int, str]], response: Callable[[int, str], Any]
    ) -> Callable[[bytes, Any], Any]:
        """Wrap an Ingest export as a unary-unary behaviour on raw bytes."""

        def handle(payload: bytes, context: grpc.ServicerContext) -> Any:
            if not self._authorized(context):
                context.abort(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "missing or wrong bearer token in 'authorization' metadata",
                )
            try:
                rejected, message = export(payload)
            except InvalidRequest as error:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
            except Busy as error:
                context.abort(grpc.StatusCode.UNAVAILABLE, str(error))
            return response(rejected, message)

        return handle

    def start(self) -> None:
        """Start serving."""
        self._server.start()

    def stop(self, grace: float | None = 5.0) -> None:
        """Stop accepting calls and wait up to `grace` s for those in flight."""
        self._server.stop(grace).wait()
