"""arksim's custom-metric API (`arksim.evaluator`), so a user's arksim metric file runs in
tracesim unchanged when arksim itself is not installed.

Only the names a metric file imports: `ChatMessage`, `format_chat_history`, `ScoreInput`,
`QuantResult`, `QualResult`, `QuantitativeMetric`, `QualitativeMetric`, `MetricScope`,
with arksim's constructor arguments and fields (written from arksim's documentation of
them; `checks.arksim_metrics` adapts the classes to tracesim's `CustomMetric`).
"""

from __future__ import annotations

import abc
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatMessage",
    "MetricScope",
    "QualResult",
    "QualitativeMetric",
    "QuantResult",
    "QuantitativeMetric",
    "ScoreInput",
    "format_chat_history",
]

MetricScope = Literal["turn", "conversation"]


class ChatMessage(BaseModel):
    """One message of the conversation: role `user` or `assistant`, and its text."""

    role: str
    content: str


def format_chat_history(messages: list[ChatMessage]) -> str:
    """The messages as `role: content` lines, as arksim puts them in its prompts."""
    return "".join(f"{message.role}: {message.content}\n" for message in messages)


class QuantResult(BaseModel):
    """A numeric metric's result, in the metric's own `score_range`."""

    name: str
    value: float
    reason: str | None = None
    metadata: dict[str, Any] | None = None
    scope: MetricScope = "turn"


class QualResult(BaseModel):
    """A qualitative metric's result: a label."""

    name: str
    value: str
    reason: str | None = None
    metadata: dict[str, Any] | None = None
    scope: MetricScope = "turn"


class ScoreInput(BaseModel):
    """What a metric is given for one turn (or conversation); extra fields allowed
    (`additional_input` lands here, read through `model_extra`)."""

    model_config = ConfigDict(extra="allow")

    chat_history: list[ChatMessage] = Field(default_factory=list)
    """The conversation up to and including this turn."""
    current_turn: list[ChatMessage] = Field(default_factory=list)
    """This turn's user message and agent reply."""
    knowledge: str = ""
    user_goal: str = ""
    profile: str = ""
    tool_calls: list = Field(default_factory=list)
    """This turn's tool calls (tracesim's merged `ToolCall`s)."""


class _NoLLM:
    """`self.llm` of a metric: the judge model tracesim injected (`checks.arksim_llm`)."""

    _llm: Any = None

    @property
    def llm(self) -> Any:
        if self._llm is None:
            raise RuntimeError(
                f"{type(self).__name__} uses self.llm, but no judge model can run: set `llm:` "
                "(or evaluation.llm) with its API key or base_url, and take `llm=None` in "
                "__init__, passed to super().__init__(llm=llm), as arksim asks"
            )
        return self._llm


class QuantitativeMetric(_NoLLM, abc.ABC):
    """A numeric metric: implement `score(score_input) -> QuantResult`; `score_range` is the
    range of its values (default 1-5, as arksim's built-in judges)."""

    def __init__(
        self,
        name: str | None = None,
        score_range: tuple[float, float] = (1, 5),
        additional_input: dict[str, Any] | None = None,
        description: str = "",
        llm: Any = None,
        scope: MetricScope = "turn",
    ) -> None:
        self.name = name if name is not None else type(self).__name__
        self.score_range = score_range
        self.additional_input = additional_input or {}
        self.description = description
        self._llm = llm
        self.scope = scope

    def run(self, score_input: ScoreInput) -> QuantResult:
        """`score` on the input plus `additional_input`, the result stamped with the scope."""
        result = self.score(score_input.model_copy(update=self.additional_input))
        result.scope = self.scope
        return result

    @abc.abstractmethod
    def score(self, score_input: ScoreInput) -> QuantResult:
        """Grade one turn (or conversation)."""


class QualitativeMetric(_NoLLM, abc.ABC):
    """A labelling metric: implement `evaluate(score_input) -> QualResult`."""

    def __init__(
        self,
        name: str | None = None,
        description: str = "",
        label_colors: dict[str, str] | None = None,
        llm: Any = None,
        scope: MetricScope = "turn",
        additional_input: dict[str, Any] | None = None,
    ) -> None:
        self.name = name if name is not None else type(self).__name__
        self.description = description
        self.label_colors = label_colors or {}
        self._llm = llm
        self.scope = scope
        self.additional_input = additional_input or {}

    def run(self, score_input: ScoreInput) -> QualResult:
        """`evaluate` on the input plus `additional_input`, stamped with the scope."""
        result = self.evaluate(score_input.model_copy(update=self.additional_input))
        result.scope = self.scope
        return result

    @abc.abstractmethod
    def evaluate(self, score_input: ScoreInput) -> QualResult:
        """Label one turn (or conversation)."""
