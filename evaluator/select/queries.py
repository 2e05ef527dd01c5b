"""The SQL behind `EvalStore.scored_chats`, one text for DuckDB and ClickHouse.

`{scores}` is the store's name for tracesim's `scores` table. A chat is
*evaluated* when any evaluation scored it; it *failed* when the newest
evaluation that scored it (by `created_at`) has a failed result: a check or
judge with `passed = false`, or a final status below Done.
"""

from __future__ import annotations

__all__ = ["FAILED_CHATS_SQL", "SCORED_CHATS_SQL"]

SCORED_CHATS_SQL = "SELECT DISTINCT chat_id FROM {scores} WHERE chat_id IS NOT NULL"

FAILED_CHATS_SQL = (
    "SELECT DISTINCT s.chat_id AS chat_id FROM {scores} AS s"
    " INNER JOIN (SELECT chat_id, max(created_at) AS at FROM {scores}"
    " WHERE chat_id IS NOT NULL GROUP BY chat_id) AS l"
    " ON s.chat_id = l.chat_id AND s.created_at = l.at"
    " WHERE s.passed = false"
    " OR (s.metric = 'final_score' AND s.label IN ('Failed', 'Partial Failure'))"
)
