"""A DuckDB file a running `tracesim collect` holds: read and written through that collector.

`open_live` finds the collector (the `--endpoint` given, else the one the file's
sidecar names, else `TRACESIM_COLLECTOR_ENDPOINT` or the default one) and uses it
only once it proves it serves this very file: `GET /tracesim/identity` names the
same resolved path, the nonce the sidecar holds and, when DuckDB named the process
holding the lock, that pid. Anything else (a file locked by a process that is not
its collector, a collector of another file on the default port) is a StoreError.

`LiveStore` reads with the DuckDB readers over `RemoteConnection` (queries run in
the collector, which flushes first: answers see every acknowledged span), writes
`tool_calls`, `scores` and `runs` through `POST /tracesim/write`, and gives the
report a temporary local snapshot of one evaluation.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
from tracesim.evaluator.output.output import ScoreColumns, ToolCallColumns
from tracesim.evaluator.store.base import QueryRows, StoreError
from tracesim.evaluator.store.duckdb_reads import NEWEST_RUNS_SQL, inspect_connection
from tracesim.evaluator.store.duckdb_store import DuckDBStore, FileLocked
from tracesim.evaluator.store.live_client import (
    CollectorClient,
    CollectorUnreachable,
    CollectorUntrusted,
)
from tracesim.evaluator.store.live_connection import RemoteConnection
from tracesim.evaluator.store.llm_cache_file import open_llm_cache

__all__ = ["DEFAULT_ENDPOINT", "ENDPOINT_ENV", "TOKEN_ENV", "LiveStore", "open_live"]

DEFAULT_ENDPOINT = "http://127.0.0.1:4318"
"""Where `tracesim collect` answers by default (its OTLP/HTTP address)."""
ENDPOINT_ENV = "TRACESIM_COLLECTOR_ENDPOINT"
"""Overrides DEFAULT_ENDPOINT: where to look for a collector when the file has no sidecar."""
TOKEN_ENV = "TRACESIM_COLLECTOR_TOKEN"
"""The collector's bearer token, for commands that have no --auth-token-env."""
_EVAL_TABLES = ("runs", "scores")
_CHAT_TABLES = ("turns", "conversations", "tool_calls", "spans", "logs")
LIVE_CHUNK_ROWS = 5_000
"""Most stored rows one chunk of a live evaluation reads: each chunk is one answer of the
collector, which refuses answers past its byte limit (`--query-max-bytes`)."""
_COPY_CHATS = 200
"""Chats whose rows one query of the report's copy reads (each answer stays small)."""


def _read_sidecar(path: Path) -> dict[str, Any]:
    from tracesim.schemas.frames import SIDECAR_SUFFIX

    try:
        document = json.loads(Path(f"{path}{SIDECAR_SUFFIX}").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def _same_file(served: Any, path: Path) -> bool:
    if not isinstance(served, str) or not served:
        return False
    try:
        return os.path.samefile(served, path)
    except OSError:
        return Path(served) == path.resolve()


def _candidates(path: Path, endpoint: str | None) -> list[tuple[str, str | None, bool]]:
    """(endpoint, nonce it must answer or None, named for this file) to try, in order: the
    one given, else the sidecar's, then the default one."""
    sidecar = _read_sidecar(path)
    nonce = sidecar.get("nonce") if isinstance(sidecar.get("nonce"), str) else None
    named = sidecar.get("http_endpoint")
    named = named.rstrip("/") if isinstance(named, str) and named else None
    if endpoint:
        return [(endpoint, nonce if named == endpoint.rstrip("/") else None, True)]
    found: list[tuple[str, str | None, bool]] = [(named, nonce, True)] if named else []
    default = (os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).rstrip("/")
    if default != named:
        found.append((default, None, False))
    return found


def open_live(locked: FileLocked, *, endpoint: str | None, token: str | None) -> LiveStore:
    """The LiveStore of the collector that holds `locked.path`, once it proved it serves
    that file; StoreError naming the locking process and the fix otherwise (or the token
    when the collector named for this file asks for one)."""
    path = locked.path
    token = token or os.environ.get(TOKEN_ENV) or None
    notes: list[str] = []
    for url, nonce, named in _candidates(path, endpoint):
        client = CollectorClient(url, token)
        try:
            identity = client.identity()
        except CollectorUnreachable:
            client.close()
            notes.append(f"nothing answers at {url}")
            continue
        except StoreError as exc:
            client.close()
            refused = "HTTP 401" in str(exc) or "HTTP 403" in str(exc)
            if named and (refused or isinstance(exc, CollectorUntrusted)):
                raise
            notes.append(
                f"{url} asks for a token" if refused else f"{url} does not say which file it serves"
            )
            continue
        pid = identity.get("pid")
        if not _same_file(identity.get("db_path"), path):
            notes.append(f"the collector at {url} serves {identity.get('db_path')}")
        elif nonce is not None and identity.get("nonce") != nonce:
            notes.append(f"the collector at {url} is not the one the sidecar announced")
        elif locked.pid is not None and pid != locked.pid:
            notes.append(f"the collector at {url} is process {pid}, not {locked.pid}")
        else:
            return LiveStore(path, client)
        client.close()
    raise StoreError(f"{locked} ({'; '.join(notes)})" if notes else str(locked))


class LiveStore(DuckDBStore):
    """A DuckDB file read and written through the running collector that holds it."""

    write_batch_rows = 0
    """One write per chunk: the collector bounds what one request may carry."""

    def __init__(self, path: Path, client: CollectorClient) -> None:  # noqa: D107
        self.path = path
        self.label = str(path)
        self.read_only = False
        self.client = client
        self.con: Any = RemoteConnection(client)

    def prepare(self) -> None:
        return None  # the collector created every table when it opened the file

    def plan(self, *, run_id: str | None, max_rows: int) -> Any:
        return super().plan(run_id=run_id, max_rows=min(max_rows, LIVE_CHUNK_ROWS))

    def _write(self, writes: list[dict[str, Any]], tables: list[pa.Table]) -> None:
        self.client.write(writes, tables)

    def write_chunk(
        self,
        *,
        eval_id: str,
        created_at: datetime,
        chat_ids: Sequence[str],
        tool_calls: ToolCallColumns,
        scores: ScoreColumns,
        traced_turns: pa.Table | None = None,
    ) -> None:
        if not chat_ids:
            return
        tables: list[pa.Table] = []
        calls: dict[str, Any] = {"table": "tool_calls", "delete": list(chat_ids)}
        if len(tool_calls):
            calls["rows"] = len(tables)
            tables.append(tool_calls.table())
        turns: dict[str, Any] = {"table": "traced_turns", "delete": list(chat_ids)}
        if traced_turns is not None and traced_turns.num_rows:
            turns["rows"] = len(tables)
            tables.append(traced_turns)
        writes = [calls, turns]
        if len(scores):
            writes.append({"table": "scores", "rows": len(tables)})
            tables.append(scores.table(eval_id, created_at))
        self._write(writes, tables)

    def write_run(self, row: dict[str, Any]) -> None:
        self._write([{"table": "runs", "rows": 0}], [pa.Table.from_pylist([row])])

    def drop_partial(self, eval_id: str) -> None:
        try:
            self._write([{"table": "scores", "delete": [eval_id]}], [])
        except StoreError:  # the original error is the one to report
            pass

    def cache_connection(self) -> Any | None:
        if getattr(self, "_cache", None) is None:
            self._cache = open_llm_cache()
        return self._cache

    def finish(self) -> None:
        return None  # committed in the collector; it checkpoints on its own

    def query(self, sql: str, *, check: Callable[[str], None] | None = None) -> QueryRows:
        if check is not None:
            check(sql)
        return self.client.query_json(sql)

    def inspect(self) -> Any:
        return inspect_connection(self.con, label=self.label, own_views=False)

    def runs_newest_first(self) -> list[str] | None:
        return [row[0] for row in self.con.execute(NEWEST_RUNS_SQL).fetchall()]

    def unkeyed_tool_spans(self) -> int | None:
        try:
            return super().unkeyed_tool_spans()
        except StoreError:
            return None

    def file_evidence(self) -> dict[str, int]:
        try:
            return super().file_evidence()
        except StoreError:
            return {}

    @contextmanager
    def report_connection(self, eval_id: str | None) -> Iterator[Any]:
        import duckdb
        from tracesim.schemas import create_all

        with tempfile.TemporaryDirectory(prefix="tracesim-live-") as tmp:
            path = Path(tmp) / "evaluation.duckdb"
            con = duckdb.connect(str(path))
            try:
                create_all(con)
                self._copy_evaluation(con, eval_id)
                yield con
            finally:
                con.close()

    def _copy_evaluation(self, con: Any, eval_id: str | None) -> None:
        """Copy the rows the readers of `eval_id` (None: the newest) query into `con`: its
        `runs` and `scores`, then the scored chats' rows, a few chats per query."""
        if eval_id is None:
            latest = self.con.execute("SELECT eval_id FROM latest_eval").fetchall()
            if not latest:
                return
            eval_id = latest[0][0]
        for table in _EVAL_TABLES:
            _insert(
                con, table, self.con.execute(f"SELECT * FROM {table} WHERE eval_id = ?", [eval_id])
            )
        chats = [
            row[0]
            for row in self.con.execute(
                "SELECT DISTINCT chat_id FROM scores WHERE eval_id = ? AND chat_id IS NOT NULL "
                "ORDER BY chat_id",
                [eval_id],
            ).fetchall()
        ]
        keys = "chat_id IN (SELECT chat_id FROM _tracesim_report_chats)"
        for at in range(0, len(chats), _COPY_CHATS):
            part = pa.table({"chat_id": pa.array(chats[at : at + _COPY_CHATS], pa.string())})
            self.con.register("_tracesim_report_chats", part)
            try:
                for table in _CHAT_TABLES:
                    where = (
                        keys
                        if table != "logs"
                        else f"span_id IN (SELECT span_id FROM spans WHERE {keys})"
                    )
                    _insert(con, table, self.con.execute(f"SELECT * FROM {table} WHERE {where}"))
            finally:
                self.con.unregister("_tracesim_report_chats")

    def close(self) -> None:
        cache = getattr(self, "_cache", None)
        if cache is not None:
            cache.close()
            self._cache = None
        if self.con is not None:
            self.con.close()
            self.con = None


def _insert(con: Any, table: str, result: Any) -> None:
    """Insert an answer's rows into `table` of the local DuckDB `con`, by column name."""
    rows = result.to_arrow_table()
    if not rows.num_rows:
        return
    con.register("_tracesim_copy", rows)
    try:
        names = ", ".join(f'"{n}"' for n in rows.column_names)
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _tracesim_copy")
    finally:
        con.unregister("_tracesim_copy")
