"""Stream each conversation's transcript, tool calls, scores and span trees, in chunks.

`iter_details` reads the conversations of a `ReportData` index in chat_id
order, a chunk of about `CHUNK_TURNS` turns at a time: one query per table
restricted to the chunk's chat_id range (DuckDB skips row groups outside
it), shaped by `shape.py`, yielded, and dropped. Memory is bounded by the
chunk, not by the file; the writer compresses and writes each conversation
as it comes (`html.write_page`).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

import orjson
from tracesim.evaluator.report.data import ReportData
from tracesim.evaluator.report.shape import clip_sql, span_tree
from tracesim.evaluator.report.span_detail import DETAIL_COLUMNS, TurnSpanDetails

__all__ = ["CHUNK_TURNS", "MAX_STACK", "iter_details", "stack_trace"]

CHUNK_TURNS = 5000
"""Turns read per chunk (a chunk holds at least one conversation)."""
_MAX_CHATS_PER_CHUNK = 2000

_IN_CHUNK = "BETWEEN $lo AND $hi AND {col} IN (SELECT chat_id FROM _report_detail_chats)"
_TURNS = (  # {source}: the turn's `source` column where the file has one (else NULL)
    f"SELECT chat_id, turn_id, {clip_sql('user_message')}, {clip_sql('agent_message')}, status,"
    f" {clip_sql('error')}, round(duration_ms, 1), {{source}} FROM turns"
    " WHERE chat_id " + _IN_CHUNK.format(col="chat_id")
)
_TRACED_TURNS = (  # collected chats' turns as evaluate derived them from their spans
    f" UNION ALL SELECT chat_id, turn_id, {clip_sql('user_message')},"
    f" {clip_sql('agent_message')}, NULL, NULL, NULL, coalesce(source, 'traced')"
    " FROM traced_turns WHERE chat_id " + _IN_CHUNK.format(col="chat_id") + ""
    " AND chat_id NOT IN (SELECT chat_id FROM turns WHERE chat_id BETWEEN $lo AND $hi)"
)
_TRACED_SOURCES = ("traced", "tracing_processor")
"""Turn or call sources meaning "read from the spans" (the older name is still read)."""
_OBSERVED = (  # explicit: the agent reported it; traced: from spans only; both: matched
    "CASE WHEN source IS NULL OR source IN ('traced', 'tracing_processor') THEN 'traced'"
    " WHEN traced THEN 'both' ELSE 'explicit' END"
)
_CALLS = (  # one JSON list per turn: the page's tool-call rows
    "SELECT chat_id, turn_id, to_json(list({"
    "'seq': seq, 'id': coalesce(id, ''), 'name': name,"
    f" 'arguments': {clip_sql('arguments::VARCHAR')}, 'result': {clip_sql('result')},"
    f" 'error': {clip_sql('error')}, 'observed': {_OBSERVED},"
    " 'source': CASE WHEN source = 'tracing_processor' THEN 'traced' ELSE source END,"
    " 'ms': round(duration_ms, 1)} ORDER BY seq))::VARCHAR"
    " FROM tool_calls WHERE chat_id " + _IN_CHUNK.format(col="chat_id") + " GROUP BY ALL"
)
_SCORE_DETAILS = (  # what explains a failed check (expected vs actual calls), and severity
    "CASE WHEN passed = false AND length(details) <= 20000 THEN json_object("
    " 'missing', details->'missing', 'extra', details->'extra',"
    " 'forbidden', details->'forbidden', 'calls', details->'calls',"
    " 'expected_order', details->'expected_order', 'actual_order', details->'actual_order',"
    " 'tools', details->'tools', 'severity', details->>'severity')"
    " WHEN details->>'severity' IS NOT NULL THEN json_object('severity', details->>'severity')"
    " END"
)
_SCORES = (  # one JSON list per turn (turn_id NULL: the conversation's own scores)
    "SELECT chat_id, turn_id, to_json(list(json_array(metric, value, passed, label,"
    f" {clip_sql('reason', 600)}, {_SCORE_DETAILS}) ORDER BY metric))::VARCHAR FROM scores"
    " WHERE eval_id = $eval_id AND chat_id " + _IN_CHUNK.format(col="chat_id") + " GROUP BY ALL"
)
_SPAN_COLUMNS = (
    "span_id, parent_span_id, name, start_time, duration_ms, status_code, status_message,"
    " tool_name, model, input_tokens, output_tokens, service_name, trace_id, kind, scope_name,"
    " attributes, events, links, resource_attributes"
)
_SPANS_KEYED = (
    f"SELECT chat_id, turn_id, {_SPAN_COLUMNS} FROM spans"
    " WHERE turn_id IS NOT NULL AND chat_id " + _IN_CHUNK.format(col="chat_id")
)
_SPANS_BY_TRACE = (  # spans with no turn (exported without tracesim's keys, or collected
    # and given turns later from their messages): the stored turn of their trace
    "SELECT t.chat_id, coalesce(s.turn_id, t.turn_id),"
    + ", ".join(f" s.{c.strip()}" for c in _SPAN_COLUMNS.split(","))
    + " FROM spans s JOIN turns t ON t.trace_id = s.trace_id"
    " WHERE (s.chat_id IS NULL OR (s.turn_id IS NULL AND s.chat_id = t.chat_id))"
    " AND t.chat_id " + _IN_CHUNK.format(col="t.chat_id")
)
_SPANS_TRACED_ONLY = (  # never-simulated chats' spans without a turn: a turn per trace,
    # numbered as evaluator.load.traced numbers them (after the largest stored turn_id)
    "WITH s AS (SELECT * FROM spans WHERE chat_id " + _IN_CHUNK.format(col="chat_id") + ""
    "   AND chat_id NOT IN (SELECT chat_id FROM turns WHERE chat_id BETWEEN $lo AND $hi)),"
    " base AS (SELECT chat_id, coalesce(max(turn_id), -1) + 1 AS first_id FROM s GROUP BY chat_id),"
    " ranked AS (SELECT chat_id, trace_id, row_number() OVER (PARTITION BY chat_id"
    "   ORDER BY min(start_time) NULLS LAST, trace_id) - 1 AS rank FROM s"
    "   WHERE turn_id IS NULL GROUP BY chat_id, trace_id)"
    " SELECT s.chat_id, (base.first_id + ranked.rank)::INTEGER, "
    + ", ".join(f"s.{c.strip()}" for c in _SPAN_COLUMNS.split(","))
    + " FROM s JOIN base USING (chat_id) JOIN ranked USING (chat_id, trace_id)"
    " WHERE s.turn_id IS NULL"
)
_SPANS = (  # the rows `shape.span_tree` takes, siblings in start order
    "SELECT chat_id, turn_id, span_id, parent_span_id, name, coalesce(round((epoch_us(start_time)"
    " - min(epoch_us(start_time)) OVER (PARTITION BY chat_id, turn_id)) / 1000.0, 2), 0),"
    " round(coalesce(duration_ms, 0), 2),"
    " CASE WHEN status_code = 'ERROR' THEN 1 ELSE 0 END + CASE WHEN tool_name <> '' THEN 2 ELSE 0"
    " END, service_name, model, input_tokens, output_tokens,"
    f" CASE WHEN status_code = 'ERROR' THEN {clip_sql('status_message', 300)} END,"
    f" {DETAIL_COLUMNS}"
    " FROM ({source}) ORDER BY chat_id, turn_id, start_time NULLS FIRST, span_id"
)
_STACKS = (  # a failing turn's stack trace: the simulator's turn span first (what the agent raised)
    "SELECT chat_id, turn_id, events FROM spans WHERE status_code = 'ERROR'"
    " AND turn_id IS NOT NULL AND events LIKE '%exception.stacktrace%'"
    " AND chat_id " + _IN_CHUNK.format(col="chat_id") + ""
    " ORDER BY chat_id, turn_id, (name = 'tracesim.turn') DESC, start_time, span_id"
)
MAX_STACK = 8000
"""Longest stack trace embedded per turn (its end, where the error is, is kept)."""
_ERRORS = (
    f"SELECT chat_id, {clip_sql('error')} FROM conversations WHERE error IS NOT NULL"
    " AND chat_id " + _IN_CHUNK.format(col="chat_id")
)


def stack_trace(events: Any) -> str | None:
    """The first `exception.stacktrace` in a span's events (JSON text), its tail kept."""
    try:
        parsed = orjson.loads(events) if isinstance(events, (str, bytes)) else events
    except orjson.JSONDecodeError:
        return None
    for event in parsed if isinstance(parsed, list) else []:
        attributes = event.get("attributes") if isinstance(event, dict) else None
        stack = attributes.get("exception.stacktrace") if isinstance(attributes, dict) else None
        if isinstance(stack, str) and stack.strip():
            if len(stack) > MAX_STACK:
                return f"[{len(stack) - MAX_STACK} characters cut] …" + stack[-MAX_STACK:]
            return stack
    return None


def _fetch(con: Any, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    return con.execute(sql, {k: v for k, v in params.items() if f"${k}" in sql}).fetchall()


def _chunks(index: list[dict[str, Any]], chunk_turns: int) -> Iterator[list[tuple[str, int]]]:
    """(chat_id, list position) pairs in chat_id order, cut into chunks of ~chunk_turns turns."""
    chunk: list[tuple[str, int]] = []
    turns = 0
    for position, row in sorted(enumerate(index), key=lambda pr: pr[1]["chat_id"]):
        chunk.append((row["chat_id"], position))
        turns += row["turns"] or 0
        if turns >= chunk_turns or len(chunk) >= _MAX_CHATS_PER_CHUNK:
            yield chunk
            chunk, turns = [], 0
    if chunk:
        yield chunk


_EMPTY = orjson.Fragment(b"[]")


def _new_turn(turn_id: int) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "user": None,
        "agent": None,
        "status": None,
        "error": None,
        "ms": None,
        "calls": _EMPTY,
        "scores": _EMPTY,
        "spans": [],
        "spans_total": 0,
        "inspect": [],
        "resources": [],
        "stack": None,
    }


def _chunk_details(
    con: Any,
    chunk: list[tuple[str, int]],
    *,
    eval_id: str | None,
    spans_sql: str,
    turns_sql: str,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The details of one chunk's conversations, in chat_id order.

    Tool calls and scores arrive as JSON text shaped in SQL and are embedded
    as `orjson.Fragment`s, never parsed in Python.
    """
    params = {"lo": chunk[0][0], "hi": chunk[-1][0], "eval_id": eval_id}
    by_turn: dict[tuple[str, int], dict[str, Any]] = {}

    def turn(chat_id: str, turn_id: int) -> dict[str, Any]:
        key = (chat_id, turn_id)
        entry = by_turn.get(key)
        if entry is None:
            entry = by_turn[key] = _new_turn(turn_id)
        return entry

    for chat_id, turn_id, user, agent, status, error, ms, source in _fetch(con, turns_sql, params):
        entry = turn(chat_id, turn_id)
        entry.update(user=user, agent=agent, status=status, error=error, ms=ms)
        if source in _TRACED_SOURCES:
            entry["source"] = "traced"
    for chat_id, turn_id, calls in _fetch(con, _CALLS, params):
        turn(chat_id, turn_id)["calls"] = orjson.Fragment(calls)
    for (chat_id, turn_id), rows in groupby(
        _fetch(con, spans_sql, params), key=lambda r: (r[0], r[1])
    ):
        group = [(*r[2:13], r[13:]) for r in rows]
        entry = turn(chat_id, turn_id)
        inspect = TurnSpanDetails()
        entry["spans"], entry["spans_total"] = span_tree(group, inspect.raw), len(group)
        entry["inspect"], entry["resources"] = inspect.shaped()
    conv_scores: dict[str, orjson.Fragment] = {}
    for chat_id, turn_id, scores in _fetch(con, _SCORES, params):
        if turn_id is None:
            conv_scores[chat_id] = orjson.Fragment(scores)
        else:
            turn(chat_id, turn_id)["scores"] = orjson.Fragment(scores)
    for chat_id, turn_id, events in _fetch(con, _STACKS, params):
        entry = turn(chat_id, turn_id)
        if entry["stack"] is None:
            entry["stack"] = stack_trace(events)
    errors = dict(_fetch(con, _ERRORS, params))
    turns_by_chat: dict[str, list[dict[str, Any]]] = {}
    for (chat_id, _), entry in sorted(by_turn.items(), key=lambda kv: kv[0]):
        turns_by_chat.setdefault(chat_id, []).append(entry)
    for chat_id, position in chunk:
        detail = {
            "chat_id": chat_id,
            "error": errors.get(chat_id),
            "scores": conv_scores.get(chat_id, _EMPTY),
            "turns": turns_by_chat.get(chat_id, []),
        }
        yield position, detail


def iter_details(
    con: Any, data: ReportData, *, chunk_turns: int = CHUNK_TURNS
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(list position, details) of every conversation in `data.conversations`.

    Details: `chat_id`, `error`, conversation `scores` and `turns`, each turn
    with its clipped messages, tool calls, scores and span tree (tool calls
    and scores as `orjson.Fragment`: serialise with orjson). Yielded in
    chat_id order; a temporary table is created on `con` and dropped at the end.
    """
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _report_detail_chats AS"
        " SELECT unnest(?::VARCHAR[]) AS chat_id",
        [[row["chat_id"] for row in data.conversations]],
    )
    try:
        (unkeyed,) = con.execute(
            "SELECT count(*) FROM (SELECT 1 FROM spans WHERE chat_id IS NULL OR turn_id IS NULL"
            " LIMIT 1)"
        ).fetchone()
        source = f"{_SPANS_KEYED} UNION ALL {_SPANS_BY_TRACE}" if unkeyed else _SPANS_KEYED
        source += f" UNION ALL SELECT * FROM ({_SPANS_TRACED_ONLY})"
        spans_sql = _SPANS.format(source=source)
        has_source = con.execute(
            "SELECT count(*) FROM information_schema.columns"
            " WHERE table_name = 'turns' AND column_name = 'source'"
        ).fetchone()[0]
        turns_sql = _TURNS.format(source="source" if has_source else "NULL")
        if con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'traced_turns'"
        ).fetchone()[0]:
            turns_sql += _TRACED_TURNS
        for chunk in _chunks(data.conversations, chunk_turns):
            yield from _chunk_details(
                con, chunk, eval_id=data.eval_id, spans_sql=spans_sql, turns_sql=turns_sql
            )
    finally:
        con.execute("DROP TABLE IF EXISTS _report_detail_chats")
