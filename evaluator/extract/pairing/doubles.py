"""One reply recorded twice (SPEC §5: one call per real invocation): a model span nested in
another model span is the same model call (a wrapper and the provider span inside it, two
instrumentations), and where both record the reply's requests, the same calls at the same
positions (name and canonical arguments) are one call each, even under other ids (one
instrumentation copies the OpenAI Responses API item id, the other its `call_id`).

`distinct_requests` reads the requests of a list of model views once each, the inner
span's doubles left out and their ids kept as aliases of the outer's (tool messages and
later inputs may name either).
"""

from __future__ import annotations

from tracesim.evaluator.extract.pairing.recover import safe_requested_calls
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.span import SpanView

__all__ = ["distinct_requests", "doubled_requests"]


def doubled_requests(views: list[SpanView]) -> dict[tuple[str, str, int], str]:
    """(trace, span, request index) of each request a model span nested in another of
    `views` repeats -> the id of the outer span's request it repeats."""
    by_span = {(v.trace_id, v.span_id): v for v in views}
    found: dict[tuple[str, str, int], str] = {}
    for view in views:
        parent = by_span.get((view.trace_id, view.parent_span_id)) if view.parent_span_id else None
        if parent is None or parent is view:
            continue
        inner = safe_requested_calls(view, with_ids=False)
        outer = safe_requested_calls(parent, with_ids=False)
        if not inner or len(inner) != len(outer):
            continue
        if all(
            a.name == b.name and a.args_key == b.args_key for a, b in zip(inner, outer, strict=True)
        ):
            for index, request in enumerate(outer):
                key = (parent.trace_id, parent.span_id, index)
                found[(view.trace_id, view.span_id, index)] = found.get(key, request.id)
    return found


def distinct_requests(
    views: list[SpanView], *, with_ids: bool = True, aliases: dict[str, str] | None = None
) -> list[CallPiece]:
    """The requests of `views` in order, a nested span's doubles left out (`aliases`
    receives kept id -> the double's other id)."""
    doubles = doubled_requests(views) if len(views) > 1 else {}
    requests: list[CallPiece] = []
    for view in views:
        for index, request in enumerate(safe_requested_calls(view, with_ids=False)):
            kept = doubles.get((view.trace_id, view.span_id, index))
            if kept is not None:
                if aliases is not None and kept and request.id and request.id != kept:
                    aliases.setdefault(kept, request.id)
                continue
            if request.id or not with_ids:
                requests.append(request)
                if aliases is not None and request.alias and request.id:
                    aliases.setdefault(request.id, request.alias)  # a span naming it twice
    return requests
