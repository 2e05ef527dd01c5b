"""One chunk's deterministic work: derive tool calls, check, score; what it hands back.

`derive_chunk` and `score_chunk` are the two halves the pipeline runs around
the judges and the custom metrics. When neither needs the main process,
`evaluate_chunk` runs both halves at once, in a worker process
(`evaluator.pipeline.workers`) or in-process: the same functions either
way, so a parallel evaluation stores what a serial one does.

A `ChunkResult` is what outlives the chunk: its `tool_calls` and `scores`
(and `traced_turns`) rows as Arrow tables (pickled as buffers, not as one object per value), its
conversations' summaries, their `results.json` entries already encoded, and
a tally of the chunk's metric values (`MetricTally.merge`d in chunk order).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pyarrow as pa
from tracesim.evaluator.load.arrow_setup import skip_pandas
from tracesim.evaluator.load.fetch import ChunkTables
from tracesim.evaluator.load.load import ConversationData
from tracesim.evaluator.output.output import (
    ENCODED_SCORES_SCHEMA,
    SCORES_SCHEMA,
    ScoreColumns,
    ToolCallColumns,
    evaluation_columns,
    traced_turns_table,
)
from tracesim.evaluator.output.results_file import encode_entry
from tracesim.evaluator.output.results_model import ConversationResult
from tracesim.evaluator.pipeline.check_stage import stub_checks, tool_checks
from tracesim.evaluator.pipeline.score_stage import score_conversation
from tracesim.evaluator.pipeline.stages import ConversationWork, add_results, derive_calls
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig

__all__ = [
    "ChunkResult",
    "ScoreTable",
    "ToolCallTable",
    "derive_chunk",
    "evaluate_chunk",
    "evaluate_here",
    "evaluate_in_worker",
    "init_worker",
    "score_chunk",
    "score_rows",
]


def _noop(count: int = 1) -> None:
    return None


class ToolCallTable(ToolCallColumns):
    """A chunk's `tool_calls` rows already built as an Arrow table (cheap to pickle)."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __len__(self) -> int:
        return self._table.num_rows

    def add_turn(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("ToolCallTable is built: add rows to a ToolCallColumns")

    def table(self) -> pa.Table:
        return self._table


class ScoreTable(ScoreColumns):
    """A chunk's `scores` rows as an Arrow table; `eval_id` and `created_at` added on write."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __len__(self) -> int:
        return self._table.num_rows

    def add(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("ScoreTable is built: add rows to a ScoreColumns")

    def table(self, eval_id: str, created_at: datetime, *, encoded: bool = False) -> pa.Table:
        n = self._table.num_rows
        columns = {name: self._table.column(name) for name in self._table.column_names}
        columns.update(evaluation_columns(eval_id, created_at, n))
        schema = ENCODED_SCORES_SCHEMA if encoded else SCORES_SCHEMA
        arrays = [_as(columns[f.name], f.type) for f in schema]
        return pa.Table.from_arrays(arrays, schema=schema)


def _as(column: Any, kind: pa.DataType) -> Any:
    """`column` as `kind`: decoded only when plain text is asked for (a cast imports
    pyarrow.compute, ~0.2 s the evaluating process otherwise never spends)."""
    return column if column.type == kind else column.cast(kind)


_SCORE_FIELDS = [f for f in ENCODED_SCORES_SCHEMA if f.name not in ("eval_id", "created_at")]
_SCORE_ROWS_SCHEMA = pa.schema(_SCORE_FIELDS)


def score_rows(scores: ScoreColumns) -> pa.Table:
    """`scores` rows as an Arrow table without `eval_id` and `created_at`, text columns
    dictionary-encoded (a `ScoreTable`'s own table; `ScoreTable` of several concatenated
    is one batch of rows)."""
    if isinstance(scores, ScoreTable):
        return scores._table
    columns = scores.arrays(encoded=True)
    return pa.Table.from_arrays([columns[f.name] for f in _SCORE_FIELDS], schema=_SCORE_ROWS_SCHEMA)


@dataclass
class ChunkResult:
    """What a chunk leaves once evaluated (see the module docstring)."""

    tool_calls: ToolCallColumns
    scores: ScoreColumns
    conversations: list[ConversationResult]
    entries: list[bytes]
    """The conversations' `results.json` entries (`ResultsWriter.add_encoded`)."""
    tally: MetricTally
    cpu_seconds: float = 0.0
    """CPU time the worker process spent on the chunk (0 when evaluated in-process)."""
    max_rss_mb: float = 0.0
    """The worker process's peak RSS so far (0 when evaluated in-process)."""
    evidence: dict[str, int] = field(default_factory=dict)
    """Tool evidence no call explains, per kind, over the chunk (`evaluator.extract.audit`)."""
    traced_turns: pa.Table | None = None
    """The `traced_turns` rows: turns and messages derived from collected chats' spans."""

    def built(self) -> ChunkResult:
        """This result with its rows as Arrow tables (what a worker sends back)."""
        return ChunkResult(
            ToolCallTable(self.tool_calls.table()),
            ScoreTable(score_rows(self.scores)),
            self.conversations,
            self.entries,
            self.tally,
            evidence=self.evidence,
            traced_turns=self.traced_turns,
        )


def derive_chunk(
    works: Sequence[ConversationWork],
    config: EvalConfig,
    *,
    parsed: dict[bytes, list[Any]],
    advance: Callable[..., None] = _noop,
) -> ToolCallColumns:
    """Derive every turn's tool calls and run the tool checks; return the `tool_calls` rows.

    `parsed` caches parsed assertion lists across chunks (`tool_checks`).
    """
    rows = ToolCallColumns()
    for work in works:
        derive_calls(work, rows)
        if config.tool_checks:
            tool_checks(work, parsed=parsed, config=config)
            stub_checks(work)
        advance()
    return rows


def score_chunk(
    works: Sequence[ConversationWork], config: EvalConfig, *, tool_calls: ToolCallColumns
) -> ChunkResult:
    """Score every conversation of the chunk (after judges and custom metrics ran)."""
    tally = MetricTally(config)
    scores = ScoreColumns()
    conversations: list[ConversationResult] = []
    entries: list[bytes] = []
    for work in works:
        conversation, entry = score_conversation(work, config, scores=scores, tally=tally)
        conversations.append(conversation)
        entries.append(encode_entry(entry))
    evidence: dict[str, int] = {}
    for work in works:
        for kind, count in work.evidence.items():
            evidence[kind] = evidence.get(kind, 0) + count
    traced = traced_turns_table(
        [t for work in works if work.data.traced_only for t in work.data.turns]
    )
    return ChunkResult(
        tool_calls, scores, conversations, entries, tally, evidence=evidence, traced_turns=traced
    )


def evaluate_chunk(
    loaded: list[ConversationData],
    config: EvalConfig,
    *,
    not_run: Sequence[MetricResult],
    parsed: dict[bytes, list[Any]],
) -> ChunkResult:
    """Everything a chunk needs when no judge runs and no custom metric is configured:
    derive, check, add the selected judges' `not_run` results (`not_run_results`: they
    cannot run), score."""
    works = [ConversationWork(data) for data in loaded]
    tool_calls = derive_chunk(works, config, parsed=parsed)
    add_results(works, not_run)
    return score_chunk(works, config, tool_calls=tool_calls)


_worker: dict[str, Any] = {}
"""A worker process's settings (`init_worker`) and its cache of parsed assertion lists."""


def init_worker(config: EvalConfig, not_run: Sequence[MetricResult]) -> None:
    """Set up a worker process for `evaluate_in_worker` (a `ChunkPool` initializer)."""
    skip_pandas()
    _worker.update(config=config, not_run=not_run, parsed={})


def evaluate_in_worker(chunk: ChunkTables | list[ConversationData]) -> ChunkResult:
    """`evaluate_chunk` in a worker process, on a chunk as read (`EvalStore.raw_chunks`),
    its rows built as Arrow tables to send back. The cyclic GC pauses meanwhile: nothing
    a chunk builds is cyclic (see `evaluator.pipeline.schedule.no_gc`)."""
    cpu = time.process_time()
    gc.disable()
    try:
        loaded = chunk.assemble() if isinstance(chunk, ChunkTables) else chunk
        del chunk
        result = evaluate_chunk(
            loaded,
            _worker["config"],
            not_run=_worker["not_run"],
            parsed=_worker["parsed"],
        ).built()
    finally:
        gc.enable()
    result.cpu_seconds = time.process_time() - cpu
    result.max_rss_mb = _max_rss_mb()
    return result


def evaluate_here(
    chunk: ChunkTables | list[ConversationData],
    *,
    config: EvalConfig,
    not_run: Sequence[MetricResult],
) -> ChunkResult:
    """`evaluate_in_worker` in the evaluating process (its first chunk, while the worker
    processes start): the same functions, so the same rows; its CPU is this process's."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        loaded = chunk.assemble() if isinstance(chunk, ChunkTables) else chunk
        del chunk
        return evaluate_chunk(loaded, config, not_run=not_run, parsed={}).built()
    finally:
        if enabled:
            gc.enable()


def _max_rss_mb() -> float:
    """This process's own peak RSS in MB: Linux's VmHWM, which starts afresh in a spawned
    or forked process (getrusage's ru_maxrss is carried over from the parent), else
    getrusage; 0 where neither exists (Windows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    try:
        import resource
    except ImportError:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
