"""LLM-judged metrics: built-in judges, their prompts, and the async runner.

`BUILTIN_JUDGES` maps metric names to `Judge`s; `run_judges` grades many
turns and conversations through one shared `JudgeClient` (cache, limiter,
retries). Judges that cannot run report value None with label `not_run`.
"""

from tracesim.evaluator.judges.base import (
    Judge,
    JudgeVerdict,
    MalformedAnswer,
    goal_judge,
    label_judge,
    scale_judge,
)
from tracesim.evaluator.judges.builtin import (
    BEHAVIOR_FAILURE_LABELS,
    BUILTIN_JUDGES,
    GOAL_LABELS,
    TOOL_USE_LABELS,
)
from tracesim.evaluator.judges.context_blocks import reference_trajectory, tool_definitions
from tracesim.evaluator.judges.prompt import judge_messages
from tracesim.evaluator.judges.runner import JudgeTask, not_run_result, run_judges
from tracesim.evaluator.judges.tool_judges import TOOL_JUDGES, with_rubric

__all__ = [
    "BEHAVIOR_FAILURE_LABELS",
    "BUILTIN_JUDGES",
    "GOAL_LABELS",
    "TOOL_JUDGES",
    "TOOL_USE_LABELS",
    "Judge",
    "JudgeTask",
    "JudgeVerdict",
    "MalformedAnswer",
    "goal_judge",
    "judge_messages",
    "label_judge",
    "not_run_result",
    "reference_trajectory",
    "run_judges",
    "scale_judge",
    "tool_definitions",
    "with_rubric",
]
