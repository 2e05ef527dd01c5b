"""`evaluate_db` measured in a freshly spawned process, for `benchmarks/evaluate.py
--pipeline` and `--db chdb://`: wall, CPU (this process's and the workers'), peak RSS
(VmHWM: the evaluation's own, not the builder's, which spawn would otherwise inherit)
and output size; with `stages`, the CPU per stage (`benchmarks.eval_stages`).
"""

from __future__ import annotations

import cProfile
import logging
import multiprocessing
import os
import pstats
import shutil
import tempfile
import time
import traceback
from queue import Empty
from typing import Any

from tracesim.evaluator.pipeline.chunk import _max_rss_mb

__all__ = ["evaluate_in_child", "run_pipeline"]


class _WorkerCPU(logging.Handler):
    """The CPU time of evaluate_db's worker processes, from the pipeline's debug record
    (they are the forkserver's children, not this process's)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seconds = self.max_rss_mb = 0.0

    def emit(self, record: logging.LogRecord) -> None:
        self.seconds += getattr(record, "worker_cpu_seconds", 0.0)
        self.max_rss_mb = max(self.max_rss_mb, getattr(record, "worker_max_rss_mb", 0.0))


def run_pipeline(
    path: str, profile: bool, workers: int | None = 1, stages: bool = False
) -> dict[str, Any]:
    """`evaluate_db` on `path` (the caller's copy); wall, CPU, peak RSS and output size
    (and with `stages` the CPU per stage: `benchmarks.eval_stages`)."""
    from tracesim.evaluator.pipeline.pipeline import evaluate_db
    from tracesim.schemas.eval_config import EvalConfig

    from benchmarks.eval_stages import StageTimer

    timer = StageTimer() if stages else None
    if timer:
        timer.install()

    out = tempfile.mkdtemp(prefix="tracesim-bench-out-")
    worker_cpu = _WorkerCPU()
    logging.getLogger("tracesim.evaluator.pipeline.schedule").addHandler(worker_cpu)
    logging.getLogger("tracesim.evaluator.pipeline.schedule").setLevel(logging.DEBUG)
    profiler = cProfile.Profile() if profile else None
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    if profiler:
        profiler.enable()
    result = evaluate_db(path, config=EvalConfig(), output_dir=out, progress=False, workers=workers)
    if profiler:
        profiler.disable()
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    cpu_workers = worker_cpu.seconds
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    size = os.path.getsize(result.results_path) if result.results_path else 0
    shutil.rmtree(out)
    return {
        "turns": result.summary.num_turns,
        "calls": result.summary.num_tool_calls,
        "wall": elapsed,
        "cpu": cpu,
        "cpu_workers": cpu_workers,
        "workers_max_rss_mb": worker_cpu.max_rss_mb,
        "max_rss_mb": _max_rss_mb(),  # VmHWM: this process's own, not the builder's
        "results_mb": size / 1e6,
        "stages": timer.report(result.summary.num_turns, cpu) if timer else [],
    }


def _pipeline_child(
    path: str, profile: bool, queue: Any, workers: int | None = 1, stages: bool = False
) -> None:
    try:
        queue.put(run_pipeline(path, profile, workers, stages))
    except BaseException:
        queue.put({"error": traceback.format_exc()})
        raise


def evaluate_in_child(
    path: str, profile: bool, workers: int | None, stages: bool = False
) -> dict[str, Any]:
    """`run_pipeline` in a freshly spawned process; its numbers, or its error.

    A child that dies before answering (an import error, a crash, the OOM killer)
    ends the wait with its exit code instead of leaving this process in `queue.get()`.
    """
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_pipeline_child, args=(path, profile, queue, workers, stages))
    child.start()
    try:
        while True:
            try:
                stats = queue.get(timeout=0.5)
                break
            except Empty:
                if not child.is_alive() and queue.empty():
                    raise SystemExit(
                        f"the evaluating process exited with code {child.exitcode} before "
                        "reporting (its error is printed above)"
                    ) from None
    finally:
        child.join(timeout=60)
    if "error" in stats:
        raise SystemExit(f"the evaluating process failed:\n{stats['error']}")
    return stats
