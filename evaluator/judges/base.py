"""A judge: a rubric, a fixed answer schema (reasoning first), and how to read the answer.

Two shapes cover the built-in judges:
- a 1-5 scale (`scale_judge`), mapped to [0, 1] as (score - 1) / 4, label `"<score>/5"`;
- a fixed label set (`label_judge`), each label mapped to a value.
Goal completion is a label set plus a 0..1 score (`goal_judge`).

The schema puts `reasoning` before the score or label so the model reasons
before it decides (JSON object keys are generated in schema order). An
answer outside the schema raises `MalformedAnswer`; the runner records the
metric as not graded, never 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import orjson

__all__ = [
    "Judge",
    "JudgeVerdict",
    "MalformedAnswer",
    "SCALE_LABELS",
    "goal_judge",
    "label_judge",
    "scale_judge",
]

SCALE_LABELS: Mapping[int, str] = {1: "1/5", 2: "2/5", 3: "3/5", 4: "4/5", 5: "5/5"}
"""Labels of the 1-5 scale judges."""


class MalformedAnswer(ValueError):
    """The judge's answer is not valid JSON or breaks the schema or the label set."""


@dataclass(frozen=True)
class JudgeVerdict:
    """A judge's parsed answer."""

    value: float
    label: str
    reasoning: str


@dataclass(frozen=True)
class Judge:
    """One LLM-judged metric."""

    name: str
    """Metric name (`helpfulness`, ...)."""
    level: Literal["turn", "conversation"]
    """Graded once per turn or once per conversation."""
    rubric: str
    """The system prompt: what is graded and what each score or label means."""
    schema: dict[str, Any]
    """JSON schema of the answer (strict: every key required, no extras)."""
    read: Callable[[dict[str, Any]], JudgeVerdict]
    """Turns the decoded answer into a verdict; raises MalformedAnswer."""
    pass_labels: frozenset[str] | None = None
    """For label judges: the labels that pass (None = pass by threshold on the value)."""
    sees: frozenset[str] = frozenset()
    """Extra context the prompt shows: `tool_definitions`, `reference_trajectory`."""
    severity: Mapping[str, str] | None = None
    """For failure-label judges: label -> `critical` | `high` | `medium` | `low`, written
    to the result's `details["severity"]`."""
    without_tool_calls: str | None = None
    """When set, a turn without tool calls gets this label with no request (arksim's
    `tool_call_behavior_failure` answers `no failure` there)."""

    def parse(self, content: str) -> JudgeVerdict:
        """Decode and check a raw answer."""
        try:
            data = orjson.loads(content)
        except orjson.JSONDecodeError as exc:
            raise MalformedAnswer(f"answer is not JSON ({exc}): {content[:200]!r}") from exc
        if not isinstance(data, dict):
            raise MalformedAnswer(f"answer is not a JSON object: {content[:200]!r}")
        missing = [k for k in self.schema["required"] if k not in data]
        if missing:
            raise MalformedAnswer(f"answer lacks {missing}: {content[:200]!r}")
        reasoning = data.get("reasoning")
        if not isinstance(reasoning, str):
            raise MalformedAnswer("answer's reasoning is not a string")
        return self.read(data)


def _object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_REASONING = {"type": "string", "description": "Step-by-step justification, written first."}


def scale_judge(name: str, rubric: str) -> Judge:
    """A turn-level 1-5 judge: value (score - 1) / 4, label `"<score>/5"`."""
    schema = _object_schema(
        {
            "reasoning": _REASONING,
            "score": {
                "type": "integer",
                "enum": [1, 2, 3, 4, 5],
                "description": "1 worst, 5 best.",
            },
        }
    )

    def read(data: dict[str, Any]) -> JudgeVerdict:
        score = data["score"]
        if isinstance(score, bool) or score not in SCALE_LABELS:
            raise MalformedAnswer(f"score {score!r} is not one of 1, 2, 3, 4, 5")
        return JudgeVerdict((int(score) - 1) / 4, SCALE_LABELS[int(score)], data["reasoning"])

    return Judge(name=name, level="turn", rubric=rubric, schema=schema, read=read)


def label_judge(
    name: str,
    rubric: str,
    *,
    labels: Mapping[str, float],
    passing: set[str],
    level: Literal["turn", "conversation"] = "turn",
    sees: frozenset[str] = frozenset(),
    severity: Mapping[str, str] | None = None,
    without_tool_calls: str | None = None,
) -> Judge:
    """A judge answering one label of a fixed set; each label has a value."""
    schema = _object_schema(
        {"reasoning": _REASONING, "label": {"type": "string", "enum": list(labels)}}
    )

    def read(data: dict[str, Any]) -> JudgeVerdict:
        label = data["label"]
        if label not in labels:
            raise MalformedAnswer(f"label {label!r} is not one of {sorted(labels)}")
        return JudgeVerdict(float(labels[label]), label, data["reasoning"])

    return Judge(
        name=name,
        level=level,
        rubric=rubric,
        schema=schema,
        read=read,
        pass_labels=frozenset(passing),
        sees=sees,
        severity=severity,
        without_tool_calls=without_tool_calls,
    )


def goal_judge(name: str, rubric: str, *, labels: tuple[str, ...]) -> Judge:
    """A conversation-level judge answering a label and a 0..1 score."""
    schema = _object_schema(
        {
            "reasoning": _REASONING,
            "label": {"type": "string", "enum": list(labels)},
            "score": {"type": "number", "description": "0.0 (not at all) to 1.0 (fully)."},
        }
    )

    def read(data: dict[str, Any]) -> JudgeVerdict:
        label, score = data["label"], data["score"]
        if label not in labels:
            raise MalformedAnswer(f"label {label!r} is not one of {list(labels)}")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
            raise MalformedAnswer(f"score {score!r} is not a number in [0, 1]")
        return JudgeVerdict(float(score), label, data["reasoning"])

    return Judge(name=name, level="conversation", rubric=rubric, schema=schema, read=read)
