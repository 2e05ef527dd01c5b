"""Simulated users: scripted (replays `turns`) and LLM-driven (plays the persona)."""

from simulator.users.base import Message, SimulatedUser, UserConfigError
from simulator.users.factory import UserFactory
from simulator.users.llm import LLMUser, build_system_prompt
from simulator.users.scripted import ScriptedUser

__all__ = [
    "LLMUser",
    "Message",
    "ScriptedUser",
    "SimulatedUser",
    "UserConfigError",
    "UserFactory",
    "build_system_prompt",
]
