"""The agent's own usage report in a chat-completions answer, written on the turn's span.

An agent behind `/v1/chat/completions` often says what the turn cost in the answer's
`usage` (OpenAI: `prompt_tokens`/`completion_tokens`; Anthropic's message shape:
`input_tokens`/`output_tokens`; Gemini: `usageMetadata`), streamed or not. With no spans
of its own, that is the only measure of its tokens and cost. `record_usage` writes it on
the current span (the runner's `tracesim.turn`) as GenAI usage attributes, so the stored
turn carries it like any model span. It is the same calls the agent's spans would report:
the evaluator counts it only for a turn where no other span carries tokens
(`evaluator.metrics.usage`), so it is never added twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from tracesim.schemas.conventions import GENAI

__all__ = ["Usage", "UsageAccumulator", "record_usage", "usage_of"]


@dataclass
class Usage:
    """Tokens (and the model, when said) of one answer."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None

    @property
    def known(self) -> bool:
        return self.input_tokens is not None or self.output_tokens is not None


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if value >= 0 and float(value).is_integer() else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _fold(usage: Usage, block: Any, inputs: tuple[str, ...], outputs: tuple[str, ...]) -> None:
    if not isinstance(block, dict):
        return
    for key in inputs:
        if _int(block.get(key)) is not None:
            usage.input_tokens = _int(block.get(key))
            break
    for key in outputs:
        if _int(block.get(key)) is not None:
            usage.output_tokens = _int(block.get(key))
            break


def _fold_body(usage: Usage, body: Any) -> None:
    """Fold one answer or stream event in (later values win: streams repeat the totals)."""
    if not isinstance(body, dict):
        return
    message = body.get("message")  # Anthropic's message_start event
    if isinstance(message, dict):
        _fold_body(usage, message)
    usage.model = _text(body.get("model")) or _text(body.get("modelVersion")) or usage.model
    _fold(usage, body.get("usage"), ("prompt_tokens", "input_tokens"),
          ("completion_tokens", "output_tokens"))  # fmt: skip
    _fold(usage, body.get("usageMetadata"), ("promptTokenCount",), ("candidatesTokenCount",))


def usage_of(body: Any) -> Usage | None:
    """The usage a (non-streamed) answer reports, or None."""
    usage = Usage()
    _fold_body(usage, body)
    return usage if usage.known else None


class UsageAccumulator:
    """The usage a stream reports, over its events (OpenAI's final `usage` chunk,
    Anthropic's `message_start` and `message_delta`, Gemini's `usageMetadata`)."""

    def __init__(self) -> None:
        self.usage = Usage()

    def add(self, event: Any) -> None:
        _fold_body(self.usage, event)

    def result(self) -> Usage | None:
        return self.usage if self.usage.known else None


def record_usage(usage: Usage | None) -> None:
    """Write `usage` on the current span (the turn's) as GenAI usage attributes."""
    if usage is None:
        return
    span = trace.get_current_span()
    if not span.is_recording():
        return
    if usage.input_tokens is not None:
        span.set_attribute(GENAI.USAGE_INPUT_TOKENS, usage.input_tokens)
    if usage.output_tokens is not None:
        span.set_attribute(GENAI.USAGE_OUTPUT_TOKENS, usage.output_tokens)
    if usage.model is not None:
        span.set_attribute(GENAI.RESPONSE_MODEL, usage.model)
