"""`EvalStore` on a DuckDB file: the tables the embedded collector writes (SPEC §4)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from tracesim.evaluator.load.fetch import ChunkTables, fetch_chunk
from tracesim.evaluator.load.load import ChunkPlan, ConversationData, plan_chunks
from tracesim.evaluator.output.output import ScoreColumns, ToolCallColumns, write_chunk, write_run
from tracesim.evaluator.store.base import EvalStore, StoreError

__all__ = ["DuckDBStore"]

log = logging.getLogger(__name__)


class DuckDBStore(EvalStore):
    """A DuckDB file opened read-write (the collector that wrote it must be stopped)."""

    def __init__(self, path: str | Path) -> None:
        import duckdb

        self.path = Path(path)
        self.label = str(self.path)
        if not self.path.is_file():
            raise StoreError(
                f"DuckDB file {self.path} does not exist: give the file a run or collector wrote"
            )
        try:
            self.con: Any = duckdb.connect(str(self.path))
        except duckdb.IOException as exc:
            raise StoreError(
                f"cannot open {self.path} ({exc}); is a collector still writing it? stop it first"
            ) from None

    def prepare(self) -> None:
        from tracesim.schemas import create_all

        create_all(self.con)

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
    ) -> None:
        write_chunk(
            self.con,
            eval_id=eval_id,
            created_at=created_at,
            chat_ids=chat_ids,
            tool_calls=tool_calls,
            scores=scores,
        )

    def write_run(self, row: dict[str, Any]) -> None:
        write_run(self.con, row)

    def drop_partial(self, eval_id: str) -> None:
        try:
            self.con.execute("DELETE FROM scores WHERE eval_id = ?", [eval_id])
        except Exception:  # noqa: BLE001 - the original error is the one to report
            log.exception("could not remove the partial scores of evaluation %s", eval_id)

    def scored_chats(self, *, failed: bool = False) -> set[str]:
        from tracesim.evaluator.select.queries import FAILED_CHATS_SQL, SCORED_CHATS_SQL

        sql = (FAILED_CHATS_SQL if failed else SCORED_CHATS_SQL).format(scores="scores")
        return {row[0] for row in self.con.execute(sql).fetchall()}

    def cache_connection(self) -> Any:
        return self.con

    def default_output_dir(self) -> Path:
        return self.path.parent / f"{self.path.stem}_results"

    def finish(self) -> None:
        self.con.execute("CHECKPOINT")

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None
