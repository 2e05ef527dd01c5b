"""`instrument()`: idempotent, exports to the collector, copies the routing baggage."""

from __future__ import annotations

from pathlib import Path

import duckdb
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from tracesim.collector.collector import Collector
from tracesim.simulator.routing import with_routing_baggage

from tracesim import instrument


def _processors(provider) -> int:
    return len(provider._active_span_processor._span_processors)


def _emit(name: str, chat_id: str, turn_id: int) -> None:
    token = otel_context.attach(with_routing_baggage(Context(), chat_id=chat_id, turn_id=turn_id))
    try:
        with trace.get_tracer("test.instrument").start_as_current_span(name):
            with trace.get_tracer("test.instrument").start_as_current_span(f"{name}.child"):
                pass
    finally:
        otel_context.detach(token)


def _stored(db: Path, prefix: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT name, chat_id, turn_id, attributes->>'tracesim.chat_id' FROM spans "
            "WHERE name LIKE ? ORDER BY name",
            [f"{prefix}%"],
        ).fetchall()
    finally:
        con.close()


def test_instrument_twice_is_harmless_and_spans_carry_the_baggage(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    with Collector(db, grpc_port=0, http_port=0) as collector:
        provider = instrument(collector.grpc_endpoint, openai_agents=False)
        count = _processors(provider)
        assert instrument(collector.grpc_endpoint, openai_agents=False) is provider
        assert _processors(provider) == count
        assert trace.get_tracer_provider() is provider
        _emit("grpc-span", "chat-1", 4)
        provider.force_flush()
        # Re-pointing at the HTTP receiver swaps the exporter; nothing is added.
        assert (
            instrument(collector.http_endpoint, protocol="http/protobuf", openai_agents=False)
            is provider
        )
        assert _processors(provider) == count
        _emit("http-span", "chat-2", 0)
        provider.force_flush()
        collector.flush()
    assert _stored(db, "grpc-span") == [
        ("grpc-span", "chat-1", 4, "chat-1"),
        ("grpc-span.child", "chat-1", 4, "chat-1"),
    ]
    assert _stored(db, "http-span") == [
        ("http-span", "chat-2", 0, "chat-2"),
        ("http-span.child", "chat-2", 0, "chat-2"),
    ]
