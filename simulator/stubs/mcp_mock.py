"""An MCP server answering from scenario stubs (`tracesim mcp-mock`), on the official `mcp`.

It lists the tools the scenarios define (`tools`, any shape of
`schemas.tool_definitions`; a stubbed tool without a definition is listed
with an open schema) and answers `tools/call` from the scenarios' `tool_stubs`:
a stub's `result` as text (JSON for non-strings) plus structured content, its
`error` as an error result (`isError`), and a call no stub matches as an error
result naming the call and the fix. Nothing reaches a real back end.

Which scenario answers: the `tracesim.scenario_id` baggage entry the run
propagates (in the request's `_meta`, which the `mcp` client fills from the
OTel context, or the HTTP headers); without one (or with one the file does not
hold), the only scenario of the file, else the scenario this conversation's calls were
answered from, else the one scenario whose stubs match the call (several that answer
alike will do); scenarios that answer it differently are never chosen by file order: the
call gets an error naming them and the fix. `repeat` is counted per conversation
(`tracesim.chat_id`). What is kept per call is bounded whatever the arguments. The `mcp` server traces each request as a SERVER span
parented by the propagated `traceparent` (from `_meta`, else the HTTP headers),
so its calls are spans of the turn.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from opentelemetry import baggage
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from tracesim.schemas.conventions import TRACESIM
from tracesim.schemas.scenario import Scenario
from tracesim.schemas.tool_definitions import ToolDefinition, tool_definitions
from tracesim.simulator.stubs.matching import (
    StubAnswer,
    StubBook,
    stub_matches,
    unstubbed_message,
)

__all__ = ["MockTools", "build_server"]

_OPEN_SCHEMA = {"type": "object", "additionalProperties": True}
_MAX_BOOKS = 4096
"""Conversations whose stub books are kept (least recently used dropped first)."""


class MockTools:
    """The scenarios' tool definitions and stubs, answered per conversation."""

    def __init__(self, scenarios: Sequence[Scenario]) -> None:
        self._scenarios = {s.scenario_id: s for s in scenarios}
        definitions: dict[str, ToolDefinition] = {}
        for scenario in scenarios:
            for definition in tool_definitions(
                scenario.tools, where=f"{scenario.scenario_id}.tools"
            ):
                definitions.setdefault(definition.name, definition)
            for stub in scenario.tool_stubs or ():
                definitions.setdefault(
                    stub.name, ToolDefinition(stub.name, "stubbed by tracesim", dict(_OPEN_SCHEMA))
                )
        self.definitions = list(definitions.values())
        self._books: OrderedDict[tuple[str | None, str | None], StubBook] = OrderedDict()
        self._chat_scenario: dict[str, str] = {}
        """Conversation -> the scenario its calls were answered from (no scenario named)."""
        self.answers: list[StubAnswer] = []

    def _choose(
        self, name: str, args: dict[str, Any], asked: str | None, chat_id: str | None
    ) -> str | StubAnswer:
        """The scenario answering a call whose request names no known scenario: the only
        one, the one this conversation's calls were answered from, or the one scenario
        (or several that agree) with a stub matching the call; else an error answer
        naming the scenarios, never a guess by file order."""
        if len(self._scenarios) == 1:
            return next(iter(self._scenarios))
        known = self._chat_scenario.get(chat_id) if chat_id is not None else None
        if known is not None:
            return known
        answers: dict[str, tuple[str, str | None]] = {}
        for scenario_id, scenario in self._scenarios.items():
            stub = next((t for t in scenario.tool_stubs or () if stub_matches(t, name, args)), None)
            if stub is not None:
                answers[scenario_id] = (json.dumps(stub.result, sort_keys=True), stub.error)
        unknown = f"scenario {asked!r} is not in the file; " if asked is not None else ""
        if len(set(answers.values())) == 1:
            chosen = next(iter(answers))
            if len(answers) == 1 and chat_id is not None:
                self._chat_scenario[chat_id] = chosen
                _del_oldest(self._chat_scenario, _MAX_BOOKS)
            return chosen
        call = f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)})"
        if not answers:
            message = unstubbed_message(name, args)
            if unknown:
                message += f" ({unknown.rstrip('; ')})"
            return StubAnswer(name, args, error=message, stubbed=False)
        return StubAnswer(
            name,
            args,
            error=(
                f"tracesim mcp-mock: {unknown}scenarios {', '.join(sorted(answers))} stub "
                f"{call} differently and the request names no scenario: send the run's "
                f"baggage ({TRACESIM.SCENARIO_ID}) with the MCP request, or serve one "
                "scenario per mcp-mock"
            ),
            stubbed=False,
        )

    def answer(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        scenario_id: str | None = None,
        chat_id: str | None = None,
    ) -> StubAnswer:
        """The stubbed answer to one call (see the module doc for which scenario answers)."""
        args = dict(arguments or {})
        if scenario_id not in self._scenarios:
            chosen = self._choose(name, args, scenario_id, chat_id)
            if isinstance(chosen, StubAnswer):
                self._keep(chosen)
                return chosen
            scenario_id = chosen
        key = (scenario_id, chat_id)
        book = self._books.get(key)
        if book is None:
            stubs = self._scenarios[scenario_id].tool_stubs or ()
            book = self._books[key] = StubBook.of(stubs)
            if len(self._books) > _MAX_BOOKS:
                self._books.popitem(last=False)
        else:
            self._books.move_to_end(key)
        answer = book.answer(name, args)
        book.calls.clear()  # a book is for `repeat` here: its record of calls is not read
        self._keep(answer)
        return answer

    def _keep(self, answer: StubAnswer) -> None:
        """Record an answer for the exit summary (name and whether stubbed): without its
        arguments, result or error text, which a client's arguments fill (a long-running
        mock kept 4,096 of any size)."""
        self.answers.append(replace(answer, arguments={}, result=None, error=None))
        del self.answers[:-_MAX_BOOKS]


def _del_oldest(mapping: dict[Any, Any], keep: int) -> None:
    """Drop the oldest entries of an insertion-ordered dict beyond `keep`."""
    while len(mapping) > keep:
        mapping.pop(next(iter(mapping)))


def _routing(*carriers: Any) -> tuple[str | None, str | None]:
    """(scenario_id, chat_id) from the current OTel baggage, else the first carrier (the
    request's `_meta`, the HTTP headers) with a `baggage` entry naming them."""
    scenario = baggage.get_baggage(TRACESIM.SCENARIO_ID)
    chat = baggage.get_baggage(TRACESIM.CHAT_ID)
    for carrier in carriers:
        if scenario is not None and chat is not None:
            break
        raw = carrier.get("baggage") if isinstance(carrier, Mapping) else None
        if not isinstance(raw, str) or not raw:
            continue
        ctx = W3CBaggagePropagator().extract({"baggage": raw})
        scenario = scenario or baggage.get_baggage(TRACESIM.SCENARIO_ID, ctx)
        chat = chat or baggage.get_baggage(TRACESIM.CHAT_ID, ctx)
    return (
        str(scenario) if scenario is not None else None,
        str(chat) if chat is not None else None,
    )


def _meta(ctx: Any) -> Mapping[str, Any] | None:
    meta = getattr(ctx, "meta", None)
    return meta if isinstance(meta, Mapping) else getattr(meta, "model_extra", None)


def _headers(ctx: Any) -> Mapping[str, str] | None:
    """The HTTP request's headers (streamable HTTP), None on stdio."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    return headers if headers is not None and hasattr(headers, "get") else None


class HeaderTraceContext:
    """`mcp` server middleware: a request whose `_meta` carries no `traceparent` is parented
    by the W3C `traceparent` / `baggage` HTTP headers (clients traced by an HTTP
    instrumentation rather than by the `mcp` client's `_meta` injection). Listed first, so
    the `mcp` server's own tracing middleware runs inside that context."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        meta, headers = _meta(ctx), _headers(ctx)
        if (meta and meta.get("traceparent")) or not headers or not headers.get("traceparent"):
            return await call_next(ctx)
        from opentelemetry import context as otel_context
        from opentelemetry import propagate

        carrier = {k: headers.get(k) for k in ("traceparent", "tracestate", "baggage")}
        token = otel_context.attach(propagate.extract({k: v for k, v in carrier.items() if v}))
        try:
            return await call_next(ctx)
        finally:
            otel_context.detach(token)


def build_server(tools: MockTools, *, name: str = "tracesim-mcp-mock") -> Any:
    """A low-level `mcp` Server listing `tools.definitions` and answering from the stubs."""
    from mcp import types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=d.name,
                    description=d.description or None,
                    input_schema={"type": "object", **d.input_schema},
                )
                for d in tools.definitions
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        scenario_id, chat_id = _routing(_meta(ctx), _headers(ctx))
        answer = tools.answer(
            params.name, params.arguments, scenario_id=scenario_id, chat_id=chat_id
        )
        if not answer.stubbed or answer.error is not None:
            return types.CallToolResult(
                content=[types.TextContent(text=answer.error or "")], is_error=True
            )
        structured = answer.result if isinstance(answer.result, dict) else None
        if structured is None and isinstance(answer.result, str):
            try:
                parsed = json.loads(answer.result)
            except ValueError:
                parsed = None
            structured = parsed if isinstance(parsed, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(text=answer.result_text())],
            structured_content=structured,
        )

    server = Server(name, on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.insert(0, HeaderTraceContext())
    return server
