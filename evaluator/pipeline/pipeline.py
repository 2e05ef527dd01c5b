"""Evaluate a stored DuckDB file: derive tool calls, check, judge, score, gate, write.

`evaluate_db` is what `tracesim evaluate` and the end of `tracesim run` call.
It works through the conversations in chunks of about `chunk_rows` stored
rows (`evaluator.load.load.plan_chunks`), so memory stays bounded whatever the
file holds; per chunk:

1. load its turns, conversations and spans (one query per table);
2. per turn: explicit calls + calls extracted from spans, merged (a chat
   with spans but no simulated turns, e.g. production traces from
   `tracesim collect`, gets one turn per trace: `evaluator.load.traced`; it is
   evaluated only when no `run_id` is given, and never judged);
3. deterministic tool checks from each scenario's `assertions`, and the
   conversation's `tool_error_rate`;
4. LLM judges (async, one shared client for the whole evaluation: cache,
   limiter, retries);
5. custom metrics;
6. turn success, turn success ratio, final score and status (`evaluator.scoring.scoring`);
7. its `tool_calls` rows (the chunk's chats' rows are replaced) and `scores`
   rows (under a new `eval_id`) are written, and its conversations' entries
   spooled for `results.json`.

What outlives a chunk is one small summary per conversation and a running
tally of metric values (`evaluator.scoring.tally`). At the end: the run summary,
the gates (`evaluator.scoring.gates`), a `runs` row and `results.json`.

With `workers` > 1, steps 2, 3, 6 and the rows of 7 run in worker processes, chunk
by chunk, while this process reads the next chunk and writes finished ones in order
(`evaluator.pipeline.workers`); judges and custom metrics keep everything here. Each
chunk's metric values are tallied apart and merged in chunk order, so the serial and
the parallel path give the same floats.

Each chunk's rows are committed with the chunk (one transaction holding the
whole evaluation keeps its uncommitted rows in memory: ~7 MB per 10k turns,
unbounded). An evaluation is complete when its `runs` row exists; one that
fails half-way removes its `scores` rows, and the `tool_calls` rows it
replaced are the current derivation either way.

Per-item failures never escape: a bad assertion, a failed judge or a
raising custom metric becomes a not-graded result with a reason. A bad
configuration raises `EvalConfigError` before anything is written (exit 2).
It is synchronous and must not be called from a running event loop.
"""

from __future__ import annotations

import gc
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from evaluator.checks.custom import CustomMetric, CustomMetricError, load_custom_metrics
from evaluator.load.fetch import ChunkTables
from evaluator.load.load import EXTRACTION_SPAN_COLUMNS, ChunkPlan, ConversationData
from evaluator.output.results_file import ResultsWriter
from evaluator.output.results_model import ConversationResult, EvaluationReport, RunSummary
from evaluator.output.rollup import run_summary
from evaluator.pipeline.chunk import (
    ChunkResult,
    derive_chunk,
    evaluate_in_worker,
    init_worker,
    score_chunk,
)
from evaluator.pipeline.judging import (
    JudgeStage,
    judge_task_count,
    not_run_results,
    run_custom,
)
from evaluator.pipeline.progress import Progress
from evaluator.pipeline.stages import ConversationWork
from evaluator.pipeline.workers import ChunkPool, auto_workers
from evaluator.scoring.gates import (
    EvalConfigError,
    ExitCode,
    GateResult,
    check_gate_names,
    evaluate_gates,
    exit_code_for,
)
from evaluator.scoring.tally import MetricTally
from evaluator.store import EvalStore, StoreError, open_store
from schemas.eval_config import EvalConfig
from schemas.llm_config import LLMConfig

DEFAULT_CHUNK_ROWS = 20_000
"""Stored rows (turns + spans) per chunk: ~400 conversations of 10 turns with 3 spans each.
Measured at 100k turns: 40k rows cost ~500 MB at the peak of a chunk that checks 7
assertions per turn, 20k rows about half; smaller chunks cost <10% in speed."""

__all__ = ["EvaluationResult", "evaluate_db"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class EvaluationResult:
    """What one evaluation produced."""

    eval_id: str
    exit_code: int
    """0 ok, 1 a gate failed (2 and 3 are raised as errors, never returned)."""
    gates: list[GateResult]
    summary: RunSummary
    report: EvaluationReport
    results_path: Path | None
    """The `results.json` written (None when no output dir was given)."""

    @property
    def gates_passed(self) -> bool:
        """False when a gate failed."""
        return self.exit_code == ExitCode.OK


@contextmanager
def _no_gc() -> Iterator[None]:
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


def _gc_paused(items: Iterator[T]) -> Iterator[T]:
    """`items`, each produced with the cyclic GC paused (`_no_gc`): reading a chunk builds
    its many rows."""
    while True:
        with _no_gc():
            item = next(items, _END)
        if item is _END:
            return
        yield item  # type: ignore[misc]


_END: Any = object()


def _worker_count(requested: int | None, *, plan: ChunkPlan, main_only: bool) -> int:
    """How many worker processes evaluate the chunks (1: this process does).

    Judges (one client, limiter and cache connection for the whole evaluation) and custom
    metrics (user code, any span column) run in this process, between deriving and
    scoring: with either, every stage runs here. Judging waits on the LLM, not the CPU,
    and shipping each conversation's calls and results back and forth would cost what a
    second core saves on the rest.
    """
    if main_only:
        if requested is not None and requested > 1:
            log.info("judges or custom metrics run in this process: evaluating in one process")
        return 1
    if requested is None:
        return auto_workers(chunks=len(plan.chunks), turns=plan.num_turns)
    return min(requested, len(plan.chunks)) or 1


def _serial(
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
        with _no_gc():
            works = [ConversationWork(data) for data in loaded]
            del loaded
            tool_calls = derive_chunk(works, config, parsed=parsed, advance=derived)
            judges.run(works, judged)
            run_custom(works, custom, config, customized)
            result = score_chunk(works, config, tool_calls=tool_calls)
            del works, tool_calls
        yield chat_ids, result


def _parallel(
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
    cpu = 0.0
    with ChunkPool(workers, initializer=init_worker, initargs=(config, not_run)) as pool:
        for (_, chat_ids), result in pool.run(evaluate_in_worker, numbered, describe=describe):
            cpu += result.cpu_seconds
            yield chat_ids, result
    log.debug(
        "%d worker processes used %.2f CPU-seconds on %d chunks",
        workers,
        cpu,
        total,
        extra={"worker_cpu_seconds": cpu},
    )


def _version() -> str | None:
    try:
        return metadata.version("tracesim")
    except metadata.PackageNotFoundError:
        return None


def evaluate_db(
    db_path: str | Path | EvalStore,
    *,
    config: EvalConfig,
    run_id: str | None = None,
    llm: LLMConfig | None = None,
    base_dir: str | Path | None = None,
    output_dir: str | Path | None = None,
    progress: bool = True,
    kind: str = "evaluate",
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    workers: int | None = 1,
) -> EvaluationResult:
    """Evaluate the store `db_path`: a DuckDB file (read-write: the collector must be
    stopped), a `clickhouse://` / `chdb://` URL (`evaluator.store`), or an open `EvalStore`.

    `llm` is the run config's top-level model, used when `config.llm` is None.
    `base_dir` resolves `custom_metrics_file_paths` (the config file's folder).
    `output_dir` receives `results.json` (default `<db stem>_results/` beside the file).
    `chunk_rows` bounds the stored rows (turns + spans) held in memory at once.
    `workers`: processes deriving and scoring the chunks (`evaluator.pipeline.workers`):
    1 (default) evaluates in this process, None picks (`auto_workers`: 2 on 2+ cores for
    5k+ turns). Judges and custom metrics keep every stage in this process
    (`_worker_count`). Workers start by forkserver: a script calling this with
    workers != 1 needs the `if __name__ == "__main__":` guard (`multiprocessing`).
    Raises EvalConfigError on a bad configuration or a store that cannot be opened.
    """
    try:
        custom = load_custom_metrics(config.custom_metrics_file_paths, base_dir=base_dir)
    except CustomMetricError as exc:
        raise EvalConfigError(str(exc)) from exc
    check_gate_names(config, extra=[m.name for m in custom])
    if workers is not None and workers < 1:
        raise EvalConfigError(f"workers must be 1 or more (got {workers})")
    started = datetime.now(timezone.utc).replace(tzinfo=None)
    eval_id = uuid.uuid4().hex
    # Custom metrics may read any span column; extraction reads a few.
    span_columns = None if custom else EXTRACTION_SPAN_COLUMNS
    tally = MetricTally(config)
    conversations: list[ConversationResult] = []
    bar = Progress(enabled=progress)
    try:
        store = db_path if isinstance(db_path, EvalStore) else open_store(db_path)
    except StoreError as exc:
        raise EvalConfigError(str(exc)) from exc
    out = Path(output_dir) if output_dir is not None else store.default_output_dir()
    writer: ResultsWriter | None = None
    frozen_before = gc.get_freeze_count()
    try:
        store.prepare()
        plan = store.plan(run_id=run_id, max_rows=chunk_rows)
        report_run_id = run_id if run_id is not None else store.single_run_id()
        writer = ResultsWriter(out)
        judges = JudgeStage(config, config.llm or llm, store.cache_connection())
        try:
            with bar, judges:
                n_chats = plan.num_conversations
                derived = bar.task("tool calls", n_chats)
                judged = bar.task(
                    "judging",
                    judge_task_count(
                        config,
                        conversations=n_chats - plan.num_traced_only,
                        turns=plan.num_turns,
                    )
                    if judges.active
                    else 0,
                )
                customized = bar.task("custom metrics", n_chats if custom else 0)
                n_workers = _worker_count(
                    workers, plan=plan, main_only=judges.active or bool(custom)
                )
                read = store.raw_chunks if n_workers > 1 else store.chunks
                chunks = _gc_paused(read(plan, run_id=run_id, span_columns=span_columns))
                if n_workers > 1:
                    results = _parallel(chunks, n_workers, config, judges, total=len(plan.chunks))
                else:
                    stages = (derived, judged, customized)
                    results = _serial(chunks, config, judges, custom, stages)
                for chat_ids, result in results:
                    with _no_gc():
                        conversations.extend(result.conversations)
                        for entry in result.entries:
                            writer.add_encoded(entry)
                        tally.merge(result.tally)
                        store.write_chunk(
                            eval_id=eval_id,
                            created_at=started,
                            chat_ids=chat_ids,
                            tool_calls=result.tool_calls,
                            scores=result.scores,
                        )
                        del result
                    if n_workers > 1:
                        derived(len(chat_ids))
            usage = judges.usage
            names = [*config.metrics, *(m.name for m in custom)]
            summary = run_summary(
                conversations,
                tally=tally,
                all_metric_names=names,
                partial_failure_threshold=config.partial_failure_threshold,
            )
            gates = evaluate_gates(tally, config)
            exit_code = exit_code_for(gates)
            finished = datetime.now(timezone.utc).replace(tzinfo=None)
            report = EvaluationReport(
                eval_id=eval_id,
                run_id=report_run_id,
                kind=kind,
                created_at=finished,
                db_path=store.label,
                config=config.model_dump(mode="json"),
                summary=summary,
                gates=gates,
                gates_passed=exit_code == ExitCode.OK,
                exit_code=int(exit_code),
                llm_usage=usage,
                custom_metrics=[m.name for m in custom],
                conversations=conversations,
            )
            store.write_run(
                {
                    "eval_id": eval_id,
                    "run_id": report_run_id,
                    "kind": kind,
                    "started_at": started,
                    "finished_at": finished,
                    "config": config.model_dump_json(),
                    "num_conversations": summary.num_conversations,
                    "num_turns": summary.num_turns,
                    "final_score": summary.mean_final_score,
                    "status": summary.status,
                    "gates_passed": exit_code == ExitCode.OK,
                    "exit_code": int(exit_code),
                    "summary": report.model_dump_json(include={"summary", "gates", "llm_usage"}),
                    "tracesim_version": _version(),
                },
            )
        except BaseException:
            store.drop_partial(eval_id)
            raise
        store.finish()
        results_path = writer.finish(report)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    finally:
        store.close()
        if not frozen_before:
            gc.unfreeze()
    return EvaluationResult(eval_id, int(exit_code), gates, summary, report, results_path)
