"""The DuckDB store: the only writer of `spans`, `logs`, `turns` and `conversations`.

One read-write connection (`threads=1`, 128MB checkpoint threshold), bulk
inserts from Arrow tables, and one transaction per batch that also records the
last spool sequence number loaded, so a restart replays exactly what is missing.
Not thread-safe: the writer thread owns it; readers use `cursor()`.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from tracesim.collector.decode.decode import SPAN_FIELDS
from tracesim.collector.decode.decode_logs import LOG_FIELDS
from tracesim.collector.errors import NotADuckDBFile, StoreLocked
from tracesim.collector.store.preload_budget import budget_parameters, charge, within_budget
from tracesim.collector.store.prepared import (
    CONVERSATION_FIELDS,
    COUNT_FIELDS,
    TABLE_FIELDS,
    TURN_FIELDS,
    PreparedBatch,
    prepare,
)
from tracesim.collector.store.spans_table import create_spans
from tracesim.collector.store.sql import (
    backfill_sql,
    insert_sql,
    session_backfill_sql,
    upsert_sql,
)
from tracesim.schemas.ddl import create_all
from tracesim.schemas.duckdb_file import looks_like_duckdb, not_a_file

__all__ = [
    "DEFAULT_CHECKPOINT_THRESHOLD",
    "DEFAULT_MEMORY_LIMIT",
    "COUNT_FIELDS",
    "PreparedBatch",
    "Store",
    "TABLE_FIELDS",
    "check_size",
    "prepare",
]

log = logging.getLogger(__name__)

DEFAULT_MEMORY_LIMIT = "512MB"
"""DuckDB's buffer limit. With the threshold below, the collector peaked near 460 MB RSS
instead of 570 MB (1GB / 256MB) at the same ~22k spans/s (benchmarks/ingest.py, 2 cores)."""
DEFAULT_CHECKPOINT_THRESHOLD = "128MB"
"""WAL size after which DuckDB checkpoints into the file: the main lever on peak RSS."""
_SIZE = re.compile(r"\s*\d+(\.\d+)?\s*(b|bytes|[kmgt]i?b)\s*", re.IGNORECASE)


def check_size(name: str, value: str) -> str:
    """`value` when DuckDB reads it as a size ("512MB", "1GiB"); ValueError naming `name`."""
    if not isinstance(value, str) or not _SIZE.fullmatch(value):
        raise ValueError(f"{name}: {value!r} is not a size such as '512MB' or '1GiB'")
    return value.strip()


_LOADED_KEY = "spool_loaded_seq"


def _connect(path: Path, config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    """Open the file; a WAL DuckDB cannot replay is moved aside (never deleted) and the file
    opened at its last checkpoint: the collector keeps every spool record until a checkpoint
    covers it, so replaying the spool restores what the WAL held."""
    try:
        return duckdb.connect(str(path), config=config)
    except duckdb.Error as error:
        wal = Path(f"{path}.wal")
        if "WAL" not in str(error) or not wal.exists():
            raise
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        aside = wal.with_name(f"{wal.name}.damaged-{stamp}")
        wal.rename(aside)
        log.error(
            "the DuckDB write-ahead log of %s is damaged (%s); moved it to %s and opened the "
            "database at its last checkpoint. Every acknowledged request since then is replayed "
            "from the spool. Keep %s for inspection, or delete it.",
            path,
            error,
            aside,
            aside,
        )
    return duckdb.connect(str(path), config=config)


class Store:
    """Read-write DuckDB connection with batch writes (one transaction each)."""

    def __init__(
        self,
        path: str | Path,
        *,
        checkpoint_threshold: str = DEFAULT_CHECKPOINT_THRESHOLD,
        memory_limit: str = DEFAULT_MEMORY_LIMIT,
    ) -> None:
        self.path = Path(path)
        self.duplicates_skipped = 0
        """Spans and log records not inserted because their id was stored already."""
        config = {
            "threads": 1,
            "checkpoint_threshold": checkpoint_threshold,
            "memory_limit": memory_limit,
        }
        kind = not_a_file(self.path)
        if kind is not None:
            raise NotADuckDBFile(
                f"{self.path} is {kind}, not a DuckDB file: give --db a new file name or a "
                "DuckDB file tracesim wrote"
            )
        if not looks_like_duckdb(self.path):
            raise NotADuckDBFile(
                f"{self.path} exists and is not a DuckDB file: give --db a new file name or "
                "a DuckDB file tracesim wrote (trace files go through `tracesim import`)"
            )
        try:
            self.con = _connect(self.path, config)
        except duckdb.IOException as error:
            if "lock" in str(error).lower():
                raise StoreLocked(
                    f"{self.path} is open in another process (another `tracesim collect`?); "
                    "stop it or use another --db file"
                ) from None
            raise
        create_spans(self.con)
        create_all(self.con)
        self._insert_spans = insert_sql("spans", SPAN_FIELDS, "batch_spans")
        self._insert_logs = insert_sql("logs", LOG_FIELDS, "batch_logs")
        self._upsert_turns = upsert_sql(
            "turns", TURN_FIELDS, ("chat_id", "turn_id"), "batch_turns"
        )
        self._upsert_conversations = upsert_sql(
            "conversations", CONVERSATION_FIELDS, ("chat_id",), "batch_conversations"
        )

    def loaded_seq(self) -> int:
        """Last spool sequence number committed into this file (0 when none)."""
        row = self.con.execute(
            "SELECT value FROM tracesim_meta WHERE key = ?", [_LOADED_KEY]
        ).fetchone()
        return int(row[0]) if row else 0

    def known_turns(self, limit: int, max_bytes: int | None = None) -> list[tuple[str, str, int]]:
        """(trace_id, chat_id, turn_id) of stored turns, oldest first: the newest `limit`
        whose router entries fit in `max_bytes` (chat ids are read for those rows only)."""
        newest = within_budget(
            f"SELECT rowid AS row, start_time, {charge('trace_id', 'chat_id')} AS cost "
            "FROM turns WHERE trace_id IS NOT NULL",
            "start_time DESC NULLS LAST, row DESC",
        )
        parameters = budget_parameters(limit, max_bytes)
        return self.con.execute(
            f"WITH kept AS ({newest}) SELECT trace_id, chat_id, turn_id FROM turns "
            "JOIN kept ON turns.rowid = kept.row WHERE kept.charged <= ? "
            "ORDER BY turns.start_time NULLS FIRST, turns.rowid LIMIT ?",
            [*parameters, parameters[0], limit],
        ).fetchall()

    def waiting_traces(self, limit: int, max_bytes: int | None = None) -> tuple[list[str], bool]:
        """Traces with stored spans or logs lacking a turn (up to `limit`, within
        `max_bytes` as the router charges them), and whether that is all."""
        return self._traces_within(
            "SELECT DISTINCT trace_id FROM spans WHERE turn_id IS NULL UNION "
            "SELECT DISTINCT trace_id FROM logs WHERE turn_id IS NULL AND trace_id IS NOT NULL",
            limit,
            max_bytes,
        )

    def trace_sessions(
        self, limit: int, max_bytes: int | None = None
    ) -> tuple[list[tuple[str, str]], list[str], bool]:
        """After a restart: (trace_id, chat_id) of traces keyed without a turn (rule 4), the
        traces with rows lacking any chat (up to `limit` each, within `max_bytes` each as
        the router charges them), and whether that is all."""
        newest = within_budget(
            f"SELECT trace_id, max(start_time) AS start_time, "
            f"{charge('trace_id', 'min(chat_id)')} AS cost FROM spans "
            "WHERE chat_id IS NOT NULL AND turn_id IS NULL GROUP BY trace_id",
            "start_time DESC NULLS LAST, trace_id",
        )
        parameters = budget_parameters(limit, max_bytes)
        sessions = self.con.execute(
            f"WITH kept AS ({newest}), chosen AS (SELECT trace_id, start_time FROM kept "
            "WHERE charged <= ? ORDER BY start_time DESC NULLS LAST, trace_id LIMIT ?) "
            "SELECT spans.trace_id, min(spans.chat_id) FROM spans JOIN chosen "
            "ON spans.trace_id = chosen.trace_id WHERE spans.chat_id IS NOT NULL AND "
            "spans.turn_id IS NULL GROUP BY spans.trace_id "
            "ORDER BY any_value(chosen.start_time) DESC NULLS LAST, spans.trace_id",
            [*parameters, parameters[0], limit],
        ).fetchall()
        unkeyed, complete = self._traces_within(
            "SELECT DISTINCT trace_id FROM spans WHERE chat_id IS NULL UNION "
            "SELECT DISTINCT trace_id FROM logs WHERE chat_id IS NULL AND trace_id IS NOT NULL",
            limit,
            max_bytes,
        )
        return [tuple(r) for r in sessions], unkeyed, complete

    def _traces_within(
        self, traces: str, limit: int, max_bytes: int | None
    ) -> tuple[list[str], bool]:
        """The trace ids `traces` selects that fit the budget, and whether that is all."""
        parameters = budget_parameters(limit, max_bytes)
        rows = self.con.execute(
            within_budget(
                f"SELECT trace_id, {charge('trace_id')} AS cost FROM ({traces})", "trace_id"
            ),
            parameters,
        ).fetchall()
        fits = [row[0] for row in rows[:limit] if row[2] <= parameters[0]]
        return fits, len(fits) == len(rows)

    def write(self, batch: PreparedBatch, seq: int) -> tuple[int, int]:
        """Store one prepared batch and the spool position in one transaction; returns rows
        inserted (spans, logs). Releases the GIL for most of its time (DuckDB).

        Spans and logs go in with a plain INSERT (the batch holds each key once); only when
        one is already stored (a resent request: a constraint error) is the transaction
        run again skipping stored keys. The conflict check costs ~3 µs a span otherwise."""
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        try:
            return self._write(batch, seq, now, conflicts=False)
        except duckdb.ConstraintException:
            return self._write(batch, seq, now, conflicts=True)

    def _write(
        self, batch: PreparedBatch, seq: int, now: datetime, *, conflicts: bool
    ) -> tuple[int, int]:
        """One transaction of `write`; `conflicts`: skip rows whose key is stored already."""
        con = self.con
        stored_spans = stored_logs = 0
        skip = " ON CONFLICT DO NOTHING" if conflicts else ""
        con.begin()
        try:
            if batch.spans is not None:
                con.register("batch_spans", batch.spans)
                stored_spans = con.execute(self._insert_spans + skip, [now]).fetchone()[0]
                con.unregister("batch_spans")
            if batch.logs is not None:
                con.register("batch_logs", batch.logs)
                stored_logs = con.execute(self._insert_logs + skip, [now]).fetchone()[0]
                con.unregister("batch_logs")
            if batch.turns is not None:
                self._run_with(batch.turns, "batch_turns", self._upsert_turns)
            if batch.conversations is not None:
                self._run_with(
                    batch.conversations, "batch_conversations", self._upsert_conversations
                )
            if batch.backfill is not None:
                for table in ("spans", "logs"):
                    self._run_with(batch.backfill, "batch_turnmap", backfill_sql(table))
            if batch.session_backfill is not None:
                for table in ("spans", "logs"):
                    self._run_with(
                        batch.session_backfill, "batch_sessionmap", session_backfill_sql(table)
                    )
            con.execute(
                "INSERT INTO tracesim_meta VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [_LOADED_KEY, str(seq)],
            )
            con.commit()
        except BaseException:
            con.rollback()
            for name in ("batch_spans", "batch_logs"):  # left registered by a failed INSERT
                try:
                    con.unregister(name)
                except duckdb.Error:
                    pass
            raise
        if conflicts:  # rows whose id was stored already: a resent request, or a reused id
            for table, stored in ((batch.spans, stored_spans), (batch.logs, stored_logs)):
                self.duplicates_skipped += table.num_rows - stored if table is not None else 0
        return stored_spans, stored_logs

    def _run_with(self, table: pa.Table, name: str, sql: str) -> None:
        """Run one statement over a registered Arrow table."""
        self.con.register(name, table)
        try:
            self.con.execute(sql)
        finally:
            self.con.unregister(name)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A separate cursor on the same database, for readers."""
        return self.con.cursor()

    def lock_down(self) -> None:
        """From now on no SQL on this database reaches the file system (files, globs, other
        databases, extensions) or changes a setting (memory limit included): DuckDB's own
        `enable_external_access=false` and `lock_configuration=true`, for every connection,
        readers too. The writer needs neither (it registers Arrow tables)."""
        self.con.execute("SET enable_external_access = false")
        self.con.execute("SET lock_configuration = true")

    def checkpoint(self) -> bool:
        """Write everything committed into the file itself (the WAL is emptied); False when
        that failed (logged): spool records must then be kept."""
        if self.con is None:
            return False
        try:
            self.con.execute("CHECKPOINT")
        except duckdb.Error as error:
            log.warning("checkpoint of %s failed: %s", self.path, error)
            return False
        return True

    def close(self) -> None:
        """Checkpoint and close (idempotent)."""
        if self.con is None:
            return
        self.checkpoint()  # closing matters more than the checkpoint
        self.con.close()
        self.con = None  # type: ignore[assignment]
