"""TLS on both receivers: official exporters trusting a self-signed CA get in, plaintext does not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request
from tests.tls_certs import self_signed_cert


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(certificate, key) PEM files, generated once for this module."""
    return self_signed_cert(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_collector(tmp_path: Path, tls_files: tuple[Path, Path]) -> Iterator[Collector]:
    """A collector whose receivers speak TLS only."""
    cert, key = tls_files
    with Collector(
        tmp_path / "tls.duckdb", grpc_port=0, http_port=0, tls_cert=cert, tls_key=key
    ) as running:
        yield running


def _emit(exporter: object, name: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "tls-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("tls").start_as_current_span(name):
        pass
    provider.shutdown()


def _names(collector: Collector) -> list[str]:
    assert collector.flush(10)
    _, rows = collector.query("SELECT name FROM spans ORDER BY name")
    return [row[0] for row in rows]


def test_endpoints_report_https(tls_collector: Collector) -> None:
    assert tls_collector.tls
    assert tls_collector.grpc_endpoint.startswith("https://127.0.0.1:")
    assert tls_collector.http_endpoint.startswith("https://127.0.0.1:")


def test_official_exporters_over_tls(
    tls_collector: Collector, tls_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, _key = tls_files
    credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    _emit(GrpcExporter(endpoint=tls_collector.grpc_endpoint, credentials=credentials), "grpc-creds")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", str(cert))
    _emit(GrpcExporter(endpoint=tls_collector.grpc_endpoint), "grpc-certificate-file")
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE")
    # requests lets these variables override a session's own CA file (psf/requests#3829),
    # which would hide the exporter's certificate_file
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    _emit(
        HttpExporter(
            endpoint=f"{tls_collector.http_endpoint}/v1/traces", certificate_file=str(cert)
        ),
        "http-certificate-file",
    )
    assert _names(tls_collector) == ["grpc-certificate-file", "grpc-creds", "http-certificate-file"]


def test_plaintext_and_untrusting_clients_are_refused(
    tls_collector: Collector, tls_files: tuple[Path, Path]
) -> None:
    request = trace_request([span("never")])
    plain = GrpcClient(tls_collector.grpc_endpoint)
    with pytest.raises(grpc.RpcError) as refused:
        plain.export(request)
    plain.close()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    http_url = tls_collector.http_endpoint.replace("https://", "http://") + "/v1/traces"
    headers = {"content-type": "application/x-protobuf"}
    with pytest.raises(httpx.TransportError):
        httpx.post(http_url, content=request.SerializeToString(), headers=headers)
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.post(
            f"{tls_collector.http_endpoint}/v1/traces",
            content=request.SerializeToString(),
            headers=headers,
        )
    cert, _key = tls_files
    trusted = GrpcClient(tls_collector.grpc_endpoint, root_certificates=cert.read_bytes())
    trusted.export(trace_request([span("raw-tls")]))
    trusted.close()
    answer = httpx.post(
        f"{tls_collector.http_endpoint}/v1/traces",
        content=trace_request([span("httpx-tls")]).SerializeToString(),
        headers=headers,
        verify=str(cert),
    )
    assert answer.status_code == 200
    assert _names(tls_collector) == ["httpx-tls", "raw-tls"]


def test_bad_tls_config_fails_before_listening(
    tmp_path: Path, tls_files: tuple[Path, Path]
) -> None:
    cert, key = tls_files
    db = tmp_path / "x.duckdb"
    with pytest.raises(ValueError, match="tls_cert was given without tls_key"):
        Collector(db, tls_cert=cert)
    with pytest.raises(ValueError, match="tls_key .*missing.pem does not exist"):
        Collector(db, tls_cert=cert, tls_key=tmp_path / "missing.pem")
    other_key = self_signed_cert(tmp_path)[1]
    with pytest.raises(ValueError, match="key must match the certificate"):
        Collector(db, tls_cert=cert, tls_key=other_key)
    with pytest.raises(ValueError, match="cannot use certificate"):
        Collector(db, tls_cert=key, tls_key=key)
    assert not db.exists()


def test_cli_refuses_half_a_tls_pair(tmp_path: Path, tls_files: tuple[Path, Path]) -> None:
    from click.testing import CliRunner

    from tracesim.commands.collect import command

    db = tmp_path / "cli.duckdb"
    result = CliRunner().invoke(command, ["--db", str(db), "--tls-cert", str(tls_files[0])])
    assert result.exit_code == 2 and "tls_cert was given without tls_key" in result.output
    assert not db.exists()
