"""Checks that could not grade, said in the terminal: a configured check is never silent.

`evaluation.tool_validity: true` on spans that offer no tool definitions, a policy on a
conversation with no call to read, ...: such a check stores a NULL value with its reason,
and the summary's `assertions N/M` counts only graded ones, so without this line a user
would read "8/8" and believe validity was checked. Judges not run and turns never reached
are said elsewhere (their own line, the conversation's error).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ungraded_check_lines"]

_SQL = """
SELECT metric, count(DISTINCT chat_id), min(reason) FROM scores
WHERE eval_id = $eval_id AND value IS NULL AND chat_id IS NOT NULL
  AND json_extract_string(details, '$.kind') = 'check'
  AND coalesce(label, '') NOT IN ('not_run', 'not_reached')
GROUP BY metric ORDER BY metric
"""


def ungraded_check_lines(store: Any, eval_id: str) -> list[str]:
    """One line per check metric that could not grade some conversation, with its reason."""
    with store.report_connection(eval_id) as con:
        rows = con.execute(_SQL, {"eval_id": eval_id}).fetchall()
    return [
        f"not graded: {metric} in {chats} conversation(s): {reason or 'no reason given'}"
        for metric, chats, reason in rows
    ]
