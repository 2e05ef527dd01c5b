"""Review regression: a span pairs with the request of equal arguments before guessing."""

from __future__ import annotations

from tracesim.evaluator.calls.canonical import canonical_args
from tracesim.evaluator.extract.pairing.assign import assign_requests
from tracesim.evaluator.extract.pieces import TOOL_SPAN, CallPiece


def test_recovered_id_prefers_the_request_with_equal_arguments_over_an_earlier_guess() -> None:
    # The first id-less span fits no request by arguments; it must not take the request
    # whose arguments equal the second span's.
    requested = [
        CallPiece("r1", "t", canonical_args({"a": 1})),
        CallPiece("r2", "t", canonical_args({"a": 2})),
    ]
    spans = [
        CallPiece("", "t", None, {"a": 3}, kind=TOOL_SPAN, needs=True),
        CallPiece("", "t", None, {"a": 1}, kind=TOOL_SPAN, needs=True),
    ]
    chosen = assign_requests(spans, requested, taken=set())
    assert [r.id for r in chosen] == ["r2", "r1"]
