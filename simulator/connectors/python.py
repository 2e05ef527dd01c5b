"""The `custom` connector: drive an in-process python agent (a `BaseAgent`).

One agent instance per conversation, created, called and closed inline on
the caller's event loop: no thread hop per turn. `in_process` tells the
runner to drive such conversations on lanes (`simulator.lanes`, a thread and
loop per worker), where an `execute()` that blocks (a sync HTTP client,
`time.sleep`) stalls only its own lane and the watchdog records it as timed
out. The runner calls `send` with the turn's OTel context (the
`tracesim.turn` span and the routing baggage) active, so whatever the agent
traces joins the turn.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

from tracesim.schemas import AgentResponse, ToolCall, ToolCallSource
from tracesim.simulator.agent import BaseAgent
from tracesim.simulator.connectors.base import AgentConnector, ConnectorError, TurnContext
from tracesim.simulator.ids import new_chat_id

__all__ = ["PythonConnector", "to_agent_response"]

_CLOSE_TIMEOUT = 3.0
"""Seconds `close()` gives the agent's own close (a blocking one is the runner's watchdog's)."""


class PythonConnector(AgentConnector):
    """Instantiates the agent class on `open()` and calls its `execute`.

    With `init_kwargs`: `agent_class(**init_kwargs)`. Without: `agent_class()`,
    or `agent_class(agent_config)` when the constructor takes a required
    argument (arksim's `BaseAgent.__init__(self, agent_config)` shape).
    """

    in_process: ClassVar[bool] = True
    sends_headers: ClassVar[bool] = False  # the agent gets the OTel context itself

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

    @property
    def agent(self) -> Any:
        """The live agent instance (None before `open`)."""
        return self._agent

    async def open(self) -> str:
        self._agent = self._create()
        get_chat_id = getattr(self._agent, "get_chat_id", None)
        chat_id = await get_chat_id() if get_chat_id is not None else new_chat_id()
        if not isinstance(chat_id, str) or not chat_id:
            raise ConnectorError(
                f"{self._agent_class.__name__}.get_chat_id() returned {chat_id!r}; it must return a non-empty str"
            )
        self._chat_id = chat_id
        return chat_id

    def _create(self) -> Any:
        """The agent instance."""
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
        if self._agent is None:
            raise ConnectorError("send() before open()")
        metadata = {"chat_id": turn.chat_id, "turn_id": turn.turn_id}
        try:
            result = self._agent.execute(user_message, metadata=metadata)
            if inspect.isawaitable(result):  # a plain `def execute` answers directly
                result = await result
        except RuntimeError as exc:
            if "loop" not in str(exc):
                raise
            raise ConnectorError(
                f"{exc} (each worker drives its conversations on its own event loop: create "
                "async clients in the agent's __init__ or lazily, not at module level)"
            ) from exc
        return to_agent_response(result)

    async def close(self) -> None:
        agent, self._agent = self._agent, None
        closer = getattr(agent, "close", None) if agent is not None else None
        if closer is None or getattr(closer, "__func__", None) is BaseAgent.close:
            return  # nothing to close, or the inherited no-op
        outcome = closer()
        if inspect.isawaitable(outcome):
            try:
                await asyncio.wait_for(outcome, timeout=_CLOSE_TIMEOUT)
            except asyncio.TimeoutError:  # a close that never returns is not the run's failure
                pass


@functools.lru_cache(maxsize=256)
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
