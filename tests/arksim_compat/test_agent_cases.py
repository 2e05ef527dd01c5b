"""arksim's custom-agent cases (tests/unit/test_custom_agent.py): agent classes written
for arksim (`__init__(self, agent_config)`, `from arksim... import BaseAgent`) run
unchanged, from a file or as `agent_class`.

The agent modules import `arksim`; a minimal package of that name with arksim's
public shape (BaseAgent, AgentResponse) is written to the test's folder, so the
agent files are exactly what an arksim user has.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import pytest
from tracesim.schemas import ToolCallSource
from tracesim.schemas.agent_config import CustomAgentConfig
from tracesim.simulator.connectors.base import TurnContext
from tracesim.simulator.connectors.factory import make_connector_factory
from tracesim.simulator.loader import AgentLoadError

from tests.arksim_compat.cases import spec_override

ARKSIM_STUB = {
    "arksim/__init__.py": "from arksim.simulation_engine.tool_types import AgentResponse, ToolCall\n",
    "arksim/simulation_engine/__init__.py": "",
    "arksim/simulation_engine/agent/__init__.py": "",
    "arksim/simulation_engine/tool_types.py": """
        from pydantic import BaseModel

        class ToolCall(BaseModel):
            id: str
            name: str
            arguments: dict = {}
            result: str | None = None

        class AgentResponse(BaseModel):
            content: str
            tool_calls: list[ToolCall] = []
    """,
    "arksim/simulation_engine/agent/base.py": """
        from abc import ABC, abstractmethod

        class BaseAgent(ABC):
            def __init__(self, agent_config):
                self.agent_config = agent_config

            @abstractmethod
            async def get_chat_id(self) -> str: ...

            @abstractmethod
            async def execute(self, user_query: str, **kwargs): ...

            async def close(self) -> None:
                pass
    """,
}

AGENT = """
    import uuid

    from arksim import AgentResponse, ToolCall
    from arksim.simulation_engine.agent.base import BaseAgent

    CLOSED = []

    class MyTestAgent(BaseAgent):
        def __init__(self, agent_config):
            super().__init__(agent_config)
            self._chat_id = "arksim-" + uuid.uuid4().hex[:8]

        async def get_chat_id(self) -> str:
            return self._chat_id

        async def execute(self, user_query: str, **kwargs):
            if "tool" in user_query:
                call = ToolCall(id="c1", name="lookup", arguments={"q": user_query})
                return AgentResponse(content="looked up", tool_calls=[call])
            return f"response to: {user_query} ({self.agent_config.agent_name})"

        async def close(self) -> None:
            CLOSED.append(self._chat_id)
"""

TWO_AGENTS = """
    from arksim.simulation_engine.agent.base import BaseAgent

    class AgentOne(BaseAgent):
        async def get_chat_id(self):
            return "one"

        async def execute(self, user_query, **kwargs):
            return "one: " + user_query

    class AgentTwo(AgentOne):
        async def execute(self, user_query, **kwargs):
            return "two"
"""


@pytest.fixture
def arksim_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for rel, code in ARKSIM_STUB.items():
        path = tmp_path / "stub" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    monkeypatch.syspath_prepend(str(tmp_path / "stub"))
    yield tmp_path
    for name in [m for m in sys.modules if m == "arksim" or m.startswith("arksim.")]:
        del sys.modules[name]


def _module(folder: Path, name: str, code: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(code))
    return path


def _config(**custom: Any) -> CustomAgentConfig:
    return CustomAgentConfig(agent_type="custom", agent_name="bank-agent", **custom)


async def _talk(factory, *messages: str) -> tuple[str, list]:
    connector = factory()
    chat_id = await connector.open()
    replies = []
    try:
        for turn_id, message in enumerate(messages):
            turn = TurnContext(chat_id=chat_id, turn_id=turn_id, headers={}, history=())
            replies.append(await connector.send(message, turn=turn))
    finally:
        await connector.close()
    return chat_id, replies


def test_arksim_agent_runs_from_its_file(arksim_dir: Path) -> None:
    _module(arksim_dir, "my_agent.py", AGENT)
    factory = make_connector_factory(_config(module_path="./my_agent.py"), base_dir=arksim_dir)
    chat_id, [first, second, third] = asyncio.run(_talk(factory, "hello", "turn 2", "use a tool"))
    assert first.content == "response to: hello (bank-agent)"  # got agent_config
    assert second.content == "response to: turn 2 (bank-agent)"
    [call] = third.tool_calls  # arksim's AgentResponse and ToolCall are read
    assert (call.name, call.arguments, call.source) == (
        "lookup",
        {"q": "use a tool"},
        ToolCallSource.AGENT_RESPONSE,
    )
    module = sys.modules[next(m for m in sys.modules if m.startswith("tracesim_agent_my_agent"))]
    assert module.CLOSED == [chat_id]  # close() delegated


@spec_override("SPEC §4: get_chat_id()'s value IS the conversation's chat_id; arksim wraps it")
def test_chat_id_is_the_agents_own(arksim_dir: Path) -> None:
    _module(arksim_dir, "my_agent.py", AGENT)
    factory = make_connector_factory(_config(module_path="./my_agent.py"), base_dir=arksim_dir)
    chat_id, _ = asyncio.run(_talk(factory, "hi"))
    assert chat_id.startswith("arksim-")


def test_auto_discovery_and_class_name(arksim_dir: Path) -> None:
    _module(arksim_dir, "two.py", TWO_AGENTS)
    with pytest.raises(AgentLoadError, match="exactly one agent class.*AgentOne, AgentTwo"):
        make_connector_factory(_config(module_path="./two.py"), base_dir=arksim_dir)
    factory = make_connector_factory(
        _config(module_path="./two.py", class_name="AgentOne"), base_dir=arksim_dir
    )
    _, [reply] = asyncio.run(_talk(factory, "x"))
    assert reply.content == "one: x"


def test_no_agent_class_in_module(arksim_dir: Path) -> None:
    _module(arksim_dir, "none.py", "class NotAnAgent:\n    pass\n")
    with pytest.raises(AgentLoadError, match="found: none"):
        make_connector_factory(_config(module_path="./none.py"), base_dir=arksim_dir)
    with pytest.raises(AgentLoadError, match="not an agent class"):
        make_connector_factory(
            _config(module_path="./none.py", class_name="NotAnAgent"), base_dir=arksim_dir
        )


def test_missing_file_and_missing_class(arksim_dir: Path) -> None:
    with pytest.raises(AgentLoadError, match="file not found"):
        make_connector_factory(_config(module_path="./absent.py"), base_dir=arksim_dir)
    _module(arksim_dir, "my_agent.py", AGENT)
    with pytest.raises(AgentLoadError, match="has no class 'Nope'"):
        make_connector_factory(
            _config(module_path="./my_agent.py", class_name="Nope"), base_dir=arksim_dir
        )


class _Base(ABC):
    def __init__(self, agent_config: Any) -> None:
        self.agent_config = agent_config

    @abstractmethod
    async def execute(self, user_query: str, **kwargs: Any) -> str: ...


class _InlineAgent(_Base):
    """arksim's code path: the class itself is given (`agent_class`), no file."""

    async def get_chat_id(self) -> str:
        return "inline-chat"

    async def execute(self, user_query: str, **kwargs: Any) -> str:
        return f"inline: {user_query}"


def test_agent_class_given_as_a_class() -> None:
    config = _config(agent_class=_InlineAgent)
    assert config.custom_config.agent_class is _InlineAgent and config.module_path is None
    chat_id, [reply] = asyncio.run(
        _talk(make_connector_factory(config, base_dir=Path(".")), "hello")
    )
    assert (chat_id, reply.content) == ("inline-chat", "inline: hello")


def test_agent_class_given_by_name(arksim_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _module(arksim_dir, "named_agent.py", AGENT)
    monkeypatch.syspath_prepend(str(arksim_dir))
    factory = make_connector_factory(
        _config(agent_class="named_agent:MyTestAgent"), base_dir=arksim_dir
    )
    _, [reply] = asyncio.run(_talk(factory, "hi"))
    assert reply.content == "response to: hi (bank-agent)"
    sys.modules.pop("named_agent", None)
