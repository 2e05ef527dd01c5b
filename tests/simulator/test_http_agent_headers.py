"""HTTP agents get the turn's routing context as W3C `traceparent` and `baggage` headers."""

from __future__ import annotations

import json
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.asgi import serve_asgi
from tests.simulator.conftest import Project, query


def _agent_app(seen: list[dict[str, str]]) -> Starlette:
    """A minimal chat-completions agent that remembers the headers it got."""

    async def completions(request: Request) -> JSONResponse:
        seen.append(dict(request.headers))
        body = json.loads(await request.body())
        text = body["messages"][-1]["content"]
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "agent",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": f"echo {text}"},
                    }
                ],
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def test_traceparent_and_baggage_headers_match_the_turn(project: Project) -> None:
    seen: list[dict[str, str]] = []
    project.scenarios([{"scenario_id": "http", "turns": ["one", "two"]}])
    with serve_asgi(_agent_app(seen)) as url:
        project.config(
            agent_config={
                "agent_type": "chat_completions",
                "api_config": {"endpoint": f"{url}/v1/chat/completions"},
            },
            num_conversations_per_scenario=2,
        )
        outcome = project.run()
    assert outcome.exit_code == 0, outcome.error
    turns = query(
        outcome.db_path,
        "SELECT trace_id, chat_id, turn_id, agent_message FROM turns WHERE run_id = ?",
        [outcome.run_id],
    )
    assert len(turns) == len(seen) == 4
    by_trace = {t[0]: t for t in turns}
    for headers in seen:
        trace_id = headers["traceparent"].split("-")[1]
        _, chat_id, turn_id, reply = by_trace[trace_id]
        baggage = dict(unquote(item).split("=", 1) for item in headers["baggage"].split(","))
        assert baggage["tracesim.chat_id"] == chat_id
        assert baggage["tracesim.turn_id"] == str(turn_id)
        assert reply.startswith("echo ")
