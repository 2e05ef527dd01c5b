"""What a conversation on a lane hands outside it: user calls, the agent's span flush, progress.

A lane (`simulator.lanes`) runs its conversation on its own thread and loop.
A user holding loop-bound things shared by every conversation (the LLM
client, its concurrency limiter) is called on the run's loop instead; the
global provider's flush (the agent's spans) blocks only the lane.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider as SDKTracerProvider
from tracesim.simulator.connectors.base import AgentConnector
from tracesim.simulator.lanes import Lane
from tracesim.simulator.results import ConversationResult, describe_error

__all__ = [
    "CLOSE_TIMEOUT",
    "NO_PROVIDER_RECHECK",
    "ProgressQueue",
    "close_conversation",
    "close_quietly",
    "flush_in_process_agent",
    "on_users_loop",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

CLOSE_TIMEOUT = 3.0
"""Seconds an in-process agent's `close()` may take on its lane: cancelled then (a
cooperative one), or left behind by the watchdog (one that blocks the lane)."""

NO_PROVIDER_RECHECK = 0.1
"""Seconds between looks for the agent's SDK provider while there is none."""
_last_miss = [float("-inf")]


async def flush_in_process_agent(*, on_lane: bool = False) -> None:
    """Flush the global SDK provider (where `instrument()` put the agent's exporter).

    On a lane (its own thread) directly, else in a thread, so a slow exporter never
    blocks the other conversations. Skipped when the global provider is not an SDK
    provider (nothing to flush). The simulator's own provider is never the global one.
    Without one, the next look is `NO_PROVIDER_RECHECK` seconds later (each look reads
    the environment); the run's end delivers every agent span whatever happens here.
    """
    now = time.monotonic()
    if now - _last_miss[0] < NO_PROVIDER_RECHECK:
        return
    provider = trace.get_tracer_provider()
    if not isinstance(provider, SDKTracerProvider):
        _last_miss[0] = now
        return
    if on_lane:
        provider.force_flush()
    else:
        await asyncio.to_thread(provider.force_flush)


async def on_users_loop(user: Any, call: Callable[[], Awaitable[T]], lane: Lane | None) -> T:
    """`call()` where the user may run: on a lane itself, or on the run's loop when the
    user shares loop-bound things across conversations (the LLM client, its limiter)."""
    if lane is None or not getattr(user, "needs_home_loop", True):
        return await call()
    if lane.home.is_closed():  # a lane abandoned by a run that has ended since
        raise RuntimeError("the run's event loop is closed")

    async def on_home() -> T:
        return await call()

    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(on_home(), lane.home))


async def close_conversation(
    conversation: ConversationResult,
    connector: AgentConnector,
    user: Any,
    *,
    lane: Lane | None,
    end: Callable[..., None],
) -> None:
    """Close the connector (watched on a lane: a close that blocks its loop for
    `CLOSE_TIMEOUT` seconds ends the conversation without it) and the user; a failing
    close is recorded on the conversation, never fatal."""
    try:
        if lane is None or lane.claim is None:
            await connector.close()
        else:
            stuck = f"close: the agent's close() blocked its event loop for {CLOSE_TIMEOUT} s"
            try:
                await lane.watched(CLOSE_TIMEOUT, lambda: end(error=stuck), connector.close)
            except TimeoutError:  # a close that never returns is left behind
                pass
    except Exception as exc:
        conversation.error = conversation.error or f"close: {describe_error(exc)}"
    closer = getattr(user, "close", None)
    if closer is None:
        return
    try:
        await on_users_loop(user, closer, lane)
    except Exception as exc:
        conversation.error = conversation.error or f"close: {describe_error(exc)}"


async def close_quietly(connector: AgentConnector, user: Any, lane: Lane | None) -> None:
    """An abandoned lane's cleanup: the watchdog recorded the conversation; errors ignored."""
    try:
        await connector.close()
    except Exception:  # noqa: BLE001, S110 - nothing left to record them on
        pass
    closer = getattr(user, "close", None)
    if closer is not None:
        try:
            await on_users_loop(user, closer, lane)
        except Exception:  # noqa: BLE001, S110
            pass


class ProgressQueue:
    """Observer hooks posted from lanes (thread-safe), run on the run's loop by `deliver`."""

    def __init__(self) -> None:
        self._events: collections.deque[tuple[Callable[..., None], tuple[Any, ...]]] = (
            collections.deque()
        )

    def post(self, hook: Callable[..., None], *args: Any) -> None:
        """Queue `hook(*args)` (a deque append: no wake-up of the run's loop)."""
        self._events.append((hook, args))

    def deliver(self) -> None:
        """Run the queued hooks in order; one that raises is logged (progress display only:
        it never stops the watchdog)."""
        while self._events:
            hook, args = self._events.popleft()
            try:
                hook(*args)
            except Exception:
                log.exception("the run's progress observer failed")
