"""The SQL behind `EvalStore.scored_chats`, one text for DuckDB and ClickHouse.

`{scores}` is the store's name for tracesim's `scores` table. A chat is
*evaluated* when any evaluation scored it; it *failed* when the newest
evaluation that scored it (by `created_at`) has a failed result: a check or
judge with `passed = false`, or a final status below Done.
"""

from __future__ import annotations

__all__ = ["CALL_CHECKS", "FAILED_CALL_CHATS_SQL", "FAILED_CHATS_SQL", "SCORED_CHATS_SQL"]

SCORED_CHATS_SQL = "SELECT DISTINCT chat_id FROM {scores} WHERE chat_id IS NOT NULL"

FAILED_CHATS_SQL = (
    "SELECT DISTINCT s.chat_id AS chat_id FROM {scores} AS s"
    " INNER JOIN (SELECT chat_id, max(created_at) AS at FROM {scores}"
    " WHERE chat_id IS NOT NULL GROUP BY chat_id) AS l"
    " ON s.chat_id = l.chat_id AND s.created_at = l.at"
    " WHERE s.passed = false"
    " OR (s.metric = 'final_score' AND s.label IN ('Failed', 'Partial Failure'))"
)

CALL_CHECKS = (
    "trajectory",
    "tool_call_args",
    "tool_call_order",
    "tool_call_count",
    "tool_call_output",
    "tool_call_f1",
    "policy",
    "tool_validity",
)
"""Checks that grade the calls themselves (which tools, arguments, order, rules): a chat
failing one of them failed BY its calls, so its recorded calls are not what should happen."""

FAILED_CALL_CHATS_SQL = (
    "SELECT DISTINCT s.chat_id AS chat_id FROM {scores} AS s"
    " INNER JOIN (SELECT chat_id, max(created_at) AS at FROM {scores}"
    " WHERE chat_id IS NOT NULL GROUP BY chat_id) AS l"
    " ON s.chat_id = l.chat_id AND s.created_at = l.at"
    " WHERE s.passed = false AND s.metric IN ("
    + ", ".join(f"'{name}'" for name in CALL_CHECKS)
    + ")"
)
"""Chats whose newest evaluation failed one of `CALL_CHECKS`."""
