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
from tracesim.schemas.conventions import GENAI
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
        "llm_calls": f"""
WITH model_spans AS (
    SELECT trace_id, span_id, ifNull(parent_span_id, '') AS parent, chat_id, turn_id,
        service_name, ifNull(scope_name, '') AS scope, operation, model, input_tokens,
        output_tokens, duration_ms, start_time, end_time, status_code,
        {_RESPONSE_ID} AS response_id
    FROM spans WHERE {is_llm}
),
wrappers AS (
    -- model spans with a model-span child: a self-parented span, or two that parent each
    -- other, are still calls
    SELECT c.trace_id AS trace_id, c.parent AS span_id
    FROM model_spans AS c INNER JOIN model_spans AS p
        ON p.trace_id = c.trace_id AND p.span_id = c.parent
    WHERE c.span_id != c.parent AND p.parent != c.span_id
),
innermost AS (
    SELECT * FROM model_spans WHERE (trace_id, span_id) NOT IN (SELECT * FROM wrappers)
),
reported_twice AS (
    -- one request reported by two instrumentations: the same response id, or, where one
    -- lacks it, siblings from another scope with the same usage over overlapping times;
    -- the one that started last is kept (views.py, `llm_calls`)
    SELECT s.trace_id AS trace_id, s.span_id AS span_id
    FROM innermost AS s INNER JOIN innermost AS d ON d.trace_id = s.trace_id
    WHERE d.span_id != s.span_id
      AND (d.start_time > s.start_time
           OR (d.start_time = s.start_time AND d.span_id < s.span_id))
      AND d.scope != s.scope
      AND (ifNull(d.response_id = s.response_id, false)
           OR ((d.response_id IS NULL OR s.response_id IS NULL)
               AND d.parent = s.parent
               AND ifNull(d.input_tokens = s.input_tokens, false)
               AND ifNull(d.output_tokens = s.output_tokens, false)
               AND d.start_time <= s.end_time AND s.start_time <= d.end_time))
)
SELECT trace_id, span_id, chat_id, turn_id, service_name, operation, model,
    input_tokens, output_tokens,
    coalesce(input_tokens, 0) + coalesce(output_tokens, 0) AS total_tokens,
    duration_ms AS latency_ms, start_time, status_code
FROM innermost WHERE (trace_id, span_id) NOT IN (SELECT * FROM reported_twice)
SETTINGS join_use_nulls = 0""",
        "latest_eval": """
SELECT eval_id, run_id, started_at FROM (
    SELECT eval_id, run_id, coalesce(started_at, finished_at) AS started_at FROM runs FINAL
    UNION ALL
    SELECT eval_id, any(run_id) AS run_id, min(created_at) AS started_at FROM scores
    WHERE (SELECT count() FROM runs) = 0 GROUP BY eval_id
) ORDER BY started_at DESC NULLS LAST, eval_id DESC LIMIT 1""",
        "latest_scores": """
SELECT * FROM scores WHERE eval_id = (SELECT eval_id FROM latest_eval)""",
        "turn_summary": """
SELECT t.chat_id AS chat_id, t.turn_id AS turn_id, t.run_id AS run_id,
    t.scenario_id AS scenario_id, t.status AS status, t.error AS error,
    t.duration_ms AS duration_ms,
    coalesce(sp.num_spans, 0) + if(t.source = 'simulated', 0, coalesce(spt.num_spans, 0))
        AS num_spans,
    coalesce(tc.num_tool_calls, 0) AS num_tool_calls,
    coalesce(tc.num_tool_errors, 0) AS num_tool_errors,
    coalesce(lc.num_llm_calls, 0) + if(t.source = 'simulated', 0, coalesce(lct.num_llm_calls, 0))
        AS num_llm_calls,
    coalesce(if(t.source = 'simulated' OR lct.num_llm_calls IS NULL, lc.input_tokens,
       coalesce(lc.input_tokens, 0) + lct.input_tokens), rp.input_tokens) AS input_tokens,
    coalesce(if(t.source = 'simulated' OR lct.num_llm_calls IS NULL, lc.output_tokens,
       coalesce(lc.output_tokens, 0) + lct.output_tokens), rp.output_tokens) AS output_tokens,
    ls.turn_success AS turn_success,
    t.source AS source
FROM all_turns AS t
LEFT JOIN (
    SELECT chat_id, turn_id, count() AS num_spans
    FROM spans WHERE chat_id IS NOT NULL AND turn_id IS NOT NULL GROUP BY chat_id, turn_id
) AS sp ON sp.chat_id = t.chat_id AND sp.turn_id = t.turn_id
LEFT JOIN (
    -- a traced turn's spans without a turn id: its trace's (evaluate derives a turn per trace)
    SELECT chat_id, trace_id, count() AS num_spans
    FROM spans WHERE chat_id IS NOT NULL AND turn_id IS NULL GROUP BY chat_id, trace_id
) AS spt ON spt.chat_id = t.chat_id AND spt.trace_id = t.trace_id
LEFT JOIN (
    SELECT chat_id, turn_id, count() AS num_llm_calls,
        sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
    FROM llm_calls WHERE chat_id IS NOT NULL AND turn_id IS NOT NULL GROUP BY chat_id, turn_id
) AS lc ON lc.chat_id = t.chat_id AND lc.turn_id = t.turn_id
LEFT JOIN (
    SELECT chat_id, trace_id, count() AS num_llm_calls,
        sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
    FROM llm_calls WHERE chat_id IS NOT NULL AND turn_id IS NULL GROUP BY chat_id, trace_id
) AS lct ON lct.chat_id = t.chat_id AND lct.trace_id = t.trace_id
LEFT JOIN (
    -- the usage the agent's answer reported (a chat-completions `usage`, on the turn span),
    -- for a turn whose spans record no model call with tokens
    SELECT chat_id, turn_id, max(input_tokens) AS input_tokens,
        max(output_tokens) AS output_tokens
    FROM spans WHERE name = 'tracesim.turn' AND chat_id IS NOT NULL AND turn_id IS NOT NULL
    GROUP BY chat_id, turn_id
) AS rp ON rp.chat_id = t.chat_id AND rp.turn_id = t.turn_id
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
