"""A chat-completions agent with no spans is measured by the `usage` its answers report
(streamed or not): the run stores it on each turn's span and the evaluation gives the
agent's tokens and cost. When the agent's own spans report the same calls, the answer's
usage is not added again."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from rich.console import Console
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from tracesim.evaluator.metrics.usage import agent_usage

from tests.fakes.asgi import serve_asgi
from tracesim.run import run_from_file

MODEL = "gpt-4o-mini"
USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


async def _completions(request: Request) -> Response:
    body = await request.json()
    if not body.get("stream"):
        return JSONResponse({
            "id": "chatcmpl-1", "object": "chat.completion", "model": MODEL,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."},
                         "finish_reason": "stop"}],
            "usage": USAGE,
        })  # fmt: skip
    chunks = [
        {"model": MODEL, "choices": [{"index": 0, "delta": {"content": "Do"}}], "usage": None},
        {"model": MODEL, "choices": [{"index": 0, "delta": {"content": "ne."}}], "usage": None},
        {"model": MODEL, "choices": [], "usage": USAGE},  # stream_options.include_usage
    ]
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Response(text, media_type="text/event-stream")


APP = Starlette(routes=[Route("/v1/chat/completions", _completions, methods=["POST"])])


def _config(tmp_path: Path, url: str, stream: bool) -> Path:
    scenarios = {"scenarios": [{"scenario_id": "s", "goal": "say done",
                                "turns": ["hello", "thanks"]}]}  # fmt: skip
    (tmp_path / "scenarios.json").write_text(json.dumps(scenarios))
    config = {
        "agent_config": {"agent_type": "chat_completions", "api_config": {
            "endpoint": f"{url}/v1/chat/completions", "body": {"model": MODEL},
            "stream": stream}},
        "scenario_file_path": "scenarios.json", "max_turns": 2, "output_dir": "results",
        "user": {"type": "auto"},
        "evaluation": {"metrics": [], "policies": [{"never": "delete_everything"}]},
        "trace_wait": {"settle": 0.2, "wait_timeout": 10},
    }  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_the_answers_usage_is_the_agents_tokens_and_cost(tmp_path: Path, stream: bool) -> None:
    with serve_asgi(APP) as url:
        outcome = run_from_file(
            _config(tmp_path, url, stream),
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
    assert outcome.exit_code == 0, outcome.error
    with duckdb.connect(str(outcome.db_path), read_only=True) as con:
        per_turn = con.execute(
            "SELECT turn_id, input_tokens, output_tokens, model FROM spans "
            "WHERE name = 'tracesim.turn' ORDER BY turn_id"
        ).fetchall()
    assert per_turn == [(0, 100, 10, MODEL), (1, 100, 10, MODEL)]
    with duckdb.connect(str(outcome.db_path), read_only=True) as con:
        summary = con.execute(
            "SELECT turn_id, input_tokens, output_tokens FROM turn_summary ORDER BY turn_id"
        ).fetchall()
    assert summary == [(0, 100, 10), (1, 100, 10)]  # per turn, from the answers' usage
    results = json.loads(Path(outcome.extra["results_path"]).read_text())
    usage = results["agent_usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (200, 20)
    assert usage["cost_usd"] == pytest.approx((200 * 0.15 + 20 * 0.60) / 1e6)
    # tokens counted as the agent's are not also "usage no model call accounts for"
    assert "uncounted_usage" not in (results.get("unexplained_evidence") or {})


def _span(name: str, turn: int, span_id: str, parent: str | None = None) -> dict[str, Any]:
    return {"name": name, "turn_id": turn, "span_id": span_id, "parent_span_id": parent,
            "input_tokens": 100, "output_tokens": 10, "model": MODEL}  # fmt: skip


def test_the_answers_usage_is_not_added_to_the_agents_spans() -> None:
    """Turn 0: the agent's model span (own trace, routed by baggage) and the turn span
    report the same call; turn 1: the agent's span is the turn span's child; turn 2: only
    the answer reported usage. 3 calls, not 5."""
    spans = [
        _span("tracesim.turn", 0, "t0"), _span("chat gpt-4o-mini", 0, "a0"),
        _span("tracesim.turn", 1, "t1"), _span("chat gpt-4o-mini", 1, "a1", parent="t1"),
        _span("tracesim.turn", 2, "t2"),
    ]  # fmt: skip
    tokens = {r.name: r.value for r in agent_usage(spans)}
    assert tokens["agent_input_tokens"] == 300 and tokens["agent_output_tokens"] == 30
