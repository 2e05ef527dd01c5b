"""Cases ported from confident-ai/deepeval (tests/test_metrics/test_tool_correctness_metric.py,
test_tool_use_metric.py, test_task_completion_tools_called.py).

ToolCorrectness (names only by default): score = expected tools called /
expected tools, extra calls allowed -> trajectory(order="contains",
arg_mode="ignore"); `should_exact_match` -> order strict with all_or_nothing;
`should_consider_ordering` -> order in_order. ToolUseMetric (LLM, available
tools) -> the `tool_selection` judge; TaskCompletion's prompt -> the
`goal_completion` judge's, which lists the calls.
"""

from __future__ import annotations

import pytest
from tracesim.evaluator.judges import BUILTIN_JUDGES
from tracesim.evaluator.metrics import trajectory
from tracesim.schemas import ToolCall

from tests.evaluator.peers._common import judge_once, turn_context

TYPE_REASON = (
    "SPEC §4: a tool call is identified by its name (and call id); the data model has no "
    "tool type, so a FUNCTION and an MCP call of the same name are the same tool"
)


def correctness(actual, expected, *, exact=False, ordering=False):
    if exact:
        return trajectory(actual, expected, order="strict", arg_mode="ignore", all_or_nothing=True)
    order = "in_order" if ordering else "contains"
    return trajectory(actual, expected, order=order, arg_mode="ignore")


REPO = {"repoName": "confident-ai/deepeval"}


@pytest.mark.spec_override(reason=TYPE_REASON)
@pytest.mark.parametrize(
    "kwargs", [{}, {"exact": True}, {"ordering": True}], ids=["default", "exact", "ordering"]
)
def test_type_mismatch(kwargs) -> None:
    result = correctness(
        [ToolCall(name="ask_question", args=REPO)],
        [ToolCall(name="ask_question", args=REPO)],
        **kwargs,
    )
    assert (result.value, result.passed) == (1.0, True)  # deepeval: 0.0 (MCP vs FUNCTION)


def test_matching_type_passes() -> None:
    result = correctness(
        [ToolCall(name="ask_question", args=REPO)], [ToolCall(name="ask_question", args=REPO)]
    )
    assert (result.value, result.passed) == (1.0, True)


def test_defaulted_type_is_function() -> None:
    assert correctness([ToolCall(name="get_weather")], [ToolCall(name="get_weather")]).value == 1.0


@pytest.mark.spec_override(reason=TYPE_REASON)
def test_mixed_types_score_partially() -> None:
    actual = [ToolCall(name="get_weather"), ToolCall(name="ask_question")]
    result = correctness(actual, [ToolCall(name="get_weather"), ToolCall(name="ask_question")])
    assert result.value == 1.0  # deepeval: 0.5


def test_same_name_different_types_do_not_match() -> None:
    actual = [ToolCall(name="ask_question"), ToolCall(name="ask_question")]
    assert correctness(actual, [ToolCall(name="ask_question")]).value == 1.0


# --- ToolUseMetric: an LLM judge that sees the available tools ---------------------------

REFUND = "We offer a 30-day full refund at no extra cost."


@pytest.mark.parametrize("label", ["no_tool_needed", "missing_tool"])
def test_tool_use_judge_sees_available_tools(label) -> None:
    ctx = turn_context(
        user="What if these shoes don't fit?",
        agent=REFUND,
        calls=[],
        scenario={
            "goal": "The chatbot must explain the store policies like refunds, discounts, ..etc.",
            "tools": [{"name": "CheckDiscount"}, {"name": "CheckCars"}],
        },
    )
    result, body = judge_once(BUILTIN_JUDGES["tool_selection"], ctx, label)
    prompt = body["messages"][1]["content"]
    assert '{"name":"CheckDiscount"}' in prompt and '{"name":"CheckCars"}' in prompt
    assert result.value is not None and result.reason


# --- TaskCompletion: the tools called reach the prompt ------------------------------------


@pytest.mark.parametrize("judge", ["goal_completion", "tool_use"])
def test_task_prompt_lists_tools_called(judge) -> None:
    ctx = turn_context(
        user="Can you help me plan a trip to New York this weekend?",
        agent="Sure! Here are some flights and hotels.",
        calls=[ToolCall(name="quantum_router"), ToolCall(name="cryo_vault")],
        conversation=judge == "goal_completion",
    )
    result, body = judge_once(BUILTIN_JUDGES[judge], ctx, None)
    prompt = body["messages"][1]["content"]
    assert "quantum_router" in prompt and "cryo_vault" in prompt
    assert "{{" not in prompt
    assert result.passed is True
