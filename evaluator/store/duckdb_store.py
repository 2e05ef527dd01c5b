"""`EvalStore` on a DuckDB file: the tables the embedded collector writes (SPEC §4)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
from tracesim.evaluator.load.fetch import ChunkTables, fetch_chunk
from tracesim.evaluator.load.load import ChunkPlan, ConversationData, plan_chunks
from tracesim.evaluator.output.output import ScoreColumns, ToolCallColumns, write_chunk, write_run
from tracesim.evaluator.store.base import EvalStore, QueryRows, StoreError, StoreMissing
from tracesim.evaluator.store.duckdb_reads import (
    inspect_connection,
    newest_runs,
    run_user_query,
    unkeyed_count,
)
from tracesim.schemas.duckdb_file import looks_like_duckdb, not_a_file
from tracesim.schemas.terminal_text import printable

__all__ = ["DuckDBStore", "FileLocked"]

log = logging.getLogger(__name__)

_PID = re.compile(r"\(PID (\d+)\)")


class FileLocked(StoreError):
    """Another process holds the DuckDB file's lock (`pid` when DuckDB named it)."""

    def __init__(self, path: Path, detail: str) -> None:
        match = _PID.search(detail)
        self.path = path
        self.pid = int(match.group(1)) if match else None
        self.detail = detail
        who = f"process {self.pid}{_command_of(self.pid)}" if self.pid else "another process"
        super().__init__(
            f"{path} is locked by {who} that is not a tracesim collector serving it. Fix: "
            "stop that process, or copy the file and give the copy to --db"
        )


def _command_of(pid: int) -> str:
    """` (its command line)` for a process of this machine, shortened; "" when unknown. Says
    which program holds a file: another `tracesim evaluate`, a notebook, a DuckDB shell."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
    if len(words) > 1 and Path(words[0]).name.startswith("python") and words[1][:1] != "-":
        words = words[1:]  # `python .../tracesim evaluate` reads as `tracesim evaluate`
    if words:
        words[0] = Path(words[0]).name
    text = printable(" ".join(words))
    if not text:
        return ""
    return f" ({text[:80]}{'...' if len(text) > 80 else ''})"


class DuckDBStore(EvalStore):
    """A DuckDB file opened here: read-write to evaluate (no other process may hold it),
    read-only for the reading commands. FileLocked when another process holds it."""

    write_batch_rows = 122_880
    """DuckDB's row group: an append this large goes to the file directly, a smaller one
    through the write-ahead log first, then again at checkpoint."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        import duckdb

        self.path = Path(path)
        self.label = str(self.path)
        self.read_only = read_only
        kind = not_a_file(self.path)
        if kind is not None:
            raise StoreError(
                f"{self.path} is {kind}, not a DuckDB file (--db): give the path of the file "
                "`tracesim run` or `tracesim collect` wrote, or a clickhouse:// / chdb:// store"
            )
        if not self.path.is_file():
            raise StoreMissing(
                f"DuckDB file {self.path} does not exist (--db): create one with `tracesim run "
                "config.yaml` or `tracesim collect --db PATH`"
            )
        if not looks_like_duckdb(self.path):  # DuckDB would open a .json/.csv as a view
            raise StoreError(
                f"{self.path} is not a DuckDB file (--db takes a file `tracesim run` or "
                "`tracesim collect` wrote, a live collector's file, or a clickhouse:// / "
                "chdb:// store; trace files go through `tracesim import`)"
            )
        try:
            self.con: Any = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise FileLocked(self.path, str(exc)) from None
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        except duckdb.ConnectionException as exc:  # this process holds it, e.g. a Collector
            if "different configuration" in str(exc):
                raise FileLocked(self.path, f"this process (PID {os.getpid()})") from None
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        except duckdb.Error as exc:
            raise StoreError(f"{self.path} is not a DuckDB file tracesim can open: {exc}") from None

    def prepare(self) -> None:
        from tracesim.schemas import create_all

        create_all(self.con)
        # DuckDB draws a progress bar on stdout for statements past 2 s (a row group of
        # scores on a busy machine): never in the middle of tracesim's own output
        self.con.execute("SET enable_progress_bar = false")

    def plan(self, *, run_id: str | None, max_rows: int) -> ChunkPlan:
        return plan_chunks(self.con, run_id=run_id, max_rows=max_rows)

    def chunks(
        self, plan: ChunkPlan, *, run_id: str | None, span_columns: Sequence[str] | None
    ) -> Iterator[tuple[list[str], list[ConversationData]]]:
        for chat_ids, tables in self.raw_chunks(plan, run_id=run_id, span_columns=span_columns):
            yield chat_ids, tables.assemble() if isinstance(tables, ChunkTables) else tables

    def raw_chunks(
        self, plan: ChunkPlan, *, run_id: str | None, span_columns: Sequence[str] | None
    ) -> Iterator[tuple[list[str], ChunkTables | list[ConversationData]]]:
        for chat_ids in plan.chunks:
            yield (
                chat_ids,
                fetch_chunk(
                    self.con,
                    chat_ids,
                    run_id=run_id,
                    span_columns=span_columns,
                    trace_chats=plan.trace_chats,
                    span_logs=plan.span_logs,
                ),
            )

    def share_cores(self) -> None:
        import duckdb

        if isinstance(self.con, duckdb.DuckDBPyConnection):  # not a live collector's
            self.con.execute("SET threads=1")  # ~5% less CPU a turn (reads and inserts)

    def single_run_id(self) -> str | None:
        rows = self.con.execute(
            "SELECT DISTINCT run_id FROM (SELECT run_id FROM turns UNION ALL "
            "SELECT run_id FROM conversations) WHERE run_id IS NOT NULL LIMIT 2"
        ).fetchall()
        return rows[0][0] if len(rows) == 1 else None

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
        write_chunk(
            self.con,
            eval_id=eval_id,
            created_at=created_at,
            chat_ids=chat_ids,
            tool_calls=tool_calls,
            scores=scores,
            traced_turns=traced_turns,
        )

    def write_run(self, row: dict[str, Any]) -> None:
        write_run(self.con, row)

    def drop_partial(self, eval_id: str) -> None:
        try:
            self.con.execute("DELETE FROM scores WHERE eval_id = ?", [eval_id])
        except Exception:  # noqa: BLE001 - the original error is the one to report
            log.exception("could not remove the partial scores of evaluation %s", eval_id)

    # readers ------------------------------------------------------------------------------
    def query(self, sql: str, *, check: Callable[[str], None] | None = None) -> QueryRows:
        return run_user_query(self.con, sql, label=self.label, check=check)

    def inspect(self) -> Any:
        return inspect_connection(self.con, label=self.label, own_views=True)

    @contextmanager
    def report_connection(self, eval_id: str | None) -> Iterator[Any]:
        yield self.con  # the report chooses the newest evaluation itself

    def runs_newest_first(self) -> list[str] | None:
        return newest_runs(self.con)

    def unkeyed_tool_spans(self) -> int | None:
        import duckdb

        try:
            return unkeyed_count(self.con)
        except duckdb.Error:  # not a tracesim file: the evaluation says so itself
            return None

    def file_evidence(self) -> dict[str, int]:
        import duckdb
        from tracesim.evaluator.inspect.inspect import file_evidence_counts

        try:
            return file_evidence_counts(self.con)
        except duckdb.Error:  # not a tracesim file: the evaluation says so itself
            return {}

    def scored_chats(self, *, failed: bool = False, by_calls: bool = False) -> set[str]:
        from tracesim.evaluator.select.queries import (
            FAILED_CALL_CHATS_SQL,
            FAILED_CHATS_SQL,
            SCORED_CHATS_SQL,
        )

        chosen = FAILED_CALL_CHATS_SQL if by_calls else FAILED_CHATS_SQL if failed else None
        sql = (chosen or SCORED_CHATS_SQL).format(scores="scores")
        return {row[0] for row in self.con.execute(sql).fetchall()}

    def cache_connection(self) -> Any:
        return self.con

    def default_output_dir(self) -> Path:
        return self.path.parent / f"{self.path.stem}_results"

    def default_report_path(self) -> Path:
        return self.path.parent / "report.html"

    def finish(self) -> None:
        self.con.execute("CHECKPOINT")

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None
