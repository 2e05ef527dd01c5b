"""The evaluation pipeline: chunked driver, per-conversation stages, judging stage, progress bar."""

from evaluator.pipeline.judging import JudgeStage, judge_task_count, run_custom
from evaluator.pipeline.pipeline import EvaluationResult, evaluate_db
from evaluator.pipeline.progress import Progress
from evaluator.pipeline.stages import (
    ConversationWork,
    derive_calls,
    score_conversation,
    tag,
    tool_checks,
)

__all__ = [
    "ConversationWork",
    "EvaluationResult",
    "JudgeStage",
    "Progress",
    "derive_calls",
    "evaluate_db",
    "judge_task_count",
    "run_custom",
    "score_conversation",
    "tag",
    "tool_checks",
]
