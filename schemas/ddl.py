"""The DuckDB tables: names and columns are a public contract (SPEC §4).

More columns may be added; none may be renamed or removed without bumping
`SCHEMA_VERSION`. `create_all(con)` is idempotent.
"""

from __future__ import annotations

from typing import Any

from tracesim.schemas.views import create_views

__all__ = [
    "SCHEMA_VERSION",
    "SPANS_DDL",
    "LOGS_DDL",
    "TURNS_DDL",
    "CONVERSATIONS_DDL",
    "TOOL_CALLS_DDL",
    "TRACED_TURNS_DDL",
    "SCORES_DDL",
    "RUNS_DDL",
    "LLM_CACHE_DDL",
    "META_DDL",
    "ALL_DDL",
    "create_all",
]

SCHEMA_VERSION = 1

META_DDL = """
CREATE TABLE IF NOT EXISTS tracesim_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR
)"""

SPANS_DDL = """
CREATE TABLE IF NOT EXISTS spans (
    trace_id VARCHAR NOT NULL,            -- 32 lower-case hex
    span_id VARCHAR NOT NULL,             -- 16 lower-case hex
    parent_span_id VARCHAR,               -- NULL for a root span
    name VARCHAR,
    kind VARCHAR,                         -- INTERNAL | SERVER | CLIENT | PRODUCER | CONSUMER | UNSPECIFIED
    start_time TIMESTAMP,                 -- UTC
    end_time TIMESTAMP,                   -- UTC
    duration_ms DOUBLE,
    status_code VARCHAR,                  -- UNSET | OK | ERROR
    status_message VARCHAR,
    service_name VARCHAR,
    scope_name VARCHAR,
    attributes JSON,                      -- object: attribute name -> value
    resource_attributes JSON,
    events JSON,                          -- list of {name, time, attributes}
    links JSON,                           -- list of {trace_id, span_id, attributes}
    chat_id VARCHAR,                      -- routing (SPEC §3); NULL when unkeyed
    turn_id INTEGER,
    operation VARCHAR,                    -- hot fields, filled at ingest from any convention
    tool_name VARCHAR,
    model VARCHAR,
    input_tokens BIGINT,
    output_tokens BIGINT,
    received_at TIMESTAMP,
    PRIMARY KEY (trace_id, span_id)
)"""

LOGS_DDL = """
CREATE TABLE IF NOT EXISTS logs (
    log_id VARCHAR PRIMARY KEY,           -- content hash: a resent record is stored once
    time TIMESTAMP,
    observed_time TIMESTAMP,
    severity_number INTEGER,
    severity_text VARCHAR,
    body JSON,
    event_name VARCHAR,
    trace_id VARCHAR,
    span_id VARCHAR,
    service_name VARCHAR,
    scope_name VARCHAR,
    attributes JSON,
    resource_attributes JSON,
    chat_id VARCHAR,
    turn_id INTEGER,
    received_at TIMESTAMP
)"""

TURNS_DDL = """
CREATE TABLE IF NOT EXISTS turns (
    chat_id VARCHAR NOT NULL,
    turn_id INTEGER NOT NULL,
    run_id VARCHAR,
    scenario_id VARCHAR,
    trace_id VARCHAR,                     -- the turn's trace (its tracesim.turn span)
    span_id VARCHAR,
    user_message VARCHAR,
    agent_message VARCHAR,
    explicit_tool_calls JSON,             -- list of ToolCall the agent returned itself
    start_time TIMESTAMP,
    end_time TIMESTAMP,
    duration_ms DOUBLE,
    status VARCHAR,                       -- ok | error | timeout
    error VARCHAR,
    PRIMARY KEY (chat_id, turn_id)
)"""

CONVERSATIONS_DDL = """
CREATE TABLE IF NOT EXISTS conversations (
    chat_id VARCHAR PRIMARY KEY,
    run_id VARCHAR,
    scenario_id VARCHAR,
    conversation_index INTEGER,           -- which repetition of the scenario
    agent_type VARCHAR,
    num_turns INTEGER,
    status VARCHAR,                       -- completed | max_turns | error | interrupted
    error VARCHAR,
    scenario JSON,                        -- the scenario as run (goal, knowledge, assertions)
    start_time TIMESTAMP,
    end_time TIMESTAMP,
    duration_ms DOUBLE,
    trace_id VARCHAR,
    span_id VARCHAR
)"""

TOOL_CALLS_DDL = """
CREATE TABLE IF NOT EXISTS tool_calls (
    chat_id VARCHAR NOT NULL,
    turn_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,                 -- position in the merged list of the turn
    run_id VARCHAR,
    id VARCHAR,                           -- tool-call id ('' when unknown)
    name VARCHAR,
    arguments JSON,
    result VARCHAR,
    error VARCHAR,
    source VARCHAR,                       -- agent_response | traced (formerly tracing_processor) | a2a_protocol | chat_completions
    traced BOOLEAN,                       -- also seen in spans (explicit + traced = both)
    span_id VARCHAR,
    start_time TIMESTAMP,
    duration_ms DOUBLE,
    id_from VARCHAR,                      -- provenance (SPEC §5): the evidence each field came
    arguments_from VARCHAR,               -- from: tool_span | mcp_span | model_request |
    result_from VARCHAR,                  -- model_input | model_input_position |
    error_from VARCHAR,                   -- execution_span | explicit (NULL: field empty)
    conflicts VARCHAR,                    -- fields whose sources disagreed ('arguments,result')
    PRIMARY KEY (chat_id, turn_id, seq)
)"""

TRACED_TURNS_DDL = """
CREATE TABLE IF NOT EXISTS traced_turns (
    chat_id VARCHAR NOT NULL,             -- a collected (never simulated) conversation
    turn_id INTEGER NOT NULL,             -- as the evaluator numbers its turns
    run_id VARCHAR,                       -- NULL: collected traffic belongs to no run
    trace_id VARCHAR,                     -- the trace the turn was cut from (NULL: keyed spans)
    user_message VARCHAR,                 -- read from the spans (SPEC §14); NULL when absent
    agent_message VARCHAR,
    source VARCHAR,                       -- traced
    message_convention VARCHAR,           -- the convention the messages came from
    PRIMARY KEY (chat_id, turn_id)
)"""
"""Derived by evaluate like `tool_calls`: each evaluation replaces its chats' rows. The
`all_turns` view shows them where `turns` has no row for the chat."""

PROVENANCE_COLUMNS: tuple[str, ...] = (
    "id_from",
    "arguments_from",
    "result_from",
    "error_from",
    "conflicts",
)
"""`tool_calls` columns added after schema version 1 files were written: `create_all` adds
them to an older file."""

SCORES_DDL = """
CREATE TABLE IF NOT EXISTS scores (
    eval_id VARCHAR NOT NULL,             -- one evaluation pass (see runs)
    run_id VARCHAR,
    chat_id VARCHAR,
    turn_id INTEGER,                      -- NULL for conversation-level scores
    metric VARCHAR NOT NULL,
    value DOUBLE,                         -- NULL = not graded
    passed BOOLEAN,
    threshold DOUBLE,
    label VARCHAR,
    reason VARCHAR,
    details JSON,
    created_at TIMESTAMP
)"""

RUNS_DDL = """
CREATE TABLE IF NOT EXISTS runs (
    eval_id VARCHAR PRIMARY KEY,
    run_id VARCHAR,
    kind VARCHAR,                         -- run | evaluate
    started_at TIMESTAMP,
    finished_at TIMESTAMP,
    config JSON,
    num_conversations INTEGER,
    num_turns INTEGER,
    final_score DOUBLE,
    status VARCHAR,
    gates_passed BOOLEAN,
    exit_code INTEGER,
    summary JSON,
    tracesim_version VARCHAR
)"""

LLM_CACHE_DDL = """
CREATE TABLE IF NOT EXISTS llm_cache (
    request_hash VARCHAR PRIMARY KEY,     -- sha256 of the full request
    model VARCHAR,
    request JSON,
    response JSON,
    input_tokens BIGINT,
    output_tokens BIGINT,
    cost_usd DOUBLE,
    created_at TIMESTAMP
)"""

ALL_DDL = (
    META_DDL,
    SPANS_DDL,
    LOGS_DDL,
    TURNS_DDL,
    CONVERSATIONS_DDL,
    TOOL_CALLS_DDL,
    TRACED_TURNS_DDL,
    SCORES_DDL,
    RUNS_DDL,
    LLM_CACHE_DDL,
)


def create_all(con: Any) -> None:
    """Create every table and view (idempotent) and record the schema version."""
    for ddl in ALL_DDL:
        con.execute(ddl)
    for column in PROVENANCE_COLUMNS:
        con.execute(f"ALTER TABLE tool_calls ADD COLUMN IF NOT EXISTS {column} VARCHAR")
    create_views(con)
    con.execute(
        "INSERT INTO tracesim_meta VALUES ('schema_version', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [str(SCHEMA_VERSION)],
    )
