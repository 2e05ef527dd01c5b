"""Read what an evaluation needs from a DuckDB file, a bounded chunk of conversations at a time.

`plan_chunks` lists the conversations to evaluate and cuts them into chunks
of about `max_rows` stored rows (turns + spans) each, so memory stays
bounded whatever the file holds. `load_chunk` reads one chunk with one query
per table (turns, conversations, spans), joined against a registered Arrow
table of the chunk's chat_ids, never one query per turn; rows come back
through Arrow as column lists and are grouped by chat_id (and turn_id for
spans).

JSON columns of `turns.explicit_tool_calls` and `conversations.scenario` are
parsed (a scenario once per chunk: the conversations playing it share the
parsed dict, which nobody mutates). The spans' JSON columns are passed through as text: extraction
skips most spans by a substring scan of the raw attributes and parses only
the few that can be tool calls (`evaluator.extract.span`); a metric that
reads spans (a custom metric) sees them parsed, on first access
(`DecodedSpans`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError
from tracesim.evaluator.load.load_logs import has_span_logs
from tracesim.evaluator.load.traced import derive_trace_turns
from tracesim.schemas import ToolCall
from tracesim.schemas.conventions import GENAI

__all__ = [
    "EXTRACTION_SPAN_COLUMNS",
    "ChunkPlan",
    "assemble_chunk",
    "ConversationData",
    "DecodedSpans",
    "decode_spans",
    "explicit_calls",
    "load_chunk",
    "load_conversations",
    "parse_json",
    "plan_chunks",
]

log = logging.getLogger(__name__)

SPAN_JSON_COLUMNS = ("attributes", "resource_attributes", "events", "links")
EXTRACTION_SPAN_COLUMNS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "start_time",
    "end_time",
    "duration_ms",
    "status_code",
    "status_message",
    "attributes",
    "events",
    "chat_id",
    "turn_id",
    "model",
    "input_tokens",
    "output_tokens",
)
"""The span columns extraction (and the agent's usage, `evaluator.metrics.usage`) reads: what a chunk loads when no custom metric may read more
(every column read costs: a timestamp ~1.5 us a value, a row dict ~0.1 us a key)."""

_CALL_OPERATIONS = ", ".join(f"'{op}'" for op in GENAI.CALL_BEARING_OPERATIONS)
UNKEYED_TRACES_SQL = f"""
    SELECT trace_id, count(*) FROM spans WHERE chat_id IS NULL AND trace_id IN (
        SELECT DISTINCT trace_id FROM spans
        WHERE chat_id IS NULL AND (operation IN ({_CALL_OPERATIONS}) OR tool_name IS NOT NULL)
    ) GROUP BY trace_id
"""
"""Traces with tool spans or model calls (whose messages may hold the calls: SPEC §3) and
no conversation key, and their span counts."""


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
    """The conversation's spans by turn_id (None: keyed to the chat but no turn); JSON as text."""
    traced_only: bool = False
    """True for a chat with spans but no `turns` or `conversations` row (production traces):
    its `turns` are derived from the spans (`evaluator.load.traced`)."""


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


def decode_spans(spans: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """Parse the spans' JSON columns in place (idempotent); return `spans`."""
    for span in spans:
        _decode_span(span)
    return spans


def _decode_span(span: dict[str, Any]) -> dict[str, Any]:
    for key in SPAN_JSON_COLUMNS:
        if key in span:
            span[key] = parse_json(span[key], [] if key in ("events", "links") else {})
    return span


class DecodedSpans(Sequence):
    """A read-only view of span rows whose JSON columns are parsed on first access.

    What `MetricContext.spans` holds: a judge never reads the spans, a custom
    metric may; neither pays for parsing spans it does not touch.
    """

    __slots__ = ("_rows",)

    def __init__(self, rows: Sequence[dict[str, Any]]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [_decode_span(row) for row in self._rows[index]]
        return _decode_span(self._rows[index])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (_decode_span(row) for row in self._rows)

    def __repr__(self) -> str:
        return f"DecodedSpans({len(self._rows)} spans)"


def explicit_calls(turn: dict[str, Any]) -> list[ToolCall]:
    """The turn's explicit tool calls; entries that are not valid ToolCalls are skipped and
    logged. A call whose only fault is an unknown `source` (a newer or foreign writer) is kept
    with source None (NULL in `tool_calls`), with a warning: the call happened."""
    raw = turn.get("explicit_tool_calls")
    if not raw:
        return []
    items = raw if isinstance(raw, list) else []
    calls: list[ToolCall] = []
    for index, item in enumerate(items):
        try:
            calls.append(ToolCall.model_validate(item))
        except ValidationError as exc:
            kept = _without_unknown_source(item, exc)
            if kept is not None:
                log.warning(
                    "chat %s turn %s: explicit_tool_calls[%d] has an unknown source %r; "
                    "kept with source NULL",
                    turn.get("chat_id"),
                    turn.get("turn_id"),
                    index,
                    item.get("source"),
                )
                calls.append(kept)
                continue
            log.warning(
                "chat %s turn %s: explicit_tool_calls[%d] skipped: %s",
                turn.get("chat_id"),
                turn.get("turn_id"),
                index,
                exc,
            )
        except Exception as exc:  # noqa: BLE001 - one bad entry never drops the turn
            log.warning(
                "chat %s turn %s: explicit_tool_calls[%d] skipped: %s",
                turn.get("chat_id"),
                turn.get("turn_id"),
                index,
                exc,
            )
    return calls


def _without_unknown_source(item: Any, exc: ValidationError) -> ToolCall | None:
    """`item` as a ToolCall with source None when its `source` was its only fault."""
    if not isinstance(item, dict) or "source" not in item:
        return None
    if any(error["loc"][:1] != ("source",) for error in exc.errors()):
        return None
    try:
        return ToolCall.model_validate({**item, "source": None})
    except ValidationError:
        return None


def _run_filter(run_id: str | None) -> tuple[str, list[Any]]:
    return ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])


@dataclass
class ChunkPlan:
    """The conversations to evaluate, cut into chunks."""

    chunks: list[list[str]]
    """chat_ids, sorted, in chunks of about `max_rows` stored rows."""
    num_turns: int
    """Turns over all chunks (stored `turns` rows: traced-only chats count none)."""
    num_traced_only: int = 0
    """Chats with spans but no `turns` or `conversations` row (see `evaluator.load.traced`)."""
    span_logs: bool = False
    """Whether log records name spans (read as their events, `evaluator.load.load_logs`)."""
    trace_chats: frozenset[str] = frozenset()
    """Of those, traces whose tool spans carry no conversation key at all (SPEC §3): each is
    a conversation of its own, chat_id = trace_id."""

    @property
    def num_conversations(self) -> int:
        """Conversations over all chunks."""
        return sum(len(chunk) for chunk in self.chunks)


def plan_chunks(con: Any, *, run_id: str | None = None, max_rows: int = 20_000) -> ChunkPlan:
    """The chat_ids to evaluate (sorted), cut into chunks of about `max_rows` turns + spans.

    A conversation is never split; one larger than `max_rows` is a chunk of its own.
    Without `run_id`, chats that only have spans (traced-only, `evaluator.load.traced`) are
    evaluated too; with one, only that run's conversations.
    """
    where, params = _run_filter(run_id)
    traced = "" if run_id is not None else " UNION SELECT chat_id FROM spans"
    trace_chats: list[tuple[str, int, int]] = []
    if run_id is None:
        trace_chats = [
            (trace_id, 0, count) for trace_id, count in con.execute(UNKEYED_TRACES_SQL).fetchall()
        ]
    rows = con.execute(
        f"WITH chats AS (SELECT chat_id FROM turns {where} "
        f"UNION SELECT chat_id FROM conversations {where}{traced}), "
        f"t AS (SELECT chat_id, count(*) AS n FROM turns {where} GROUP BY chat_id), "
        "s AS (SELECT chat_id, count(*) AS n FROM spans "
        "WHERE chat_id IN (SELECT chat_id FROM chats) GROUP BY chat_id) "
        "SELECT c.chat_id, coalesce(t.n, 0), coalesce(s.n, 0) FROM chats c "
        "LEFT JOIN t USING (chat_id) LEFT JOIN s USING (chat_id) "
        "WHERE c.chat_id IS NOT NULL ORDER BY c.chat_id",
        params * 3,
    ).fetchall()
    chunks: list[list[str]] = []
    current: list[str] = []
    size = num_turns = 0
    if run_id is None:
        simulated = {
            chat_id
            for (chat_id,) in con.execute(
                "SELECT chat_id FROM turns UNION SELECT chat_id FROM conversations"
            ).fetchall()
        }
        traced_only = sum(1 for chat_id, _, _ in rows if chat_id not in simulated)
    else:
        traced_only = 0
    if trace_chats:
        known = {chat_id for chat_id, _, _ in rows}
        trace_chats = [row for row in trace_chats if row[0] not in known]
        rows = sorted([*rows, *trace_chats])
        traced_only += len(trace_chats)
    for chat_id, turns, spans in rows:
        weight = turns + spans + 1
        if current and size + weight > max_rows:
            chunks.append(current)
            current, size = [], 0
        current.append(chat_id)
        size += weight
        num_turns += turns
    if current:
        chunks.append(current)
    return ChunkPlan(
        chunks,
        num_turns,
        traced_only,
        span_logs=has_span_logs(con),
        trace_chats=frozenset(r[0] for r in trace_chats),
    )


def load_chunk(
    con: Any,
    chat_ids: Sequence[str],
    *,
    run_id: str | None = None,
    span_columns: Sequence[str] | None = None,
    trace_chats: frozenset[str] = frozenset(),
    span_logs: bool = False,
) -> list[ConversationData]:
    """The conversations `chat_ids` (turns of `run_id` only, when given) with their spans.

    Without `run_id`, a chat with spans but no turns or conversation row comes back
    traced-only, its turns derived from its spans (`evaluator.load.traced`).
    `span_columns` None reads every column of `spans`; else only those (they
    must include `chat_id` and `turn_id`). Conversations come back in
    chat_id order. Ids in `trace_chats` are traces without any conversation key
    (`ChunkPlan.trace_chats`): their spans are read by trace_id. `span_logs`: append
    the log records of each span to its events (`ChunkPlan.span_logs`).
    """
    if not chat_ids:
        return []
    from tracesim.evaluator.load.fetch import fetch_chunk  # it builds on this module

    return fetch_chunk(
        con,
        chat_ids,
        run_id=run_id,
        span_columns=span_columns,
        trace_chats=trace_chats,
        span_logs=span_logs,
    ).assemble()


def assemble_chunk(
    turns: list[dict[str, Any]],
    conversations: list[dict[str, Any]],
    spans: list[dict[str, Any]],
    *,
    run_id: str | None = None,
) -> list[ConversationData]:
    """Group a chunk's rows (turns by chat_id, turn_id; spans by chat_id, turn_id, start
    time) into conversations, in chat_id order; every backend reads rows, this groups them.

    Without `run_id`, a chat with spans but no turns or conversation row comes back
    traced-only, its turns derived from its spans (`evaluator.load.traced`).
    """
    by_chat: dict[str, ConversationData] = {}
    scenarios: dict[Any, dict[str, Any]] = {}  # the conversations of a scenario share its text
    for row in conversations:
        text = row.get("scenario")
        scenario = scenarios.get(text) if isinstance(text, str) else None
        if scenario is None:
            scenario = parse_json(text, {})
            scenario = scenario if isinstance(scenario, dict) else {}
            if isinstance(text, str):
                scenarios[text] = scenario
        row["scenario"] = scenario
        by_chat[row["chat_id"]] = ConversationData(row["chat_id"], row, row["scenario"])
    for row in turns:
        row["explicit_tool_calls"] = parse_json(row.get("explicit_tool_calls"), [])
        data = by_chat.get(row["chat_id"])
        if data is None:
            data = by_chat[row["chat_id"]] = ConversationData(row["chat_id"], {}, {})
        data.turns.append(row)
    # Spans come sorted by (chat_id, turn_id): cut the runs instead of hashing every row.
    # A chat with spans only (no turns, no conversation row) is traced-only.
    traced_only = run_id is None
    last: tuple[Any, Any] = (object(), object())
    group: list[dict[str, Any]] = []
    for span in spans:
        key = (span["chat_id"], span["turn_id"])
        if key != last:
            last = key
            data = by_chat.get(key[0])
            if data is None and traced_only:
                data = by_chat[key[0]] = ConversationData(key[0], {}, {}, traced_only=True)
            group = data.spans_by_turn.setdefault(key[1], []) if data is not None else []
        group.append(span)
    for data in by_chat.values():
        if data.traced_only:
            data.turns, data.spans_by_turn = derive_trace_turns(data.chat_id, data.spans_by_turn)
    return [by_chat[chat_id] for chat_id in sorted(by_chat)]


def load_conversations(con: Any, *, run_id: str | None = None) -> list[ConversationData]:
    """Every conversation of `run_id` (all when None) at once, span JSON decoded.

    For small files and tests; the pipeline reads chunk by chunk (`plan_chunks`, `load_chunk`).
    """
    out: list[ConversationData] = []
    plan = plan_chunks(con, run_id=run_id)
    for chunk in plan.chunks:
        for data in load_chunk(
            con, chunk, run_id=run_id, trace_chats=plan.trace_chats, span_logs=plan.span_logs
        ):
            for spans in data.spans_by_turn.values():
                decode_spans(spans)
            out.append(data)
    return out
