"""Cases ported from google/adk-python (tests/unittests/evaluation):
test_trajectory_evaluator.py, test_tool_parameter_match_evaluator.py,
test_efficiency_evaluators.py (tool call count), test_eval_case_result_aggregator.py.

ADK's words map to ours: TOOL_TRAJECTORY_AVG_SCORE match types EXACT /
IN_ORDER / ANY_ORDER (expected within actual, extras allowed) -> order
strict / in_order / contains, all_or_nothing per invocation, averaged over
invocations with `aggregate`; `ignore_args` -> arg_mode ignore;
TOOL_PARAMETER_MATCH -> tool_call_args(arg_mode="partial_credit");
TOOL_CALL_COUNT_V1 -> tool_call_stats (informational).
"""

from __future__ import annotations

import pytest
from tracesim.evaluator.checks.assertions import AssertionConfigError, parse_assertions
from tracesim.evaluator.metrics import aggregate, tool_call_args, tool_call_stats, trajectory
from tracesim.evaluator.metrics.vocabulary import VocabularyError, resolve_order
from tracesim.schemas import MetricResult, ToolCall

ADK = {"EXACT": "strict", "IN_ORDER": "in_order", "ANY_ORDER": "contains"}


def fc(name: str, **args) -> ToolCall:
    return ToolCall(name=name, args=args)


def score(actual, expected, match_type="EXACT", *, ignore_args=False) -> float:
    result = trajectory(
        actual,
        expected,
        order=ADK[match_type],
        arg_mode="ignore" if ignore_args else "exact",
        all_or_nothing=True,
    )
    return result.value


def over_invocations(pairs, match_type="EXACT", *, ignore_args=False) -> MetricResult:
    results = [
        trajectory(
            a,
            e,
            order=ADK[match_type],
            arg_mode="ignore" if ignore_args else "exact",
            all_or_nothing=True,
        )
        for a, e in pairs
    ]
    return aggregate(results, threshold=0.5)


# --- match type spellings ---------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "adk"),
    [
        ("in_order", "IN_ORDER"),
        ("exact", "EXACT"),
        ("EXACT", "EXACT"),
        (" exact ", "EXACT"),
        ("in order", "IN_ORDER"),
        ("IN ORDER", "IN_ORDER"),
        ("In OrDeR", "IN_ORDER"),
        ("in-order", "IN_ORDER"),
        ("IN-ORDER", "IN_ORDER"),
        ("in_order", "IN_ORDER"),
        ("any order", "ANY_ORDER"),
        ("ANY ORDER", "ANY_ORDER"),
        ("any-order", "ANY_ORDER"),
        ("ANY-ORDER", "ANY_ORDER"),
        ("any_order", "ANY_ORDER"),
    ],
)
def test_match_type_spellings_normalise(spelling, adk) -> None:
    assert resolve_order(spelling) == resolve_order(adk.lower())


def test_unknown_match_type_is_rejected() -> None:
    with pytest.raises(VocabularyError):
        resolve_order("random string")


def test_any_order_from_config_dict() -> None:
    assert (
        score(
            [fc("test_func1"), fc("test_func2")], [fc("test_func2"), fc("test_func1")], "ANY_ORDER"
        )
        == 1.0
    )


# --- EXACT ---------------------------------------------------------------------------


def test_equal_tool_calls() -> None:
    result = over_invocations([([fc("test_func", arg1="val1")], [fc("test_func", arg1="val1")])])
    assert (result.value, result.passed, result.details["values"]) == (1.0, True, [1.0])


def test_different_tool_call_names() -> None:
    assert score([fc("test_func1", arg1="val1")], [fc("test_func2", arg1="val1")]) == 0.0


def test_different_tool_call_args() -> None:
    assert score([fc("test_func", arg1="val1")], [fc("test_func", arg1="val2")]) == 0.0


def test_different_number_of_tool_calls() -> None:
    call = fc("test_func", arg1="val1")
    assert score([call], [call, call]) == 0.0


def test_no_tool_calls() -> None:
    assert score([], []) == 1.0


def test_multiple_invocations_average() -> None:
    t1, t2 = fc("test_func1", arg1="val1"), fc("test_func2", arg1="val1")
    result = over_invocations([([t1], [t1]), ([t1], [t2])])
    assert (result.value, result.passed, result.details["values"]) == (0.5, True, [1.0, 0.0])


def test_no_invocations_not_evaluated() -> None:
    assert aggregate([], name="trajectory").value is None


# --- IN_ORDER / ANY_ORDER ---------------------------------------------------------------

T = {n: fc(n) for n in ("t1", "t1_1", "t2", "t2_1", "t3", "t3_1", "t4")}


def ts(*names):
    return [T[n] for n in names]


@pytest.mark.parametrize(
    ("match_type", "actual", "expected", "value"),
    [
        ("IN_ORDER", ts("t1", "t1_1", "t2", "t2_1", "t3", "t3_1"), ts("t1", "t2", "t3"), 1.0),
        ("IN_ORDER", ts("t1", "t1_1", "t2", "t2_1", "t3_1"), ts("t1", "t2", "t4"), 0.0),
        ("IN_ORDER", ts("t1", "t3", "t2"), ts("t1", "t2", "t3"), 0.0),
        ("ANY_ORDER", ts("t2", "t2_1", "t1", "t1_1", "t3", "t3_1"), ts("t1", "t2", "t3"), 1.0),
        ("ANY_ORDER", ts("t1", "t1_1", "t2", "t2_1", "t3_1"), ts("t1", "t2", "t4"), 0.0),
        ("ANY_ORDER", ts("t1", "t2", "t3", "t1"), ts("t1", "t2", "t1"), 1.0),
        ("ANY_ORDER", ts("t1", "t2", "t3"), ts("t1", "t2", "t1"), 0.0),
    ],
    ids=[
        "in_order_extra_calls",
        "in_order_missing_call",
        "in_order_wrong_order",
        "any_order_extra_calls",
        "any_order_missing_call",
        "any_order_duplicates",
        "any_order_duplicates_missing",
    ],
)
def test_in_order_and_any_order(match_type, actual, expected, value) -> None:
    assert score(actual, expected, match_type) == value


# --- ignore_args ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("match_type", "actual", "expected", "value"),
    [
        ("EXACT", [fc("t1", a=1), fc("t2", b=2)], [fc("t1", x=99), fc("t2", y=100)], 1.0),
        ("EXACT", [fc("t1")], [fc("t2")], 0.0),
        ("EXACT", [fc("t1"), fc("t2")], [fc("t1")], 0.0),
        ("EXACT", [], [], 1.0),
        (
            "IN_ORDER",
            [fc("t1", a=1), fc("extra"), fc("t2", b=2)],
            [fc("t1", x=99), fc("t2", y=100)],
            1.0,
        ),
        ("IN_ORDER", [fc("t2"), fc("t1")], [fc("t1"), fc("t2")], 0.0),
        ("IN_ORDER", [fc("t1")], [fc("t1"), fc("t2")], 0.0),
        ("ANY_ORDER", [fc("t2", b=2), fc("t1", a=1)], [fc("t1", x=99), fc("t2", y=100)], 1.0),
        ("ANY_ORDER", [fc("t1")], [fc("t1"), fc("t2")], 0.0),
    ],
    ids=[
        "exact_different_args_pass",
        "exact_different_names_fail",
        "exact_different_count_fail",
        "exact_empty_lists_pass",
        "in_order_different_args_pass",
        "in_order_wrong_order_fail",
        "in_order_missing_tool_fail",
        "any_order_different_args_pass",
        "any_order_missing_tool_fail",
    ],
)
def test_ignore_args(match_type, actual, expected, value) -> None:
    assert score(actual, expected, match_type, ignore_args=True) == value


def test_ignore_args_false_still_checks_args() -> None:
    assert score([fc("t1", a=1)], [fc("t1", a=2)]) == 0.0


def test_ignore_args_multiple_invocations_mixed() -> None:
    result = over_invocations(
        [([fc("t1", a=1)], [fc("t1", z=99)]), ([fc("t1")], [fc("t2")])], ignore_args=True
    )
    assert (result.value, result.details["values"]) == (0.5, [1.0, 0.0])


def test_ignore_args_from_config() -> None:
    (assertion,) = parse_assertions(
        [
            {
                "type": "tool_calls",
                "expected": [{"name": "t1", "args": {"z": 999}}],
                "order": "EXACT",
                "arg_mode": "ignore",
            }
        ],
        where="adk",
    )
    assert (
        trajectory([fc("t1", a=1)], assertion.expected, arg_mode=assertion.arg_match_mode).value
        == 1.0
    )


# --- TOOL_PARAMETER_MATCH ---------------------------------------------------------------


def partial(actual, expected):
    return tool_call_args(actual, expected, arg_mode="partial_credit")


def test_parameter_match_scores_arguments_independently() -> None:
    result = partial([fc("search", city="Rome", rooms=2)], [fc("search", city="Rome", rooms=1)])
    assert result.value == 0.5 and result.value >= 0.5  # ADK: PASSED at threshold 0.5


def test_parameter_match_no_expected_arguments_full_credit() -> None:
    assert partial([fc("search", city="Rome")], [fc("search")]).value == 1.0


def test_parameter_match_aligns_repeated_calls() -> None:
    actual = [fc("log"), fc("search", city="Rome"), fc("search", city="Paris")]
    assert partial(actual, [fc("search", city="Rome"), fc("search", city="Paris")]).value == 1.0


def test_parameter_match_unmatched_expected_call() -> None:
    result = partial([], [fc("search", city="Rome")])
    assert (result.value, result.passed) == (0.0, False)


def test_parameter_match_absent_call_does_not_consume_later_match() -> None:
    assert partial([fc("search", city="Rome")], [fc("log"), fc("search", city="Rome")]).value == 0.5


@pytest.mark.spec_override(
    reason="issue 13: an explicit empty expectation means 'call no tool' and is graded "
    "(ADK: not evaluated); only a missing expectation is not graded"
)
def test_parameter_match_empty_expected_trajectory() -> None:
    result = partial([], [])
    assert (result.value, result.passed) == (1.0, True)


def test_parameter_match_missing_expected_invocations() -> None:
    assert partial([], None).value is None


# --- TOOL_CALL_COUNT_V1 (informational) ------------------------------------------------


def test_tool_call_count_counts_and_averages() -> None:
    per_turn = [tool_call_stats([fc("a"), fc("b")]), tool_call_stats([fc("a")])]
    assert [r.value for r in per_turn] == [2.0, 1.0]
    assert all(r.passed is None and r.label == "informational" for r in per_turn)
    overall = aggregate(per_turn)
    assert (overall.value, overall.passed, overall.label) == (1.5, None, "informational")


def test_tool_call_count_never_fails_for_high_counts() -> None:
    result = tool_call_stats([fc("a"), fc("b"), fc("c")])
    assert (result.value, result.passed) == (3.0, None)


def test_tool_call_count_rejects_a_threshold() -> None:
    with pytest.raises(AssertionConfigError, match="informational"):
        parse_assertions([{"type": "tool_call_stats", "threshold": 1.0}], where="adk")


def test_tool_call_count_no_invocations() -> None:
    assert aggregate([], name="tool_call_stats").value is None


# --- aggregation over invocations -------------------------------------------------------


def _scores(*values):
    return [MetricResult(name="m", value=v, passed=v >= 0.7) for v in values]


def test_mean_over_invocations_not_runs() -> None:
    result = aggregate(_scores(0.0, 1.0, 1.0, 1.0), threshold=0.7)
    assert (result.value, result.passed) == (pytest.approx(0.75), True)


def test_below_threshold_fails() -> None:
    result = aggregate(_scores(0.0, 0.5), threshold=0.7)
    assert (result.value, result.passed) == (pytest.approx(0.25), False)


def test_unsupported_strategy_raises() -> None:
    with pytest.raises(ValueError):
        aggregate(_scores(1.0), how="median")


def test_informational_metric_reported_not_failing() -> None:
    info = [
        MetricResult(name="llm_call_count", value=2.0, label="informational"),
        MetricResult(name="llm_call_count", value=4.0, label="informational"),
    ]
    result = aggregate(info)
    assert (result.value, result.passed) == (pytest.approx(3.0), None)


# --- RUBRIC_BASED_TOOL_USE_QUALITY_V1 (test_rubric_based_tool_use_quality_v1.py) -----------
# ADK's rubric judge of tool use -> a tool judge given the rubric (`with_rubric`, config
# `judge_rubrics`, or the scenario's own `judge_rubrics`); the checks are on the prompt.

RUBRICS = "Did the agent use the correct tool?\nWere the tool parameters correct?"


def _judge_prompt(*, calls=(), scenario=None, rubric=RUBRICS):
    from tracesim.evaluator.judges import BUILTIN_JUDGES, with_rubric

    from tests.evaluator.peers._common import judge_once, turn_context

    judge = BUILTIN_JUDGES["tool_selection"]
    if rubric:
        judge = with_rubric(judge, rubric)
    ctx = turn_context(user="User input here.", agent="Done.", calls=list(calls), scenario=scenario)
    _, body = judge_once(judge, ctx, "correct")
    return body["messages"][0]["content"], body["messages"][1]["content"]


def test_rubric_prompt_basic_invocation() -> None:
    system, user = _judge_prompt()
    assert "User input here." in user
    assert "Did the agent use the correct tool?" in system
    assert "Were the tool parameters correct?" in system
    assert "## Available tools\n(not known" in user  # ADK: "Agent has no tools."
    assert "Tool calls:\n(no tool calls)" in user  # ADK: "No intermediate steps were taken."


def test_rubric_prompt_invocation_rubrics_only() -> None:
    scenario = {"judge_rubrics": {"tool_selection": "Did the agent use the lookup tool?"}}
    _, user = _judge_prompt(scenario=scenario, rubric="")
    assert "User input here." in user and "Did the agent use the lookup tool?" in user


@pytest.mark.spec_override(
    reason="SPEC §7: every judge carries its own fixed rubric and label set; a user rubric "
    "only adds to it, so a judge without user rubrics still runs (ADK: 'Rubrics are required.')"
)
def test_rubric_prompt_without_user_rubrics() -> None:
    system, _ = _judge_prompt(rubric="")
    assert "TOOL SELECTION" in system


def test_rubric_prompt_with_tool_declarations() -> None:
    tools = [
        {"function_declarations": None, "name": "test_func", "description": "A test function."}
    ]
    _, user = _judge_prompt(scenario={"tools": tools})
    assert '"name":"test_func"' in user and '"description":"A test function."' in user


def test_rubric_prompt_with_tool_call_and_response() -> None:
    calls = [
        ToolCall(id="call1", name="test_func", args={"arg1": "val1"}, result='{"result": "ok"}')
    ]
    _, user = _judge_prompt(calls=calls)
    assert 'test_func({"arg1":"val1"}) -> {"result": "ok"}' in user
