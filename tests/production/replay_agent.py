"""The example customer-service agent as a replay target (tests of SPEC §14).

Its python tools are the example's real `@function_tool`s behind
`stub_function_tools`, and `lookup_order` is an MCP tool: a function tool that
calls the MCP server at `mcp_url` (`tracesim mcp-mock` in the tests) with the
official `mcp` client, the turn's trace context travelling in the request
`_meta`. `broken=True` is the example's regressed model (`skip_verification`: it
refunds without verifying the customer's identity first).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service"
if str(EXAMPLE) not in sys.path:
    sys.path.insert(0, str(EXAMPLE))

from agent import CustomerServiceAgent  # noqa: E402 - the example's folder first
from agents import Agent, FunctionTool  # noqa: E402
from local_model import LocalModel  # noqa: E402
from tools import TOOLS  # noqa: E402

from tracesim import stub_function_tools  # noqa: E402


def mcp_tool(template: FunctionTool, url: str) -> FunctionTool:
    """`template` (same name and schema) answered by the MCP server at `url`."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def invoke(context: Any, arguments: str) -> str:
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(template.name, json.loads(arguments or "{}"))
        text = "".join(getattr(block, "text", "") for block in result.content)
        return f"Error: {text}" if result.is_error else text

    tool = copy.copy(template)
    object.__setattr__(tool, "on_invoke_tool", invoke)
    return tool


class ReplayAgent(CustomerServiceAgent):
    """The example agent with stubbed python tools and an MCP `lookup_order`."""

    def __init__(self, mcp_url: str, broken: bool = False) -> None:
        super().__init__()
        tools = [
            mcp_tool(t, mcp_url) if t.name == "lookup_order" else t
            for t in stub_function_tools(TOOLS)
        ]
        self._agent = Agent(
            name="customer_service",
            instructions=self._agent.instructions,
            tools=tools,
            model=LocalModel(skip_verification=broken),
        )
