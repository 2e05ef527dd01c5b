"""Policy rules (never, at_most, exactly, before, only_after): each fails when broken."""

from __future__ import annotations

import pytest
from tracesim.evaluator.checks.assertions import (
    AssertionConfigError,
    RuleFacts,
    check_assertions,
    parse_assertions,
)
from tracesim.schemas import ToolCall

WHERE = "scenarios.json: scenario 'p'"


def c(name: str, **args) -> ToolCall:
    return ToolCall(name=name, arguments=args)


def check(rule: dict, turns: list, texts: tuple = ()) -> tuple[int | None, object]:
    assertions = parse_assertions([{"type": "policy", **rule}], where=WHERE)
    [(turn, result)] = check_assertions(assertions, turns, facts=RuleFacts(texts=list(texts)))
    return turn, result


def test_never_names_the_forbidden_call() -> None:
    _, ok = check({"never": ["delete_account"]}, [[c("lookup")], [c("refund")]])
    assert ok.passed is True and ok.value == 1.0
    _, bad = check({"never": ["delete_account"]}, [[c("lookup")], [c("delete_account")]])
    assert bad.passed is False and bad.value == 0.0
    assert "never: call #2 delete_account in turn 1" in bad.reason


def test_at_most_and_exactly_count_calls() -> None:
    turns = [[c("refund")], [c("refund"), c("notify")]]
    assert check({"at_most": {"refund": 2}}, turns)[1].passed is True
    bad = check({"at_most": {"refund": 1}}, turns)[1]
    assert bad.passed is False and "refund called 2 times, at most 1" in bad.reason
    assert check({"exactly": {"notify": 1}}, turns)[1].passed is True
    bad = check({"exactly": {"notify": 2, "refund": 2}}, turns)[1]
    assert bad.passed is False and "notify called 1 times, expected 2" in bad.reason
    assert check({"exactly": {"escalate": 0}}, turns)[1].passed is True


def test_before_requires_every_b_preceded_by_an_a() -> None:
    good = [[c("verify_identity")], [c("refund"), c("refund")]]
    assert check({"before": ["verify_identity", "refund"]}, good)[1].passed is True
    bad = [[c("refund")], [c("verify_identity"), c("refund")]]
    result = check({"before": ["verify_identity", "refund"]}, bad)[1]
    assert result.passed is False
    assert result.details["violations"] == [
        "before: call #1 refund in turn 0 with no verify_identity before it"
    ]


def test_only_after_a_user_message_or_a_prior_tool() -> None:
    texts = ("where is my order?", "yes, please CONFIRM the refund")
    rule = {"only_after": {"tool": "refund", "when": {"text": r"\bconfirm"}}}
    assert check(rule, [[], [c("refund")]], texts)[1].passed is True
    bad = check(rule, [[c("refund")], []], texts)[1]
    assert bad.passed is False and "call #1 refund in turn 0 before a user message" in bad.reason

    by_tool = {"only_after": {"tool": "refund", "when": {"tool": "lookup_order"}}}
    assert check(by_tool, [[c("lookup_order")], [c("refund")]], texts)[1].passed is True
    assert check(by_tool, [[c("refund"), c("lookup_order")]], texts)[1].passed is False

    either = {"only_after": {"tool": "refund", "when": "lookup_order"}}  # bare: text or tool
    assert check(either, [[c("lookup_order"), c("refund")]], ("hi",))[1].passed is True
    assert check(either, [[c("refund")]], ("about lookup_order",))[1].passed is True
    assert check(either, [[c("refund")]], ("hi",))[1].passed is False


def test_turn_scoped_policy_sees_that_turn_only() -> None:
    turns = [[c("refund")], [c("lookup"), c("refund")]]
    assertions = parse_assertions(
        [{"type": "policy", "turn": 1, "before": ["lookup", "refund"]}], where=WHERE
    )
    [(turn, result)] = check_assertions(assertions, turns, facts=RuleFacts())
    assert turn == 1 and result.passed is True


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        ({}, "assertions[0]"),
        ({"never": "x", "bogus": 1}, "assertions[0].bogus"),
        ({"at_most": {"refund": -1}}, "assertions[0].at_most"),
        ({"before": ["only-one"]}, "assertions[0].before"),
        ({"only_after": {"tool": "refund"}}, "assertions[0].only_after.when"),
        (
            {"only_after": {"tool": "refund", "when": {"text": "("}}},
            "assertions[0].only_after.when",
        ),
    ],
)
def test_bad_policies_name_the_field(rule: dict, field: str) -> None:
    with pytest.raises(AssertionConfigError) as caught:
        parse_assertions([{"type": "policy", **rule}], where=WHERE)
    assert caught.value.field == field
    assert str(caught.value).startswith(WHERE)


def test_a_kept_policy_says_which_rules_it_checked() -> None:
    """Four policies in the config used to give four identical "3 calls keep every rule"."""
    turns = [[c("verify_identity")], [c("request_refund")]]
    texts = ("hi", "I want a refund")
    reasons = [
        check(rule, turns, texts)[1].reason
        for rule in (
            {"never": ["delete_account", "wipe"]},
            {"at_most": {"request_refund": 1}},
            {"before": ["verify_identity", "request_refund"]},
            {"only_after": {"tool": "request_refund", "when": {"text": "refund"}}},
        )
    ]
    assert reasons == [
        "2 call(s) keep never: delete_account, wipe",
        "2 call(s) keep at_most: request_refund 1",
        "2 call(s) keep before: verify_identity before request_refund",
        "2 call(s) keep only_after: request_refund after /refund/",
    ]
