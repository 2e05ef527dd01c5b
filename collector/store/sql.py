"""SQL text the store runs per batch: trace backfills and upserts (built, never executed here).

Kept apart from `collector.store.store` (connection and transactions) so the
attribution rules of SPEC §3 read as SQL in one place.
"""

from __future__ import annotations

from tracesim.schemas.conventions import ARKSIM, TRACESIM

__all__ = ["backfill_sql", "insert_sql", "session_backfill_sql", "upsert_sql"]

_EXPLICIT_CHAT_KEYS = (TRACESIM.CHAT_ID, ARKSIM.CONVERSATION_ID)


def backfill_sql(table: str) -> str:
    """UPDATE giving rows of a newly known turn's trace that turn (SPEC §3 rule 3), except
    rows whose own chat id (rule 1 or 2, on the span or its resource) names another chat:
    those keep it, as they would had they arrived after the turn span."""
    explicit = ", ".join(
        f"nullif({table}.{column} ->> '$.\"{key}\"', '')"
        for column in ("attributes", "resource_attributes")
        for key in _EXPLICIT_CHAT_KEYS
    )
    return (
        f"UPDATE {table} SET chat_id = m.chat_id, turn_id = m.turn_id "
        f"FROM batch_turnmap m WHERE {table}.trace_id = m.trace_id "
        f"AND {table}.turn_id IS NULL AND ({table}.chat_id IS NULL "
        f"OR {table}.chat_id = m.chat_id OR coalesce({explicit}) IS NULL)"
    )


def session_backfill_sql(table: str) -> str:
    """UPDATE giving rows of a trace the conversation id that keys the trace (SPEC §3 rule
    4 across a trace): rows without any chat id, and rows keyed by a nested agent's own
    session (no turn, no explicit chat key) once the outer conversation is known; rows
    keyed otherwise keep theirs."""
    explicit = ", ".join(
        f"nullif({table}.{column} ->> '$.\"{key}\"', '')"
        for column in ("attributes", "resource_attributes")
        for key in _EXPLICIT_CHAT_KEYS
    )
    return (
        f"UPDATE {table} SET chat_id = m.chat_id FROM batch_sessionmap m "
        f"WHERE {table}.trace_id = m.trace_id AND ({table}.chat_id IS NULL OR "
        f"({table}.turn_id IS NULL AND {table}.chat_id <> m.chat_id "
        f"AND coalesce({explicit}) IS NULL))"
    )


def upsert_sql(table: str, names: tuple[str, ...], key: tuple[str, ...], source: str) -> str:
    """INSERT ... ON CONFLICT (key) DO UPDATE of every other column."""
    updates = ", ".join(f"{name} = excluded.{name}" for name in names if name not in key)
    return (
        f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(names)} FROM {source} "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
    )


def insert_sql(table: str, names: tuple[str, ...], source: str) -> str:
    """Plain INSERT of `names` from `source`, stamping `received_at` with the one parameter
    (the store appends ON CONFLICT DO NOTHING when a key is stored already)."""
    columns = ", ".join(names)
    return (
        f"INSERT INTO {table} ({columns}, received_at) SELECT {columns}, ?::TIMESTAMP FROM {source}"
    )
