"""The SQL `tracesim inspect` runs, in one place (a ClickHouse backend supplies its own).

Every statement reads the tables and views of SPEC §4 only (`spans`, `llm_calls`).
"""

from __future__ import annotations

from tracesim.schemas.conventions import GENAI, TRACESIM

RUN_SPAN = TRACESIM.RUN_SPAN

__all__ = ["INSPECT_SQL"]

_CALL_OPERATIONS = ", ".join(f"'{op}'" for op in GENAI.CALL_BEARING_OPERATIONS)

INSPECT_SQL: dict[str, str] = {
    # per service and scope: spans, spans without a conversation key (a run's own root
    # span covers many conversations: it has none by design and is not missing one)
    "groups": f"""
        SELECT service_name, scope_name, count(*) AS spans,
               count(*) FILTER (WHERE chat_id IS NULL AND name <> '{RUN_SPAN}') AS unkeyed
        FROM spans GROUP BY ALL ORDER BY ALL
    """,
    # per service and scope: model calls (counted once) and their tokens
    "models": """
        SELECT s.service_name, s.scope_name, count(*) AS calls,
               count(*) FILTER (WHERE l.input_tokens IS NULL AND l.output_tokens IS NULL)
                   AS without_usage,
               sum(l.input_tokens)::BIGINT, sum(l.output_tokens)::BIGINT
        FROM llm_calls l JOIN spans s USING (trace_id, span_id)
        GROUP BY ALL ORDER BY ALL
    """,
    # attribute keys per service and scope (conventions are detected from them)
    "keys": """
        SELECT service_name, scope_name, key, count(*) FROM (
            SELECT service_name, scope_name, unnest(json_keys(attributes)) AS key FROM spans
        ) GROUP BY ALL
    """,
    # tool spans without a conversation key (hot columns only: cheap on a large file)
    "unkeyed_tool_spans": """
        SELECT count(*) FROM spans
        WHERE chat_id IS NULL AND (operation = 'execute_tool' OR tool_name IS NOT NULL)
    """,
    # the spans of traces that may record tool calls (tool spans, or model calls whose
    # messages request them), with what extraction reads, per trace
    "tool_candidates": f"""
        SELECT trace_id, span_id, parent_span_id, name, start_time, end_time, duration_ms,
               status_code, status_message, attributes, events, chat_id, turn_id,
               service_name, scope_name
        FROM spans
        WHERE trace_id IN (
            SELECT DISTINCT trace_id FROM spans
            WHERE operation IN ({_CALL_OPERATIONS})
               OR tool_name IS NOT NULL
        )
        ORDER BY trace_id, start_time, span_id
    """,
    # traces no conversation key reached that hold tool or model calls: each is evaluated
    # as a conversation of its own
    "unkeyed_traces": f"""
        SELECT DISTINCT trace_id FROM spans
        WHERE chat_id IS NULL AND trace_id NOT IN (
            SELECT trace_id FROM spans WHERE chat_id IS NOT NULL
        ) AND (operation IN ({_CALL_OPERATIONS})
               OR tool_name IS NOT NULL)
        ORDER BY trace_id
    """,
    # spans of traces holding no span of a known model or tool convention (the hot columns
    # say which), tracesim's own aside: `extract.unread` looks for turns nothing read
    "unread_candidates": """
        SELECT trace_id, span_id, name, operation, tool_name, attributes, chat_id, turn_id
        FROM spans
        WHERE name NOT LIKE 'tracesim.%' AND trace_id NOT IN (
            SELECT trace_id FROM spans WHERE operation IS NOT NULL OR tool_name IS NOT NULL
        )
        ORDER BY trace_id, start_time, span_id
    """,
    # keyed turns that hold a model or tool span (their other traces are read with them)
    "read_turns": """
        SELECT DISTINCT chat_id, turn_id FROM spans
        WHERE chat_id IS NOT NULL AND (operation IS NOT NULL OR tool_name IS NOT NULL)
    """,
}
"""Statement name -> SELECT."""
