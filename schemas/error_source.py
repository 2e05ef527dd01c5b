"""Who an error belongs to: the agent, the simulated user's LLM, an LLM judge, or tracesim.

An errored turn or conversation is ungradeable whoever caused it, but what a
team does about it depends on the source: fix the agent, check the user
simulator's model or key, or report a tracesim bug. The simulator writes an
error as `<source>: <what happened>` (`tag_error`); readers split it back
(`split_error`). Errors stored without a known prefix (older files, an agent
that failed on a turn) are the agent's: a turn's error is the agent's answer.
"""

from __future__ import annotations

__all__ = [
    "ERROR_SOURCES",
    "SOURCE_AGENT",
    "SOURCE_JUDGE",
    "SOURCE_TRACESIM",
    "SOURCE_USER",
    "split_error",
    "tag_error",
]

SOURCE_AGENT = "agent"
SOURCE_USER = "simulated user"
SOURCE_JUDGE = "judge"
SOURCE_TRACESIM = "tracesim"
ERROR_SOURCES: tuple[str, ...] = (SOURCE_AGENT, SOURCE_USER, SOURCE_JUDGE, SOURCE_TRACESIM)
"""Every source an error is attributed to."""


def tag_error(source: str, message: str) -> str:
    """`message` prefixed with its source (`simulated user: APIConnectionError: ...`)."""
    if source not in ERROR_SOURCES:
        raise ValueError(f"unknown error source {source!r}; one of {ERROR_SOURCES}")
    return f"{source}: {message}"


def split_error(text: str | None, *, default: str = SOURCE_AGENT) -> tuple[str, str]:
    """(source, message) of a stored error; `default` when it carries no known source."""
    message = text or ""
    for source in ERROR_SOURCES:
        if message.startswith(source + ": "):
            return source, message[len(source) + 2 :]
    return default, message
