"""CPU time per stage of `evaluate_db`, for `benchmarks/evaluate.py --pipeline --stages`.

Wraps the pipeline's stage functions (in the evaluating process only: use it with
`--workers 1`) so each call adds its CPU time (`time.process_time`) to its stage:
reading (DuckDB query to Arrow), assembling rows, extraction, merge, the tool checks,
scoring, the results.json entries and the DuckDB writes. What no stage covers (the
per-conversation glue, the run's end) is `other`. The wrappers cost ~1 us a call.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

__all__ = ["STAGES", "StageTimer"]

STAGES: tuple[tuple[str, str, str], ...] = (
    ("read", "tracesim.evaluator.store.duckdb_store", "fetch_chunk"),
    ("assemble", "tracesim.evaluator.load.fetch", "ChunkTables.assemble"),
    ("extract", "tracesim.evaluator.pipeline.stages", "extract_tool_calls"),
    ("explicit", "tracesim.evaluator.pipeline.stages", "explicit_calls"),
    ("merge", "tracesim.evaluator.pipeline.stages", "merge_tool_calls"),
    ("audit", "tracesim.evaluator.pipeline.stages", "settle"),
    ("tool_calls rows", "tracesim.evaluator.output.output", "ToolCallColumns.add_turn"),
    ("checks", "tracesim.evaluator.pipeline.chunk", "tool_checks"),
    ("stub checks", "tracesim.evaluator.pipeline.chunk", "stub_checks"),
    ("score", "tracesim.evaluator.pipeline.chunk", "score_conversation"),
    ("results entries", "tracesim.evaluator.pipeline.chunk", "encode_entry"),
    ("judges (not run)", "tracesim.evaluator.pipeline.judging", "JudgeStage.run"),
    ("scores to Arrow", "tracesim.evaluator.pipeline.writes", "score_rows"),
    ("write", "tracesim.evaluator.store.duckdb_store", "DuckDBStore.write_chunk"),
    ("file evidence", "tracesim.evaluator.store.duckdb_store", "DuckDBStore.file_evidence"),
    ("open, plan", "tracesim.evaluator.pipeline.pipeline", "open_store"),
    ("results.json", "tracesim.evaluator.output.results_file", "ResultsWriter.finish"),
    ("trials", "tracesim.evaluator.pipeline.pipeline", "scenario_results"),
)
"""(stage, module, attribute): the functions timed, as the module that calls them sees them."""


class StageTimer:
    """Installs the wrappers (`install`), then reports CPU microseconds per turn (`report`)."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()

    def _wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        seconds = self.seconds

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[stage] += time.process_time() - start

        return timed

    def install(self) -> None:
        """Replace each stage function where the pipeline looks it up."""
        import importlib

        for stage, module_name, attribute in STAGES:
            owner: Any = importlib.import_module(module_name)
            *path, name = attribute.split(".")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, name, self._wrap(stage, getattr(owner, name)))

    def report(self, turns: int, cpu: float) -> list[str]:
        """One line per stage (and `other`), in microseconds of CPU per turn."""
        lines = [
            f"  {stage:16s} {1e6 * self.seconds[stage] / max(turns, 1):7.1f} us/turn"
            for stage, _, _ in STAGES
        ]
        other = cpu - sum(self.seconds.values())
        lines.append(f"  {'other':16s} {1e6 * other / max(turns, 1):7.1f} us/turn")
        return lines
