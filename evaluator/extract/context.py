"""A conversation's spans, read once for all its turns (`extract_tool_calls(context=...)`).

Ids, bare arguments and results missing from a turn's own spans are recovered from the
whole conversation (SPEC §5). `ConversationSpans` builds the conversation's views on first
use and keeps them, with each model span's requested calls (cached on its view) and the
tool messages' results: a caller extracting every turn of a conversation passes the same
object each time, so no span is parsed twice. A plain iterable works too (read per call).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from tracesim.evaluator.extract.readers.answers import AnswerHistory
from tracesim.evaluator.extract.readers.fields import is_tool_span
from tracesim.evaluator.extract.span import SpanView, view_of

__all__ = ["ConversationSpans", "span_label", "views_of"]

logger = logging.getLogger(__name__)


def span_label(span: Any) -> str:
    """A span's id or name, for log lines."""
    if isinstance(span, dict):
        return str(span.get("span_id") or span.get("name") or "?")
    return str(getattr(span, "name", "?"))


def views_of(spans: Iterable[Any]) -> list[SpanView]:
    """Views of `spans`; an unreadable span is skipped with a warning."""
    views = []
    for span in spans:
        try:
            views.append(view_of(span))
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", span_label(span), exc)
    return views


class ConversationSpans:
    """The conversation's spans as views in start order, built on first use (most turns
    never need them) and kept, with the results their tool messages carry."""

    def __init__(self, spans: Iterable[Any] | None) -> None:
        self._spans = spans
        self._views: list[SpanView] | None = None
        self._responses: dict[str, str | None] | None = None
        self._history: AnswerHistory | None = None
        self._has_tool_spans: bool | None = None

    @property
    def given(self) -> bool:
        """Whether a conversation was given at all."""
        return self._spans is not None

    def views(self) -> list[SpanView]:
        """The spans' views, sorted by start time then span id."""
        if self._views is None:
            self._views = sorted(views_of(list(self._spans or ())), key=SpanView.sort_key)
        return self._views

    def responses(self) -> dict[str, str | None]:
        """Tool-call id -> the result a tool message carried (`tool_responses`); read-only."""
        if self._responses is None:
            self._responses = self.answer_history().responses()
        return self._responses

    def answer_history(self) -> AnswerHistory:
        """The answers the spans' model inputs carried (`answers.AnswerHistory`), read once."""
        if self._history is None:
            self._history = AnswerHistory(self.views())
        return self._history

    def has_tool_spans(self) -> bool:
        """Whether any of the spans records a tool call (then no call is read from messages)."""
        if self._has_tool_spans is None:
            self._has_tool_spans = any(
                v.may_be_tool_span() and is_tool_span(v) for v in self.views()
            )
        return self._has_tool_spans
