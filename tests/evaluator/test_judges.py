"""LLM judges against the fake OpenAI-compatible server, over real HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import duckdb
import pytest
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.judges import BUILTIN_JUDGES, run_judges
from tracesim.evaluator.llm.cache import LLMCache
from tracesim.evaluator.llm.llm_client import JudgeClient, judge_unavailable_reason
from tracesim.schemas import ToolCall, create_all
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import FakeReply, chat_completion, fake_openai, judge_reply

TURNS = [
    {
        "turn_id": 0,
        "user_message": "Where is order 42?",
        "agent_message": "It ships today.",
        "status": "ok",
    },
    {"turn_id": 1, "user_message": "Thanks", "agent_message": "You're welcome.", "status": "ok"},
]


def _ctx(turn: int | None) -> MetricContext:
    calls = [[ToolCall(name="lookup_order", arguments={"id": 42}, result="shipping")], []]
    return MetricContext(
        chat_id="c1",
        conversation={"chat_id": "c1", "run_id": "r1"},
        scenario={"goal": "know where order 42 is", "knowledge": ["order 42 ships today"]},
        turns=TURNS,
        turn_tool_calls=calls,
        turn=None if turn is None else TURNS[turn],
        tool_calls=calls[turn] if turn is not None else calls[0],
    )


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """Answer by the schema the request asks for; scale judges report 100/20 tokens."""
    label_judge = body["response_format"]["json_schema"]["name"] in LABEL_ONLY
    tokens = {} if label_judge else {"prompt_tokens": 100, "completion_tokens": 20}
    return judge_reply(body, **tokens)


LABEL_ONLY = ("goal_completion", "agent_behavior_failure")


def _run(tasks, client, config=None):
    return asyncio.run(run_judges(tasks, client=client, config=config or EvalConfig()))


async def _instant(_: float) -> None:
    return None


def _client(fake, con, **llm: Any) -> JudgeClient:
    config = LLMConfig(
        base_url=fake.base_url, model="judge-1", api_key_env="TRACESIM_TEST_NO_KEY", **llm
    )
    return JudgeClient(config, cache=LLMCache(con), sleep=_instant)


def test_structured_output_request_and_parsed_values() -> None:
    con = duckdb.connect()
    create_all(con)
    with fake_openai(_answer) as fake:
        tasks = [
            (BUILTIN_JUDGES["helpfulness"], _ctx(0)),
            (BUILTIN_JUDGES["goal_completion"], _ctx(None)),
        ]
        client = _client(fake, con)
        help_, goal = _run(tasks, client)
    assert help_.value == 0.75 and help_.label == "4/5" and help_.passed is True
    assert goal.value == 1.0 and goal.label == "complete"
    body = fake.requests[0]
    assert body["temperature"] == 0
    schema = body["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"])[0] == "reasoning"  # reasoning before the score
    assert body["response_format"]["type"] == "json_schema"
    assert fake.headers[0]["authorization"] == "Bearer tracesim-no-key"  # local server: placeholder
    assert client.usage.requests == 2 and client.usage.input_tokens == 110


def test_label_outside_the_set_is_not_graded() -> None:
    def bad(body: dict[str, Any]) -> dict[str, Any]:
        if body["response_format"]["json_schema"]["name"] == "agent_behavior_failure":
            return chat_completion(json.dumps({"reasoning": "x", "label": "rude"}))
        return chat_completion("not json at all")

    with fake_openai(bad) as fake:
        tasks = [
            (BUILTIN_JUDGES["agent_behavior_failure"], _ctx(0)),
            (BUILTIN_JUDGES["coherence"], _ctx(0)),
        ]
        label, junk = _run(tasks, _client(fake, None))
    assert label.value is None and label.label == "malformed" and "rude" in label.reason
    assert junk.value is None and junk.label == "malformed" and "not JSON" in junk.reason


def test_behavior_failure_label_fails_the_turn() -> None:
    def failing(body: dict[str, Any]) -> dict[str, Any]:
        return chat_completion(
            json.dumps({"reasoning": "made it up", "label": "false information"})
        )

    with fake_openai(failing) as fake:
        (result,) = _run([(BUILTIN_JUDGES["agent_behavior_failure"], _ctx(0))], _client(fake, None))
    assert result.value == 0.0 and result.passed is False and result.label == "false information"


def test_cache_second_evaluation_makes_no_request(tmp_path) -> None:
    db = tmp_path / "cache.duckdb"
    con = duckdb.connect(str(db))
    create_all(con)
    judges = ["helpfulness", "relevance", "faithfulness", "verbosity", "agent_behavior_failure"]
    tasks = [(BUILTIN_JUDGES[j], _ctx(t)) for j in judges for t in (0, 1)]
    tasks.append((BUILTIN_JUDGES["goal_completion"], _ctx(None)))
    with fake_openai(_answer) as fake:
        first = _run(tasks, _client(fake, con, input_cost_per_mtok=1.0, output_cost_per_mtok=2.0))
        made = len(fake.requests)
        con.close()
        con = duckdb.connect(str(db))  # persisted: a new connection, a new client
        client = _client(fake, con)
        second = _run(tasks, client)
        assert len(fake.requests) == made == len(tasks)
    assert [r.value for r in first] == [r.value for r in second]
    assert [r.label for r in first] == [r.label for r in second]
    assert client.usage.cached == len(tasks) and client.usage.requests == 0
    stored = con.execute("SELECT count(*), sum(cost_usd) FROM llm_cache").fetchone()
    assert stored[0] == len(tasks) and stored[1] > 0


def test_cache_key_ignores_base_url() -> None:
    con = duckdb.connect()
    create_all(con)
    task = [(BUILTIN_JUDGES["helpfulness"], _ctx(0))]
    with fake_openai(_answer) as first:
        _run(task, _client(first, con))
    with fake_openai(_answer) as second:
        _run(task, _client(second, con))
        assert second.requests == []


@pytest.mark.parametrize("limit", [1, 2])
def test_concurrency_limit_is_respected(limit: int) -> None:
    judges = ["helpfulness", "coherence", "relevance", "faithfulness", "verbosity"]
    tasks = [(BUILTIN_JUDGES[j], _ctx(t)) for j in judges for t in (0, 1)]
    with fake_openai(_answer) as fake:
        client = _client(fake, None, max_concurrency=limit)
        results = _run(tasks, client)
        assert len(fake.requests) == len(tasks)
    assert all(r.value is not None for r in results)
    assert client.usage.peak_in_flight == limit  # the shared semaphore, reached and never passed


def test_429_with_retry_after_then_success() -> None:
    calls = {"n": 0}
    slept: list[float] = []

    def flaky(body: dict[str, Any]) -> dict[str, Any] | FakeReply:
        calls["n"] += 1
        if calls["n"] == 1:
            return FakeReply(429, {"error": {"message": "slow down"}}, {"Retry-After": "7"})
        if calls["n"] == 2:
            return FakeReply(503, {"error": {"message": "busy"}})
        return _answer(body)

    async def record(delay: float) -> None:
        slept.append(delay)

    with fake_openai(flaky) as fake:
        llm = LLMConfig(base_url=fake.base_url, api_key_env="TRACESIM_TEST_NO_KEY")
        client = JudgeClient(llm, cache=LLMCache(None), sleep=record)
        (result,) = _run([(BUILTIN_JUDGES["helpfulness"], _ctx(0))], client)
    assert result.value == 0.75
    assert slept == [7.0, 1.0]  # Retry-After honoured, then exponential backoff (0.5 * 2**1)
    assert client.usage.retries == 2 and client.usage.requests == 1


def test_permanent_failure_is_not_graded() -> None:
    with fake_openai(lambda body: FakeReply(400, {"error": {"message": "bad model"}})) as fake:
        (result,) = _run([(BUILTIN_JUDGES["helpfulness"], _ctx(0))], _client(fake, None))
        assert len(fake.requests) == 1
    assert result.value is None and result.label == "error" and "HTTP 400" in result.reason


def test_no_key_and_no_base_url_reports_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACESIM_TEST_NO_KEY", raising=False)
    reason = judge_unavailable_reason(LLMConfig(api_key_env="TRACESIM_TEST_NO_KEY"))
    assert reason and "TRACESIM_TEST_NO_KEY" in reason
    results = asyncio.run(
        run_judges(
            [
                (BUILTIN_JUDGES["helpfulness"], _ctx(0)),
                (BUILTIN_JUDGES["goal_completion"], _ctx(None)),
            ],
            client=None,
            config=EvalConfig(),
            unavailable_reason=reason,
        )
    )
    assert all(r.value is None and r.label == "not_run" and r.reason == reason for r in results)
    assert judge_unavailable_reason(LLMConfig(base_url="http://127.0.0.1:1/v1")) is None
    assert "llm" in judge_unavailable_reason(None)


def test_errored_turn_is_skipped_not_zero() -> None:
    ctx = _ctx(0)
    broken = MetricContext(**{**ctx.__dict__, "turn": {**TURNS[0], "status": "timeout"}})
    with fake_openai(_answer) as fake:
        (result,) = _run([(BUILTIN_JUDGES["helpfulness"], broken)], _client(fake, None))
        assert fake.requests == []
    assert result.value is None and result.label == "skipped"
