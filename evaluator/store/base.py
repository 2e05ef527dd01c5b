"""The evaluator's view of a store: read spans routed to conversations, write results.

`EvalStore` is what `evaluate_db` talks to, so the same pipeline runs on a
DuckDB file (`DuckDBStore`) and on the tables the stock OTel Collector's
ClickHouse exporter writes (`ClickHouseStore`, over HTTP or through chdb).
Each backend translates its driver's errors into `StoreError` in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from tracesim.evaluator.load.fetch import ChunkTables
from tracesim.evaluator.load.load import ChunkPlan, ConversationData
from tracesim.evaluator.output.output import ScoreColumns, ToolCallColumns

__all__ = ["EvalStore", "StoreError"]


class StoreError(Exception):
    """A store that cannot be opened or read (unreachable, bad credentials, missing or
    unknown tables): the message names the URL and the fix; the CLI exits 2."""


class EvalStore(ABC):
    """One evaluation's connection to a store. Not thread-safe; `close` is safe twice."""

    label: str
    """What to call the store in messages and reports (a path or a URL without password)."""

    @abstractmethod
    def prepare(self) -> None:
        """Create tracesim's own tables and views when missing (idempotent)."""

    @abstractmethod
    def plan(self, *, run_id: str | None, max_rows: int) -> ChunkPlan:
        """The conversations to evaluate, cut into chunks of about `max_rows` stored rows."""

    @abstractmethod
    def chunks(
        self, plan: ChunkPlan, *, run_id: str | None, span_columns: Sequence[str] | None
    ) -> Iterator[tuple[list[str], list[ConversationData]]]:
        """(chat_ids, their conversations) for each chunk of `plan`, in order."""

    def raw_chunks(
        self, plan: ChunkPlan, *, run_id: str | None, span_columns: Sequence[str] | None
    ) -> Iterator[tuple[list[str], ChunkTables | list[ConversationData]]]:
        """`chunks`, each as read: `ChunkTables` (its rows as Arrow tables, to `assemble`)
        when the backend reads tables, else its conversations. What a worker process is sent
        (`evaluator.pipeline.workers`): tables pickle as buffers, conversations value by value."""
        return self.chunks(plan, run_id=run_id, span_columns=span_columns)

    @abstractmethod
    def single_run_id(self) -> str | None:
        """The store's run_id when it holds exactly one run, else None."""

    @abstractmethod
    def write_chunk(
        self,
        *,
        eval_id: str,
        created_at: datetime,
        chat_ids: Sequence[str],
        tool_calls: ToolCallColumns,
        scores: ScoreColumns,
    ) -> None:
        """Replace the chats' `tool_calls` rows and add the chunk's `scores` rows."""

    @abstractmethod
    def write_run(self, row: dict[str, Any]) -> None:
        """Add the evaluation's `runs` row (it marks the evaluation complete)."""

    @abstractmethod
    def drop_partial(self, eval_id: str) -> None:
        """Remove the scores of an evaluation that failed half-way (best effort)."""

    def scored_chats(self, *, failed: bool = False) -> set[str]:
        """Chats some evaluation scored; `failed`: those whose newest evaluation has a failed
        result (`evaluator.select.queries`). Used to evaluate only new chats, and to promote
        failed ones to scenarios."""
        raise NotImplementedError(f"{type(self).__name__} cannot list scored chats")

    def cache_connection(self) -> Any | None:
        """A DuckDB-style connection for the persistent LLM cache, or None (in-memory cache)."""
        return None

    def default_output_dir(self) -> Path:
        """Where `results.json` goes when no output dir is given."""
        return Path("results")

    def finish(self) -> None:
        """Make the evaluation's writes durable (after the `runs` row); none by default."""
        return None

    @abstractmethod
    def close(self) -> None:
        """Release the connection (safe twice)."""

    def __enter__(self) -> EvalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
