"""tracesim's own tables and views in the exporter's ClickHouse database (SPEC §4, §12).

Same names and columns as the DuckDB contract (`schemas.ddl`, `schemas.views`),
in ClickHouse types, so a dashboard or `tracesim sql` reads scores the same
way on both. `spans`, `turns` and `conversations` are views over
`otel_traces` (`evaluator.store.clickhouse_routing`); `tool_calls`, `scores`
and `runs` are tables written by the evaluator:
- `tool_calls`: ReplacingMergeTree on (chat_id, turn_id, seq); a chunk's chats
  are deleted then inserted, so a re-evaluation replaces them;
- `traced_turns`: the same, on (chat_id, turn_id): turns and messages derived from
  collected chats' spans; `all_turns` shows them with `turns`;
- `scores`: one row set per evaluation (`eval_id`), like DuckDB; an evaluation
  that fails half-way deletes its rows, `latest_scores` shows the newest;
- `runs`: ReplacingMergeTree on eval_id.
"""

from __future__ import annotations

import re

from tracesim.evaluator.store.clickhouse_routing import (
    conversations_sql,
    routed_spans_sql,
    turns_sql,
)
from tracesim.evaluator.store.clickhouse_schema import ExporterSchema, quote, string_literal
from tracesim.schemas.conventions import GENAI, TRACESIM
from tracesim.schemas.ddl import PROVENANCE_COLUMNS

__all__ = ["TABLES", "VIEW_NAMES", "create_statements"]

TABLES: dict[str, str] = {
    "tool_calls": """(
    chat_id String,
    turn_id Int32,
    seq Int32,
    run_id Nullable(String),
    id String,
    name String,
    arguments String,
    result Nullable(String),
    error Nullable(String),
    source Nullable(String),
    traced Bool,
    span_id Nullable(String),
    start_time Nullable(DateTime64(6, 'UTC')),
    duration_ms Nullable(Float64),
    written_at DateTime64(6, 'UTC') DEFAULT now64(6),
    id_from Nullable(String),
    arguments_from Nullable(String),
    result_from Nullable(String),
    error_from Nullable(String),
    conflicts Nullable(String)
) ENGINE = ReplacingMergeTree(written_at) ORDER BY (chat_id, turn_id, seq)""",
    "traced_turns": """(
    chat_id String,
    turn_id Int32,
    run_id Nullable(String),
    trace_id Nullable(String),
    user_message Nullable(String),
    agent_message Nullable(String),
    source Nullable(String),
    message_convention Nullable(String),
    written_at DateTime64(6, 'UTC') DEFAULT now64(6)
) ENGINE = ReplacingMergeTree(written_at) ORDER BY (chat_id, turn_id)""",
    "scores": """(
    eval_id String,
    run_id Nullable(String),
    chat_id Nullable(String),
    turn_id Nullable(Int32),
    metric String,
    value Nullable(Float64),
    passed Nullable(Bool),
    threshold Nullable(Float64),
    label Nullable(String),
    reason Nullable(String),
    details Nullable(String),
    created_at Nullable(DateTime64(6, 'UTC'))
) ENGINE = MergeTree ORDER BY (eval_id, metric)""",
    "runs": """(
    eval_id String,
    run_id Nullable(String),
    kind Nullable(String),
    started_at Nullable(DateTime64(6, 'UTC')),
    finished_at Nullable(DateTime64(6, 'UTC')),
    config Nullable(String),
    num_conversations Nullable(Int32),
    num_turns Nullable(Int32),
    final_score Nullable(Float64),
    status Nullable(String),
    gates_passed Nullable(Bool),
    exit_code Nullable(Int32),
    summary Nullable(String),
    tracesim_version Nullable(String)
) ENGINE = ReplacingMergeTree ORDER BY eval_id""",
}
"""tracesim's tables: name -> column list and engine."""

_ATTRS = "ifNull(attributes, '{}')"
_RESPONSE_ID = (
    f"coalesce(nullIf(JSONExtractString({_ATTRS}, {string_literal(GENAI.RESPONSE_ID)}), ''), "
    # the exporter's JSON schema stores dotted keys as nested objects
    f"nullIf(JSONExtractString({_ATTRS}, "
    f"{', '.join(string_literal(p) for p in GENAI.RESPONSE_ID.split('.'))}), ''))"
)
"""A model span's response id (the duplicate-reporter rule of `llm_calls`)."""
_TURN_KEY = (
    "if(turn_id IS NOT NULL, concat('turn:', toString(turn_id)), concat('trace:', trace_id))"
)
"""A span's turn key in `turn_summary`: its turn, else its trace (a collected span)."""
_TURN_SPAN = string_literal(TRACESIM.TURN_SPAN)
_COMPLETES = (
    "r.1 != m.1 AND r.2 = m.2 AND r.12 = m.12 AND ifNull(r.13 = m.13, isNull(r.13) AND "
    "isNull(m.13)) AND r.4 <= m.4 AND r.5 > r.4 AND isNull(r.6) AND isNull(r.7) AND isNull(r.8)"
)
"""Model-span tuple `r` is the response-less call that zero-length span `m` completes."""
_LLM_OPS = "(" + ", ".join(string_literal(op) for op in GENAI.INFERENCE_OPERATIONS) + ")"


def _result_views(schema: ExporterSchema) -> dict[str, str]:
    # SPEC §5: a model call is an inference span by operation, counted once (`llm_calls`, the
    # rules of `schemas.views`); spans that only carry a model name or mirror usage are not
    is_llm = f"(operation IN {_LLM_OPS})"
    return {
        "all_turns": """
SELECT chat_id, turn_id, run_id, scenario_id, trace_id, user_message, agent_message,
    status, error, duration_ms, 'simulated' AS source,
    CAST(NULL AS Nullable(String)) AS message_convention
FROM turns
UNION ALL
SELECT chat_id, turn_id, run_id, CAST(NULL AS Nullable(String)), trace_id, user_message,
    agent_message, CAST(NULL AS Nullable(String)), CAST(NULL AS Nullable(String)),
    CAST(NULL AS Nullable(Float64)), coalesce(source, 'traced'), message_convention
FROM traced_turns FINAL
WHERE chat_id NOT IN (SELECT chat_id FROM turns)
""",
        "tool_stats": f"""
SELECT tc.name AS name, count() AS calls, countIf(tc.error IS NOT NULL) AS errors,
    countIf(tc.error IS NOT NULL) / count() AS error_rate,
    quantileExactInclusive(0.5)(coalesce(tc.duration_ms, s.d)) AS p50_ms,
    quantileExactInclusive(0.95)(coalesce(tc.duration_ms, s.d)) AS p95_ms,
    max(coalesce(tc.duration_ms, s.d)) AS max_ms,
    countIf(tc.source NOT IN ('traced', 'tracing_processor') AND NOT tc.traced) AS explicit,
    countIf(tc.source IN ('traced', 'tracing_processor')) AS traced,
    countIf(tc.source NOT IN ('traced', 'tracing_processor') AND tc.traced) AS both
FROM tool_calls AS tc FINAL
LEFT JOIN (
    SELECT SpanId, any(Duration) / 1e6 AS d FROM {schema.traces}
    WHERE SpanId IN (SELECT span_id FROM tool_calls WHERE span_id IS NOT NULL) GROUP BY SpanId
) AS s ON s.SpanId = tc.span_id
GROUP BY tc.name
SETTINGS join_use_nulls = 1""",
        # One pass over the model spans of each trace (the `spans` view is costly: a CTE or
        # a self-join would compute it once per reference). `m` tuples: 1 span_id, 2 parent,
        # 3 scope, 4 start, 5 end, 6 response id, 7 input, 8 output tokens, 9 chat_id,
        # 10 turn_id, 11 service, 12 operation, 13 model, 14 duration_ms, 15 status_code.
        "llm_calls": f"""
SELECT trace_id, m.1 AS span_id, m.9 AS chat_id, m.10 AS turn_id, m.11 AS service_name,
    m.12 AS operation, m.13 AS model, m.7 AS input_tokens, m.8 AS output_tokens,
    coalesce(m.7, 0) + coalesce(m.8, 0) AS total_tokens, m.14 AS latency_ms,
    m.4 AS start_time, m.15 AS status_code
FROM (
    SELECT trace_id,
        -- the innermost: no model-span child (a self-parented span, or two that parent
        -- each other, are still calls)
        arrayFilter(x -> NOT arrayExists(c -> c.2 = x.1 AND c.1 != x.1 AND c.1 != x.2, ms),
                    ms) AS kept
    FROM (
        -- a zero-length model span completing a response-less sibling call of the same
        -- operation and model that started before it is that call's response record: not
        -- a call, its usage goes to the call (schemas/views.py, `mirrors`). `mirrors`
        -- tuples: 1 span_id, 2 the call's span_id, 3 input, 4 output tokens.
        SELECT trace_id,
            arrayMap(x -> tuple(x.1, x.2, x.3, x.4, x.5, x.6,
                coalesce(x.7, arrayReduce('max', arrayMap(y -> y.3,
                                                          arrayFilter(y -> y.2 = x.1, mirrors)))),
                coalesce(x.8, arrayReduce('max', arrayMap(y -> y.4,
                                                          arrayFilter(y -> y.2 = x.1, mirrors)))),
                x.9, x.10, x.11, x.12, x.13, x.14, x.15),
                arrayFilter(x -> NOT arrayExists(y -> y.1 = x.1, mirrors), all_ms)) AS ms
        FROM (
            SELECT trace_id, all_ms,
                arrayMap(m -> tuple(m.1, arrayLast(r -> {_COMPLETES}, all_ms).1, m.7, m.8),
                         arrayFilter(m -> m.4 = m.5 AND arrayExists(r -> {_COMPLETES}, all_ms),
                                     all_ms)) AS mirrors
            FROM (
                SELECT trace_id, arraySort(x -> x.4, groupArray(tuple(span_id,
                    ifNull(parent_span_id, ''), ifNull(scope_name, ''), start_time, end_time,
                    {_RESPONSE_ID}, input_tokens, output_tokens, chat_id, turn_id,
                    service_name, operation, model, duration_ms, status_code))) AS all_ms
                FROM spans WHERE {is_llm} GROUP BY trace_id
            )
        )
    )
) ARRAY JOIN kept AS m
-- one request reported by two instrumentations: the same response id, or, where one lacks
-- it, siblings from another scope with the same usage over overlapping times; the one that
-- started last is kept (schemas/views.py, `llm_calls`)
WHERE NOT arrayExists(d -> d.1 != m.1 AND (d.4 > m.4 OR (d.4 = m.4 AND d.1 < m.1))
        AND d.3 != m.3
        AND (ifNull(d.6 = m.6, false)
             OR ((isNull(d.6) OR isNull(m.6)) AND d.2 = m.2 AND ifNull(d.7 = m.7, false)
                 AND ifNull(d.8 = m.8, false) AND d.4 <= m.5 AND m.4 <= d.5)),
    kept)""",
        "latest_eval": """
SELECT eval_id, run_id, started_at FROM (
    SELECT eval_id, run_id, coalesce(started_at, finished_at) AS started_at FROM runs FINAL
    UNION ALL
    SELECT eval_id, any(run_id) AS run_id, min(created_at) AS started_at FROM scores
    WHERE (SELECT count() FROM runs) = 0 GROUP BY eval_id
) ORDER BY started_at DESC NULLS LAST, eval_id DESC LIMIT 1""",
        "latest_scores": """
SELECT * FROM scores WHERE eval_id = (SELECT eval_id FROM latest_eval)""",
        # A turn's spans and model calls: by turn id, or a traced turn's trace (collected
        # spans carry no turn id): each side keyed `turn:N` / `trace:T`, a traced turn
        # matching both, so `spans` and `llm_calls` are each read once.
        "turn_summary": f"""
SELECT t.chat_id AS chat_id, t.turn_id AS turn_id, t.run_id AS run_id,
    t.scenario_id AS scenario_id, t.status AS status, t.error AS error,
    t.duration_ms AS duration_ms, t.num_spans AS num_spans,
    coalesce(tc.num_tool_calls, 0) AS num_tool_calls,
    coalesce(tc.num_tool_errors, 0) AS num_tool_errors,
    t.num_llm_calls AS num_llm_calls,
    -- a turn with no model-call tokens: the usage its answer reported (turn span)
    coalesce(t.input_tokens, t.reported_input) AS input_tokens,
    coalesce(t.output_tokens, t.reported_output) AS output_tokens,
    ls.turn_success AS turn_success, t.source AS source
FROM (
    SELECT t.chat_id AS chat_id, t.turn_id AS turn_id, t.run_id AS run_id,
        t.scenario_id AS scenario_id, t.status AS status, t.error AS error,
        t.duration_ms AS duration_ms, t.source AS source,
        sum(coalesce(sp.num_spans, 0)) AS num_spans,
        sum(coalesce(lc.num_llm_calls, 0)) AS num_llm_calls,
        sum(lc.input_tokens) AS input_tokens, sum(lc.output_tokens) AS output_tokens,
        max(sp.reported_input) AS reported_input, max(sp.reported_output) AS reported_output
    FROM (
        SELECT *, arrayJoin(if(source = 'simulated' OR trace_id IS NULL,
            [concat('turn:', toString(turn_id))],
            [concat('turn:', toString(turn_id)), concat('trace:', trace_id)])) AS k
        FROM all_turns
    ) AS t
    LEFT JOIN (
        SELECT chat_id, {_TURN_KEY} AS k, count() AS num_spans,
            maxIf(input_tokens, name = {_TURN_SPAN}) AS reported_input,
            maxIf(output_tokens, name = {_TURN_SPAN}) AS reported_output
        FROM spans WHERE chat_id IS NOT NULL GROUP BY chat_id, k
    ) AS sp ON sp.chat_id = t.chat_id AND sp.k = t.k
    LEFT JOIN (
        SELECT chat_id, {_TURN_KEY} AS k, count() AS num_llm_calls,
            sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
        FROM llm_calls WHERE chat_id IS NOT NULL GROUP BY chat_id, k
    ) AS lc ON lc.chat_id = t.chat_id AND lc.k = t.k
    GROUP BY chat_id, turn_id, run_id, scenario_id, status, error, duration_ms, source
) AS t
LEFT JOIN (
    SELECT chat_id, turn_id, count() AS num_tool_calls,
        countIf(error IS NOT NULL) AS num_tool_errors
    FROM tool_calls FINAL GROUP BY chat_id, turn_id
) AS tc ON tc.chat_id = t.chat_id AND tc.turn_id = t.turn_id
LEFT JOIN (
    SELECT chat_id, turn_id, max(value) AS turn_success FROM latest_scores
    WHERE metric = 'turn_success' AND turn_id IS NOT NULL GROUP BY chat_id, turn_id
) AS ls ON ls.chat_id = t.chat_id AND ls.turn_id = t.turn_id
SETTINGS join_use_nulls = 1""",
        "conversation_summary": """
SELECT c.chat_id AS chat_id, c.run_id AS run_id, c.scenario_id AS scenario_id,
    c.conversation_index AS conversation_index, c.status AS status, c.error AS error,
    c.num_turns AS num_turns, c.duration_ms AS duration_ms,
    coalesce(tc.num_tool_calls, 0) AS num_tool_calls,
    coalesce(tc.num_tool_errors, 0) AS num_tool_errors,
    sp.input_tokens AS input_tokens, sp.output_tokens AS output_tokens,
    ls.final_score AS final_score, ls.final_status AS final_status
FROM conversations AS c
LEFT JOIN (
    SELECT chat_id, count() AS num_tool_calls, countIf(error IS NOT NULL) AS num_tool_errors
    FROM tool_calls FINAL GROUP BY chat_id
) AS tc ON tc.chat_id = c.chat_id
LEFT JOIN (
    SELECT chat_id, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
    FROM llm_calls WHERE chat_id IS NOT NULL GROUP BY chat_id
) AS sp ON sp.chat_id = c.chat_id
LEFT JOIN (
    SELECT chat_id, max(value) AS final_score, max(label) AS final_status FROM latest_scores
    WHERE metric = 'final_score' AND turn_id IS NULL GROUP BY chat_id
) AS ls ON ls.chat_id = c.chat_id
SETTINGS join_use_nulls = 1""",
    }


def _views(schema: ExporterSchema) -> dict[str, str]:
    views = {
        "spans": routed_spans_sql(schema),
        "turns": turns_sql(schema),
        "conversations": conversations_sql(schema),
    }
    views.update(_result_views(schema))
    return views


VIEW_NAMES: tuple[str, ...] = (
    "spans",
    "turns",
    "conversations",
    "all_turns",
    "tool_stats",
    "llm_calls",
    "latest_eval",
    "latest_scores",
    "turn_summary",
    "conversation_summary",
)
"""Every view `create_statements` creates, in creation order."""

_OWN_REFS = re.compile(r"\bFROM (" + "|".join((*TABLES, *VIEW_NAMES)) + r")\b")


def create_statements(schema: ExporterSchema) -> list[str]:
    """DDL creating tracesim's tables (if missing) and (re)creating its views, in order."""
    db = quote(schema.database)
    statements = [
        f"CREATE TABLE IF NOT EXISTS {db}.{quote(name)} {body}" for name, body in TABLES.items()
    ]
    # provenance columns (SPEC §5) on a database created before them
    statements.extend(
        f"ALTER TABLE {db}.tool_calls ADD COLUMN IF NOT EXISTS {column} Nullable(String)"
        for column in PROVENANCE_COLUMNS
    )
    for name, select in _views(schema).items():
        # Unqualified names inside a view resolve in the database the query runs in:
        # qualify ours so `tracesim sql` works from any default database.
        body = _OWN_REFS.sub(lambda m: f"FROM {db}.{quote(m.group(1))}", select)
        statements.append(f"CREATE OR REPLACE VIEW {db}.{quote(name)} AS {body}")
    return statements
