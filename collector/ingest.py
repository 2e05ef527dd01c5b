"""The front door shared by both receivers: validate, redact, spool (group fsync), queue, ack.

With a `Redactor`, requests are redacted here, before the spool: raw values never
reach disk.

`export_*` return only once the request is durable in the spool, so an OK
survives a crash; they raise `InvalidRequest` (permanent) or `Busy`
(retryable) otherwise. Memory is bounded by `max_pending_bytes` of requests
acknowledged but not yet committed. Created with `ready=False`, it answers Busy until
`open()`: a collector whose start fails after a receiver listens has acknowledged nothing.
Thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.decode.decode import check_spans, check_spans_bytes
from tracesim.collector.decode.decode_json import logs_request_from_json, traces_request_from_json
from tracesim.collector.decode.decode_logs import check_logs
from tracesim.collector.errors import Busy, InvalidRequest
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.redaction.redaction_request import redact_logs, redact_traces
from tracesim.collector.spool.spool import Spool
from tracesim.collector.store.writer import KIND_LOGS, KIND_TRACES, Item, Writer

__all__ = ["Ingest"]


class Ingest:
    """Validates requests, writes them to the spool and hands them to the writer."""

    def __init__(
        self,
        spool: Spool,
        writer: Writer,
        *,
        max_pending_bytes: int = 32 << 20,
        release: Callable[[int], None] | None = None,
        redactor: Redactor | None = None,
        ready: bool = True,
    ) -> None:
        self._spool = spool
        self._redactor = redactor or None
        self._release = release or spool.release
        self._writer = writer
        self._max_pending = max_pending_bytes
        self._lock = threading.Lock()
        self._arrival = threading.Condition()
        self._pending = 0
        self._closed = False
        self._ready = ready
        self.last_arrival = time.monotonic()
        self.rejected_spans = 0
        self.rejected_logs = 0
        self.busy_answers = 0
        self.requests = 0

    def export_traces(self, payload: bytes) -> tuple[int, str]:
        """Store a protobuf ExportTraceServiceRequest; returns (rejected spans, message)."""
        self._admit(len(payload))
        if self._redactor is None and self._writer.takes_payload(KIND_TRACES):
            checked = check_spans_bytes(payload)  # nothing needs the parsed message
            if checked is not None:
                return self._submit(KIND_TRACES, payload, None, checked)
        request = _parse(ExportTraceServiceRequest, payload)
        if self._redactor is not None and redact_traces(request, self._redactor):
            payload = request.SerializeToString()  # only redacted bytes reach the spool
        return self._submit(KIND_TRACES, payload, request, check_spans(request))

    def export_traces_json(self, body: bytes) -> tuple[int, str]:
        """Store an OTLP/JSON trace request (spooled as protobuf)."""
        self._admit(len(body))
        request = traces_request_from_json(body)
        if self._redactor is not None:
            redact_traces(request, self._redactor)
        return self._submit(KIND_TRACES, request.SerializeToString(), request, check_spans(request))

    def export_logs(self, payload: bytes) -> tuple[int, str]:
        """Store a protobuf ExportLogsServiceRequest; returns (rejected records, message)."""
        self._admit(len(payload))
        request = _parse(ExportLogsServiceRequest, payload)
        if self._redactor is not None and redact_logs(request, self._redactor):
            payload = request.SerializeToString()
        return self._submit(KIND_LOGS, payload, request, check_logs(request))

    def export_logs_json(self, body: bytes) -> tuple[int, str]:
        """Store an OTLP/JSON logs request (spooled as protobuf)."""
        self._admit(len(body))
        request = logs_request_from_json(body)
        if self._redactor is not None:
            redact_logs(request, self._redactor)
        return self._submit(KIND_LOGS, request.SerializeToString(), request, check_logs(request))

    def _admit(self, size: int) -> None:
        """Busy at once when the queue is full, before any parsing: under overload most
        requests are refused and retried, and parsing each one first cost the CPU that
        draining the queue needs. (`_submit` checks again with the spooled size.)"""
        with self._lock:
            if self._ready and self._pending and self._pending + size > self._max_pending:
                self.busy_answers += 1
                raise Busy("collector queue is full; retry later")

    def _submit(
        self, kind: int, payload: bytes, request: Any, checked: tuple[int, int, str]
    ) -> tuple[int, str]:
        """Spool, queue and wait for the fsync of one validated request."""
        valid, rejected, message = checked
        with self._lock:
            if not self._ready:  # nothing is acknowledged before the collector is fully up
                self.busy_answers += 1
                raise Busy("collector is still starting; retry in a moment")
            self.requests += 1
            if kind == KIND_TRACES:
                self.rejected_spans += rejected
            else:
                self.rejected_logs += rejected
        if not valid:
            return rejected, message
        size = len(payload)
        with self._lock:
            if self._closed:
                self.busy_answers += 1
                raise Busy("collector is shutting down; retry against the next one")
            if self._pending and self._pending + size > self._max_pending:
                self.busy_answers += 1
                raise Busy("collector queue is full; retry later")
            try:
                seq = self._spool.append(kind, payload)
            except Busy:  # disk full / EIO: nothing queued, no budget taken
                self.busy_answers += 1
                raise
            self._pending += size
            queued = bytes(payload) if self._writer.takes_payload(kind) else request
            self._writer.put(Item(seq, kind, queued, size, valid))
        try:
            self._spool.sync(seq)
        except Busy:  # the budget comes back when the writer has handled the item
            with self._lock:
                self.busy_answers += 1
            raise
        with self._arrival:
            self.last_arrival = time.monotonic()
            self._arrival.notify_all()
        return rejected, message

    def committed(self, seq: int, nbytes: int) -> None:
        """Writer callback: free the memory budget and the loaded spool segments."""
        with self._lock:
            self._pending -= nbytes
        self._release(seq)

    @property
    def pending_bytes(self) -> int:
        """Bytes acknowledged and not yet committed."""
        return self._pending

    def open(self) -> None:
        """Start acknowledging (the collector calls it once every start-up step succeeded)."""
        with self._lock:
            self._ready = True

    def close(self) -> None:
        """Refuse new requests from now on (answered UNAVAILABLE)."""
        with self._lock:
            self._closed = True

    def wait_settled(self, settle: float, timeout: float) -> bool:
        """Block until nothing arrived for `settle` s (True) or `timeout` s passed (False)."""
        deadline = time.monotonic() + timeout
        with self._arrival:
            while True:
                now = time.monotonic()
                quiet_at = self.last_arrival + settle
                if now >= quiet_at:
                    return True
                if now >= deadline:
                    return False
                self._arrival.wait(min(quiet_at, deadline) - now)


def _parse(message_type: Any, payload: bytes) -> Any:
    """Parse protobuf bytes, translating decode errors to InvalidRequest."""
    try:
        return message_type.FromString(payload)
    except (DecodeError, ValueError, RuntimeError) as error:
        raise InvalidRequest(
            f"request body is not a valid {message_type.DESCRIPTOR.name}: {error}"
        ) from None
