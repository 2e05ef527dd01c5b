"""The shared metric vocabulary and the API-friction fixes of issue 13."""

from __future__ import annotations

import pytest
from tracesim.evaluator.checks.assertions import (
    AssertionConfigError,
    check_assertions,
    parse_assertions,
)
from tracesim.evaluator.metrics import (
    aggregate,
    fuzzy,
    regex,
    tolerance,
    tool_call_args,
    tool_call_count,
    tool_call_f1,
    tool_call_order,
    tool_call_output,
    tool_call_stats,
    trajectory,
)
from tracesim.evaluator.metrics.vocabulary import resolve_arg_mode, resolve_order
from tracesim.schemas import MetricResult, ToolCall


def t(name: str, group: str | None = None, call_id: str = "", **args) -> ToolCall:
    return ToolCall(id=call_id, name=name, args=args, group=group)


LIST_METRICS = [trajectory, tool_call_args, tool_call_order, tool_call_output, tool_call_f1]


def test_args_is_an_alias_of_arguments() -> None:
    assert ToolCall(name="a", args={"x": 1}).arguments == {"x": 1}
    assert ToolCall(name="a", arguments={"x": 1}).model_dump()["arguments"] == {"x": 1}


@pytest.mark.parametrize("metric", LIST_METRICS)
def test_none_is_not_graded_and_empty_list_means_no_call(metric) -> None:
    assert metric([t("a")], None).value is None
    assert (metric([], []).value, metric([], []).passed) == (1.0, True)
    failing = metric([t("a")], [])
    assert (failing.value, failing.passed) == (0.0, False)
    assert "no tool call expected" in failing.reason


@pytest.mark.parametrize("metric", LIST_METRICS)
def test_plain_names_and_unknown_keys(metric) -> None:
    assert metric([t("search")], ["search"]).label != "invalid_expected"
    bad = metric([t("search")], [{"name": "search", "arg": {"q": 1}}])
    assert bad.label == "invalid_expected"
    assert "unknown key 'arg'" in bad.reason and "did you mean 'args'" in bad.reason


def test_vocabulary_and_aliases() -> None:
    assert resolve_arg_mode("partial") == "subset"  # arksim's word (issue 11)
    assert resolve_order("any_order") == "contains" and resolve_order("subset") == "within"
    with pytest.raises(ValueError, match="one of exact, subset, superset"):
        resolve_arg_mode("loose")
    # old spellings keep working
    assert tool_call_args([t("a", x=1, y=2)], [t("a", x=1)], subset=True).passed
    assert tool_call_order([t("b"), t("a")], ["a", "b"], strict=True).value == 0.0
    assert trajectory([t("b"), t("a")], ["a", "b"], mode="unordered").passed


def test_safe_default_is_strict_and_exact() -> None:
    assert not trajectory([t("b"), t("a")], ["a", "b"]).passed
    assert not trajectory([t("a", x=2)], [t("a", x=1)]).passed
    assert trajectory([t("a", x=1), t("b")], [t("a", x=1), "b"]).passed


def test_count_accepts_single_equals_and_normalised_names() -> None:
    assert tool_call_count([t("Web Search")], {"Web_Search": ("=", 1)}).passed
    assert tool_call_count([t("a")], {"a": ["=", 2]}, all_or_nothing=True).value == 0.0


def test_superset_actual_within_expected() -> None:
    expected = [t("f", a=1, b=2)]
    assert trajectory([t("f", a=1)], expected, arg_mode="superset").passed
    assert not trajectory([t("f", a=1, c=3)], expected, arg_mode="superset").passed
    assert not trajectory([t("f", a=1, c=3)], expected, arg_mode="subset").passed


def test_partial_credit_uses_the_best_assignment() -> None:
    actual = [t("s", city="Rome", rooms=2), t("s", city="Paris", rooms=1)]
    expected = [t("s", city="Paris", rooms=2), t("s", city="Rome", rooms=2)]
    result = tool_call_args(actual, expected, arg_mode="partial_credit")
    assert result.value == 0.75 and result.passed is False  # Rome exact, Paris half
    ordered = trajectory(actual[:1], expected[1:], arg_mode="partial_credit")
    assert (ordered.value, ordered.passed) == (1.0, True)


def test_matchers_callable_regex_tolerance_fuzzy_keys_ignore() -> None:
    actual = [t("book", city="Paris ", when="2024-05-01T10:00", price=99.99, meta={"a": 1, "b": 2})]
    matchers = {
        "book": {
            "args": {
                "city": fuzzy(0.9),
                "when": regex(r"2024-05-01T.*"),
                "price": tolerance(0.05),
            },
            "ignore_keys": ["meta.b"],
        }
    }
    expected = [t("book", city="paris", when="x", price=100, meta={"a": 1})]
    assert trajectory(actual, expected, arg_matchers=matchers).passed
    assert trajectory(actual, [t("book", meta={"a": 1})], arg_matchers={"book": ["meta.a"]}).passed
    call = {"book": lambda got, want: got["price"] < 100}
    assert tool_call_args(actual, [t("book")], arg_matchers=call).passed
    config_form = {"book": {"args": {"price": {"tolerance": 0.001}}, "mode": "subset"}}
    assert not trajectory(actual, [t("book", price=100)], arg_matchers=config_form).passed
    bad = trajectory(actual, expected, arg_matchers={"book": {"args": {"city": {"fuzz": 1}}}})
    assert bad.label == "invalid_expected" and "arg_matchers['book'].args.city" in bad.reason


def test_names_normalised_and_ids_matched() -> None:
    assert trajectory([t("Web Search")], ["Web_Search"]).passed
    by_id = [{"id": "call_2", "name": "get"}]
    assert tool_call_args(
        [t("get", call_id="call_1", x=1), t("get", call_id="call_2")], by_id
    ).passed
    assert not trajectory([t("get", call_id="call_1")], by_id).passed


def test_parallel_group_is_unordered_inside_strict() -> None:
    actual = [t("plan"), t("w", "m1", city="SF"), t("w", "m1", city="LDN"), t("answer")]
    expected = ["plan", t("w", city="LDN"), t("w", city="SF"), "answer"]
    assert trajectory(actual, expected).passed
    assert not trajectory([t("w", city="SF"), t("w", city="LDN")], expected[1:3]).passed
    # an expected group (nested list) must be one model message in the actual run
    grouped = [[t("w", city="LDN"), t("w", city="SF")]]
    assert trajectory(actual[1:3], grouped).passed
    separate = trajectory([t("w", "m1", city="SF"), t("w", "m2", city="LDN")], grouped)
    assert not separate.passed
    assert tool_call_order(actual, ["plan", "w", "w", "answer"], order="strict").passed


def test_f1_precision_recall() -> None:
    result = tool_call_f1([t("a"), t("b"), t("c")], ["a", "b", "d", "e"], arg_mode="ignore")
    assert result.details["precision"] == pytest.approx(2 / 3)
    assert result.details["recall"] == 0.5
    assert result.value == pytest.approx(4 / 7)


def test_stats_are_informational_and_aggregate_rolls_up() -> None:
    stats = [tool_call_stats([t("a"), t("a")]), tool_call_stats([t("b")])]
    assert stats[0].passed is None and stats[0].label == "informational"
    rolled = aggregate(stats)
    assert (rolled.value, rolled.passed) == (1.5, None)
    mixed = [
        MetricResult(name="m", value=1.0, passed=True),
        MetricResult(name="m", value=None),
        MetricResult(name="m", value=0.0, passed=False),
    ]
    result = aggregate(mixed, threshold=0.5)
    assert (result.value, result.passed, result.details["not_graded"]) == (0.5, True, 1)
    assert aggregate(mixed, how="min").value == 0.0
    assert aggregate([MetricResult(name="m")]).value is None


def test_assertions_speak_the_vocabulary() -> None:
    raw = [
        {"type": "tool_calls", "expected": ["a", "b"], "order": "strict", "arg_mode": "ignore"},
        {
            "type": "tool_call_args",
            "expected": [{"name": "a", "args": {"x": 1, "y": 2}}],
            "arg_mode": "partial_credit",
        },
        {"type": "tool_call_f1", "expected": ["a", "c"], "arg_mode": "ignore"},
        {"type": "tool_call_stats"},
        {"type": "tool_calls", "forbidden": ["drop"]},
        {"type": "tool_call_order", "expected": ["b", "a"], "order": "strict"},
    ]
    parsed = parse_assertions(raw, where="s.json")
    results = [r for _, r in check_assertions(parsed, [[t("a", x=1, y=3), t("b")]])]
    assert [r.name for r in results] == [
        "trajectory",
        "tool_call_args",
        "tool_call_f1",
        "tool_call_stats",
        "trajectory",
        "tool_call_order",
    ]
    assert results[0].passed and results[1].value == 0.5 and results[2].value == 0.5
    assert results[3].value == 2.0 and results[4].passed and results[5].value == 0.0
    with pytest.raises(AssertionConfigError, match="arg_matchers"):
        parse_assertions([{"type": "tool_calls", "expected": [], "arg_matchers": 3}], where="s")
    with pytest.raises(AssertionConfigError, match="did you mean 'args'"):
        parse_assertions(
            [{"type": "tool_calls", "expected": [{"name": "a", "arg": {}}]}], where="s"
        )
