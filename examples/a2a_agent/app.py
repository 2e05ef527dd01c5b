"""The A2A example agent's Starlette app: agent card + JSON-RPC endpoint (a2a-sdk).

The card is served by our own route so that its interface URL is the one
the client reached (`request.base_url`): the app does not need to know its
port before it is served (tests bind port 0).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from opentelemetry.sdk.trace import TracerProvider
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI

from examples.a2a_agent.executor import CaptureQuirks, CustomerServiceExecutor
from examples.shared_tools import Shop, default_shop, tracer_provider

__all__ = ["build_app", "build_card"]

RPC_PATH = "/"


def build_card(url: str, *, streaming: bool = True, declare_extension: bool = True) -> AgentCard:
    """The agent card, its JSON-RPC interface at `url`."""
    extensions = (
        [
            AgentExtension(
                uri=A2A_TOOL_CALL_EXTENSION_URI, description="Tool calls in artifact metadata"
            )
        ]
        if declare_extension
        else []
    )
    return AgentCard(
        name="customer-service",
        description="Example shop agent: looks up, cancels and refunds orders (deterministic, no LLM).",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=streaming, extensions=extensions),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="orders",
                name="Orders",
                description="Order status, cancellation and refunds",
                tags=["orders"],
            )
        ],
    )


def build_app(
    *,
    provider: TracerProvider | None = None,
    shop: Shop | None = None,
    streaming: bool = True,
    declare_extension: bool = True,
    quirks: CaptureQuirks | None = None,
    lifespan: Callable[[Any], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    """The agent app; `app.state.executor.seen` lists the requests it received.

    `lifespan` is Starlette's (the server passes `flush_on_shutdown(provider)`).
    """
    provider = provider or tracer_provider("example-a2a-agent")
    executor = CustomerServiceExecutor(
        shop=shop or default_shop(),
        tracer=provider.get_tracer("examples.a2a_agent"),
        quirks=quirks,
        declares_capture=declare_extension,
    )
    options = {"streaming": streaming, "declare_extension": declare_extension}
    handler = DefaultRequestHandler(
        agent_executor=executor,
        task_store=InMemoryTaskStore(),
        agent_card=build_card(RPC_PATH, **options),
    )

    async def card(request: Request) -> JSONResponse:
        url = str(request.base_url).rstrip("/") + RPC_PATH
        return JSONResponse(agent_card_to_dict(build_card(url, **options)))

    routes = [
        Route(AGENT_CARD_WELL_KNOWN_PATH, card, methods=["GET"]),
        *create_jsonrpc_routes(handler, RPC_PATH),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.executor = executor
    app.state.provider = provider
    return app
