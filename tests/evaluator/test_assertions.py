"""Scenario assertions: validation with precise errors, per-turn and conversation checks."""

from __future__ import annotations

import pytest
from tracesim.evaluator.checks.assertions import (
    AssertionConfigError,
    check_assertions,
    parse_assertions,
)
from tracesim.schemas import ToolCall

WHERE = "scenarios.json: scenario 'refund-1'"


def t(
    name: str,
    *,
    error: str | None = None,
    ms: float | None = None,
    result: str | None = None,
    **args,
) -> ToolCall:
    return ToolCall(name=name, arguments=args, error=error, duration_ms=ms, result=result)


TURNS = [
    [t("lookup_order", order_id="A1", result="shipped")],
    [t("refund", order_id="A1", amount=10), t("notify", ms=120.0, error="smtp down")],
]


def test_arksim_tool_calls_assertion_per_turn_and_conversation() -> None:
    assertions = parse_assertions(
        [
            {
                "type": "tool_calls",
                "turn": 1,
                "match_mode": "contains",
                "expected": [
                    {"name": "refund", "args": {"order_id": "A1"}, "arg_match_mode": "subset"}
                ],
            },
            {
                "type": "tool_calls",
                "match_mode": "in_order",
                "expected": [{"name": "lookup_order"}, {"name": "refund"}],
            },
            {
                "type": "tool_calls",
                "expected": [],
                "match_mode": "contains",
                "forbidden": ["notify"],
            },
        ],
        where=WHERE,
    )
    results = check_assertions(assertions, TURNS)
    assert [turn for turn, _ in results] == [1, None, None]
    assert [r.passed for _, r in results] == [True, True, False]
    assert results[2][1].details["forbidden"] == ["notify({})"]
    assert results[0][1].details["assertion"]["index"] == 0


def test_default_arg_match_mode_is_ignore_as_arksim() -> None:
    [assertion] = parse_assertions(
        [
            {
                "type": "tool_calls",
                "match_mode": "contains",
                "expected": [{"name": "refund", "args": {"order_id": "A1"}}],
            }
        ],
        where=WHERE,
    )
    assert assertion.arg_match_mode == "ignore"
    [(_, result)] = check_assertions([assertion], TURNS)
    assert result.passed is True  # arksim: args without arg_match_mode are not compared
    [exact] = parse_assertions(
        [
            {
                "type": "tool_calls",
                "match_mode": "contains",
                "arg_match_mode": "exact",
                "expected": [{"name": "refund", "args": {"order_id": "A1"}}],
            }
        ],
        where=WHERE,
    )
    [(_, result)] = check_assertions([exact], TURNS)
    assert result.passed is False  # refund also had amount=10


@pytest.mark.parametrize(
    ("alias", "mode"),
    [
        ("exact", "strict"),
        ("any_order", "unordered"),
        ("superset", "contains"),
        ("subset", "within"),
        ("ordered", "in_order"),
        ("in_order", "in_order"),
    ],
)
def test_match_mode_aliases(alias, mode) -> None:
    [assertion] = parse_assertions(
        [{"type": "tool_calls", "expected": [], "match_mode": alias}], where=WHERE
    )
    assert assertion.match_mode == mode


def test_metric_criteria_with_thresholds() -> None:
    assertions = parse_assertions(
        [
            {
                "type": "tool_call_args",
                "expected": [{"name": "refund", "args": {"order_id": "A1"}}],
                "subset": True,
                "turn": 1,
            },
            {
                "type": "tool_call_order",
                "expected": ["lookup_order", "refund", "escalate"],
                "threshold": 0.6,
            },
            {
                "type": "tool_call_count",
                "expected": {"refund": 1, "notify": ["<=", 0]},
                "strict": True,
            },
            {
                "type": "tool_call_output",
                "expected": [{"name": "lookup_order", "output": "shipped"}],
            },
            {"type": "tool_error_rate", "threshold": 0.25},
            {"type": "tool_latency", "threshold": 100},
            {"type": "tool_latency"},
        ],
        where=WHERE,
    )
    results = [r for _, r in check_assertions(assertions, TURNS)]
    assert [r.name for r in results] == [
        "tool_call_args",
        "tool_call_order",
        "tool_call_count",
        "tool_call_output",
        "tool_error_rate",
        "tool_latency",
        "tool_latency",
    ]
    assert (results[0].value, results[0].passed) == (1.0, True)
    assert results[1].value == pytest.approx(2 / 3) and results[1].passed is True  # >= 0.6
    assert (results[2].value, results[2].passed) == (0.0, False)
    assert results[3].passed is True
    assert results[4].value == pytest.approx(1 / 3) and results[4].passed is False
    assert (results[5].value, results[5].passed) == (0.0, False)
    assert results[6].value is None


def test_turn_not_run_is_not_graded() -> None:
    assertions = parse_assertions(
        [{"type": "tool_calls", "turn": 5, "expected": [{"name": "x"}]}], where=WHERE
    )
    [(turn, result)] = check_assertions(assertions, TURNS)
    assert turn == 5 and result.value is None and result.label == "not_run"


def test_conversation_level_sees_all_turns_in_order() -> None:
    assertions = parse_assertions(
        [
            {
                "type": "tool_call_order",
                "expected": ["lookup_order", "refund", "notify"],
                "strict": True,
            }
        ],
        where=WHERE,
    )
    assert check_assertions(assertions, TURNS)[0][1].value == 1.0


@pytest.mark.parametrize(
    ("raw", "field", "hint"),
    [
        (
            {"type": "tool_calls", "match_mode": "fuzzy"},
            "assertions[0].match_mode",
            "strict, exact, unordered",
        ),
        (
            {"type": "tool_calls", "arg_match_mode": "loose"},
            "assertions[0].arg_match_mode",
            "exact, subset",
        ),
        ({"type": "tool_cals"}, "assertions[0].type", "tool_calls"),
        ({"type": "tool_calls", "expected": [{"args": {}}]}, "assertions[0].expected", "name"),
        (
            {"type": "tool_calls", "expected": [{"name": "a", "args": [1]}]},
            "assertions[0].expected",
            "object",
        ),
        ({"type": "tool_calls", "expected": {"name": "a"}}, "assertions[0].expected", "list"),
        ({"type": "tool_calls", "forbidden": "delete"}, "assertions[0].forbidden", "list"),
        ({"type": "tool_calls", "turn": -1}, "assertions[0].turn", "zero-based"),
        ({"type": "tool_calls", "turn": True}, "assertions[0].turn", "zero-based"),
        (
            {"type": "tool_call_args", "expected": [], "strict": "yes"},
            "assertions[0].strict",
            "true or false",
        ),
        (
            {"type": "tool_call_args", "expected": [], "threshold": 2},
            "assertions[0].threshold",
            "between 0 and 1",
        ),
        ({"type": "tool_latency", "threshold": 0}, "assertions[0].threshold", "> 0"),
        (
            {"type": "tool_call_count", "expected": {"a": ["~", 1]}},
            "assertions[0].expected",
            "comparator",
        ),
        (
            {"type": "tool_call_args", "expected": [], "match_mode": "strict"},
            "assertions[0].match_mode",
            "unknown",
        ),
        ("tool_calls", "assertions[0]", "object"),
    ],
)
def test_invalid_assertions_name_place_field_and_allowed_values(raw, field, hint) -> None:
    with pytest.raises(AssertionConfigError) as caught:
        parse_assertions([raw], where=WHERE)
    message = str(caught.value)
    assert message.startswith(f"{WHERE}, {field}")
    assert hint in message
    assert caught.value.field == field


def test_error_index_points_at_the_bad_item() -> None:
    raw = [
        {"type": "tool_calls"},
        {"type": "tool_calls"},
        {"type": "tool_calls", "match_mode": "x"},
    ]
    with pytest.raises(AssertionConfigError, match=r"assertions\[2\]\.match_mode"):
        parse_assertions(raw, where=WHERE)


def test_not_a_list_and_empty() -> None:
    with pytest.raises(AssertionConfigError, match="must be a list"):
        parse_assertions({"type": "tool_calls"}, where=WHERE)  # type: ignore[arg-type]
    assert parse_assertions([], where=WHERE) == []
    assert check_assertions([], TURNS) == []
