"""Back-filling a trace's turn (rule 3) never overrides a span's own chat id (rules 1 and 2):
the same span is keyed the same whether it arrives before or after its turn span."""

from __future__ import annotations

from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, new_trace_id, span, trace_request


def _turn_span(trace_id: bytes) -> object:
    return span(
        "tracesim.turn",
        trace_id=trace_id,
        attrs={"tracesim.chat_id": "chat-t", "tracesim.turn_id": 1, "tracesim.run_id": "r"},
    )


def _children(trace_id: bytes, suffix: str) -> list:
    return [
        span(f"own-chat-{suffix}", trace_id=trace_id, attrs={"tracesim.chat_id": "own"}),
        span(f"arksim-chat-{suffix}", trace_id=trace_id, attrs={"arksim.conversation_id": "ark"}),
        span(f"same-chat-{suffix}", trace_id=trace_id, attrs={"tracesim.chat_id": "chat-t"}),
        span(f"session-{suffix}", trace_id=trace_id, attrs={"session.id": "prod"}),
    ]


def test_backfill_keeps_explicit_chat_ids(collector: Collector, client: GrpcClient) -> None:
    trace_id = new_trace_id()
    client.export(trace_request(_children(trace_id, "early")))
    client.export(
        trace_request(
            [span("resource-early", trace_id=trace_id)], resource={"tracesim.chat_id": "res"}
        )
    )
    assert collector.flush(10)
    client.export(trace_request([_turn_span(trace_id)]))
    client.export(trace_request(_children(trace_id, "late")))
    client.export(
        trace_request(
            [span("resource-late", trace_id=trace_id)], resource={"tracesim.chat_id": "res"}
        )
    )
    _, rows = collector.query(
        "SELECT name, chat_id, turn_id FROM spans WHERE name <> 'tracesim.turn'"
    )
    keys = {name: [chat, turn] for name, chat, turn in rows}
    for when in ("early", "late"):
        assert keys[f"own-chat-{when}"] == ["own", None], when
        assert keys[f"arksim-chat-{when}"] == ["ark", None], when
        assert keys[f"same-chat-{when}"] == ["chat-t", 1], when
        assert keys[f"session-{when}"] == ["chat-t", 1], when  # rule 3 beats rule 4
        assert keys[f"resource-{when}"] == ["res", None], when
