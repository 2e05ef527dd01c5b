"""Simulated users: scripted (replays `turns`) and LLM-driven (plays the persona)."""

from tracesim.simulator.users.base import Message, SimulatedUser, UserConfigError
from tracesim.simulator.users.factory import UserFactory
from tracesim.simulator.users.llm import LLMUser, build_system_prompt
from tracesim.simulator.users.scripted import ScriptedUser

__all__ = [
    "LLMUser",
    "Message",
    "ScriptedUser",
    "SimulatedUser",
    "UserConfigError",
    "UserFactory",
    "build_system_prompt",
]
