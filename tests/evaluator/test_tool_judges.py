"""Tool-focused judges over real HTTP against the fake OpenAI-compatible server.

They must show the judge the tools on offer and the reference trajectory,
keep structured output, the cache (a re-run asks nothing) and cost
accounting, and let a user's rubric reach the prompt.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import duckdb
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.judges import BUILTIN_JUDGES, TOOL_JUDGES, run_judges, with_rubric
from tracesim.evaluator.llm.cache import LLMCache
from tracesim.evaluator.llm.llm_client import JudgeClient
from tracesim.schemas import ToolCall, create_all
from tracesim.schemas.eval_config import DEFAULT_JUDGES, EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import chat_completion, fake_openai

TURN = {"turn_id": 0, "user_message": "Weather in Paris?", "agent_message": "18C, sunny."}
CALLS = [ToolCall(name="get_weather", args={"city": "Paris"}, result='{"temp": 18}')]
SPAN_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def _ctx(*, scenario: dict[str, Any], spans: list[dict[str, Any]] = (), turn: bool = True):
    return MetricContext(
        chat_id="c1",
        conversation={"chat_id": "c1"},
        scenario=scenario,
        turns=[TURN],
        turn_tool_calls=[CALLS],
        turn=TURN if turn else None,
        tool_calls=CALLS,
        spans=list(spans),
    )


def _answer(label: str, tokens: int = 50):
    def handler(body: dict[str, Any]) -> dict[str, Any]:
        answer = {"reasoning": "compared with the reference", "label": label}
        return chat_completion(json.dumps(answer), prompt_tokens=tokens, completion_tokens=10)

    return handler


def _client(fake, con, **llm: Any) -> JudgeClient:
    config = LLMConfig(base_url=fake.base_url, model="judge-1", api_key_env="NO_KEY", **llm)
    return JudgeClient(config, cache=LLMCache(con))


def _run(tasks, client, config=None):
    return asyncio.run(run_judges(tasks, client=client, config=config or EvalConfig()))


def test_tool_judges_are_opt_in_and_registered() -> None:
    assert set(TOOL_JUDGES) <= set(BUILTIN_JUDGES)
    assert not set(TOOL_JUDGES) & set(DEFAULT_JUDGES)
    assert BUILTIN_JUDGES["trajectory_accuracy"].level == "conversation"


def test_selection_judge_sees_tool_definitions_from_spans_and_is_cached() -> None:
    con = duckdb.connect()
    create_all(con)
    spans = [{"attributes": json.dumps({"gen_ai.tool.definitions": json.dumps(SPAN_TOOLS)})}]
    task = (BUILTIN_JUDGES["tool_selection"], _ctx(scenario={"goal": "weather"}, spans=spans))
    with fake_openai(_answer("wrong_tool")) as fake:
        client = _client(fake, con)
        (first,) = _run([task], client)
        (again,) = _run([task], client)
        asked = list(fake.requests)
    assert len(asked) == 1  # the second run is answered by the cache
    body = asked[0]
    assert body["response_format"]["json_schema"]["name"] == "tool_selection"
    prompt = body["messages"][1]["content"]
    assert "## Available tools" in prompt and "Current weather for a city" in prompt
    assert (first.value, first.passed, first.label) == (0.0, False, "wrong_tool")
    assert (again.value, again.label) == (first.value, first.label)
    assert client.usage.requests == 1 and client.usage.input_tokens == 50


def test_trajectory_judge_compares_with_the_reference_and_a_custom_rubric() -> None:
    con = duckdb.connect()
    create_all(con)
    scenario = {
        "goal": "weather",
        "tools": [{"name": "get_weather", "description": "Weather by city"}],
        "assertions": [{"type": "tool_calls", "expected": [{"name": "get_weather"}]}],
    }
    judge = with_rubric(BUILTIN_JUDGES["trajectory_accuracy"], "Paris lookups must use the city.")
    with fake_openai(_answer("acceptable_deviation")) as fake:
        (result,) = _run([(judge, _ctx(scenario=scenario, turn=False))], _client(fake, con))
        body = fake.requests[0]
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "Paris lookups must use the city." in system
    assert '## Reference trajectory\n- {"name":"get_weather"}' in user
    assert "Weather by city" in user
    assert (result.value, result.passed) == (1.0, True)


def test_judge_rubrics_in_config_reach_the_stage_and_name_real_judges() -> None:
    import pytest

    config = EvalConfig(metrics=["tool_invocation"], judge_rubrics={"tool_invocation": "x"})
    assert config.judge_rubrics == {"tool_invocation": "x"}
    with pytest.raises(ValueError, match="not a judge"):
        EvalConfig(judge_rubrics={"tool_invocaton": "x"})


def test_tool_judges_from_config_through_evaluate_db(tmp_path) -> None:
    """Config selects the tool judges and adds a rubric; the pipeline shows the reference."""
    from tracesim.evaluator.pipeline.pipeline import evaluate_db

    from tests.evaluator.test_pipeline import build_db
    from tests.fakes.openai_server import judge_reply

    db = build_db(tmp_path / "t.duckdb")
    config = EvalConfig(
        metrics=["trajectory_accuracy", "tool_selection"],
        judge_rubrics={"trajectory_accuracy": "Refunds need a lookup first."},
    )
    with fake_openai(judge_reply) as fake:
        llm = LLMConfig(base_url=fake.base_url, model="judge")
        outcome = evaluate_db(db, config=config, llm=llm, output_dir=tmp_path / "o", progress=False)
        asked = list(fake.requests)
    trajectory = [
        r for r in asked if r["response_format"]["json_schema"]["name"] == "trajectory_accuracy"
    ]
    assert len(trajectory) == 2  # one per conversation
    ok = next(
        r
        for r in trajectory
        if "lookup_order" in r["messages"][1]["content"]
        and "refund" in r["messages"][1]["content"].lower()
    )
    assert "Refunds need a lookup first." in ok["messages"][0]["content"]
    assert (
        '## Reference trajectory\n- {"args":{"order_id":42},"name":"lookup_order"'
        in ok["messages"][1]["content"]
    )
    con = duckdb.connect(str(db))
    names = {row[0] for row in con.execute("SELECT DISTINCT metric FROM scores").fetchall()}
    assert {"trajectory_accuracy", "tool_selection"} <= names
    assert outcome.exit_code == 0
