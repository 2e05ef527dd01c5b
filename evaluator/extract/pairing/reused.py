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
(id, occurrence); `answer_pairing.pair_answers` gives the n-th occurrence the n-th answer of its
id in the longest history a model input carried.
"""

from __future__ import annotations

from tracesim.evaluator.extract.pairing.recover import safe_requested_calls
from tracesim.evaluator.extract.readers.answers import AnswerHistory
from tracesim.evaluator.extract.span import SpanView

__all__ = ["Occurrences"]


class Occurrences:
    """Which requests of a conversation are new calls under an id already answered."""

    def __init__(self, history: AnswerHistory | None = None) -> None:
        """`history`: the conversation's answers, by view in start order (None: no id is
        requested twice, nothing to number)."""
        self._ordinal: dict[tuple[str, str, int], int] = {}  # (span, request index) -> n
        count: dict[str, int] = {}
        answered: set[str] = set()  # ids answered since they were last requested
        for view, answers in history.by_view if history is not None else ():
            answered.update(answer.call_id for answer in answers)
            for index, request in enumerate(safe_requested_calls(view, with_ids=False)):
                call_id = request.id
                if not call_id:
                    continue
                if call_id not in count:
                    count[call_id] = 0
                elif call_id in answered:
                    count[call_id] += 1  # answered, then requested again: a new call
                answered.discard(call_id)
                self._ordinal[(view.trace_id, view.span_id, index)] = count[call_id]
        self.reused = frozenset(
            call_id
            for call_id, n in count.items()
            if n > 0 and history is not None and history.nth(call_id, 1) is not None
        )
        """Ids that name more than one call (one input answers them more than once)."""

    @classmethod
    def of(cls, views: list[SpanView], history: AnswerHistory) -> Occurrences:
        """The occurrences of `views` (`history` read over them), at no cost when no id is
        requested by two model spans (the common case: nothing to number)."""
        requesters: dict[str, int] = {}
        for view in views:
            for request in safe_requested_calls(view):
                if requesters.setdefault(request.id, id(view)) != id(view):
                    return cls(history)
        return cls()

    def ordinal(self, view: SpanView, index: int) -> int:
        """Which call of its id the `index`-th request of `view` is (0: the first)."""
        return self._ordinal.get((view.trace_id, view.span_id, index), 0)
