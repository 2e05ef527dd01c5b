"""The evaluator's view of a store: read spans routed to conversations, write results.

`EvalStore` is what `evaluate_db` talks to, so the same pipeline runs on a
DuckDB file (`DuckDBStore`) and on the tables the stock OTel Collector's
ClickHouse exporter writes (`ClickHouseStore`, over HTTP or through chdb).
Each backend translates its driver's errors into `StoreError` in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
from tracesim.evaluator.load.fetch import ChunkTables
from tracesim.evaluator.load.load import ChunkPlan, ConversationData
from tracesim.evaluator.output.output import ScoreColumns, ToolCallColumns

__all__ = ["EvalStore", "QueryRows", "StoreError", "StoreMissing"]


class StoreError(Exception):
    """A store that cannot be opened or read (unreachable, bad credentials, missing or
    unknown tables): the message names the URL and the fix; the CLI exits 2."""


class StoreMissing(StoreError, FileNotFoundError):
    """The DuckDB file `--db` names does not exist."""


@dataclass
class QueryRows:
    """Column names and rows of one `EvalStore.query`."""

    columns: list[str]
    rows: list[list[Any]]
    source: str
    """What answered: the file, the collector's query URL, the ClickHouse store's label."""
    truncated: bool = False
    """True when a collector's row limit cut the rows."""


class EvalStore(ABC):
    """One connection to a store: what the evaluation reads and writes, and what the
    reading commands (`sql`, `inspect`, `report`, the CI outputs) need. Not thread-safe;
    `close` is safe twice."""

    label: str
    """What to call the store in messages and reports (a path or a URL without password)."""
    write_batch_rows: int = 0
    """`scores` rows an evaluation gathers (from consecutive chunks) before one
    `write_chunk` stores them (`evaluator.pipeline.writes`); 0: one write per chunk."""

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

    def share_cores(self) -> None:
        """Worker processes use every core: keep the store's own threads to one (CPU spent
        coordinating threads would come out of the workers' share). Default: nothing."""
        return None

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
        traced_turns: pa.Table | None = None,
    ) -> None:
        """Replace the chats' `tool_calls` and `traced_turns` rows (`traced_turns`: the turns
        derived from collected chats' spans, `TRACED_TURNS_SCHEMA`) and add the chunk's
        `scores` rows."""

    @abstractmethod
    def write_run(self, row: dict[str, Any]) -> None:
        """Add the evaluation's `runs` row (it marks the evaluation complete)."""

    @abstractmethod
    def drop_partial(self, eval_id: str) -> None:
        """Remove the scores of an evaluation that failed half-way (best effort)."""

    def scored_chats(self, *, failed: bool = False, by_calls: bool = False) -> set[str]:
        """Chats some evaluation scored; `failed`: those whose newest evaluation has a failed
        result; `by_calls`: a failed check of the calls themselves (`evaluator.select.queries`).
        Used to evaluate only new chats, and to promote failed ones to scenarios."""
        raise NotImplementedError(f"{type(self).__name__} cannot list scored chats")

    def cache_connection(self) -> Any | None:
        """A DuckDB-style connection for the persistent LLM cache, or None (in-memory cache)."""
        return None

    def default_output_dir(self) -> Path:
        """Where `results.json` goes when no output dir is given."""
        return Path("results")

    def default_report_path(self) -> Path:
        """Where `tracesim report` writes when no --out is given."""
        return self.default_output_dir() / "report.html"

    def finish(self) -> None:
        """Make the evaluation's writes durable (after the `runs` row); none by default."""
        return None

    # readers ------------------------------------------------------------------------------
    @abstractmethod
    def query(self, sql: str, *, check: Callable[[str], None] | None = None) -> QueryRows:
        """A user's read-only SQL in the store's dialect (`tracesim sql`). `check` is the
        caller's statement check, applied where the store itself does not refuse writes."""

    @abstractmethod
    def inspect(self) -> Any:
        """What tracesim understood of the spans stored (`evaluator.inspect.Inspection`)."""

    @abstractmethod
    def report_connection(self, eval_id: str | None) -> AbstractContextManager[Any]:
        """A DuckDB connection holding what readers of evaluation `eval_id` (None: the
        newest) query with DuckDB SQL: the report, the CI outputs, the pytest plugin.
        StoreError when the store holds no evaluation."""

    def final(self, table: str) -> str:
        """How `query` names `table` to read its current rows (ClickHouse's replacing
        tables keep superseded rows until merged: `runs FINAL`)."""
        return table

    def runs_newest_first(self) -> list[str] | None:
        """The store's run_ids, newest first; None when the store does not choose a run
        (every conversation is evaluated unless one is asked for)."""
        return None

    def unkeyed_tool_spans(self) -> int | None:
        """Tool spans the collector could not key to a conversation; None when unknown."""
        return None

    def file_evidence(self) -> dict[str, int]:
        """Unexplained evidence found over the whole store rather than per conversation
        (unread turns, uncounted usage: `inspect.file_evidence_counts`), by kind; empty
        when unknown."""
        return {}

    @abstractmethod
    def close(self) -> None:
        """Release the connection (safe twice)."""

    def __enter__(self) -> EvalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
