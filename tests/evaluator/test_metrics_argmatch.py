"""Argument matchers, partial credit and weighted pairing (issue 13)."""

from __future__ import annotations

import pytest
from tracesim.evaluator.calls.matching import max_weight_matching, weighted_lcs_pairs
from tracesim.evaluator.metrics import IGNORE, normalized, tool_call_args, trajectory
from tracesim.evaluator.metrics.argmatch import (
    ArgComparer,
    ArgMatcherError,
    ToolArgSpec,
    compile_matchers,
)
from tracesim.schemas import ToolCall


def t(name: str, **args) -> ToolCall:
    return ToolCall(name=name, args=args)


def test_weighted_matching_prefers_the_best_total_not_the_most_pairs() -> None:
    weights = [[0.9, 0.8], [0.0, 0.1]]
    assert max_weight_matching(2, 2, lambda i, j: weights[i][j]) == [(0, 0), (1, 1)]
    wide = [[0.2, 0.9, 0.1]]
    assert max_weight_matching(1, 3, lambda i, j: wide[i][j]) == [(0, 1)]
    assert max_weight_matching(3, 1, lambda i, j: wide[0][i]) == [(1, 0)]
    assert weighted_lcs_pairs(2, 2, lambda i, j: [[0.5, 1.0], [0.2, 0.0]][i][j]) == [(0, 1)]


def test_partial_credit_by_call_callable_and_keys() -> None:
    comparer = ArgComparer("partial_credit", compile_matchers({"f": ["a", "b.c"]}))
    assert comparer.score("f", {"a": 1, "b": {"c": 2}}, {"a": 1, "b": {"c": 3}}) == 0.5
    half = compile_matchers({"g": lambda got, want: 0.5})
    assert ArgComparer("exact", half).score("g", {"x": 1}, {"x": 2}) == 0.5
    result = trajectory([t("g", x=2)], [t("g", x=1)], arg_matchers={"g": lambda got, want: 0.5})
    assert (result.value, result.passed) == (0.5, False)


def test_value_matchers_in_every_mode() -> None:
    spec = {"f": {"args": {"q": normalized(), "noise": IGNORE}}}
    actual = [t("f", q="Hello, World!", noise=1)]
    assert trajectory(actual, [t("f", q="hello world", noise=2)], arg_matchers=spec).passed
    assert trajectory(
        actual, [t("f", q="hello world")], arg_mode="subset", arg_matchers=spec
    ).passed
    within = trajectory(
        actual, [t("f", q="HELLO world", noise=0, extra=1)], arg_mode="superset", arg_matchers=spec
    )
    assert within.passed
    partial = tool_call_args(
        actual, [t("f", q="bye", noise=0)], arg_mode="partial_credit", arg_matchers=spec
    )
    assert partial.value == 0.5


def test_spec_forms_and_errors() -> None:
    assert compile_matchers({"Web Search": "ignore"})["Web_Search"].mode == "ignore"
    ready = ToolArgSpec(keys=("a",))
    assert compile_matchers({"f": ready})["f"] is ready
    for bad, where in [
        ({"f": 3}, "arg_matchers['f']"),
        ({"f": {"mode": "loose"}}, "arg_matchers['f']: unknown arg_mode"),
        ({"f": {"keys": ["a"], "weights": 1}}, "unknown key 'weights'"),
        ({"f": {"args": {"a": {"regex": 3}}}}, "arg_matchers['f'].args.a"),
    ]:
        with pytest.raises(ArgMatcherError, match=where.replace("[", r"\[").replace("]", r"\]")):
            compile_matchers(bad)


def test_ignore_keys_reach_nested_paths() -> None:
    spec = {"f": {"ignore_keys": ["meta.trace_id", "ts"]}}
    actual = [t("f", a=1, ts=5, meta={"trace_id": "x", "user": "u"})]
    expected = [t("f", a=1, ts=9, meta={"trace_id": "y", "user": "u"})]
    assert trajectory(actual, expected, arg_matchers=spec).passed
    wrong_user = [t("f", a=1, meta={"trace_id": "y", "user": "v"})]
    assert not trajectory(actual, wrong_user, arg_matchers=spec).passed
