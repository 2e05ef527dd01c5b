"""The SQL `tracesim inspect` runs, in one place (a ClickHouse backend supplies its own).

Every statement reads the tables and views of SPEC §4 only (`spans`, `llm_calls`).
"""

from __future__ import annotations

from tracesim.evaluator.extract.contentless import REQUESTING_OPERATIONS
from tracesim.evaluator.extract.unread import PAYLOAD_KEY_PATTERN
from tracesim.schemas.conventions import GENAI, TRACESIM

RUN_SPAN = TRACESIM.RUN_SPAN

__all__ = ["CONTENTLESS_COLUMNS", "INSPECT_SQL", "contentless_sql"]

_INFERENCE_OPERATIONS = ", ".join(f"'{op}'" for op in GENAI.INFERENCE_OPERATIONS)
_REQUESTING = ", ".join(f"'{op}'" for op in REQUESTING_OPERATIONS)
_CALL_OPERATIONS = ", ".join(f"'{op}'" for op in GENAI.CALL_BEARING_OPERATIONS)

CONTENTLESS_COLUMNS = (
    "trace_id, span_id, parent_span_id, name, start_time, end_time, duration_ms, status_code, "
    "status_message, attributes, events, chat_id, turn_id, operation"
)
"""What `extract.contentless` reads of a candidate conversation's spans (extraction's
columns and the hot `operation`)."""


def contentless_sql(no_payload: str, *, select: str = CONTENTLESS_COLUMNS, tail: str = "") -> str:
    """The spans (tracesim's own aside) of conversations (chat id, else trace) holding no
    tool span and a model call whose attributes carry no payload-looking key (`no_payload`:
    the dialect's predicate over `attributes`, tested last: it reads the JSON): where
    `extract.contentless` looks. `select` and `tail` (a join) let a store add its log
    records."""
    return f"""
        SELECT {select}
        FROM spans {tail}
        WHERE name NOT LIKE 'tracesim.%'
          AND coalesce(chat_id, trace_id) IN (
              SELECT coalesce(chat_id, trace_id) FROM spans
              WHERE operation IN ({_REQUESTING})
                AND coalesce(chat_id, trace_id) NOT IN (
                    SELECT coalesce(chat_id, trace_id) FROM spans
                    WHERE operation = 'execute_tool' OR tool_name IS NOT NULL
                )
                AND {no_payload}
          )
        ORDER BY trace_id, start_time, span_id
    """


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
    # conversations whose model calls may be recorded without content (`extract.contentless`)
    "contentless_candidates": contentless_sql(
        "len(list_filter(json_keys(attributes), "
        f"lambda k: regexp_matches(lower(k), '{PAYLOAD_KEY_PATTERN}'))) = 0"
    ),
    # keyed turns that hold a model or tool span (their other traces are read with them)
    "read_turns": """
        SELECT DISTINCT chat_id, turn_id FROM spans
        WHERE chat_id IS NOT NULL AND (operation IS NOT NULL OR tool_name IS NOT NULL)
    """,
    # spans carrying token usage that no counted model call accounts for (SPEC §5): not a
    # model call, no model call above or below (a wrapper, an agent span summing its calls,
    # a usage-record child), and not mirroring the usage of a model call of its trace (a
    # duplicate reporter, a usage-record sibling). Such tokens are missing from the counts:
    # an inference span tracesim did not recognise. Cycles end at depth 64.
    "uncounted_usage": f"""
        WITH RECURSIVE counted AS (
            SELECT trace_id, span_id, input_tokens, output_tokens FROM llm_calls
        ),
        candidates AS (
            SELECT s.trace_id, s.span_id, s.parent_span_id, s.name, s.chat_id, s.turn_id,
                   s.input_tokens, s.output_tokens
            FROM spans s
            WHERE coalesce(s.input_tokens, 0) + coalesce(s.output_tokens, 0) > 0
              -- a model span left out of llm_calls is a wrapper or a duplicate reporter
              AND coalesce(s.operation, '') NOT IN ({_INFERENCE_OPERATIONS})
              -- the run's turn span holds the agent's chat-completions `usage`, counted as
              -- the agent's own (evaluator.metrics.usage), not an unread inference span
              AND s.name <> '{TRACESIM.TURN_SPAN}'
              AND NOT EXISTS (
                  SELECT 1 FROM counted c
                  WHERE c.trace_id = s.trace_id
                    AND (c.span_id = s.span_id
                         OR (c.input_tokens IS NOT DISTINCT FROM s.input_tokens
                             AND c.output_tokens IS NOT DISTINCT FROM s.output_tokens))
              )
        ),
        up(trace_id, candidate, span_id, depth) AS (
            SELECT trace_id, span_id, parent_span_id, 0 FROM candidates
            WHERE parent_span_id IS NOT NULL
            UNION ALL
            SELECT u.trace_id, u.candidate, s.parent_span_id, u.depth + 1
            FROM up u JOIN spans s ON s.trace_id = u.trace_id AND s.span_id = u.span_id
            WHERE s.parent_span_id IS NOT NULL AND u.depth < 64
        ),
        down(trace_id, candidate, span_id, depth) AS (
            SELECT c.trace_id, c.span_id, s.span_id, 0
            FROM candidates c JOIN spans s
                ON s.trace_id = c.trace_id AND s.parent_span_id = c.span_id
            UNION ALL
            SELECT d.trace_id, d.candidate, s.span_id, d.depth + 1
            FROM down d JOIN spans s
                ON s.trace_id = d.trace_id AND s.parent_span_id = d.span_id
            WHERE d.depth < 64
        ),
        related AS (
            SELECT trace_id, candidate, span_id FROM up
            UNION ALL
            SELECT trace_id, candidate, span_id FROM down
        )
        SELECT c.trace_id, c.span_id, c.name, c.chat_id, c.turn_id,
               c.input_tokens, c.output_tokens
        FROM candidates c
        WHERE NOT EXISTS (
            SELECT 1 FROM related r JOIN counted k
                ON k.trace_id = r.trace_id AND k.span_id = r.span_id
            WHERE r.trace_id = c.trace_id AND r.candidate = c.span_id
        )
        ORDER BY c.trace_id, c.span_id
    """,
}
"""Statement name -> SELECT."""
