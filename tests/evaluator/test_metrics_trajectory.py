"""trajectory: five modes, three argument modes, forbidden tools; optimal, not greedy."""

from __future__ import annotations

import pytest
from tracesim.evaluator.metrics import trajectory
from tracesim.schemas import ToolCall


def t(name: str, **args) -> ToolCall:
    return ToolCall(name=name, arguments=args)


def e(name: str, args: dict | None = None, **extra) -> dict:
    item = {"name": name, **extra}
    if args is not None:
        item["args"] = args
    return item


ABC = [t("a"), t("b"), t("c")]


@pytest.mark.parametrize(
    ("mode", "actual", "expected", "value", "passed"),
    [
        ("strict", ABC, [e("a"), e("b"), e("c")], 1.0, True),
        ("strict", ABC, [e("a"), e("c"), e("b")], 1 / 3, False),
        ("strict", ABC, [e("a"), e("b")], 2 / 3, False),
        ("unordered", ABC, [e("c"), e("a"), e("b")], 1.0, True),
        ("unordered", ABC, [e("c"), e("a")], 2 / 3, False),
        ("unordered", [t("a"), t("a")], [e("a"), e("b")], 0.5, False),
        ("contains", ABC, [e("c"), e("a")], 1.0, True),
        ("contains", [t("a")], [e("a"), e("a")], 0.5, False),
        ("within", [t("a"), t("b")], [e("b"), e("c"), e("a")], 1.0, True),
        ("within", [t("a"), t("x")], [e("a"), e("b")], 0.5, False),
        ("in_order", ABC, [e("a"), e("c")], 1.0, True),
        ("in_order", ABC, [e("c"), e("a")], 0.5, False),
        ("in_order", [t("a"), t("b"), t("a"), t("c")], [e("b"), e("a"), e("c")], 1.0, True),
    ],
)
def test_modes(mode, actual, expected, value, passed) -> None:
    result = trajectory(actual, expected, mode=mode)
    assert result.value == pytest.approx(value)
    assert result.passed is passed


@pytest.mark.parametrize(
    ("mode", "actual", "value", "passed"),
    [
        ("strict", [], 1.0, True),
        ("strict", [t("a")], 0.0, False),
        ("unordered", [t("a")], 0.0, False),
        ("contains", [t("a")], 0.0, False),  # [] = "call no tool" in every order
        ("within", [], 1.0, True),
        ("within", [t("a")], 0.0, False),
        ("in_order", [t("a")], 0.0, False),
    ],
)
def test_empty_expected_is_graded(mode, actual, value, passed) -> None:
    result = trajectory(actual, [], mode=mode)
    assert (result.value, result.passed) == (value, passed)


def test_argument_modes() -> None:
    actual = [t("search", q="x", limit=5)]
    assert trajectory(actual, [e("search", {"q": "y"})], arg_mode="ignore").passed
    assert not trajectory(actual, [e("search", {"q": "x"})], arg_mode="exact").passed
    assert trajectory(actual, [e("search", {"q": "x", "limit": 5.0})], arg_mode="exact").passed
    assert trajectory(actual, [e("search", {"q": "x"})], arg_mode="subset").passed
    assert not trajectory(actual, [e("search", {"q": "y"})], arg_mode="subset").passed
    assert trajectory(actual, [e("search")], arg_mode="exact").passed  # no args given: name only


def test_per_call_arg_match_mode_overrides() -> None:
    actual = [t("a", x=1, y=2), t("b", z=3)]
    expected = [
        e("a", {"x": 1}, arg_match_mode="subset"),
        e("b", {"z": 4}, arg_match_mode="ignore"),
    ]
    assert trajectory(actual, expected, mode="strict", arg_mode="exact").passed


def test_unordered_is_optimal_not_greedy() -> None:
    actual = [t("t", x=1, y=1), t("t", x=1)]
    expected = [e("t", {"x": 1}), e("t", {"x": 1, "y": 1})]
    result = trajectory(actual, expected, mode="unordered", arg_mode="subset")
    assert result.passed and result.value == 1.0


def test_in_order_is_dynamic_programming_not_greedy() -> None:
    # a greedy scan binds expected x to the last actual call and then finds
    # nothing for a and b (score 1/3); the longest in-order match is a, b.
    actual = [t("a"), t("b"), t("x")]
    result = trajectory(actual, [e("x"), e("a"), e("b")], mode="in_order")
    assert result.value == pytest.approx(2 / 3) and not result.passed
    assert result.details["missing"] == ["x(...)"]


def test_in_order_with_arguments() -> None:
    actual = [t("t", x=1, y=1), t("u"), t("t", x=1)]
    expected = [e("t", {"x": 1}), e("t", {"x": 1, "y": 1})]
    assert not trajectory(actual, expected, mode="in_order", arg_mode="subset").passed
    actual = [t("t", x=1), t("t", x=1, y=1)]
    assert trajectory(actual, expected, mode="in_order", arg_mode="exact").passed
    actual = [t("t", x=1, y=1), t("t", x=1, y=1)]
    assert trajectory(actual, expected, mode="in_order", arg_mode="subset").passed
    assert not trajectory(actual, expected, mode="in_order", arg_mode="exact").passed


def test_forbidden_tools_fail_and_are_listed() -> None:
    result = trajectory(
        [t("a"), t("delete_account", id=1)], [e("a")], mode="contains", forbidden=["delete_account"]
    )
    assert result.passed is False and result.value == 0.0
    assert result.details["forbidden"] == ['delete_account({"id":1})']
    assert result.details["match_value"] == 1.0
    assert trajectory([t("a")], [e("a")], mode="contains", forbidden=["x"]).passed


def test_details_missing_and_extra() -> None:
    result = trajectory([t("a"), t("x")], [e("a"), e("b")], mode="unordered")
    assert result.details["missing"] == ["b(...)"]
    assert result.details["extra"] == ["x({})"]


def test_invalid_settings_are_not_graded() -> None:
    assert trajectory([], [], mode="fuzzy").value is None
    assert trajectory([], [], arg_mode="loose").value is None
    assert trajectory([], [e("a", arg_match_mode="nope")]).label == "invalid_expected"
