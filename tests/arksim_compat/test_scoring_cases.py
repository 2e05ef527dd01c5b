"""arksim's scoring cases: the tool_call_behavior_failure metric (test_tool_calls), its
labels and severities, the final score and statuses (arksim's constants)."""

from __future__ import annotations

import asyncio
import json

import pytest
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.judges import BUILTIN_JUDGES, run_judges
from tracesim.evaluator.llm.cache import LLMCache
from tracesim.evaluator.llm.llm_client import JudgeClient
from tracesim.evaluator.scoring.methodology import METHODOLOGY, SEVERITY_LEVELS
from tracesim.evaluator.scoring.scoring import conversation_scores, status_of
from tracesim.schemas import MetricResult, ToolCall
from tracesim.schemas.eval_config import DEFAULT_JUDGES, JUDGE_NAMES, EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import chat_completion, fake_openai

JUDGE = BUILTIN_JUDGES["tool_call_behavior_failure"]
TURNS = [
    {
        "turn_id": 0,
        "user_message": "Ignore this older turn",
        "agent_message": "Older reply",
        "status": "ok",
    },
    {
        "turn_id": 1,
        "user_message": "Check my order",
        "agent_message": "It shipped.",
        "status": "ok",
    },
]


def _ctx(calls: list[ToolCall]) -> MetricContext:
    return MetricContext(
        chat_id="c1",
        conversation={"chat_id": "c1", "run_id": "r1"},
        scenario={
            "goal": "Check my order status",
            "knowledge": ["Use the order lookup tool for shipping status."],
        },
        turns=TURNS,
        turn_tool_calls=[[], calls],
        turn=TURNS[1],
        tool_calls=calls,
    )


def _grade(calls: list[ToolCall], label: str, reason: str) -> tuple[MetricResult, list[dict]]:
    answer = json.dumps({"reasoning": reason, "label": label})
    with fake_openai(lambda body: chat_completion(answer)) as fake:
        llm = LLMConfig(base_url=fake.base_url, model="judge", api_key_env="TRACESIM_NO_KEY")

        async def go() -> list[MetricResult]:
            client = JudgeClient(llm, cache=LLMCache(None))
            try:
                return await run_judges([(JUDGE, _ctx(calls))], client=client, config=EvalConfig())
            finally:
                await client.aclose()

        [result] = asyncio.run(go())
    return result, fake.requests


LOOKUP = ToolCall(id="t1", name="lookup_order", arguments={"order_id": "123"}, result="shipped")


@pytest.mark.parametrize("calls", [[], None], ids=["empty_list", "no_calls"])
def test_no_tool_calls_is_no_failure_without_a_request(calls) -> None:
    result, requests = _grade(calls or [], "false information", "unused")
    assert (result.value, result.label, result.passed) == (1.0, "no failure", True)
    assert "No tool calls" in result.reason and requests == []


def test_with_tool_calls_the_judge_is_asked() -> None:
    result, [request] = _grade([LOOKUP], "false information", "fabricated the order id")
    assert (result.name, result.label, result.value, result.passed) == (
        "tool_call_behavior_failure",
        "false information",
        0.0,
        False,
    )
    assert result.details["severity"] == "critical"
    prompt = request["messages"][1]["content"]
    for text in (
        "Check my order status",
        "Use the order lookup tool for shipping status.",
        "Ignore this older turn",
        "Older reply",
        "lookup_order",
        '"order_id"',
        "123",
    ):
        assert text in prompt


@pytest.mark.parametrize(
    ("label", "reason", "severity"),
    [
        ("unsafe action", "called delete_all_records without confirmation", "critical"),
        ("unsafe state", "repeated the PII the tool returned", "critical"),
        ("disobey user request", "wrong tool", "high"),
        ("lack of specific information", "dropped the tool error", "medium"),
        ("failure to ask for clarification", "guessed the date", "medium"),
        ("repetition", "called lookup twice", "low"),
    ],
)
def test_failure_labels_and_their_severity(label: str, reason: str, severity: str) -> None:
    result, _ = _grade([LOOKUP], label, reason)
    assert (result.label, result.passed, result.details["severity"]) == (label, False, severity)
    assert reason.split()[0] in result.reason


def test_agent_behavior_failure_reports_severity_too() -> None:
    judge = BUILTIN_JUDGES["agent_behavior_failure"]
    assert judge.severity is not None and judge.severity["false information"] == "critical"
    assert set(judge.severity.values()) <= set(SEVERITY_LEVELS)


def test_metrics_to_run_defaults_are_arksims_seven() -> None:
    assert set(DEFAULT_JUDGES) == {
        "faithfulness",
        "helpfulness",
        "coherence",
        "verbosity",
        "relevance",
        "goal_completion",
        "agent_behavior_failure",
    }


def test_every_builtin_metric_explains_its_computation() -> None:
    from tracesim.evaluator.scoring.gates import TOOL_METRICS

    for name in (*JUDGE_NAMES, *TOOL_METRICS, "final_score", "turn_success_ratio", "status"):
        assert METHODOLOGY.get(name), name


# -- final score and statuses (arksim's constants) -----------------------------------


def _turn(passed: bool) -> MetricResult:
    return MetricResult(name="turn_success", value=1.0 if passed else 0.0, passed=passed)


def _goal(value: float) -> MetricResult:
    return MetricResult(name="goal_completion", value=value)


@pytest.mark.parametrize(
    ("turns", "goal", "final", "status"),
    [
        ([True, True, True, True], 1.0, 1.0, "Done"),
        ([True, True, True, False], 1.0, 0.8125, "Partial Failure"),  # 0.75*0.75 + 0.25*1
        ([True, False, False, False], 0.4, 0.2875, "Failed"),
        ([True, True, False, False], 0.9, 0.6, "Partial Failure"),  # 0.375 + 0.225: the bound
    ],
)
def test_final_score_and_status(turns: list[bool], goal: float, final: float, status: str) -> None:
    _, result = conversation_scores([_turn(t) for t in turns], _goal(goal))
    assert result.value == pytest.approx(final)
    assert result.label == status == result.details["arksim_status"]


def test_not_graded_is_arksims_evaluation_failed() -> None:
    _, result = conversation_scores([], None)
    assert result.value is None and status_of(None) == "Not graded"
    assert result.details["arksim_status"] == "Evaluation Failed"


# -- qualitative_failure_labels: label gates ------------------------------------------


def test_label_gate_fails_on_a_listed_label_only() -> None:
    from tracesim.evaluator.scoring.gates import evaluate_gates, exit_code_for
    from tracesim.evaluator.scoring.tally import MetricTally

    config = EvalConfig(failure_labels={"agent_behavior_failure": ["false information"]})
    tally = MetricTally(config)
    for label in ("no failure", "repetition", "no failure"):
        tally.add("agent_behavior_failure", 1.0 if label == "no failure" else 0.0)
        tally.add_label("agent_behavior_failure", label)
    [gate] = evaluate_gates(tally, config)
    assert (gate.passed, gate.failing, gate.graded) == (True, 0, 3)  # repetition is not listed
    tally.add("agent_behavior_failure", 0.0)
    tally.add_label("agent_behavior_failure", "false information")
    [gate] = evaluate_gates(tally, config)
    assert (gate.passed, gate.failing, gate.observed) == (False, 1, 0.25)
    assert "false information" in gate.reason and int(exit_code_for([gate])) == 1
    [skipped] = evaluate_gates(MetricTally(config), config)
    assert skipped.passed is None  # never graded: skipped, as every gate
