"""Collected conversations' messages on ClickHouse (issue 22.1, 23.7): evaluate writes the
turns it derives from spans to `traced_turns` (chdb and the HTTP interface), `all_turns` and
the report's transcript show them, a re-evaluation replaces them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.clickhouse.conftest import StoreDB, query, request_of
from tests.collector.otlp import new_trace_id, span
from tests.production.test_traced_turns import TURNS, _evaluate, _report_turns


def _conversation_request() -> Any:
    """A production conversation as the stock OTel Collector stores it: two traces keyed by
    `gen_ai.conversation.id`, each a model call with GenAI input and output messages."""
    spans = []
    history: list[dict[str, Any]] = []
    for turn, (asked, answered) in enumerate(
        [("where is order A1?", "A1 ships today."), ("refund it please", "Refund issued.")]
    ):
        history = [*history, {"role": "user", "parts": [{"type": "text", "content": asked}]}]
        spans.append(
            span(
                "chat gpt-4o",
                trace_id=new_trace_id(),
                start=1_700_000_000_000_000_000 + turn * 10**9,
                attrs={
                    "gen_ai.conversation.id": "prod-1",
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(history),
                    "gen_ai.output.messages": json.dumps(
                        [{"role": "assistant", "parts": [{"type": "text", "content": answered}]}]
                    ),
                },
            )
        )
        history.append({"role": "assistant", "parts": [{"type": "text", "content": answered}]})
    return request_of(({"service.name": "agent"}, spans))


def test_collected_messages_are_stored_on_clickhouse(store_db: StoreDB, tmp_path: Path) -> None:
    url = store_db(_conversation_request())
    _evaluate(url, tmp_path / "a")
    _evaluate(url, tmp_path / "b")
    expected = [
        {"chat_id": "prod-1", "turn_id": 0, "user_message": "where is order A1?",
         "agent_message": "A1 ships today.", "source": "traced"},
        {"chat_id": "prod-1", "turn_id": 1, "user_message": "refund it please",
         "agent_message": "Refund issued.", "source": "traced"},
    ]  # fmt: skip
    assert query(url, TURNS) == expected
    assert query(url, "SELECT count() AS n FROM traced_turns") == [{"n": 2}]
    assert _report_turns(url) == {
        "prod-1": [
            (r["turn_id"], r["user_message"], r["agent_message"], "traced") for r in expected
        ]
    }
