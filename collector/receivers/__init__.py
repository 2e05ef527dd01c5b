"""OTLP receivers: gRPC service, HTTP app and its server, export responses, TLS."""

from tracesim.collector.receivers.http_server import HttpServer
from tracesim.collector.receivers.receiver_grpc import LOGS_METHOD, TRACE_METHOD, GrpcReceiver
from tracesim.collector.receivers.receiver_http import build_app
from tracesim.collector.receivers.responses import logs_response, trace_response
from tracesim.collector.receivers.tls import TlsConfig, tls_config

__all__ = [
    "GrpcReceiver",
    "HttpServer",
    "LOGS_METHOD",
    "TRACE_METHOD",
    "TlsConfig",
    "build_app",
    "logs_response",
    "tls_config",
    "trace_response",
]
