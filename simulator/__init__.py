"""The simulator: scenarios, simulated users, agent connectors, routing context
injection and agent-side instrumentation (`instrument()`).

It records what it sees as OTel spans sent to the collector and writes
nothing to DuckDB itself. Imports `schemas` only. The OpenAI Agents SDK
bridge lives in `simulator.agents_bridge` (imported only when used).
"""

from tracesim.simulator.agent import BaseAgent
from tracesim.simulator.connectors.factory import agent_timeout, make_connector_factory
from tracesim.simulator.instrument import instrument, retarget
from tracesim.simulator.results import ConversationResult, RunResult, TurnResult
from tracesim.simulator.runner import Runner, RunObserver
from tracesim.simulator.scenarios import ScenarioError, load_scenarios, parse_scenarios
from tracesim.simulator.tracing import make_simulator_provider
from tracesim.simulator.users import (
    LLMUser,
    ScriptedUser,
    SimulatedUser,
    UserConfigError,
    UserFactory,
)

__all__ = [
    "BaseAgent",
    "ConversationResult",
    "LLMUser",
    "RunObserver",
    "RunResult",
    "Runner",
    "ScenarioError",
    "ScriptedUser",
    "SimulatedUser",
    "TurnResult",
    "UserConfigError",
    "UserFactory",
    "agent_timeout",
    "instrument",
    "load_scenarios",
    "make_connector_factory",
    "make_simulator_provider",
    "parse_scenarios",
    "retarget",
]
