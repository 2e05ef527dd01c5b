"""Cases ported from langchain-ai/agentevals (python/tests/test_trajectory.py,
test_trajectory_llm.py): trajectory match modes, argument modes, overrides.

Their words map to ours: trajectory modes strict/unordered/superset/subset ->
order strict/unordered/contains/within; `tool_args_match_mode` exact/ignore/
subset (actual within reference)/superset (reference within actual) ->
arg_mode exact/ignore/superset/subset (ours names the EXPECTED side);
`tool_args_match_overrides` -> `arg_matchers`. One assistant message = one
parallel group, so their message-by-message strict mode is our strict order.
"""

from __future__ import annotations

import pytest
from tracesim.evaluator.judges import BUILTIN_JUDGES, with_rubric
from tracesim.evaluator.metrics import trajectory

from tests.evaluator.peers._common import judge_once, messages, turn_context

ORDER = {"strict": "strict", "unordered": "unordered", "superset": "contains", "subset": "within"}
ARGS = {"exact": "exact", "ignore": "ignore", "subset": "superset", "superset": "subset"}
MODES = list(ORDER)


def check(actual, expected, mode, score, *, args="exact", overrides=None):
    result = trajectory(
        actual, expected, order=ORDER[mode], arg_mode=ARGS[args], arg_matchers=overrides
    )
    assert result.passed is bool(score), result.reason


SF = ("get_weather", {"city": "SF"})
LONDON = ("get_weather", {"city": "London"})
SAN_FRANCISCO = ("get_weather", {"city": "San Francisco"})
BOTH = ("get_weather", {"city": "SF and London"})


@pytest.mark.parametrize("mode", MODES)
def test_trajectory_match(mode) -> None:
    actual, _ = messages([SAN_FRANCISCO])
    _, expected = messages([SAN_FRANCISCO])
    check(actual, expected, mode, True)


@pytest.mark.parametrize("mode", MODES)
def test_different_tool_message_order(mode) -> None:
    actual, _ = messages([SF, LONDON])
    _, expected = messages([LONDON, SF])
    check(actual, expected, mode, True)


@pytest.mark.parametrize(
    ("mode", "score"), [("unordered", 1), ("superset", 1), ("subset", 1), ("strict", 0)]
)
def test_different_message_count(mode, score) -> None:
    actual, _ = messages([SF], [LONDON])
    _, expected = messages([LONDON, SF])
    check(actual, expected, mode, score)


@pytest.mark.parametrize(
    ("mode", "score"), [("unordered", 0), ("superset", 0), ("subset", 1), ("strict", 0)]
)
def test_subset_tool_call(mode, score) -> None:
    actual, _ = messages([SF])
    _, expected = messages([LONDON, SF])
    check(actual, expected, mode, score)


@pytest.mark.parametrize("mode", MODES)
def test_exact_matcher_with_different_called_tools(mode) -> None:
    actual, _ = messages([SF])
    _, expected = messages([("accuweather_forecast", {"city": "San Francisco"})])
    check(actual, expected, mode, False)


@pytest.mark.parametrize(
    ("mode", "score"), [("unordered", 0), ("superset", 1), ("subset", 0), ("strict", 0)]
)
def test_extra_tool_calls_and_override(mode, score) -> None:
    actual, _ = messages([SAN_FRANCISCO, LONDON])
    _, expected = messages([BOTH])
    check(actual, expected, mode, score, overrides={"get_weather": "ignore"})


@pytest.mark.parametrize(
    ("mode", "score"), [("unordered", 0), ("superset", 0), ("subset", 1), ("strict", 0)]
)
def test_subset_tool_calls_and_override(mode, score) -> None:
    actual, _ = messages([BOTH])
    _, expected = messages([SAN_FRANCISCO, LONDON])
    check(actual, expected, mode, score, overrides={"get_weather": "ignore"})


def _sf_either(got, want):
    return (
        got["city"] == "SF"
        or got["city"] == "San Francisco"
        and (want["city"] == "SF" or want["city"] == "San Francisco")
    )


@pytest.mark.parametrize("mode", MODES)
def test_langchain_messages_and_callable_override(mode) -> None:
    actual, _ = messages([SF])
    _, expected = messages([SAN_FRANCISCO])
    check(actual, expected, mode, True, overrides={"get_weather": _sf_either})


@pytest.mark.parametrize("mode", MODES)
def test_langchain_messages_failure(mode) -> None:
    actual, _ = messages([SF])
    _, expected = messages([("accuweather_forecast", {"city": "San Francisco"})])
    check(actual, expected, mode, False)


FLIGHT = ("fetch_user_flight_information", {})
SEARCH = (
    "search_flights",
    {"start_time": "2025-03-22T18:34:40Z", "departure_airport": "CDG", "arrival_airport": "BSL"},
)


def _upgrade_query(got, want):
    if want.get("query") and "upgrade" in want["query"]:
        return "upgrade" in got.get("query", "")
    return True


@pytest.mark.parametrize(
    ("mode", "score"), [("unordered", 0), ("superset", 1), ("subset", 0), ("strict", 0)]
)
def test_trajectory_match_with_overrides(mode, score) -> None:
    actual, _ = messages(
        [FLIGHT],
        [SEARCH],
        [
            ("lookup_policy", {"query": "flight upgrades"}),
            ("lookup_policy", {"query": "first class"}),
        ],
    )
    _, expected = messages(
        [FLIGHT],
        [
            ("lookup_policy", {"query": "upgrade to first class"}),
            ("lookup_policy", {"query": "foo"}),
        ],
    )
    check(actual, expected, mode, False)  # without the override nothing matches
    check(actual, expected, mode, score, overrides={"lookup_policy": _upgrade_query})


@pytest.mark.parametrize("mode", MODES)
def test_nested_field_overrides(mode) -> None:
    window = {"start": "2025-03-22T18:34:40Z", "end": "2025-03-22T20:34:40Z"}
    actual, _ = messages(
        [("fetch_user_flight_information", {"user_id": "123"})],
        [
            ("lookup_policy", {"query": "flight upgrades", "time": window}),
            ("lookup_policy", {"query": "first class", "time": window}),
        ],
    )
    other = {"start": "2025-03-22T18:34:40Z", "end": "baz"}
    _, expected = messages(
        [("fetch_user_flight_information", {"user_id": "123"})],
        [
            ("lookup_policy", {"query": "foo", "time": other}),
            ("lookup_policy", {"query": "bar", "time": other}),
        ],
    )
    check(actual, expected, mode, False)
    check(actual, expected, mode, True, overrides={"lookup_policy": ["time.start"]})


@pytest.mark.parametrize(
    ("args", "score"), [("exact", 0), ("ignore", 1), ("subset", 0), ("superset", 1)]
)
def test_tool_args_match_mode_superset(args, score) -> None:
    actual, _ = messages([("get_flight_info", {"is_cool": True, "flight_no": "LX0112"})])
    _, expected = messages([("get_flight_info", {"flight_no": "LX0112"})])
    check(actual, expected, "strict", score, args=args)


@pytest.mark.parametrize(
    ("args", "score"), [("exact", 0), ("ignore", 1), ("subset", 1), ("superset", 0)]
)
def test_tool_args_match_mode_subset(args, score) -> None:
    actual, _ = messages([("get_flight_info", {"flight_no": "LX0112"})])
    _, expected = messages([("get_flight_info", {"flight_no": "LX0112", "foo": "bar"})])
    check(actual, expected, "strict", score, args=args)


@pytest.mark.parametrize("args", ["exact", "ignore", "subset", "superset"])
def test_tool_args_match_mode_exact(args) -> None:
    actual, _ = messages([("get_flight_info", {"flight_no": "LX0112"})])
    _, expected = messages([("get_flight_info", {"flight_no": "LX0112"})])
    check(actual, expected, "strict", True, args=args)


# --- LLM-judged trajectory (test_trajectory_llm.py) --------------------------------
# The stand-in model answers what their judge answered; the port checks that our
# judge is shown what theirs was (calls, reference, rubric) and maps the verdict.

WEATHER_SF = [("get_weather", {"city": "SF"}, "It's 80 degrees and sunny in SF.")]


def _trajectory_ctx(user, reference=None):
    actual, _ = messages(WEATHER_SF)
    scenario = {"goal": user} | ({"reference_trajectory": reference} if reference else {})
    return turn_context(
        user=user,
        agent="The weather in SF is 80 degrees and sunny.",
        calls=actual,
        scenario=scenario,
        conversation=True,
    )


def test_llm_trajectory_with_reference() -> None:
    ref = [{"name": "get_weather", "args": {"city": "San Francisco"}}]
    judge = BUILTIN_JUDGES["trajectory_accuracy"]
    result, body = judge_once(judge, _trajectory_ctx("What is the weather in SF?", ref), "accurate")
    prompt = body["messages"][1]["content"]
    assert '"city":"San Francisco"' in prompt and 'get_weather({"city":"SF"})' in prompt
    assert result.passed is True and result.value == 1.0


def test_llm_trajectory_no_reference() -> None:
    judge = BUILTIN_JUDGES["trajectory_accuracy"]
    result, body = judge_once(judge, _trajectory_ctx("What is the weather in SF?"), "accurate")
    assert "(none given: judge against the user's goal)" in body["messages"][1]["content"]
    assert result.passed is True


def test_llm_trajectory_no_reference_bad_trajectory() -> None:
    judge = BUILTIN_JUDGES["trajectory_accuracy"]
    ctx = _trajectory_ctx("What are some good restaurants in SF?")
    result, _ = judge_once(judge, ctx, "inaccurate")
    assert (result.passed, result.value) == (False, 0.0)


@pytest.mark.spec_override(
    reason="SPEC §7 fixes each judge's label set: a user's rubric adds criteria but cannot "
    "invert the scale (their inverse rubric scores a good trajectory 0; ours passes it)"
)
def test_llm_trajectory_inverse_rubric() -> None:
    rubric = "We are looking for bad trajectories."
    judge = with_rubric(BUILTIN_JUDGES["trajectory_accuracy"], rubric)
    ref = [{"name": "get_weather", "args": {"city": "San Francisco"}}]
    result, body = judge_once(judge, _trajectory_ctx("What is the weather in SF?", ref), "accurate")
    assert rubric in body["messages"][0]["content"]
    assert result.passed is True
