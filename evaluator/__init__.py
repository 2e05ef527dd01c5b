"""The evaluator: tool calls extracted from spans, merged with explicit ones,
scored by deterministic metrics and LLM judges, gated, and reported.

Imports `schemas` only.
"""

__all__: list[str] = []
