"""SQL views over the tracesim tables: the questions people ask of a run, pre-joined.

Created by `schemas.create_all(con)` (through `create_views(con)`) with
`CREATE OR REPLACE VIEW`, so they are always in step with this file. Like
the table columns, view names and columns are a public contract. The
tables `spans`, `turns`, `conversations`, `tool_calls`, `scores` and `runs`
are queried directly; the views add:

`tool_stats`
    One row per tool name: `calls`, `errors`, `error_rate`, `p50_ms`,
    `p95_ms`, `max_ms` (latency from `tool_calls.duration_ms`, else the
    matched span's `duration_ms`), and how each call was observed:
    `explicit` (reported by the agent only), `traced` (spans only), `both`.
    Conversations not evaluated yet (a file filled by `tracesim collect`
    alone) count their keyed tool spans as traced calls.
`llm_calls`
    One row per model call: a span of a model operation (chat, completion,
    generate_content, embeddings; from `gen_ai.operation.name` or the convention's
    own operation field, `collector.routing.hot_fields`), counted once: the innermost
    one (a model span with a model-span child, e.g. ADK's `call_llm` around
    `generate_content`, is not counted again). Spans that only carry a model name or
    mirror usage (agent, workflow, usage-record spans) are not calls; self-parented
    spans and parent cycles are still counted. Columns: trace_id, span_id, chat_id, turn_id,
    service_name, operation, model, input_tokens, output_tokens, total_tokens,
    latency_ms, start_time, status_code.
`latest_eval`
    The newest evaluation pass: one row (eval_id, run_id, started_at) taken
    from `runs`, or from `scores` alone when `runs` is empty.
`latest_scores`
    The rows of `scores` that belong to `latest_eval`.
`all_turns`
    Every turn with its messages: `turns` (simulated, `source` 'simulated') and,
    for collected conversations without `turns` rows, the turns evaluate derived
    from their spans (`traced_turns`, `source` 'traced'). Columns: chat_id,
    turn_id, run_id, scenario_id, trace_id, user_message, agent_message, status,
    error, duration_ms, source, message_convention.
`turn_summary`
    One row per turn of `all_turns` (simulated and traced, `source` says which):
    status, duration, counts of spans, tool calls, tool errors and LLM calls,
    tokens, and `turn_success` from `latest_scores`. A traced turn's spans are
    its trace's when they carry no turn id. Tokens are the turn's model calls';
    for a turn with none, the usage the agent's answer reported (a
    chat-completions `usage`, kept on the turn's `tracesim.turn` span).
`conversation_summary`
    One row per conversation: scenario, status, turns, duration, tool calls
    and errors, tokens, and the latest `final_score` and its status label
    (`final_status`: Done / Partial Failure / Failed). Conversations only
    traced (`tracesim collect`) are listed too: a turn per trace, tool spans
    as their tool calls until `tracesim evaluate` derives them.

Example queries::

    -- the slowest tools
    SELECT name, calls, error_rate, p95_ms FROM tool_stats ORDER BY p95_ms DESC;

    -- tokens per model
    SELECT model, count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output
    FROM llm_calls GROUP BY model;

    -- failing conversations of the newest evaluation, worst first
    SELECT chat_id, scenario_id, final_score, final_status
    FROM conversation_summary WHERE final_status <> 'Done' ORDER BY final_score;

    -- metric means per scenario
    SELECT c.scenario_id, s.metric, avg(s.value) AS mean, count(s.value) AS graded
    FROM latest_scores s JOIN conversations c USING (chat_id)
    GROUP BY ALL ORDER BY ALL;

    -- one turn's span tree
    SELECT span_id, parent_span_id, name, duration_ms, status_code
    FROM spans WHERE chat_id = 'chat-0001' AND turn_id = 0 ORDER BY start_time;
"""

from __future__ import annotations

from typing import Any

from tracesim.schemas.conventions import GENAI, TRACESIM

__all__ = ["VIEW_NAMES", "VIEWS", "create_views"]

_LLM_OPERATIONS = "(" + ", ".join(f"'{op}'" for op in GENAI.INFERENCE_OPERATIONS) + ")"
_MODEL_SPAN = f"(operation IN {_LLM_OPERATIONS})"
"""A span of a model operation (SPEC §5: agent and workflow spans repeating usage are not)."""

ALL_TURNS_SQL = """
        SELECT chat_id, turn_id, run_id, scenario_id, trace_id, user_message, agent_message,
               status, error, duration_ms, 'simulated' AS source,
               CAST(NULL AS VARCHAR) AS message_convention
        FROM turns
        UNION ALL
        SELECT chat_id, turn_id, run_id, NULL, trace_id, user_message, agent_message,
               NULL, NULL, NULL, coalesce(source, 'traced'), message_convention
        FROM traced_turns
        WHERE chat_id NOT IN (SELECT chat_id FROM turns)
"""
"""`turns` with the turns evaluate derived for collected conversations (`traced_turns`)."""

_TURN_SPANS = """s.chat_id = t.chat_id AND (s.turn_id = t.turn_id
                 OR (t.source <> 'simulated' AND s.turn_id IS NULL AND s.trace_id = t.trace_id))"""
"""The spans of turn `t`: by turn id, or a traced turn's trace (collected spans carry no
turn id: evaluate derives a turn per trace)."""
_REPORTED = (
    "(SELECT max(r.{column})::BIGINT FROM spans r WHERE r.chat_id = t.chat_id "
    f"AND r.turn_id = t.turn_id AND r.name = '{TRACESIM.TURN_SPAN}')"
)
"""A turn's usage as the agent's answer reported it (on its `tracesim.turn` span: a
chat-completions `usage`), for a turn whose spans record no model call with tokens."""

VIEWS: dict[str, str] = {
    "tool_stats": """
        WITH calls AS (
            SELECT tc.name, tc.error, coalesce(tc.duration_ms, s.duration_ms) AS ms,
                   tc.source, tc.traced
            FROM tool_calls tc
            LEFT JOIN spans s ON s.span_id = tc.span_id AND s.chat_id = tc.chat_id
            UNION ALL
            -- tool spans of conversations not evaluated yet (`tracesim collect` alone)
            SELECT tool_name,
                   CASE WHEN status_code = 'ERROR'
                        THEN coalesce(nullif(status_message, ''), 'error') END,
                   duration_ms, 'traced', true
            FROM spans
            WHERE tool_name <> '' AND chat_id IS NOT NULL
              AND chat_id NOT IN (SELECT chat_id FROM tool_calls)
        )
        SELECT
            name,
            count(*) AS calls,
            count(error) AS errors,
            count(error) / count(*) AS error_rate,
            quantile_cont(ms, 0.5) AS p50_ms,
            quantile_cont(ms, 0.95) AS p95_ms,
            max(ms) AS max_ms,
            count(*) FILTER (WHERE source NOT IN ('traced', 'tracing_processor')
                             AND NOT coalesce(traced, false)) AS explicit,
            count(*) FILTER (WHERE source IN ('traced', 'tracing_processor')) AS traced,
            count(*) FILTER (WHERE source NOT IN ('traced', 'tracing_processor')
                             AND coalesce(traced, false)) AS both
        FROM calls
        GROUP BY name
    """,
    "llm_calls": f"""
        WITH model_spans_all AS (
            SELECT *, nullif(attributes->>'$."gen_ai.response.id"', '') AS response_id
            FROM spans WHERE {_MODEL_SPAN}
        ),
        -- a zero-length model span (a record of a moment: the response, logged when a
        -- stream ends) completing the call of a sibling span of the same operation and
        -- model that started before it and has no response of its own (no usage, no
        -- response id) is that call's response, not a call: the request keeps the
        -- latency, the record gives the usage (Logfire's streamed OpenAI and Anthropic)
        mirrors AS (
            SELECT m.trace_id, m.span_id, m.input_tokens, m.output_tokens,
                   arg_max(r.span_id, r.start_time) AS request_id
            FROM model_spans_all m JOIN model_spans_all r
                ON r.trace_id = m.trace_id AND r.span_id <> m.span_id
               AND r.parent_span_id IS NOT DISTINCT FROM m.parent_span_id
               AND r.operation = m.operation AND r.model IS NOT DISTINCT FROM m.model
               AND r.start_time <= m.start_time AND r.end_time > r.start_time
               AND r.response_id IS NULL AND r.input_tokens IS NULL
               AND r.output_tokens IS NULL
            WHERE m.end_time = m.start_time
            GROUP BY m.trace_id, m.span_id, m.input_tokens, m.output_tokens
        ),
        model_spans AS (
            SELECT s.* REPLACE (
                       coalesce(s.input_tokens, (SELECT max(x.input_tokens) FROM mirrors x
                           WHERE x.trace_id = s.trace_id AND x.request_id = s.span_id))
                           AS input_tokens,
                       coalesce(s.output_tokens, (SELECT max(x.output_tokens) FROM mirrors x
                           WHERE x.trace_id = s.trace_id AND x.request_id = s.span_id))
                           AS output_tokens)
            FROM model_spans_all s
            WHERE NOT EXISTS (
                SELECT 1 FROM mirrors x WHERE x.trace_id = s.trace_id AND x.span_id = s.span_id
            )
        ),
        innermost AS (
            SELECT s.* FROM model_spans s
            WHERE NOT EXISTS (
                SELECT 1 FROM model_spans c
                WHERE c.trace_id = s.trace_id AND c.parent_span_id = s.span_id
                  -- a self-parented span, or two that parent each other, are still calls
                  AND c.span_id <> s.span_id
                  AND c.span_id IS DISTINCT FROM s.parent_span_id
            )
        )
        SELECT
            s.trace_id, s.span_id, s.chat_id, s.turn_id, s.service_name, s.operation, s.model,
            s.input_tokens, s.output_tokens,
            coalesce(s.input_tokens, 0) + coalesce(s.output_tokens, 0) AS total_tokens,
            s.duration_ms AS latency_ms, s.start_time, s.status_code
        FROM innermost s
        -- one request reported by two instrumentations (a provider SDK's own span and an
        -- instrumentation library's: Anthropic SDK + OpenLLMetry / OpenInference) is one
        -- call: the same response id, or, where one lacks it, siblings from another scope
        -- with the same usage over overlapping times; the one that started last (inside the
        -- other: the provider's own span, its usage as the provider reported it) is kept
        WHERE NOT EXISTS (
            SELECT 1 FROM innermost d
            WHERE d.trace_id = s.trace_id AND d.span_id <> s.span_id
              AND (d.start_time > s.start_time
                   OR (d.start_time = s.start_time AND d.span_id < s.span_id))
              AND d.scope_name IS DISTINCT FROM s.scope_name
              AND (d.response_id = s.response_id
                   OR ((d.response_id IS NULL OR s.response_id IS NULL)
                       AND d.parent_span_id IS NOT DISTINCT FROM s.parent_span_id
                       AND d.input_tokens = s.input_tokens
                       AND d.output_tokens = s.output_tokens
                       AND d.start_time <= s.end_time AND s.start_time <= d.end_time))
        )
    """,
    "latest_eval": """
        WITH candidates AS (
            SELECT eval_id, run_id, coalesce(started_at, finished_at) AS started_at
            FROM runs
            UNION ALL
            SELECT eval_id, any_value(run_id), min(created_at)
            FROM scores
            WHERE NOT EXISTS (SELECT 1 FROM runs)
            GROUP BY eval_id
        )
        SELECT eval_id, run_id, started_at FROM candidates
        ORDER BY started_at DESC NULLS LAST, eval_id DESC
        LIMIT 1
    """,
    "latest_scores": """
        SELECT s.* FROM scores s WHERE s.eval_id = (SELECT eval_id FROM latest_eval)
    """,
    "all_turns": ALL_TURNS_SQL,
    "turn_summary": f"""
        SELECT
            t.chat_id, t.turn_id, t.run_id, t.scenario_id, t.status, t.error,
            t.duration_ms,
            (SELECT count(*) FROM spans s WHERE {_TURN_SPANS}) AS num_spans,
            (SELECT count(*) FROM tool_calls c
             WHERE c.chat_id = t.chat_id AND c.turn_id = t.turn_id) AS num_tool_calls,
            (SELECT count(c.error) FROM tool_calls c
             WHERE c.chat_id = t.chat_id AND c.turn_id = t.turn_id) AS num_tool_errors,
            (SELECT count(*) FROM llm_calls s WHERE {_TURN_SPANS}) AS num_llm_calls,
            coalesce((SELECT sum(s.input_tokens)::BIGINT FROM llm_calls s WHERE {_TURN_SPANS}),
                     {_REPORTED.format(column='input_tokens')}) AS input_tokens,
            coalesce((SELECT sum(s.output_tokens)::BIGINT FROM llm_calls s WHERE {_TURN_SPANS}),
                     {_REPORTED.format(column='output_tokens')}) AS output_tokens,
            (SELECT max(ls.value) FROM latest_scores ls
             WHERE ls.chat_id = t.chat_id AND ls.turn_id = t.turn_id
               AND ls.metric = 'turn_success') AS turn_success,
            t.source
        FROM all_turns t
    """,
    "conversation_summary": """
        SELECT
            c.chat_id, c.run_id, c.scenario_id, c.conversation_index, c.status, c.error,
            c.num_turns, c.duration_ms,
            -- tool calls once evaluated, else the tool spans captured
            CASE WHEN EXISTS (SELECT 1 FROM tool_calls tc WHERE tc.chat_id = c.chat_id)
                 THEN (SELECT count(*) FROM tool_calls tc WHERE tc.chat_id = c.chat_id)
                 ELSE (SELECT count(*) FROM spans s
                       WHERE s.chat_id = c.chat_id AND s.tool_name <> '')
            END AS num_tool_calls,
            CASE WHEN EXISTS (SELECT 1 FROM tool_calls tc WHERE tc.chat_id = c.chat_id)
                 THEN (SELECT count(tc.error) FROM tool_calls tc WHERE tc.chat_id = c.chat_id)
                 ELSE (SELECT count(*) FROM spans s WHERE s.chat_id = c.chat_id
                       AND s.tool_name <> '' AND s.status_code = 'ERROR')
            END AS num_tool_errors,
            (SELECT sum(s.input_tokens)::BIGINT FROM llm_calls s
             WHERE s.chat_id = c.chat_id) AS input_tokens,
            (SELECT sum(s.output_tokens)::BIGINT FROM llm_calls s
             WHERE s.chat_id = c.chat_id) AS output_tokens,
            (SELECT max(ls.value) FROM latest_scores ls
             WHERE ls.chat_id = c.chat_id AND ls.turn_id IS NULL
               AND ls.metric = 'final_score') AS final_score,
            (SELECT max(ls.label) FROM latest_scores ls
             WHERE ls.chat_id = c.chat_id AND ls.turn_id IS NULL
               AND ls.metric = 'final_score') AS final_status
        FROM (
            SELECT chat_id, run_id, scenario_id, conversation_index, status, error,
                   num_turns, duration_ms
            FROM conversations
            UNION ALL
            -- conversations only traced (`tracesim collect` alone): a turn per stored
            -- turn_id, else per trace, as the evaluator derives them
            SELECT chat_id, NULL, NULL, NULL, NULL, NULL,
                   count(DISTINCT coalesce(turn_id::VARCHAR, 'trace ' || trace_id)),
                   (epoch_us(max(end_time)) - epoch_us(min(start_time))) / 1000.0
            FROM spans
            WHERE chat_id IS NOT NULL
              AND chat_id NOT IN (SELECT chat_id FROM conversations)
            GROUP BY chat_id
        ) c
    """,
}
"""View name -> its SELECT, in creation order (later views read earlier ones)."""

VIEW_NAMES: tuple[str, ...] = tuple(VIEWS)
"""The names of every view `create_views` creates."""


def create_views(con: Any, *, temporary: bool = False) -> None:
    """Create (or replace) every view; the tables must exist (`create_all`).

    `temporary=True` creates them in the connection's temp schema: that works
    on a file opened read-only that was written before the views existed.
    """
    kind = "TEMP VIEW" if temporary else "VIEW"
    if (
        temporary
        and not con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'traced_turns'"
        ).fetchone()[0]
    ):  # a file older than `traced_turns`: an empty stand-in, for all_turns
        con.execute(
            "CREATE TEMP TABLE traced_turns (chat_id VARCHAR, turn_id INTEGER, run_id VARCHAR,"
            " trace_id VARCHAR, user_message VARCHAR, agent_message VARCHAR, source VARCHAR,"
            " message_convention VARCHAR)"
        )
    for name, select in VIEWS.items():
        con.execute(f"CREATE OR REPLACE {kind} {name} AS {select}")
