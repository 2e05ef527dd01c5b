"""Replay a conformance recording into a real collector, evaluate, and read back what came out.

A recording (`recordings/<variant>/`, a ported public one under `public/`, or a hand-made
one under `handmade/`) holds
the OTLP request bodies a framework really sent (`otlp/NNNN-<signal>.<pb|json>`)
and `truth.json`. `replay` starts a collector on loopback, sends every body over
gRPC (OTLP/JSON converted to protobuf) or over HTTP as recorded, stops it, runs
the evaluation as `tracesim evaluate` does, and returns what tracesim derived.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import httpx
from tracesim.collector import Collector
from tracesim.collector.decode.decode_json import logs_request_from_json, traces_request_from_json
from tracesim.evaluator.inspect.inspect import inspect_db
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.collector.otlp import GrpcClient

__all__ = ["Outcome", "Recording", "discover", "replay", "store", "stored_rows"]

HERE = Path(__file__).resolve().parent
ROOTS = (HERE / "recordings", HERE / "public", HERE / "handmade")
_CONTENT_TYPES = {"pb": "application/x-protobuf", "json": "application/json"}


@dataclass
class Recording:
    """One variant's recorded requests and its ground truth."""

    folder: Path
    truth: dict[str, Any]
    requests: list[tuple[str, str, bytes]]
    """(signal, ext, body) in arrival order."""

    @property
    def variant(self) -> str:
        """The variant name (the folder's)."""
        return self.folder.name


def discover() -> list[Path]:
    """Every recording folder with a truth.json (real recordings first, then ported public
    ones, then hand-made)."""
    found = []
    for root in ROOTS:
        found.extend(sorted(p.parent for p in root.glob("*/truth.json")))
    return found


def load(folder: Path) -> Recording:
    """Read a recording folder."""
    truth = json.loads((folder / "truth.json").read_text())
    requests = []
    for path in sorted((folder / "otlp").iterdir()):
        stem, _, ext = path.name.partition(".")
        signal = stem.split("-", 1)[1] if "-" in stem else ""
        if signal in ("traces", "logs") and ext in _CONTENT_TYPES:
            requests.append((signal, ext, path.read_bytes()))
    return Recording(folder, truth, requests)


@dataclass
class Outcome:
    """What tracesim made of one replay."""

    tool_calls: list[dict[str, Any]]
    """`tool_calls` rows (chat_id, turn_id, seq order), arguments parsed."""
    model_calls: int
    input_tokens: int | None
    output_tokens: int | None
    spans: int
    inspection: Any
    chats: list[str] = field(default_factory=list)
    db: Path | None = None


def _to_protobuf(signal: str, ext: str, body: bytes) -> Any:
    """A request message from a recorded body."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    if ext == "json":
        return (traces_request_from_json if signal == "traces" else logs_request_from_json)(body)
    message = ExportTraceServiceRequest() if signal == "traces" else ExportLogsServiceRequest()
    message.ParseFromString(body)
    return message


def _send_grpc(collector: Collector, recording: Recording) -> None:
    client = GrpcClient(collector.grpc_endpoint)
    try:
        for signal, ext, body in recording.requests:
            message = _to_protobuf(signal, ext, body)
            (client.export if signal == "traces" else client.export_logs)(message)
    finally:
        client.close()


def _send_http(collector: Collector, recording: Recording) -> None:
    with httpx.Client(base_url=collector.http_endpoint, timeout=30) as client:
        for signal, ext, body in recording.requests:
            response = client.post(
                f"/v1/{signal}", content=body, headers={"content-type": _CONTENT_TYPES[ext]}
            )
            response.raise_for_status()


def store(recording: Recording, *, transport: str, workdir: Path) -> Path:
    """Send the recording over `transport` ("grpc" or "http") to a collector, stop it; the file."""
    db = workdir / f"{recording.variant}-{transport}.duckdb"
    grpc = transport == "grpc"
    ports = {"grpc_port": 0 if grpc else None, "http_port": None if grpc else 0}
    with Collector(db, **ports, fsync=False) as collector:  # durability is not under test
        (_send_grpc if grpc else _send_http)(collector, recording)
    return db


_SPAN_COLUMNS = (
    "trace_id, span_id, parent_span_id, name, kind, start_time, end_time, status_code, "
    "status_message, service_name, scope_name, attributes, resource_attributes, events, links, "
    "chat_id, turn_id, operation, tool_name, model, input_tokens, output_tokens"
)
_LOG_COLUMNS = (
    "log_id, time, severity_number, body, event_name, trace_id, span_id, attributes, chat_id"
)


def stored_rows(db: Path) -> tuple[list[tuple], list[tuple]]:
    """Every stored span and log record (what the evaluation reads), in a fixed order."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        spans = con.execute(f"SELECT {_SPAN_COLUMNS} FROM spans ORDER BY ALL").fetchall()
        logs = con.execute(f"SELECT {_LOG_COLUMNS} FROM logs ORDER BY ALL").fetchall()
    finally:
        con.close()
    return spans, logs


def replay(recording: Recording, *, transport: str, workdir: Path) -> Outcome:
    """Send the recording over `transport` ("grpc" or "http"), evaluate, read back."""
    db = store(recording, transport=transport, workdir=workdir)
    evaluate_db(db, config=EvalConfig(), output_dir=workdir / "results", progress=False)
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute(
            "SELECT chat_id, turn_id, seq, id, name, arguments, result, error, span_id "
            "FROM tool_calls ORDER BY start_time NULLS LAST, chat_id, turn_id, seq"
        )
        names = [d[0] for d in cursor.description]
        calls = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        for call in calls:
            call["arguments"] = json.loads(call["arguments"]) if call["arguments"] else {}
        models, tokens_in, tokens_out = con.execute(
            "SELECT count(*), sum(input_tokens)::BIGINT, sum(output_tokens)::BIGINT FROM llm_calls"
        ).fetchall()[0]
        spans = con.execute("SELECT count(*) FROM spans").fetchall()[0][0]
        chats = [
            r[0] for r in con.execute("SELECT DISTINCT chat_id FROM spans ORDER BY 1").fetchall()
        ]
        inspection = inspect_db(con)
    finally:
        con.close()
    return Outcome(calls, models, tokens_in, tokens_out, spans, inspection, chats, db)
