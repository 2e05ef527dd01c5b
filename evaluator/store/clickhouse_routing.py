"""SPEC §3 routing and §4's `spans`, `turns`, `conversations` as ClickHouse SQL over the
exporter's `otel_traces`, read in place (nothing is copied).

Per span, the conversation key and the turn key are each taken at their own
first match:
1./2. the explicit keys (tracesim's, then arksim's) on the span, then on its
   resource;
3. the trace's `tracesim.turn` span (its chat and turn), for a span without
   an explicit chat id; a span with an explicit chat id but no turn takes
   the turn span's turn when the chats agree;
4. a conversation id (`CONVERSATION_ID_KEYS`, in order) on the span, on its
   resource, or on any span of its trace -> chat_id only.
Only selection and routing run in SQL; extraction stays the Python of
`evaluator.extract` on the rows fetched. Key lists come from `schemas`, so a
new convention there applies here too.
"""

from __future__ import annotations

from tracesim.evaluator.store.clickhouse_hot_fields import hot_columns
from tracesim.evaluator.store.clickhouse_schema import ExporterSchema, string_literal
from tracesim.schemas.conventions import GENAI, MCP, TRACESIM
from tracesim.schemas.conversation_keys import CONVERSATION_ID_KEYS, EXPLICIT_KEYS

__all__ = ["conversations_sql", "routed_spans_sql", "span_counts_sql", "turns_sql"]

_SCOPE_KEYS = ("otel.scope.name", "otel.scope.version")
_LLM_OPERATIONS = (GENAI.OP_CHAT, GENAI.OP_TEXT_COMPLETION, GENAI.OP_GENERATE_CONTENT)


def _first(*exprs: str) -> str:
    return exprs[0] if len(exprs) == 1 else f"coalesce({', '.join(exprs)})"


def _turn(expr: str) -> str:
    """A turn number (Int32) from attribute text: an int, or an integral float."""
    return (
        f"if(isNull(toInt32OrNull(trimBoth({expr}))), "
        f"if(toFloat64OrNull({expr}) = round(toFloat64OrNull({expr})) "
        f"AND abs(toFloat64OrNull({expr})) < 2147483647, "
        f"toInt32OrNull(toString(toInt64OrNull(toString(round(toFloat64OrNull({expr})))))), NULL), "
        f"toInt32OrNull(trimBoth({expr})))"
    )


def _key_columns(schema: ExporterSchema) -> str:
    """own_chat, own_turn, own_session of each span (rules 1, 2 and 4 without the trace)."""
    span, res = "SpanAttributes", "ResourceAttributes"
    chats = [schema.attr(col, chat) for col in (span, res) for chat, _ in EXPLICIT_KEYS]
    turns = [_turn(schema.attr(col, turn)) for col in (span, res) for _, turn in EXPLICIT_KEYS]
    sessions = [schema.attr(col, key) for col in (span, res) for key in CONVERSATION_ID_KEYS]
    mcp = " OR ".join(f"{schema.attr(span, key)} IS NOT NULL" for key in _MCP_KEYS)
    return (
        f"{_first(*chats)} AS own_chat, {_first(*turns)} AS own_turn, "
        f"if({mcp}, NULL, {_first(*sessions)}) AS own_session"
    )


_MCP_KEYS = (MCP.METHOD_NAME, MCP.SESSION_ID)
"""An MCP request's span names its transport session, never a conversation (SPEC §3)."""


def _attributes_json(schema: ExporterSchema, column: str) -> str:
    if schema.variant == "json":
        return f"toJSONString({column})"
    if column == "SpanAttributes" and not schema.has_scope:
        keys = ", ".join(string_literal(k) for k in _SCOPE_KEYS)
        return f"toJSONString(mapFilter((k, v) -> k NOT IN ({keys}), {column}))"
    return f"toJSONString({column})"


def _events_json(schema: ExporterSchema) -> str:
    attrs = "toJSONString(a)" if schema.variant == "json" else "a"
    attrs_type = "String" if schema.variant == "json" else "Map(String, String)"
    return (
        "toJSONString(arrayMap((t, n, a) -> CAST((n, toString(t), toUnixTimestamp64Nano(t), "
        f"{attrs}), 'Tuple(name String, time String, time_unix_nano Int64, attributes "
        f"{attrs_type})'), `Events.Timestamp`, `Events.Name`, `Events.Attributes`))"
    )


def _links_json(schema: ExporterSchema) -> str:
    attrs = "toJSONString(a)" if schema.variant == "json" else "a"
    attrs_type = "String" if schema.variant == "json" else "Map(String, String)"
    return (
        f"toJSONString(arrayMap((tr, sp, a) -> CAST((tr, sp, {attrs}), 'Tuple(trace_id String, "
        f"span_id String, attributes {attrs_type})'), `Links.TraceId`, `Links.SpanId`, "
        "`Links.Attributes`))"
    )


_TRACE_KEYS = """argMinIf(own_chat, Timestamp, is_turn) AS turn_chat,
        argMinIf(own_turn, Timestamp, is_turn) AS turn_turn,
        argMinIf(own_session, Timestamp, own_session IS NOT NULL) AS trace_session"""
"""Rule 3 and 4's keys of a trace: its first turn span's chat and turn, its first session."""


def _routed_chat(own_chat: str, turn_chat: str, own_session: str, trace_session: str) -> str:
    """A span's conversation key from its own keys and its trace's (rules 1-4, in order)."""
    # rule 4: the trace's outermost (earliest-starting) conversation id keys every span of
    # it, the span's own nested session included (it stays an attribute)
    return (
        f"multiIf({own_chat} IS NOT NULL, {own_chat}, {turn_chat} IS NOT NULL, {turn_chat}, "
        f"{trace_session} IS NOT NULL, {trace_session}, {own_session})"
    )


_CALL_OPERATIONS = "(" + ", ".join(string_literal(op) for op in GENAI.CALL_BEARING_OPERATIONS) + ")"
"""Operations of spans that make an unkeyed trace worth evaluating: tool spans, and model
calls whose messages may hold the calls (SPEC §3)."""


def span_counts_sql(schema: ExporterSchema) -> str:
    """Spans per routed chat (`key`; the trace id for `unkeyed` spans) and how many may be tool
    spans: the `spans` view's routing, without its join (one scan, one `GROUP BY TraceId`)."""
    turn_span = string_literal(TRACESIM.TURN_SPAN)
    chat = _routed_chat("r.1", "turn_chat", "r.2", "trace_session")
    return f"""
SELECT isNull(chat) AS unkeyed, ifNull(chat, TraceId) AS key, count() AS n, countIf(tool) AS tools
FROM (
    SELECT TraceId, {chat} AS chat, r.3 AS tool
    FROM (
        SELECT TraceId,
            argMinIf(own_chat, Timestamp, is_turn) AS turn_chat,
            argMinIf(own_session, Timestamp, own_session IS NOT NULL) AS trace_session,
            groupArray((own_chat, own_session, tool)) AS rows
        FROM (
            SELECT TraceId, Timestamp, {_key_columns(schema)},
                SpanName = {turn_span} AND own_chat IS NOT NULL AND own_turn IS NOT NULL
                    AS is_turn,
                operation IN {_CALL_OPERATIONS} OR tool_name IS NOT NULL AS tool
            FROM (SELECT *, {hot_columns(schema)} FROM {schema.traces})
        )
        GROUP BY TraceId
    ) ARRAY JOIN rows AS r
)
GROUP BY unkeyed, key"""


def routed_spans_sql(schema: ExporterSchema) -> str:
    """The `spans` SELECT: SPEC §4's columns for every span of `otel_traces`, keyed (§3)."""
    turn_span = string_literal(TRACESIM.TURN_SPAN)
    scope = "ScopeName" if schema.has_scope else schema.attr("SpanAttributes", "otel.scope.name")
    keys = _key_columns(schema)
    return f"""
SELECT
    s.TraceId AS trace_id,
    s.SpanId AS span_id,
    nullIf(s.ParentSpanId, '') AS parent_span_id,
    toString(s.SpanName) AS name,
    if(s.SpanKind = '', 'UNSPECIFIED',
       upper(replaceRegexpOne(toString(s.SpanKind), '^SPAN_KIND_', ''))) AS kind,
    toDateTime64(s.Timestamp, 6) AS start_time,
    toDateTime64(s.Timestamp + toIntervalNanosecond(s.Duration), 6) AS end_time,
    s.Duration / 1e6 AS duration_ms,
    if(s.StatusCode = '', 'UNSET',
       upper(replaceRegexpOne(toString(s.StatusCode), '^STATUS_CODE_', ''))) AS status_code,
    nullIf(s.StatusMessage, '') AS status_message,
    nullIf(toString(s.ServiceName), '') AS service_name,
    nullIf(toString(s.scope_name), '') AS scope_name,
    s.attributes AS attributes,
    s.resource_attributes AS resource_attributes,
    s.events AS events,
    s.links AS links,
    {_routed_chat("s.own_chat", "t.turn_chat", "s.own_session", "t.trace_session")} AS chat_id,
    multiIf(s.own_turn IS NOT NULL, s.own_turn,
            s.own_chat IS NULL AND t.turn_chat IS NOT NULL, t.turn_turn,
            s.own_chat IS NOT NULL AND s.own_chat = t.turn_chat, t.turn_turn,
            NULL) AS turn_id,
    s.operation, s.tool_name, s.model, s.input_tokens, s.output_tokens
FROM (
    SELECT TraceId, SpanId, ParentSpanId, SpanName, SpanKind, Timestamp, Duration, StatusCode,
        StatusMessage, ServiceName, {scope} AS scope_name,
        {_attributes_json(schema, "SpanAttributes")} AS attributes,
        {_attributes_json(schema, "ResourceAttributes")} AS resource_attributes,
        {_events_json(schema)} AS events,
        {_links_json(schema)} AS links,
        {keys},
        {hot_columns(schema)}
    FROM {schema.traces}
) AS s
LEFT JOIN (
    SELECT TraceId, {_TRACE_KEYS}
    FROM (
        SELECT TraceId, Timestamp, {keys},
            SpanName = {turn_span} AND own_chat IS NOT NULL AND own_turn IS NOT NULL AS is_turn
        FROM {schema.traces}
    )
    GROUP BY TraceId
    HAVING countIf(is_turn) > 0 OR countIf(own_session IS NOT NULL) > 0
) AS t ON s.TraceId = t.TraceId
SETTINGS join_use_nulls = 1
"""


def _record_columns(schema: ExporterSchema) -> str:
    def a(key: str) -> str:
        return schema.attr("SpanAttributes", key)

    return (
        f"{a(TRACESIM.CHAT_ID)} AS chat_id, {a(TRACESIM.RUN_ID)} AS run_id, "
        f"{a(TRACESIM.SCENARIO_ID)} AS scenario_id, TraceId AS trace_id, SpanId AS span_id, "
        "toDateTime64(Timestamp, 6) AS start_time, "
        "toDateTime64(Timestamp + toIntervalNanosecond(Duration), 6) AS end_time, "
        f"Duration / 1e6 AS duration_ms, {a(TRACESIM.ERROR)} AS error"
    )


def turns_sql(schema: ExporterSchema) -> str:
    """The `turns` SELECT: one row per `tracesim.turn` span (the latest per chat and turn)."""

    def a(key: str) -> str:
        return schema.attr("SpanAttributes", key)

    return f"""
SELECT assumeNotNull(chat_id) AS chat_id, assumeNotNull(turn_id) AS turn_id, run_id, scenario_id,
    trace_id, span_id, user_message, agent_message, explicit_tool_calls, start_time, end_time,
    duration_ms, status, error
FROM (
    SELECT {_record_columns(schema)},
        {_turn(a(TRACESIM.TURN_ID))} AS turn_id,
        {a(TRACESIM.USER_MESSAGE)} AS user_message,
        {a(TRACESIM.AGENT_MESSAGE)} AS agent_message,
        {a(TRACESIM.EXPLICIT_TOOL_CALLS)} AS explicit_tool_calls,
        {a(TRACESIM.TURN_STATUS)} AS status
    FROM {schema.traces}
    WHERE SpanName = {string_literal(TRACESIM.TURN_SPAN)}
)
WHERE chat_id IS NOT NULL AND turn_id IS NOT NULL
ORDER BY chat_id, turn_id, start_time DESC
LIMIT 1 BY chat_id, turn_id
"""


def conversations_sql(schema: ExporterSchema) -> str:
    """The `conversations` SELECT: one row per `tracesim.conversation` span (latest per chat)."""

    def a(key: str) -> str:
        return schema.attr("SpanAttributes", key)

    return f"""
SELECT assumeNotNull(chat_id) AS chat_id, run_id, scenario_id, conversation_index, agent_type,
    num_turns, status, error, scenario, start_time, end_time, duration_ms, trace_id, span_id
FROM (
    SELECT {_record_columns(schema)},
        {_turn(a(TRACESIM.CONVERSATION_INDEX))} AS conversation_index,
        {a(TRACESIM.AGENT_TYPE)} AS agent_type,
        {_turn(a(TRACESIM.NUM_TURNS))} AS num_turns,
        {a(TRACESIM.CONVERSATION_STATUS)} AS status,
        {a(TRACESIM.SCENARIO)} AS scenario
    FROM {schema.traces}
    WHERE SpanName = {string_literal(TRACESIM.CONVERSATION_SPAN)}
)
WHERE chat_id IS NOT NULL
ORDER BY chat_id, start_time DESC
LIMIT 1 BY chat_id
"""
