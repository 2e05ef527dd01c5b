"""Trace-file readers for `tracesim import`: OTLP/JSON and protobuf dumps, the OpenTelemetry
Collector file exporter's JSON lines (and its protobuf stream), Jaeger and Tempo JSON
exports, the Python SDK's span JSON (ConsoleSpanExporter), gzip'd or not. Each format is one module turning a file into OTLP export
requests; what happens to them next is the receivers' path (`Collector.ingest`).
"""

from tracesim.collector.importers.errors import TraceFileError
from tracesim.collector.importers.file_bytes import MAX_FILE_BYTES
from tracesim.collector.importers.read import TraceFile, read_trace_file

__all__ = ["MAX_FILE_BYTES", "TraceFile", "TraceFileError", "read_trace_file"]
