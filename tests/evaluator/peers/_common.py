"""Shared helpers of the ported peer cases: build calls, run a judge on the fake server.

Peer cases are ported as data (inputs and the peer's expected outcome), never
their code. A case SPEC overrides carries its reason in the pytest id
(`spec:` prefix) and asserts SPEC's answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import duckdb
import pytest
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.judges import Judge, run_judges
from tracesim.evaluator.llm.cache import LLMCache
from tracesim.evaluator.llm.llm_client import JudgeClient
from tracesim.schemas import MetricResult, ToolCall, create_all
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import chat_completion, fake_openai, judge_reply

__all__ = ["Call", "judge_once", "messages", "span_row", "spec", "turn_context"]

Call = tuple  # (name, args) or (name, args, result)


def spec(reason: str, *values: Any) -> Any:
    """A parametrize entry that SPEC overrides: its id names the reason."""
    return pytest.param(*values, id=f"spec: {reason}")


def messages(*assistant_messages: Sequence[Call]) -> tuple[list[ToolCall], list[Any]]:
    """Actual calls (one `group` per model message) and the expected form (a nested list per message).

    Each argument is one assistant message: the tool calls it requested.
    """
    actual: list[ToolCall] = []
    expected: list[Any] = []
    for index, message in enumerate(assistant_messages):
        calls = [
            {"name": c[0], "args": c[1], **({"result": c[2]} if len(c) > 2 else {})}
            for c in message
        ]
        actual.extend(ToolCall(**call, group=f"m{index}") for call in calls)
        expected.append(calls)
    return actual, expected


def turn_context(
    *,
    user: str,
    agent: str,
    calls: Sequence[ToolCall],
    scenario: dict[str, Any] | None = None,
    spans: Sequence[dict[str, Any]] = (),
    conversation: bool = False,
) -> MetricContext:
    """One turn (or its conversation) as a judge sees it."""
    row = {"turn_id": 0, "user_message": user, "agent_message": agent, "status": "ok"}
    return MetricContext(
        chat_id="peer",
        conversation={"chat_id": "peer"},
        scenario=scenario or {},
        turns=[row],
        turn_tool_calls=[list(calls)],
        turn=None if conversation else row,
        tool_calls=list(calls),
        spans=list(spans),
    )


_SERVER: dict[str, Any] = {}
"""One stand-in model server for every judge case of the session (started on first use)."""


def _server() -> Any:
    if "fake" not in _SERVER:
        handler_box: dict[str, Any] = {}
        context = fake_openai(lambda body: handler_box["handler"](body))
        _SERVER.update(fake=context.__enter__(), context=context, box=handler_box)
    return _SERVER


def stop_server() -> None:
    """Stop the shared stand-in server (the peers' conftest calls it at session end)."""
    if "context" in _SERVER:
        _SERVER["context"].__exit__(None, None, None)
        _SERVER.clear()


def judge_once(judge: Judge, ctx: MetricContext, label: str | None) -> tuple[MetricResult, dict]:
    """Run `judge` on `ctx` over HTTP; the stand-in model answers `label` (None: the fake's
    default answer for that judge). Returns (result, request)."""

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        if label is None:
            return judge_reply(body, prompt_tokens=40, completion_tokens=8)
        answer = {"reasoning": "as a careful reviewer would", "label": label}
        return chat_completion(json.dumps(answer), prompt_tokens=40, completion_tokens=8)

    server = _server()
    server["box"]["handler"] = handler
    fake = server["fake"]
    con = duckdb.connect()
    create_all(con)
    seen = len(fake.requests)
    llm = LLMConfig(base_url=fake.base_url, model="judge", api_key_env="NO_KEY")
    client = JudgeClient(llm, cache=LLMCache(con))

    async def grade() -> list[MetricResult]:
        try:
            return await run_judges([(judge, ctx)], client=client, config=EvalConfig())
        finally:
            await client.aclose()

    (result,) = asyncio.run(grade())
    (body,) = fake.requests[seen:]
    assert client.usage.input_tokens == 40  # cost accounting kept
    return result, body


def span_row(attributes: dict[str, Any], index: int = 1, name: str = "tool") -> dict[str, Any]:
    """A stored span row (as extraction reads it) with these attributes, started at `index` s."""
    from datetime import datetime, timedelta

    return {
        "trace_id": "0" * 31 + "1",
        "span_id": f"{index:016x}",
        "parent_span_id": None,
        "name": name,
        "start_time": datetime(2025, 1, 1, 12, 0, 0) + timedelta(seconds=index),
        "end_time": None,
        "duration_ms": 1.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }
