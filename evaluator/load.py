"""Read what an evaluation needs from a DuckDB file: one query per table, grouped in Python.

`load_conversations` runs three queries (turns, conversations, spans), never
one per turn, so it scales to 100k turns; rows come back through Arrow and
are grouped by chat_id (and turn_id for spans). JSON columns are parsed:
`turns.explicit_tool_calls`, `conversations.scenario`, and the spans'
`attributes`, `resource_attributes`, `events`, `links`.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson

from schemas import ToolCall

__all__ = ["ConversationData", "explicit_calls", "load_conversations", "parse_json"]

log = logging.getLogger(__name__)

_SPAN_JSON = ("attributes", "resource_attributes", "events", "links")


@dataclass
class ConversationData:
    """One conversation's stored rows."""

    chat_id: str
    conversation: dict[str, Any]
    """The `conversations` row ({} when only turns were recorded)."""
    scenario: dict[str, Any]
    """Parsed `conversations.scenario` ({} when absent)."""
    turns: list[dict[str, Any]] = field(default_factory=list)
    """`turns` rows in turn order."""
    spans_by_turn: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)
    """The conversation's spans by turn_id (None: keyed to the chat but no turn)."""


def parse_json(value: Any, default: Any) -> Any:
    """Decode a JSON column (str/bytes); pass through decoded values; `default` on NULL or junk."""
    if value is None:
        return default
    if isinstance(value, (str, bytes)):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return default
    return value


def explicit_calls(turn: dict[str, Any]) -> list[ToolCall]:
    """The turn's explicit tool calls; entries that are not valid ToolCalls are skipped and logged."""
    raw = turn.get("explicit_tool_calls")
    items = raw if isinstance(raw, list) else []
    calls: list[ToolCall] = []
    for index, item in enumerate(items):
        try:
            calls.append(ToolCall.model_validate(item))
        except Exception as exc:  # noqa: BLE001 - one bad entry never drops the turn
            log.warning(
                "chat %s turn %s: explicit_tool_calls[%d] skipped: %s",
                turn.get("chat_id"),
                turn.get("turn_id"),
                index,
                exc,
            )
    return calls


def load_conversations(con: Any, *, run_id: str | None = None) -> list[ConversationData]:
    """Every conversation of `run_id` (all when None) with its turns and spans."""
    where = "WHERE run_id = $run_id" if run_id is not None else ""
    params: dict[str, Any] | None = {"run_id": run_id} if run_id is not None else None
    chats_sql = f"SELECT chat_id FROM turns {where} UNION SELECT chat_id FROM conversations {where}"

    def rows(sql: str) -> list[dict[str, Any]]:
        return con.sql(sql, params=params).to_arrow_table().to_pylist()

    turns = rows(f"SELECT * FROM turns {where} ORDER BY chat_id, turn_id")
    conversations = rows(f"SELECT * FROM conversations {where} ORDER BY chat_id")
    spans = rows(
        f"SELECT * FROM spans WHERE chat_id IN ({chats_sql}) "
        "ORDER BY chat_id, turn_id NULLS LAST, start_time NULLS LAST, span_id"
    )
    by_chat: dict[str, ConversationData] = {}
    for row in conversations:
        scenario = parse_json(row.get("scenario"), {})
        row["scenario"] = scenario if isinstance(scenario, dict) else {}
        by_chat[row["chat_id"]] = ConversationData(row["chat_id"], row, row["scenario"])
    for row in turns:
        row["explicit_tool_calls"] = parse_json(row.get("explicit_tool_calls"), [])
        data = by_chat.get(row["chat_id"])
        if data is None:
            data = by_chat[row["chat_id"]] = ConversationData(row["chat_id"], {}, {})
        data.turns.append(row)
    grouped: dict[str, dict[int | None, list[dict[str, Any]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for span in spans:
        for key in _SPAN_JSON:
            span[key] = parse_json(span.get(key), [] if key in ("events", "links") else {})
        grouped[span["chat_id"]][span.get("turn_id")].append(span)
    for chat_id, per_turn in grouped.items():
        if chat_id in by_chat:
            by_chat[chat_id].spans_by_turn = dict(per_turn)
    return [by_chat[chat_id] for chat_id in sorted(by_chat)]
