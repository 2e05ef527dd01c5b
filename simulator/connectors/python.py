"""The `custom` connector: drive an in-process python agent (a `BaseAgent`).

One agent instance per conversation, created, called and closed on the
conversation's own thread and event loop (`AgentLoop`), so an `execute()`
that blocks (a sync HTTP client, `time.sleep`) still times out and never
stalls other conversations. The runner calls `send` with the turn's OTel
context (the `tracesim.turn` span and the routing baggage) active; it is
carried into the agent's task, so whatever the agent traces joins the turn.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Mapping
from typing import Any

from tracesim.schemas import AgentResponse, ToolCall, ToolCallSource
from tracesim.simulator.agent import BaseAgent
from tracesim.simulator.connectors.agent_loop import AgentLoop
from tracesim.simulator.connectors.base import AgentConnector, ConnectorError, TurnContext

__all__ = ["PythonConnector", "to_agent_response"]

_CLOSE_TIMEOUT = 3.0
"""Seconds `close()` gives the agent's own close; a loop blocked in agent code is left."""


class PythonConnector(AgentConnector):
    """Instantiates the agent class on `open()` and calls its `execute`.

    With `init_kwargs`: `agent_class(**init_kwargs)`. Without: `agent_class()`,
    or `agent_class(agent_config)` when the constructor takes a required
    argument (arksim's `BaseAgent.__init__(self, agent_config)` shape).
    """

    def __init__(
        self,
        agent_class: type,
        *,
        init_kwargs: Mapping[str, Any] | None = None,
        agent_config: Any = None,
    ) -> None:
        self._agent_class = agent_class
        self._init_kwargs = dict(init_kwargs or {})
        self._agent_config = agent_config
        self._agent: Any = None
        self._chat_id = ""
        self._loop: AgentLoop | None = None

    @property
    def agent(self) -> Any:
        """The live agent instance (None before `open`)."""
        return self._agent

    async def open(self) -> str:
        self._loop = AgentLoop.acquire()
        self._agent, chat_id = await self._loop.run(self._create_with_chat_id)
        if not isinstance(chat_id, str) or not chat_id:
            raise ConnectorError(
                f"{self._agent_class.__name__}.get_chat_id() returned {chat_id!r}; it must return a non-empty str"
            )
        self._chat_id = chat_id
        return chat_id

    async def _create_with_chat_id(self) -> tuple[Any, Any]:
        """The agent and its chat id, in one trip to the agent's loop."""
        agent = await self._create()
        get_chat_id = getattr(agent, "get_chat_id", None)
        return agent, (await get_chat_id() if get_chat_id is not None else uuid.uuid4().hex)

    async def _create(self) -> Any:
        """The agent instance (on its own loop)."""
        takes_config = not self._init_kwargs and _wants_agent_config(self._agent_class)
        try:
            if takes_config:
                return self._agent_class(self._agent_config)
            return self._agent_class(**self._init_kwargs)
        except TypeError as exc:
            call = "(agent_config)" if takes_config else "(**agent_config.init_kwargs)"
            raise ConnectorError(
                f"cannot create {self._agent_class.__name__}{call}: {exc}"
            ) from exc

    async def send(self, user_message: str, *, turn: TurnContext) -> AgentResponse:
        if self._agent is None or self._loop is None:
            raise ConnectorError("send() before open()")
        metadata = {"chat_id": turn.chat_id, "turn_id": turn.turn_id}
        agent = self._agent
        try:
            result = await self._loop.run(lambda: agent.execute(user_message, metadata=metadata))
        except RuntimeError as exc:
            if "loop" not in str(exc):
                raise
            raise ConnectorError(
                f"{exc} (each conversation's agent runs on its own event loop: create async "
                "clients in the agent's __init__ or lazily, not at module level)"
            ) from exc
        return to_agent_response(result)

    async def close(self) -> None:
        agent, self._agent = self._agent, None
        loop, self._loop = self._loop, None
        closer = getattr(agent, "close", None) if agent is not None else None
        if getattr(closer, "__func__", None) is BaseAgent.close:
            closer = None  # the inherited no-op: no trip to the agent's loop for it
        try:
            if closer is not None and loop is not None:

                async def close_agent() -> None:
                    outcome = closer()
                    if inspect.isawaitable(outcome):
                        await outcome

                try:
                    await asyncio.wait_for(loop.run(close_agent), timeout=_CLOSE_TIMEOUT)
                except asyncio.TimeoutError:  # the agent's loop is blocked (a timed-out turn)
                    pass
        finally:
            if loop is not None:
                await loop.release()


def _wants_agent_config(agent_class: type) -> bool:
    """True when the constructor has a required first argument or one named `agent_config`."""
    try:
        signature = inspect.signature(agent_class)
    except (TypeError, ValueError):
        return False
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.name == "agent_config":
            return True
        if param.default is param.empty and param.kind != param.KEYWORD_ONLY:
            return True
        return False
    return False


def to_agent_response(result: Any) -> AgentResponse:
    """Normalise what `execute` returned: str, AgentResponse (ours or arksim's), or a dict."""
    if isinstance(result, str):
        return AgentResponse(content=result)
    if isinstance(result, AgentResponse):
        response = result
    elif isinstance(result, Mapping):
        response = AgentResponse.model_validate(dict(result))
    elif hasattr(result, "content"):  # duck-typed (arksim's AgentResponse)
        calls = [_to_tool_call(c) for c in getattr(result, "tool_calls", None) or []]
        response = AgentResponse(content=str(result.content or ""), tool_calls=calls)
    else:
        raise ConnectorError(
            f"execute() returned {type(result).__name__}; return a str or an AgentResponse"
        )
    calls = [
        c
        if c.source is not None
        else c.model_copy(update={"source": ToolCallSource.AGENT_RESPONSE})
        for c in response.tool_calls
    ]
    return response.model_copy(update={"tool_calls": calls})


def _to_tool_call(call: Any) -> ToolCall:
    if isinstance(call, ToolCall):
        return call
    if isinstance(call, Mapping):
        data = dict(call)
    elif hasattr(call, "model_dump"):
        data = call.model_dump()
    else:
        data = {k: getattr(call, k, None) for k in ("id", "name", "arguments", "result", "error")}
    source = data.get("source")
    if source is not None and not isinstance(source, str):
        data["source"] = getattr(source, "value", str(source))
    if data.get("id") is None:
        data["id"] = ""
    return ToolCall.model_validate(data)
