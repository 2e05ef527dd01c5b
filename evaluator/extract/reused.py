"""Ids made up per request (SPEC §5: ids that are not unique within a turn are no ids).

Some instrumentations invent a tool-call id inside each model request (the OTel
google-genai instrumentation under the latest GenAI semconv names every first
`get_weather` call of a request `get_weather_0`), so two real calls share one id. A call
id, once answered, names a finished call: the same id requested again after a model input
carried its answer is a new call (an occurrence), while the same request reported twice
before any answer (a wrapper span and the provider span inside it) is one call. An id is
taken as reused only when one model input's history answers it more than once: spans that
repeat a whole message history in their output (chain spans) never make calls of it.

`Occurrences` walks a conversation's model spans in start order and numbers each request
(id, occurrence); the answers of a reused id are paired with its occurrences by position:
the n-th answer of the id in the longest history a model input carried is the n-th
occurrence's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from tracesim.evaluator.extract.recover import safe_requested_calls
from tracesim.evaluator.extract.span import SpanView

__all__ = ["Occurrences"]

logger = logging.getLogger(__name__)


class Occurrences:
    """Which requests of a conversation are new calls under an id already answered."""

    def __init__(self, views: Iterable[SpanView], answers_of: Any) -> None:
        """`views`: the conversation's spans in start order; `answers_of(view)`: the
        (id, answer, failed) tool messages a view's model input carried, in message order."""
        self._ordinal: dict[tuple[str, int], int] = {}  # (span_id, request index) -> n
        self._answers: dict[str, list[tuple[Any, bool]]] = {}  # id -> answers in order
        count: dict[str, int] = {}
        answered: set[str] = set()  # ids answered since they were last requested
        for view in views:
            carried = answers_of(view)
            by_id: dict[str, list[tuple[Any, bool]]] = {}
            for call_id, answer, failed in carried:
                if call_id:
                    answered.add(call_id)
                    by_id.setdefault(call_id, []).append((answer, failed))
            for call_id, found in by_id.items():
                if len(found) > len(self._answers.get(call_id, ())):
                    self._answers[call_id] = found  # the longest history seen so far
            for index, request in enumerate(safe_requested_calls(view, with_ids=False)):
                call_id = request.id
                if not call_id:
                    continue
                if call_id not in count:
                    count[call_id] = 0
                elif call_id in answered:
                    count[call_id] += 1  # answered, then requested again: a new call
                answered.discard(call_id)
                self._ordinal[(view.span_id, index)] = count[call_id]
        self.reused = frozenset(
            call_id
            for call_id, n in count.items()
            if n > 0 and len(self._answers.get(call_id, ())) > 1
        )
        """Ids that name more than one call."""

    @classmethod
    def of(cls, views: list[SpanView], answers_of: Any) -> Occurrences:
        """The occurrences of `views`, or an empty set at no cost when no id is requested by
        two model spans (the common case: nothing to number)."""
        requesters: dict[str, str] = {}
        for view in views:
            for request in safe_requested_calls(view):
                first = requesters.setdefault(request.id, view.span_id)
                if first != view.span_id:
                    return cls(views, answers_of)
        return cls((), answers_of)

    def ordinal(self, view: SpanView, index: int) -> int:
        """Which call of its id the `index`-th request of `view` is (0: the first)."""
        return self._ordinal.get((view.span_id, index), 0)

    def answer(self, call_id: str, ordinal: int) -> tuple[Any, bool] | None:
        """(answer, failed) of the `ordinal`-th call of a reused id, by position."""
        found = self._answers.get(call_id) or []
        return found[ordinal] if ordinal < len(found) else None
