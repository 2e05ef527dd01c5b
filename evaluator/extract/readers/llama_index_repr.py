"""LlamaIndex's own OTel integration: a tool call known only as the Python repr of its
`ToolCall` event (`llamaindex.step.input_summary`), read as an OTel GenAI tool span."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from tracesim.schemas import GENAI
from tracesim.schemas.conventions import LLAMA_INDEX

__all__ = ["llama_index_tool_call_as_genai"]

_QUOTED = r"""=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_NAME = re.compile(r"\btool_name" + _QUOTED)
_ID = re.compile(r"\btool_id" + _QUOTED)
_KWARGS = re.compile(r"\btool_kwargs=(\{.*\})(?:, tool_id=|, \w+=|\)$)", re.DOTALL)
_MAX_SUMMARY = 100_000


def _quoted(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group(1))  # a Python string literal
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _kwargs(text: str) -> dict[str, Any] | None:
    """`tool_kwargs` as a dict when its literal is complete (summaries may be truncated)."""
    match = _KWARGS.search(text)
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def llama_index_tool_call_as_genai(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """The span's attributes plus gen_ai.tool.name / call.id / call.arguments read from the
    ToolCall repr (a literal, never evaluated as code); unchanged when it names no tool."""
    summary = attributes.get(LLAMA_INDEX.STEP_INPUT_SUMMARY)
    if not isinstance(summary, str) or len(summary) > _MAX_SUMMARY:
        return attributes
    name = _quoted(_NAME, summary)
    if not name:
        return attributes
    merged = dict(attributes)
    merged.setdefault(GENAI.OPERATION_NAME, GENAI.OP_EXECUTE_TOOL)
    merged.setdefault(GENAI.TOOL_NAME, name)
    call_id = _quoted(_ID, summary)
    if call_id:
        merged.setdefault(GENAI.TOOL_CALL_ID, call_id)
    arguments = _kwargs(summary)
    if arguments is not None:
        merged.setdefault(GENAI.TOOL_CALL_ARGUMENTS, arguments)
    return merged
