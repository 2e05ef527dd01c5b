"""Tool stubs: a scenario's recorded or written tool results answer the agent during a run.

`matching` picks the stub (first match, `repeat`), `context` carries the
conversation's book in the turn's OTel context, `tool` wraps python tool
functions, `agents_sdk` adapts OpenAI Agents SDK function tools, and
`mcp_mock` serves stubs as an MCP server (`tracesim mcp-mock`).
"""

from tracesim.simulator.stubs.agents_sdk import stub_function_tool, stub_function_tools
from tracesim.simulator.stubs.context import current_book, with_stub_book
from tracesim.simulator.stubs.matching import StubAnswer, StubBook, args_match
from tracesim.simulator.stubs.tool import ToolStubError, UnstubbedToolCall, tool

__all__ = [
    "StubAnswer",
    "StubBook",
    "ToolStubError",
    "UnstubbedToolCall",
    "args_match",
    "current_book",
    "stub_function_tool",
    "stub_function_tools",
    "tool",
    "with_stub_book",
]
