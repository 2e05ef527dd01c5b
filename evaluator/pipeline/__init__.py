"""The evaluation pipeline: chunked driver, per-conversation stages, judging stage, progress bar,
worker processes.

Names load on first use (PEP 562): a worker process imports `evaluator.pipeline.chunk`
only, not the judges' LLM client.
"""

from importlib import import_module
from typing import Any

_HOMES = {
    "ChunkPool": "workers",
    "ChunkResult": "chunk",
    "ConversationWork": "stages",
    "EvaluationResult": "pipeline",
    "JudgeStage": "judging",
    "Progress": "progress",
    "WorkerError": "workers",
    "derive_calls": "stages",
    "evaluate_db": "pipeline",
    "judge_task_count": "judging",
    "run_custom": "judging",
    "score_conversation": "stages",
    "tag": "stages",
    "tool_checks": "stages",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tracesim.evaluator.pipeline' has no attribute {name!r}")
    return getattr(import_module(f"tracesim.evaluator.pipeline.{home}"), name)
