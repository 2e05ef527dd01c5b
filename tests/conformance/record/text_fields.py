"""The scripted model's answers for agents that talk to the model in text fields, not tool
calls (stdlib only): DSPy's ChatAdapter (`[[ ## field ## ]]` markers).

A DSPy ReAct step asks for `next_thought`, `next_tool_name` and `next_tool_args`; its
trajectory so far is in the request as `[[ ## observation_N ## ]]` fields, so the number of
observations is the step. The script's calls come in order, then `finish`; a request for
other fields (ReAct's final extraction: `reasoning`, `answer`) gets the final text.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["dspy_fields", "dspy_reply", "dspy_step"]

Call = tuple[str, str, dict[str, Any]]

_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]")
_OBSERVATION = re.compile(r"\[\[ ## observation_\d+ ## \]\]")
_ASK = "Respond with the corresponding output fields"


def _texts(body: dict[str, Any]) -> list[str]:
    texts = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = "".join(p.get("text") or "" for p in content if isinstance(p, dict))
        if isinstance(content, str):
            texts.append(content)
    return texts


def dspy_fields(body: dict[str, Any]) -> list[str] | None:
    """The output fields a DSPy ChatAdapter request asks for, in order; None for any other
    request."""
    asks = [line for text in _texts(body) for line in text.splitlines() if _ASK in line]
    if not asks:
        return None
    return [f for f in _FIELD.findall(asks[-1]) if f != "completed"]


def dspy_step(body: dict[str, Any]) -> int:
    """Observations in the last user message: the ReAct step (0 for other requests)."""
    texts = _texts(body)
    return len(_OBSERVATION.findall(texts[-1])) if texts else 0


def dspy_reply(fields: list[str], step: int, script: list[Call], final: str) -> str:
    """The assistant text filling `fields`: the script's next call, `finish`, or the answer."""
    values: dict[str, str] = {}
    if "next_tool_name" in fields:
        if step < len(script):
            _, name, args = script[step]
            values = {
                "next_thought": f"I will call {name}.",
                "next_tool_name": name,
                "next_tool_args": json.dumps(args),
            }
        else:
            values = {
                "next_thought": "I have what I need.",
                "next_tool_name": "finish",
                "next_tool_args": "{}",
            }
    for field in fields:
        values.setdefault(field, "I have what I need." if field == "reasoning" else final)
    parts = [f"[[ ## {f} ## ]]\n{values[f]}" for f in fields]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])
