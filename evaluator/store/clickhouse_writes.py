"""Writes a chdb store keeps on local disk until its one open query, the spans stream, ends,
then hands to ClickHouse in one statement per table."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from tracesim.evaluator.output.output import REPLACED_TABLES
from tracesim.evaluator.store.clickhouse_schema import quote, string_literal

__all__ = ["DeferredWrites", "flush_deferred"]

_GLOB = set("*?{}[]")
"""Characters `file()` reads as a glob: a spill path holding one is inserted from Python."""
_INSERT_ROWS = 65_536
_INSERT_SETTINGS = (
    f" SETTINGS max_block_size = {_INSERT_ROWS}, max_insert_block_size = {_INSERT_ROWS},"
    f" min_insert_block_size_rows = {_INSERT_ROWS}, min_insert_block_size_bytes = 16000000,"
    " max_threads = 1, max_insert_threads = 1"
)
"""Parts of at most 64k rows, one thread: the default squashes inserts to 1M rows in parallel
(measured on 400k tool_calls rows: +200 MB of RSS by default, +70 MB so, as fast)."""


class DeferredWrites:
    """Chunks' rows appended to local Arrow IPC stream files, one per table (chdb runs one
    query at a time: a write would end the spans stream). Memory stays bounded by a chunk."""

    def __init__(self) -> None:
        self.chunks = 0
        self.dir: str | None = None
        self._writers: dict[str, tuple[Any, Any, pa.Schema]] = {}

    def _append(self, name: str, table: pa.Table) -> None:
        if name not in self._writers:
            sink = pa.OSFile(os.path.join(self._directory(), f"{name}.arrow"), "wb")
            self._writers[name] = (sink, pa.ipc.new_stream(sink, table.schema), table.schema)
        _, writer, schema = self._writers[name]
        writer.write_table(table if table.schema == schema else table.cast(schema))

    def _directory(self) -> str:
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="tracesim-ch-writes-")
        return self.dir

    def add(
        self,
        chat_ids: Sequence[str],
        tool_calls: pa.Table | None,
        scores: pa.Table | None,
        traced_turns: pa.Table | None = None,
    ) -> None:
        """Keep one chunk's rows on disk (the chats, to replace their derived rows)."""
        self._append("chats", pa.table({"chat_id": pa.array(list(chat_ids), pa.string())}))
        if tool_calls is not None and tool_calls.num_rows:
            self._append("tool_calls", tool_calls)
        if traced_turns is not None and traced_turns.num_rows:
            self._append("traced_turns", traced_turns)
        if scores is not None and scores.num_rows:
            self._append("scores", scores)
        self.chunks += 1

    def files(self) -> dict[str, str]:
        """Close the files; the path of each table's file (tables with no rows absent)."""
        out: dict[str, str] = {}
        for name, (sink, writer, _) in self._writers.items():
            writer.close()
            sink.close()
            out[name] = os.path.join(self._directory(), f"{name}.arrow")
        self._writers = {}
        return out

    def discard(self) -> None:
        """Forget what is kept (written, or an evaluation that failed); safe twice."""
        for sink, writer, _ in self._writers.values():
            writer.close()
            sink.close()
        self._writers = {}
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        self.chunks = 0


def _source(path: str) -> str:
    return f"file({string_literal(path)}, 'ArrowStream')"


def flush_deferred(client: Any, deferred: DeferredWrites, *, database: str) -> None:
    """Replace the kept chats' tool_calls and traced_turns and add the scores: one DELETE (only when a chat
    already has rows: a re-evaluation) and one INSERT ... SELECT FROM file() per table, read by
    ClickHouse itself; then the files are removed."""
    try:
        files = deferred.files()
        if "chats" not in files:
            return
        if _GLOB & set(deferred.dir or ""):  # file() would glob: hand the rows over from here
            _insert_from_python(client, files, database=database)
            return
        chats = f"chat_id IN (SELECT chat_id FROM {_source(files['chats'])})"
        for name in REPLACED_TABLES:
            replaced = f"{quote(database)}.{quote(name)}"
            found = client.query(
                f"SELECT count() AS n FROM (SELECT 1 FROM {replaced} WHERE {chats} LIMIT 1)"
            )
            if found.column("n")[0].as_py():  # a re-evaluation: replace the chats' rows
                client.command(f"DELETE FROM {replaced} WHERE {chats}")
        for table in (*REPLACED_TABLES, "scores"):
            if table in files:
                columns = ", ".join(quote(name) for name in _file_columns(files[table]))
                client.command(
                    f"INSERT INTO {quote(database)}.{quote(table)} ({columns}) "
                    f"SELECT {columns} FROM {_source(files[table])}{_INSERT_SETTINGS}"
                )
    finally:
        deferred.discard()


def _file_columns(path: str) -> list[str]:
    with pa.OSFile(path, "rb") as source:
        return list(pa.ipc.open_stream(source).schema.names)


def _insert_from_python(client: Any, files: dict[str, str], *, database: str) -> None:
    """The same writes without `file()`: chats' rows deleted, tables inserted in batches."""
    with pa.OSFile(files["chats"], "rb") as source:
        ids = pa.ipc.open_stream(source).read_all().column("chat_id").to_pylist()
    if ids:
        for name in REPLACED_TABLES:
            client.command(
                f"DELETE FROM {quote(database)}.{quote(name)} WHERE chat_id IN {{ids:Array(String)}}",
                {"ids": ids},
            )
    for table in (*REPLACED_TABLES, "scores"):
        if table not in files:
            continue
        with pa.OSFile(files[table], "rb") as source:
            batches: list[pa.RecordBatch] = []
            for batch in pa.ipc.open_stream(source):
                batches.append(batch)
                if sum(b.num_rows for b in batches) >= _INSERT_ROWS:
                    client.insert(table, pa.Table.from_batches(batches))
                    batches = []
            if batches:
                client.insert(table, pa.Table.from_batches(batches))
