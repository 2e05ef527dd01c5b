"""Review regression: id recovery pairs requests by arguments before guessing."""

from __future__ import annotations

from tracesim.evaluator.calls.canonical import canonical_args
from tracesim.evaluator.extract.assign import RequestedCall, assign_recovered_ids


def test_recovered_id_prefers_the_request_with_equal_arguments_over_an_earlier_guess() -> None:
    # The first id-less call fits no request by arguments; it must not take the request
    # whose arguments equal the second call's.
    requested = [
        RequestedCall("r1", "t", canonical_args({"a": 1})),
        RequestedCall("r2", "t", canonical_args({"a": 2})),
    ]
    ids = assign_recovered_ids([("t", {"a": 3}), ("t", {"a": 1})], requested, taken=set())
    assert ids == ["r2", "r1"]
