"""The evaluator: tool calls extracted from spans, merged with explicit ones,
scored by deterministic metrics and LLM judges, gated, and reported.

Imports `schemas` only.
"""

from tracesim.evaluator.calls.merge import merge_tool_calls
from tracesim.evaluator.extract import extract_tool_calls

__all__: list[str] = [
    "extract_tool_calls",
    "merge_tool_calls",
]

# Evaluation pipeline, judges, custom metrics (the pipeline itself is imported lazily:
# it pulls in duckdb and openai, which extraction alone does not need).
from tracesim.evaluator.checks.context import MetricContext  # noqa: E402
from tracesim.evaluator.checks.custom import CustomMetric, metric  # noqa: E402
from tracesim.schemas.eval_config import EvalConfig  # noqa: E402
from tracesim.schemas.results import MetricResult  # noqa: E402

__all__ += ["CustomMetric", "EvalConfig", "EvaluationResult", "MetricContext", "MetricResult"]
__all__ += ["evaluate_db", "metric"]


def __getattr__(name: str) -> object:
    """PEP 562: `evaluate_db` and `EvaluationResult` load the pipeline on first use."""
    if name in ("evaluate_db", "EvaluationResult"):
        from tracesim.evaluator.pipeline import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'evaluator' has no attribute {name!r}")
