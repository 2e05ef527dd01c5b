"""Model calls (SPEC §5) are the same on every backend: every conformance recording stored by
a real collector into DuckDB and inserted as the OTel Collector's ClickHouse exporter would
into chdb gives the same `llm_calls` rows (innermost of wrapper and provider span, duplicate
reporters once, usage mirrors and model-name-only spans not calls, parent cycles tolerated)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient
from tests.conformance.replay import _to_protobuf, discover, load

pytest.importorskip("chdb", reason="the clickhouse extra is not installed")

_CALLS = "SELECT trace_id, span_id, input_tokens, output_tokens FROM llm_calls ORDER BY ALL"


def _every_recording() -> ExportTraceServiceRequest:
    """One request holding the spans of every recording (their trace ids are their own)."""
    merged = ExportTraceServiceRequest()
    for folder in discover():
        for signal, ext, body in load(folder).requests:
            if signal == "traces":
                merged.resource_spans.extend(_to_protobuf(signal, ext, body).resource_spans)
    return merged


def _duckdb_calls(request: ExportTraceServiceRequest, db: Path) -> list[tuple]:
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            for resource_spans in request.resource_spans:
                one = ExportTraceServiceRequest()
                one.resource_spans.append(resource_spans)
                client.export(one)
        finally:
            client.close()
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(_CALLS).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[ExportTraceServiceRequest, list]:
    """Every recording's spans, and the model calls a real collector's DuckDB file lists."""
    request = _every_recording()
    return request, _duckdb_calls(request, tmp_path_factory.mktemp("duck") / "all.duckdb")


@pytest.mark.parametrize("layout", ["map", "json"])  # the exporter's Map and JSON schemas
def test_clickhouse_counts_the_model_calls_duckdb_counts(
    corpus: tuple[ExportTraceServiceRequest, list], layout: str, tmp_path: Path
) -> None:
    from tests.clickhouse.conftest import query, write_exporter_tables

    request, ours = corpus
    url = write_exporter_tables(tmp_path / "ch", request, layout=layout)
    rows = query(url, _CALLS)
    theirs = [(r["trace_id"], r["span_id"], r["input_tokens"], r["output_tokens"]) for r in rows]
    assert len(ours) > 100  # the corpus has model calls to count
    missing, extra = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
    assert (missing, extra) == ([], []), f"{len(missing)} missing, {len(extra)} extra"
