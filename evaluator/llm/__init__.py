"""The judges' LLM client and its persistent request cache.

Names are imported on first use (PEP 562): `tracesim.evaluator.llm.usage` is imported by
results and worker processes, which must not pay for the providers' SDKs.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "CachedAnswer": "cache",
    "LLMCache": "cache",
    "request_hash": "cache",
    "PLACEHOLDER_API_KEY": "llm_client",
    "JudgeAnswer": "llm_client",
    "JudgeCallError": "llm_client",
    "JudgeClient": "llm_client",
    "judge_unavailable_reason": "llm_client",
    "LLMUsage": "usage",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
