"""Where an evaluation's chunks are evaluated: in this process, or in worker processes.

`serial_chunks` runs every stage here: derive, judges, custom metrics, score.
`parallel_chunks` hands each chunk as read (`EvalStore.raw_chunks`) to a
`ChunkPool` (`evaluator.pipeline.workers`) and yields the results in chunk order.
`worker_count` chooses between them. Both yield (chat_ids, `ChunkResult`) made by
the same functions (`evaluator.pipeline.chunk`), so they store the same rows.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import logging
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from tracesim.evaluator.checks.custom import CustomMetric
from tracesim.evaluator.load.fetch import ChunkTables
from tracesim.evaluator.load.load import ChunkPlan, ConversationData
from tracesim.evaluator.pipeline.chunk import (
    ChunkResult,
    derive_chunk,
    evaluate_here,
    evaluate_in_worker,
    init_worker,
    score_chunk,
)
from tracesim.evaluator.pipeline.judging import JudgeStage, not_run_results, run_custom
from tracesim.evaluator.pipeline.stages import ConversationWork
from tracesim.evaluator.pipeline.workers import ChunkPool, auto_workers
from tracesim.schemas.eval_config import EvalConfig

__all__ = [
    "CHUNKS_PER_WORKER",
    "HEAD_ROWS",
    "gc_paused",
    "no_gc",
    "parallel_chunks",
    "serial_chunks",
    "split_for_workers",
    "worker_count",
]

log = logging.getLogger(__name__)

T = TypeVar("T")


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC while a chunk builds its many acyclic objects (measured: 1.3x
    faster with 7 checks per turn), and freeze what lived before it (modules, the
    summaries of earlier chunks), so the collections after each chunk scan the chunk's
    leftovers, not every object of the process. `evaluate_db` unfreezes at the end,
    unless its caller had frozen objects itself. (Nothing a chunk builds is cyclic:
    `evaluator.calls.matching` avoids a self-referencing closure for that reason.)"""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def gc_paused(items: Iterator[T]) -> Iterator[T]:
    """`items`, each produced with the cyclic GC paused (`no_gc`): reading a chunk builds
    its many rows."""
    while True:
        with no_gc():
            item = next(items, _END)
        if item is _END:
            return
        yield item  # type: ignore[misc]


_END: Any = object()


def worker_count(requested: int | None, *, plan: ChunkPlan, main_only: bool) -> int:
    """How many worker processes evaluate the chunks (1: this process does).

    Judges (one client, limiter and cache connection for the whole evaluation) and custom
    metrics (user code, any span column) run in this process, between deriving and
    scoring: with either, every stage runs here. Judging waits on the LLM, not the CPU,
    and shipping each conversation's calls and results back and forth would cost what a
    second core saves on the rest.
    """
    if main_only:
        if requested is not None and requested > 1:
            log.warning(
                "workers=%d not used: LLM judges or custom metrics run in this process, "
                "and then so does every stage (evaluating in one process)",
                requested,
            )
        return 1
    if requested is None:
        return auto_workers(chunks=len(plan.chunks), turns=plan.num_turns)
    return min(requested, len(plan.chunks)) or 1


CHUNKS_PER_WORKER = 4
"""With workers, a plan is cut into at least this many chunks per worker: the last round
then keeps one worker busy for a quarter of its share, not a whole chunk (measured at 20k
turns: 5 chunks on 2 workers left one idle for ~15% of the run)."""

MIN_SPLIT_ROWS = 2_500
"""A chunk is not cut below about this many stored rows: each chunk costs a read query and
a write transaction of its own."""


HEAD_ROWS = 5_000
"""About the rows of the first chunk with workers: ~1,000 turns, ~0.25-0.5 s of CPU, about
what the workers' process takes to start (`ChunkPool.run(here=...)`)."""


def split_for_workers(plan: ChunkPlan, workers: int, *, chunk_rows: int) -> ChunkPlan:
    """`plan` with each chunk (of about `chunk_rows` rows) cut into equal runs of chats, so
    that `workers` workers get `CHUNKS_PER_WORKER` chunks each, or chunks of about
    `MIN_SPLIT_ROWS` rows; and the first chunk's first `HEAD_ROWS` or so apart (this
    process evaluates it while the workers start: a longer one would keep them waiting).
    The chats and their order are unchanged, so is what is stored."""
    if workers < 2 or not plan.chunks:
        return plan
    parts = math.ceil(CHUNKS_PER_WORKER * workers / len(plan.chunks))
    parts = max(1, min(parts, chunk_rows // MIN_SPLIT_ROWS))
    chunks: list[list[str]] = []
    for chunk in plan.chunks:
        size = math.ceil(len(chunk) / parts)
        chunks.extend(chunk[i : i + size] for i in range(0, len(chunk), size))
    rows = chunk_rows / parts  # about, per chunk (a chunk is full but for the last)
    first = chunks[0]
    if rows > 1.5 * HEAD_ROWS and len(first) > 1:
        head = max(1, round(len(first) * HEAD_ROWS / rows))
        chunks[0:1] = [first[:head], first[head:]]
    if chunks == plan.chunks:
        return plan
    return dataclasses.replace(plan, chunks=chunks)


def serial_chunks(
    chunks: Iterator[tuple[list[str], list[ConversationData]]],
    config: EvalConfig,
    judges: JudgeStage,
    custom: list[CustomMetric],
    stages: tuple[Callable[..., None], Callable[..., None], Callable[..., None]],
) -> Iterator[tuple[list[str], ChunkResult]]:
    """Evaluate each chunk in this process: derive, judge, custom metrics, score."""
    derived, judged, customized = stages
    parsed: dict[bytes, list[Any]] = {}  # assertion lists by their JSON
    for chat_ids, loaded in chunks:
        with no_gc():
            works = [ConversationWork(data) for data in loaded]
            del loaded
            tool_calls = derive_chunk(works, config, parsed=parsed, advance=derived)
            judges.run(works, judged)
            run_custom(works, custom, config, customized)
            result = score_chunk(works, config, tool_calls=tool_calls)
            del works, tool_calls
        yield chat_ids, result


def parallel_chunks(
    chunks: Iterator[tuple[list[str], ChunkTables | list[ConversationData]]],
    workers: int,
    config: EvalConfig,
    judges: JudgeStage,
    *,
    total: int,
) -> Iterator[tuple[list[str], ChunkResult]]:
    """Evaluate the chunks in `workers` processes (`evaluate_in_worker`), in order."""
    numbered = (((i, chat_ids), loaded) for i, (chat_ids, loaded) in enumerate(chunks))

    def describe(key: tuple[int, list[str]]) -> str:
        index, chat_ids = key
        first, last = chat_ids[0], chat_ids[-1]
        return f"chunk {index + 1} of {total} (chats {first} .. {last})"

    reason = judges.not_run_reason
    not_run = not_run_results(config, reason) if reason is not None else []
    cpu = rss = 0.0
    with ChunkPool(workers, initializer=init_worker, initargs=(config, not_run)) as pool:
        here = functools.partial(evaluate_here, config=config, not_run=not_run)
        run = pool.run(evaluate_in_worker, numbered, describe=describe, here=here)
        for (_, chat_ids), result in run:
            cpu, rss = cpu + result.cpu_seconds, max(rss, result.max_rss_mb)
            yield chat_ids, result
    log.debug(
        "%d worker processes used %.2f CPU-seconds on %d chunks, peak RSS %.0f MB",
        workers,
        cpu,
        total,
        rss,
        extra={"worker_cpu_seconds": cpu, "worker_max_rss_mb": rss},
    )
