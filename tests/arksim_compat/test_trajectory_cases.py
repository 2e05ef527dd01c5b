"""arksim's trajectory-matching cases (tests/unit/test_trajectory_matching.py) as scenario
`tool_calls` assertions: same inputs, same verdicts and failure labels.

Extra cases at the end are where SPEC §7 overrides arksim (optimal matching,
deep `subset`), marked `spec_override`.
"""

from __future__ import annotations

from typing import Any

import pytest
from tracesim.evaluator.checks.assertions import check_assertions, parse_assertions
from tracesim.schemas import ToolCall

from tests.arksim_compat.cases import spec_override


def tc(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id="id", name=name, arguments=arguments)


def etc(name: str, mode: str = "ignore", **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "arg_match_mode": mode}


def check(
    actual: list[ToolCall], expected: list[dict], match_mode: str, **extra: Any
) -> tuple[bool, str | None]:
    """(passed, failure label) of one arksim `tool_calls` assertion over one turn."""
    raw = {"type": "tool_calls", "expected": expected, "match_mode": match_mode, **extra}
    [assertion] = parse_assertions([raw], where="scenarios.json")
    [(_, result)] = check_assertions([assertion], [actual])
    return bool(result.passed), result.details.get("failure_label")


GET, CANCEL, SEARCH, CUSTOMER = "get_order", "cancel_order", "search_products", "get_customer"

CASES: list[tuple[str, list[ToolCall], list[dict], str, bool, str | None]] = [
    # strict
    ("strict_exact_order", [tc(GET), tc(CANCEL)], [etc(GET), etc(CANCEL)], "strict", True, None),
    (
        "strict_order_mismatch",
        [tc(CANCEL), tc(GET)],
        [etc(GET), etc(CANCEL)],
        "strict",
        False,
        "disobey user request",
    ),
    (
        "strict_extra_same_name_is_repetition",
        [tc(GET), tc(CANCEL), tc(GET)],
        [etc(GET), etc(CANCEL)],
        "strict",
        False,
        "repetition",
    ),
    (
        "strict_extra_other_name",
        [tc(GET), tc(CANCEL), tc(SEARCH)],
        [etc(GET), etc(CANCEL)],
        "strict",
        False,
        "disobey user request",
    ),
    (
        "strict_substitution",
        [tc(GET), tc(SEARCH)],
        [etc(GET), etc(CANCEL)],
        "strict",
        False,
        "disobey user request",
    ),
    (
        "strict_ordering_beats_arg_mismatch",
        [tc(CANCEL), tc(GET, order_id="wrong"), tc(SEARCH, query="laptop")],
        [etc(GET), etc(CANCEL), etc(SEARCH, "exact", query="shoes")],
        "strict",
        False,
        "disobey user request",
    ),
    ("strict_missing", [tc(GET)], [etc(GET), etc(CANCEL)], "strict", False, "disobey user request"),
    # unordered
    (
        "unordered_any_order",
        [tc(CANCEL), tc(GET)],
        [etc(GET), etc(CANCEL)],
        "unordered",
        True,
        None,
    ),
    (
        "unordered_missing",
        [tc(GET)],
        [etc(GET), etc(CANCEL)],
        "unordered",
        False,
        "disobey user request",
    ),
    (
        "unordered_extra_same_name",
        [tc(GET), tc(CANCEL), tc(GET)],
        [etc(GET), etc(CANCEL)],
        "unordered",
        False,
        "repetition",
    ),
    (
        "unordered_extra_other_name",
        [tc(GET), tc(CANCEL), tc(SEARCH)],
        [etc(GET), etc(CANCEL)],
        "unordered",
        False,
        "disobey user request",
    ),
    (
        "unordered_missing_and_extra",
        [tc(SEARCH)],
        [etc(GET)],
        "unordered",
        False,
        "disobey user request",
    ),
    # contains
    (
        "contains_expected_within_actual",
        [tc(CUSTOMER), tc(GET), tc(CANCEL)],
        [etc(GET), etc(CANCEL)],
        "contains",
        True,
        None,
    ),
    ("contains_missing", [tc(CUSTOMER)], [etc(GET)], "contains", False, "disobey user request"),
    # within
    ("within_actual_subset", [tc(GET)], [etc(GET), etc(CANCEL)], "within", True, None),
    (
        "within_unrelated_call",
        [tc(GET), tc(SEARCH)],
        [etc(GET), etc(CANCEL)],
        "within",
        False,
        "disobey user request",
    ),
    ("within_duplicate_of_expected_allowed", [tc(GET), tc(GET)], [etc(GET)], "within", True, None),
    # arguments
    (
        "args_exact_match",
        [tc(GET, order_id="123")],
        [etc(GET, "exact", order_id="123")],
        "unordered",
        True,
        None,
    ),
    (
        "args_exact_mismatch",
        [tc(GET, order_id="456")],
        [etc(GET, "exact", order_id="123")],
        "unordered",
        False,
        "disobey user request",
    ),
    ("args_ignore", [tc(GET, order_id="anything")], [etc(GET, "ignore")], "unordered", True, None),
    (
        "args_partial_match",
        [tc(GET, order_id="123", verbose=True)],
        [etc(GET, "partial", order_id="123")],
        "unordered",
        True,
        None,
    ),
    (
        "args_partial_missing_key",
        [tc(GET, verbose=True)],
        [etc(GET, "partial", order_id="123")],
        "unordered",
        False,
        "disobey user request",
    ),
    (
        "strict_arg_mismatch_is_false_information",
        [tc(GET, order_id="wrong")],
        [etc(GET, "exact", order_id="123")],
        "strict",
        False,
        "false information",
    ),
    (
        "strict_partial_arg_mismatch_is_lack_of_information",
        [tc(GET)],
        [etc(GET, "partial", order_id="123")],
        "strict",
        False,
        "lack of specific information",
    ),
    # failure labels
    (
        "label_missing",
        [tc(GET)],
        [etc(GET), etc(CANCEL)],
        "unordered",
        False,
        "disobey user request",
    ),
    ("label_extra_same_name", [tc(GET), tc(GET)], [etc(GET)], "unordered", False, "repetition"),
    (
        "label_extra_other",
        [tc(GET), tc(SEARCH)],
        [etc(GET)],
        "unordered",
        False,
        "disobey user request",
    ),
    (
        "label_wrong_order",
        [tc(CANCEL), tc(GET)],
        [etc(GET), etc(CANCEL)],
        "strict",
        False,
        "disobey user request",
    ),
    # edge cases
    ("empty_expected_passes", [tc(GET)], [], "strict", True, None),
    ("empty_actual_fails", [], [etc(GET)], "strict", False, "disobey user request"),
    ("empty_actual_within_passes", [], [etc(GET)], "within", True, None),
    ("empty_actual_contains_fails", [], [etc(GET)], "contains", False, "disobey user request"),
    ("duplicate_expected", [tc(GET), tc(GET)], [etc(GET), etc(GET)], "unordered", True, None),
    (
        "duplicate_expected_one_actual",
        [tc(GET)],
        [etc(GET), etc(GET)],
        "unordered",
        False,
        "disobey user request",
    ),
]


@pytest.mark.parametrize(
    ("actual", "expected", "mode", "passed", "label"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_arksim_trajectory_case(actual, expected, mode, passed, label) -> None:
    assert check(actual, expected, mode) == (passed, label)


def test_arguments_without_arg_match_mode_compare_names_only() -> None:
    """arksim's ExpectedToolCall defaults arg_match_mode to `ignore`."""
    expected = [{"name": GET, "arguments": {"order_id": "123"}}]
    assert check([tc(GET, order_id="999")], expected, "unordered") == (True, None)


def test_forbidden_only_checks_only_forbidden_tools() -> None:
    assert check([tc(GET), tc(SEARCH)], [], "unordered", forbidden=["delete_account"]) == (
        True,
        None,
    )
    passed, label = check(
        [tc(GET), tc("delete_account")], [], "unordered", forbidden=["delete_account"]
    )
    assert (passed, label) == (False, "disobey user request")


def test_cross_turn_calls_are_checked_at_conversation_level() -> None:
    """arksim's conversation-level matching: calls of every turn, in turn order."""
    raw = {"type": "tool_calls", "expected": [etc(GET), etc(CANCEL)], "match_mode": "strict"}
    [assertion] = parse_assertions([raw], where="scenarios.json")
    [(turn, ok)] = check_assertions([assertion], [[tc(GET)], [tc(CANCEL)]])
    [(_, wrong)] = check_assertions([assertion], [[tc(CANCEL)], [tc(GET)]])
    assert turn is None and ok.passed is True
    assert wrong.passed is False and wrong.details["failure_label"] == "disobey user request"
    assert wrong.details["severity"] == "high"


@spec_override("SPEC §7: matching is optimal (bipartite), never greedy; arksim's first fit fails")
def test_greedy_first_fit_would_fail_optimal_matching_passes() -> None:
    actual = [tc(GET, order_id="1", verbose=True), tc(GET, order_id="1")]
    expected = [etc(GET, "partial", order_id="1"), etc(GET, "exact", order_id="1", verbose=True)]
    assert check(actual, expected, "unordered") == (True, None)  # arksim: False


@spec_override(
    "SPEC §7: `subset` is deep (nested objects); arksim's partial compares top-level values"
)
def test_partial_is_a_deep_subset() -> None:
    actual = [tc(GET, filters={"status": "open", "limit": 5})]
    expected = [etc(GET, "partial", filters={"status": "open"})]
    assert check(actual, expected, "unordered") == (True, None)  # arksim: False
