"""Many slow HTTP uploads at once cannot fill the collector's memory: past the in-flight
budget new requests are answered 503 (retry), and the budget comes back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from tracesim.collector import Collector

from tests.collector.otlp import span, trace_request

HEADERS = {"content-type": "application/x-protobuf"}


def test_slow_uploads_are_bounded_in_bytes(db_path: Path) -> None:
    limit = 64 << 10
    with Collector(db_path, grpc_port=None, http_port=0, max_request_bytes=limit) as running:
        url = f"{running.http_endpoint}/v1/traces"
        release = threading.Event()

        def stalled() -> Iterator[bytes]:
            yield b"\0" * (limit - 10)  # most of a request, then nothing for a while
            release.wait(60)

        uploads = [
            threading.Thread(
                target=lambda: httpx.post(url, content=stalled(), headers=HEADERS, timeout=90)
            )
            for _ in range(4)
        ]
        for upload in uploads:
            upload.start()
        small = trace_request([span("small", attrs={"pad": "p" * 1000})]).SerializeToString()
        inflight = running._http_app.state.inflight
        deadline = time.monotonic() + 60
        while inflight.bytes < 4 * (limit - 10) and time.monotonic() < deadline:
            threading.Event().wait(0.01)  # until the 4 stalled bodies are held (a condition)
        assert inflight.bytes >= 4 * (limit - 10)
        refused = httpx.post(url, content=small, headers=HEADERS, timeout=30)
        release.set()
        for upload in uploads:
            upload.join(60)
        assert refused.status_code == 503 and refused.headers["retry-after"]
        after = httpx.post(url, content=small, headers=HEADERS, timeout=30)
        assert after.status_code == 200  # the budget came back
