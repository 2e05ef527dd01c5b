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
   rows (under a new `eval_id`) are gathered with the next chunks' and written once
   they fill a row group (`evaluator.pipeline.writes`), and its conversations'
   entries spooled for `results.json`.

What outlives a chunk is one small summary per conversation and a running
tally of metric values (`evaluator.scoring.tally`). At the end: the run summary,
the gates (`evaluator.scoring.gates`), a `runs` row and `results.json`.

With `workers` > 1, steps 2, 3, 6 and the rows of 7 run in worker processes, chunk
by chunk, while this process reads the next chunk and writes finished ones in order
(`evaluator.pipeline.schedule`; the first chunk here if they are still starting);
judges and custom metrics keep everything here. Each
chunk's metric values are tallied apart and merged in chunk order, so the serial and
the parallel path give the same floats.

Each batch of chunks' rows is committed with the batch (one transaction holding the
whole evaluation keeps its uncommitted rows in memory: ~7 MB per 10k turns,
unbounded; a batch is one row group of `scores`, ~14k turns with 7 checks). An evaluation is complete when its `runs` row exists; one that
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
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from tracesim.evaluator.checks.custom import CustomMetricError, load_custom_metrics
from tracesim.evaluator.checks.rules import check_config_rules
from tracesim.evaluator.load.arrow_setup import skip_pandas
from tracesim.evaluator.load.load import EXTRACTION_SPAN_COLUMNS, ChunkPlan
from tracesim.evaluator.output.results_file import ResultsWriter
from tracesim.evaluator.output.results_model import ConversationResult, EvaluationReport, RunSummary
from tracesim.evaluator.output.rollup import run_summary
from tracesim.evaluator.output.trials import (
    add_run_totals,
    agent_usage_totals,
    run_trials,
    scenario_results,
)
from tracesim.evaluator.pipeline.judging import JudgeStage, judge_task_count
from tracesim.evaluator.pipeline.progress import Progress
from tracesim.evaluator.pipeline.schedule import (
    gc_paused,
    no_gc,
    parallel_chunks,
    serial_chunks,
    split_for_workers,
    worker_count,
)
from tracesim.evaluator.pipeline.workers import start_server
from tracesim.evaluator.pipeline.writes import WriteBatch
from tracesim.evaluator.scoring.gates import (
    EvalConfigError,
    ExitCode,
    GateResult,
    check_gate_names,
    check_trial_rule,
    evaluate_gates,
)
from tracesim.evaluator.scoring.regression import regression_gate
from tracesim.evaluator.scoring.scoring import (
    STATUS_ERROR,
    STATUS_FAILED,
    STATUS_INTERRUPTED,
    STATUS_NOT_GRADED,
    STATUS_PARTIAL,
)
from tracesim.evaluator.scoring.tally import MetricTally
from tracesim.evaluator.scoring.verdict import Verdict, decide
from tracesim.evaluator.stats.compare import EvaluationDigest, compare_evaluations
from tracesim.evaluator.store import EvalStore, StoreError, open_store
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

DEFAULT_CHUNK_ROWS = 20_000
"""Stored rows (turns + spans) per chunk: ~400 conversations of 10 turns with 3 spans each.
Measured at 100k turns: 40k rows cost ~500 MB at the peak of a chunk that checks 7
assertions per turn, 20k rows about half; smaller chunks cost <10% in speed."""

__all__ = ["EvaluationResult", "check_names", "evaluate_db", "verdict_of"]

log = logging.getLogger(__name__)


@dataclass
class EvaluationResult:
    """What one evaluation produced."""

    eval_id: str
    exit_code: int
    """0 passed, 1 a gate failed, 3 nothing graded or incomplete (`verdict`); bad input
    is raised (exit 2), never returned."""
    gates: list[GateResult]
    summary: RunSummary
    report: EvaluationReport
    results_path: Path | None
    """The `results.json` written (None when no output dir was given)."""

    @property
    def gates_passed(self) -> bool:
        """False when a gate failed."""
        return self.exit_code == ExitCode.OK


def _version() -> str | None:
    try:
        return metadata.version("tracesim")
    except metadata.PackageNotFoundError:
        return None


def check_names(config: EvalConfig, *, base_dir: str | Path | None = None) -> list[Any]:
    """Load the custom metrics and check every name the config gates on (metrics, labels,
    trial rule): what an evaluation checks first, and `tracesim run` before its first
    conversation. Returns the custom metrics; raises EvalConfigError."""
    try:
        custom = load_custom_metrics(config.custom_metrics_file_paths, base_dir=base_dir)
    except CustomMetricError as exc:
        raise EvalConfigError(str(exc)) from exc
    check_gate_names(config, extra=[m.name for m in custom])
    try:
        check_config_rules(config)  # evaluation.policies / tool_validity
    except ValueError as exc:
        raise EvalConfigError(str(exc)) from exc
    check_trial_rule(config, extra=[m.name for m in custom])
    return custom


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
    baseline: EvaluationDigest | None = None,
    select: Callable[[EvalStore, ChunkPlan], ChunkPlan] | None = None,
) -> EvaluationResult:
    """Evaluate the store `db_path`: a DuckDB file (read-write, or through the running
    collector that holds it), a `clickhouse://` / `chdb://` URL (`evaluator.store`), or an
    open `EvalStore` (left open for the caller's report and CI outputs).

    `llm` is the run config's top-level model, used when `config.llm` is None.
    `base_dir` resolves `custom_metrics_file_paths` (the config file's folder).
    `output_dir` receives `results.json` (default `<db stem>_results/` beside the file).
    `chunk_rows` bounds the stored rows (turns + spans) held in memory at once.
    `workers`: processes deriving and scoring the chunks (`evaluator.pipeline.workers`):
    1 (default) evaluates in this process, None picks (`auto_workers`: 2 on 2+ cores for
    20k+ turns). Judges and custom metrics keep every stage in this process
    (`worker_count`). Workers start by forkserver: a script calling this with
    workers != 1 needs the `if __name__ == "__main__":` guard (`multiprocessing`).
    `baseline`: an earlier evaluation (loaded by the caller from `config.baseline`) to
    compare with at the end (`report.comparison`); with `config.fail_on_regression` a
    regressed scenario fails the `baseline_regressions` gate.
    `select` narrows the plan to the conversations to evaluate (`evaluator.select`:
    recent, not yet evaluated, sampled).
    Raises EvalConfigError on a bad configuration or a store that cannot be opened.
    """
    custom = check_names(config, base_dir=base_dir)
    if not custom:  # Arrow builds from lists here; a custom metric may hand pyarrow pandas
        skip_pandas()
    if workers is not None and workers < 1:
        raise EvalConfigError(f"workers must be 1 or more (got {workers})")
    started = datetime.now(timezone.utc).replace(tzinfo=None)
    eval_id = uuid.uuid4().hex
    # Custom metrics may read any span column; extraction reads a few.
    span_columns = None if custom else EXTRACTION_SPAN_COLUMNS
    tally = MetricTally(config)
    evidence: dict[str, int] = {}  # tool evidence no call explains, per kind
    conversations: list[ConversationResult] = []
    bar = Progress(enabled=progress)
    owned = not isinstance(db_path, EvalStore)
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
        if select is not None:
            plan = select(store, plan)
        if not custom and worker_count(workers, plan=plan, main_only=False) > 1:
            start_server()  # its imports overlap the judges' setup and the first read
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
                n_workers = worker_count(
                    workers, plan=plan, main_only=judges.active or bool(custom)
                )
                if n_workers > 1:
                    store.share_cores()
                    plan = split_for_workers(plan, n_workers, chunk_rows=chunk_rows)
                # file-wide evidence (unread turns, uncounted usage) reads the spans only:
                # with workers, counted while their process starts, not after the last
                # chunk (serially, at the end: the chunks' reads have warmed the file)
                file_counts = store.file_evidence() if n_workers > 1 else None
                read = store.raw_chunks if n_workers > 1 else store.chunks
                chunks = gc_paused(read(plan, run_id=run_id, span_columns=span_columns))
                if n_workers > 1:
                    results = parallel_chunks(
                        chunks, n_workers, config, judges, total=len(plan.chunks)
                    )
                else:
                    stages = (derived, judged, customized)
                    results = serial_chunks(chunks, config, judges, custom, stages)
                batch = WriteBatch(store, eval_id=eval_id, created_at=started)
                with closing(results):  # a failure stops the workers at once
                    for chat_ids, result in results:
                        with no_gc():
                            conversations.extend(result.conversations)
                            for entry in result.entries:
                                writer.add_encoded(entry)
                            tally.merge(result.tally)
                            for kind, count in result.evidence.items():
                                evidence[kind] = evidence.get(kind, 0) + count
                            batch.add(
                                chat_ids,
                                tool_calls=result.tool_calls,
                                scores=result.scores,
                                traced_turns=result.traced_turns,
                            )
                            del result
                        if n_workers > 1:
                            derived(len(chat_ids))
                with no_gc():
                    batch.flush()
            if file_counts is None:
                file_counts = store.file_evidence()
            evidence.update(file_counts)  # unread turns, uncounted usage
            usage = judges.usage
            names = [*config.metrics, *(m.name for m in custom)]
            summary = run_summary(
                conversations,
                tally=tally,
                all_metric_names=names,
                partial_failure_threshold=config.partial_failure_threshold,
            )
            scenarios = scenario_results(conversations, config.trial_pass)
            add_run_totals(tally, config)
            gates = evaluate_gates(tally, config)
            trials = run_trials(scenarios, seed=config.seed)
            finished = datetime.now(timezone.utc).replace(tzinfo=None)
            comparison = None
            if baseline is not None:
                this = EvaluationDigest(
                    eval_id=eval_id,
                    run_id=report_run_id,
                    kind=kind,
                    created_at=finished,
                    db=store.label,
                    trials=trials,
                    scenarios=scenarios,
                )
                rule = config.baseline
                comparison = compare_evaluations(
                    baseline,
                    this,
                    alpha=rule.alpha if rule else 0.05,
                    correction=rule.correction if rule else "none",
                    seed=config.seed,
                )
                if config.fail_on_regression:
                    gates.append(regression_gate(comparison))
            verdict = verdict_of(gates, summary, usage)
            exit_code = verdict.exit_code
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
                verdict=verdict.headline,
                llm_usage=usage,
                custom_metrics=[m.name for m in custom],
                trials=trials,
                scenarios=scenarios,
                agent_usage=agent_usage_totals(tally).model_dump(),
                comparison=comparison.model_dump(mode="json") if comparison else None,
                conversations=conversations,
                unexplained_evidence=evidence,
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
                    "summary": report.model_dump_json(
                        include={
                            "summary",
                            "gates",
                            "llm_usage",
                            "trials",
                            "scenarios",
                            "agent_usage",
                            "comparison",
                            "unexplained_evidence",
                        }
                    ),
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
        if owned:
            store.close()
        if not frozen_before:
            gc.unfreeze()
    return EvaluationResult(eval_id, int(exit_code), gates, summary, report, results_path)


def verdict_of(gates: list[GateResult], summary: RunSummary, usage: Any = None) -> Verdict:
    """The evaluation's verdict from its gates, its conversations' statuses and the judges'
    usage (failed judge requests are named as the judge's errors)."""
    counts = summary.status_counts
    return decide(
        gates,
        conversations=summary.num_conversations,
        graded=summary.num_conversations
        - sum(counts.get(s, 0) for s in (STATUS_NOT_GRADED, STATUS_ERROR, STATUS_INTERRUPTED)),
        errored=counts.get(STATUS_ERROR, 0),
        interrupted=counts.get(STATUS_INTERRUPTED, 0),
        not_passed=counts.get(STATUS_FAILED, 0) + counts.get(STATUS_PARTIAL, 0),
        judge_errors=int(getattr(usage, "failed", 0) or 0),
    )
