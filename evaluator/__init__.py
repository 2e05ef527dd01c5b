"""The evaluator: tool calls extracted from spans, merged with explicit ones,
scored by deterministic metrics and LLM judges, gated, and reported.

Imports `schemas` only.
"""

from evaluator.extract import extract_tool_calls
from evaluator.merge import merge_tool_calls

__all__: list[str] = [
    "extract_tool_calls",
    "merge_tool_calls",
]
