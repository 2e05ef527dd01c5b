"""Build connectors from `agent_config`, importing each kind only when it is used."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracesim.schemas.agent_config import (
    A2AAgentConfig,
    ChatCompletionsAgentConfig,
    CustomAgentConfig,
)
from tracesim.simulator.connectors.base import AgentConnector

__all__ = ["agent_timeout", "make_connector_factory"]


def make_connector_factory(agent_config: Any, *, base_dir: Path) -> Callable[[], AgentConnector]:
    """Return a zero-argument callable creating one fresh connector per conversation.

    For `custom` agents the class is loaded here, once, so an import error
    fails before anything runs (`simulator.loader.AgentLoadError`).
    """
    if isinstance(agent_config, CustomAgentConfig):
        from tracesim.simulator.connectors.python import PythonConnector
        from tracesim.simulator.loader import load_agent_class

        if isinstance(agent_config.agent_class, type):
            agent_class = agent_config.agent_class
        else:
            agent_class = load_agent_class(
                agent_config.agent_class or agent_config.module_path or "",
                agent_config.class_name,
                base_dir=base_dir,
            )
        init_kwargs = dict(agent_config.init_kwargs)
        return lambda: PythonConnector(
            agent_class, init_kwargs=init_kwargs, agent_config=agent_config
        )
    if isinstance(agent_config, ChatCompletionsAgentConfig):
        module = importlib.import_module("tracesim.simulator.connectors.chat_completions")
        return lambda: module.ChatCompletionsConnector(agent_config)
    if isinstance(agent_config, A2AAgentConfig):
        try:
            module = importlib.import_module("tracesim.simulator.connectors.a2a")
        except ImportError as exc:  # the SDK is an extra: name it, never a traceback
            from tracesim.simulator.loader import AgentLoadError

            raise AgentLoadError(
                f"agent_type a2a needs the A2A SDK, which is not installed ({exc.name or exc}):"
                " pip install 'tracesim[a2a]' (from a checkout: pip install '.[a2a]')"
            ) from None
        return lambda: module.A2AConnector(agent_config)
    raise ValueError(f"unsupported agent_config: {type(agent_config).__name__}")


def agent_timeout(agent_config: Any) -> float | None:
    """Seconds one turn may take before the runner records a timeout.

    HTTP connectors enforce their own per-request timeout and retries; the
    runner's bound is a backstop above those.
    """
    if isinstance(agent_config, CustomAgentConfig):
        return agent_config.timeout
    api = getattr(agent_config, "api_config", None)
    timeout = getattr(api, "timeout", None)
    if timeout is None:
        return None
    retries = getattr(api, "max_retries", 0) or 0
    return float(timeout) * (retries + 1) + 5.0
