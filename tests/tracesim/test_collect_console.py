"""`tracesim collect` speaks while spans arrive, and recognises an exporter on the wrong
port: a real collector process, real OpenTelemetry SDK exporters (gRPC and OTLP/HTTP)."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import duckdb
import grpc
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
    OTLPSpanExporter as GrpcExporter,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as HttpExporter,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

ROOT = Path(__file__).resolve().parents[2]
_CLI = "from tracesim.cli import main; main()"


class Collect:
    """`tracesim collect` in a subprocess; its stdout lines read on a thread."""

    def __init__(self, db: Path, *args: str) -> None:
        self.db = db
        self.process = subprocess.Popen(
            [sys.executable, "-c", _CLI, "collect", "--db", str(db), *args],
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={
                **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
                "PYTHONPATH": str(ROOT),
            },
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        banner = self.expect(lambda line: " on " in line and "writing" in line)
        match = re.search(r"OTLP gRPC on (?:https://)?[\w.]+:(\d+)", banner)
        self.grpc_port = int(match.group(1)) if match else None
        match = re.search(r"OTLP/HTTP on https?://[\w.]+:(\d+)", banner)
        self.http_port = int(match.group(1)) if match else None

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, matches: Callable[[str], bool], timeout: float = 60) -> str:
        """The next stdout line that `matches` (the ones before are kept in `seen`)."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(
                    "no such line; collect printed:\n" + "\n".join(self.seen)
                ) from None
            if line is None:
                raise AssertionError(
                    "collect ended before the line; it printed:\n"
                    + "\n".join(self.seen)
                    + self.process.stderr.read()
                )
            self.seen.append(line)
            if matches(line):
                return line

    def stop(self) -> str:
        """SIGTERM, then the rest of stdout."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        rest = []
        while (line := self.lines.get(timeout=60)) is not None:
            rest.append(line)
        self.seen.extend(rest)
        return "\n".join(rest)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _spans(service: str, conversation: str, n: int = 2) -> list:
    """`n` finished spans of `service` in one conversation (gen_ai.conversation.id)."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    for i in range(n):
        with tracer.start_as_current_span(
            f"invoke_agent {i}", attributes={"gen_ai.conversation.id": conversation}
        ):
            pass
    provider.shutdown()
    return list(memory.get_finished_spans())


@pytest.fixture()
def collect(tmp_path: Path):
    started: list[Collect] = []

    def start(*args: str) -> Collect:
        c = Collect(tmp_path / "c.duckdb", "--grpc-port", "0", *args)
        started.append(c)
        return c

    yield start
    for c in started:
        c.kill()


def test_collect_names_new_services_and_conversations_and_counts(collect) -> None:
    c = collect("--http-port", "0", "--progress-every", "0.2")
    exporter = GrpcExporter(endpoint=f"127.0.0.1:{c.grpc_port}", insecure=True)
    assert exporter.export(_spans("shop-agent", "sess-1", 3)) == SpanExportResult.SUCCESS
    c.expect(lambda line: line == "new service: shop-agent")
    c.expect(lambda line: line == "new conversation(s): sess-1")
    c.expect(lambda line: line.startswith("3 spans stored since start (+3), 1 new conversation"))
    # a second agent and seven conversations: named once each, a few per line
    for i in range(7):
        assert exporter.export(_spans("billing-agent", f"b-{i}", 1)) == SpanExportResult.SUCCESS
    c.expect(lambda line: line == "new service: billing-agent")
    named = c.expect(lambda line: line.startswith("new conversation(s): b-"))
    assert named.endswith(" and 2 more") and named.count("b-") == 5
    c.expect(lambda line: "10 spans stored since start" in line and "8 new conversation" in line)
    exporter.shutdown()
    out = c.stop()
    assert "stored 10 spans" in out
    assert sum(line.startswith("new service: ") for line in c.seen) == 2  # never twice


def test_exporters_on_the_wrong_port_are_stored_and_told_the_right_one(collect) -> None:
    c = collect("--http-port", "0", "--progress-every", "0")
    # an OTLP/HTTP exporter given the gRPC port (the usual OTEL_EXPORTER_OTLP_ENDPOINT slip)
    http_to_grpc = HttpExporter(endpoint=f"http://127.0.0.1:{c.grpc_port}/v1/traces", timeout=30)
    assert http_to_grpc.export(_spans("web-agent", "w-1")) == SpanExportResult.SUCCESS
    line = c.expect(lambda line: "OTLP/HTTP exporter" in line)
    assert f"is sending to the gRPC port {c.grpc_port}: stored" in line
    assert f"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:{c.http_port}" in line
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in line
    # and a gRPC exporter given the HTTP port
    grpc_to_http = GrpcExporter(endpoint=f"127.0.0.1:{c.http_port}", insecure=True)
    assert grpc_to_http.export(_spans("grpc-agent", "g-1")) == SpanExportResult.SUCCESS
    line = c.expect(lambda line: "gRPC exporter" in line)
    assert f"is sending to the OTLP/HTTP port {c.http_port}: stored" in line
    assert f"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:{c.grpc_port}" in line
    # the right ports still work, and say nothing
    right = GrpcExporter(endpoint=f"127.0.0.1:{c.grpc_port}", insecure=True)
    assert right.export(_spans("grpc-agent", "g-2")) == SpanExportResult.SUCCESS
    for exporter in (http_to_grpc, grpc_to_http, right):
        exporter.shutdown()
    out = c.stop()
    assert "stored 6 spans" in out
    assert sum("is sending to the" in line for line in c.seen) == 2
    with duckdb.connect(str(c.db), read_only=True) as con:
        services = {r[0] for r in con.execute("SELECT DISTINCT service_name FROM spans").fetchall()}
    assert services == {"web-agent", "grpc-agent"}


def test_http_to_the_grpc_port_with_the_http_receiver_off_is_refused_with_the_fix(
    collect,
) -> None:
    c = collect("--http-port", "-1", "--progress-every", "0")
    assert c.http_port is None
    exporter = HttpExporter(endpoint=f"http://127.0.0.1:{c.grpc_port}/v1/traces", timeout=30)
    assert exporter.export(_spans("web-agent", "w-1")) == SpanExportResult.FAILURE
    line = c.expect(lambda line: "OTLP/HTTP exporter" in line)
    assert "NOT stored" in line and "--http-port" in line
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in line
    exporter.shutdown()
    assert "stored 0 spans" in c.stop()


def test_tls_passes_through_the_ports_untouched(collect, tmp_path: Path, monkeypatch) -> None:
    from tests.tls_certs import self_signed_cert

    cert, key = self_signed_cert(tmp_path / "tls")
    c = collect("--http-port", "0", "--tls-cert", str(cert), "--tls-key", str(key))
    assert "OTLP gRPC on https://127.0.0.1:" in c.seen[0]
    credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    tls_grpc = GrpcExporter(endpoint=f"https://127.0.0.1:{c.grpc_port}", credentials=credentials)
    assert tls_grpc.export(_spans("tls-agent", "t-1")) == SpanExportResult.SUCCESS
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    tls_http = HttpExporter(
        endpoint=f"https://127.0.0.1:{c.http_port}/v1/traces", certificate_file=str(cert)
    )
    assert tls_http.export(_spans("tls-agent", "t-2")) == SpanExportResult.SUCCESS
    for exporter in (tls_grpc, tls_http):
        exporter.shutdown()
    assert "stored 4 spans" in c.stop()
    assert not any("is sending to the" in line for line in c.seen)
