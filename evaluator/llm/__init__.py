"""The judges' LLM client and its persistent request cache."""

from tracesim.evaluator.llm.cache import CachedAnswer, LLMCache, request_hash
from tracesim.evaluator.llm.llm_client import (
    PLACEHOLDER_API_KEY,
    JudgeAnswer,
    JudgeCallError,
    JudgeClient,
    LLMUsage,
    judge_unavailable_reason,
)

__all__ = [
    "CachedAnswer",
    "JudgeAnswer",
    "JudgeCallError",
    "JudgeClient",
    "LLMCache",
    "LLMUsage",
    "PLACEHOLDER_API_KEY",
    "judge_unavailable_reason",
    "request_hash",
]
