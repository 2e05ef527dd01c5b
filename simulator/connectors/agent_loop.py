"""Each python agent on its own thread and event loop, so blocking code cannot stall the run.

An agent's `async execute()` may call blocking code (a sync HTTP client,
`time.sleep`). On the runner's loop that would freeze every conversation and
defeat the turn timeout. `AgentLoop` runs one conversation's agent (created,
called and closed there, so loop-bound clients stay on one loop) on a
dedicated daemon thread; the runner awaits the result, so its timeout always
fires and other conversations go on. The caller's context (the OTel turn
span and baggage) is carried into the agent's task.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["AgentLoop"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_MAX_IDLE = 32
_idle: list[AgentLoop] = []
_idle_lock = threading.Lock()


async def _noop() -> None:
    return None


class AgentLoop:
    """An event loop on its own daemon thread; `run` awaits a coroutine made there."""

    def __init__(self, name: str = "tracesim-agent") -> None:
        self._idle = True
        """False from a `run` until it completes on the agent's loop (a timed-out or
        cancelled run may leave agent code blocking the loop)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            # Tasks still queued when the loop was stopped (a ping sent while agent code
            # blocked it) are cancelled and finished, not dropped unawaited.
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

    async def run(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run `make()` on the agent's loop in the caller's context; cancelling the caller
        (a timeout) cancels it there too, as soon as the agent's code yields."""
        context = contextvars.copy_context()
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        caller = asyncio.get_running_loop()
        tasks: list[asyncio.Task[Any]] = []

        async def body() -> T:
            return await make()

        def settle(task: asyncio.Task[T]) -> None:
            self._idle = True  # the agent's code returned control to its loop

            def publish() -> None:
                if done.done():
                    return
                if task.cancelled():
                    done.cancel()
                elif task.exception() is not None:
                    done.set_exception(task.exception())  # type: ignore[arg-type]
                else:
                    done.set_result(task.result())

            caller.call_soon_threadsafe(publish)

        def start() -> None:
            task = context.run(self._loop.create_task, body())
            task.add_done_callback(settle)
            tasks.append(task)

        self._idle = False
        self._loop.call_soon_threadsafe(start)
        try:
            return await done
        except asyncio.CancelledError:
            self._loop.call_soon_threadsafe(lambda: [t.cancel() for t in tasks])
            raise

    @classmethod
    def acquire(cls) -> AgentLoop:
        """An idle loop of an earlier conversation, or a new one (threads are reused)."""
        with _idle_lock:
            while _idle:
                loop = _idle.pop()
                if loop._thread.is_alive() and not loop._loop.is_closed():
                    return loop
        return cls()

    async def release(self, *, timeout: float = 1.0) -> None:
        """Give the loop back for another conversation when it answers within `timeout`
        (nothing blocks it); otherwise close it, leaving a blocked thread behind.

        When the last `run` completed, the loop is known to be free and no ping is sent:
        one trip to the agent's thread less per conversation (each costs a GIL hand-off).
        """
        try:
            if not self._idle:
                await asyncio.wait_for(self.run(_noop), timeout)
        except (asyncio.TimeoutError, RuntimeError):
            await asyncio.to_thread(self.close, 0.5)
            return
        with _idle_lock:
            if len(_idle) < _MAX_IDLE:
                _idle.append(self)
                return
        await asyncio.to_thread(self.close, 1.0)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the loop; a thread still blocked in agent code is left behind (daemon) and
        logged, never waited for."""
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning(
                "an agent is still blocked in %s after its conversation ended; leaving it",
                self._thread.name,
            )
