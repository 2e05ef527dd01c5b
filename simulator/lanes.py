"""Conversation lanes: in-process agents called inline, a watchdog for the ones that block.

A python agent's `async execute()` may call blocking code (`time.sleep`, a
sync HTTP client). Sending every turn to a thread of its own keeps the run
safe but costs a cross-thread wake-up per turn. Instead each of the run's
`num_workers` workers is a *lane*: a thread with its own event loop that
drives its conversations one at a time and calls the agent inline on that
loop (no hop per turn). A blocking agent can then stall only its own lane.

The watchdog (the runner's loop) keeps every deadline, so a turn costs no
timer: while the lane is inside an agent call it holds a `Claim` with a
deadline (the turn timeout). At the deadline the watchdog asks the lane's
loop to cancel the call (a cooperative agent: the lane records a timeout).
When the deadline has passed by `STALL_GRACE` seconds and the lane has not
come back, its loop is blocked: the watchdog takes the claim, records the
turn and the conversation itself (`on_stall`), leaves the blocked thread
behind and starts a fresh lane for the remaining conversations. If the
blocked code ever returns, the lane finds its claim taken and unwinds
(`LaneAbandoned`) without recording anything twice.

(A per-turn `asyncio.timeout` cost ~30 us a turn: a lane whose agent answers
at once never yields to its loop, so cancelled timer handles piled up.)
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["STALL_GRACE", "Claim", "Lane", "LaneAbandoned", "drive_on_lanes", "lanes_cpu_seconds"]

log = logging.getLogger(__name__)

STALL_GRACE = 0.25
"""Seconds past a deadline before a lane that has not come back counts as blocked (its
own loop times out a cooperative agent at the deadline itself)."""


_cpu_seconds = [0.0]
_cpu_lock = threading.Lock()


def lanes_cpu_seconds() -> float:
    """CPU seconds used so far by every lane that has ended (for benchmarks)."""
    return _cpu_seconds[0]


class LaneAbandoned(BaseException):  # noqa: N818 - a control-flow signal, like CancelledError
    """The watchdog took this lane's conversation over: unwind, record nothing more."""


class Claim:
    """Who records one conversation: its lane, or the watchdog once the lane is stuck.

    Thread-safe: the lane opens and closes watch windows around agent calls, the
    watchdog (another thread) may take the claim during one.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop | None = None,
        task: asyncio.Task[Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._taken = False
        self._deadline: float | None = None
        self._on_stall: Callable[[], None] | None = None
        self._loop, self._task = loop, task
        """The lane's loop and the task making the agent calls (cancelled at a deadline)."""
        self._window = 0
        """Counts watch windows opened and closed (lane thread only)."""
        self._expiring = False
        self._expired = False

    @property
    def expired(self) -> bool:
        """True when the open watch window's call was cancelled for its deadline."""
        return self._expired

    @property
    def taken(self) -> bool:
        """True once the watchdog (or `settle`) decided who records the conversation."""
        return self._taken

    def watching(self, seconds: float | None, on_stall: Callable[[], None]) -> _Watch:
        """Around an agent call (`with claim.watching(...)`): past `seconds` (+ grace) the
        watchdog may call `on_stall` instead of the lane. Raises `LaneAbandoned` on the
        way in or out when it did."""
        return _Watch(self, seconds, on_stall)

    def _open(self, seconds: float | None, on_stall: Callable[[], None]) -> None:
        with self._lock:
            if self._taken:
                raise LaneAbandoned
            self._deadline = None if seconds is None else time.monotonic() + seconds
            self._on_stall = on_stall
            self._window += 1
            self._expiring = self._expired = False

    def _close(self) -> None:
        with self._lock:
            taken = self._taken
            self._deadline = None
            self._on_stall = None
            self._window += 1
        if taken:
            raise LaneAbandoned  # the watchdog recorded it; nothing here counts

    def expire_if_due(self, now: float) -> None:
        """The watchdog's deadline check: past it, ask the lane's loop (once) to cancel the
        call of the open watch window. A blocked loop runs the request late or never."""
        with self._lock:
            if (
                self._taken
                or self._expiring
                or self._deadline is None
                or now < self._deadline
                or self._loop is None
            ):
                return
            self._expiring = True
            window = self._window
        try:
            self._loop.call_soon_threadsafe(self._expire, window)
        except RuntimeError:  # the lane's loop is closed: nothing left to cancel
            pass

    def _expire(self, window: int) -> None:
        """On the lane's loop: its task is waiting inside the same watched call only when
        the window has not moved since the request."""
        if window != self._window or self._taken or self._task is None:
            return
        self._expired = True
        self._task.cancel()

    def take_if_stalled(self, now: float) -> Callable[[], None] | None:
        """The watchdog's check: the stall handler (claim taken) when the deadline of the
        open watch window passed by `STALL_GRACE`, else None."""
        with self._lock:
            if self._taken or self._deadline is None or now < self._deadline + STALL_GRACE:
                return None
            self._taken = True
            return self._on_stall

    def take(self) -> bool:
        """Take the claim whatever the deadline (a stopped run); False when already taken."""
        with self._lock:
            if self._taken:
                return False
            self._taken = True
            return True

    def settle(self) -> None:
        """The lane records the conversation's end itself: nobody may take it any more.
        Raises `LaneAbandoned` when the watchdog took it first."""
        if not self.take():
            raise LaneAbandoned


class _Watch:
    """`Claim.watching`'s context manager (a class: this runs twice per turn)."""

    __slots__ = ("_claim", "_on_stall", "_seconds")

    def __init__(self, claim: Claim, seconds: float | None, on_stall: Callable[[], None]) -> None:
        self._claim, self._seconds, self._on_stall = claim, seconds, on_stall

    def __enter__(self) -> None:
        self._claim._open(self._seconds, self._on_stall)

    def __exit__(self, *exc: object) -> None:
        self._claim._close()


class Lane:
    """A daemon thread running `work(lane)` on its own event loop.

    `claim` is the conversation the lane is driving (None between conversations);
    `on_exit(lane)` is called on `home` (the runner's loop) when the thread's work ends.
    """

    def __init__(
        self,
        name: str,
        *,
        home: asyncio.AbstractEventLoop,
        work: Callable[[Lane], Coroutine[Any, Any, None]],
        on_exit: Callable[[Lane], None],
    ) -> None:
        self.name = name
        self.home = home
        self.claim: Claim | None = None
        self.on_interrupt: Callable[[], None] | None = None
        """Records the lane's conversation as interrupted when the lane cannot (blocked)."""
        self.stopping = False
        self.error: Exception | None = None
        """What the lane's work raised (a bug: conversations record their own failures)."""
        self._work = work
        self._on_exit = on_exit
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)

    def start(self) -> Lane:
        """Start the thread; returns self."""
        self._thread.start()
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            self._task = loop.create_task(self._work(self))
            loop.run_until_complete(self._task)
        except (asyncio.CancelledError, LaneAbandoned):
            pass
        except Exception as exc:  # noqa: BLE001 - handed to the run, which raises it
            self.error = exc
        finally:
            with _cpu_lock:
                _cpu_seconds[0] += time.thread_time()
            try:
                self.home.call_soon_threadsafe(self._on_exit, self)
            except RuntimeError:  # the run's loop is gone (the run ended without us)
                pass
            try:
                # tasks an agent left running (a background poller) are cancelled and
                # finished, never destroyed pending
                pending = asyncio.all_tasks(loop)
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()  # never waits for the default executor's threads

    def stop(self) -> None:
        """Start no new conversation and cancel the running one (thread-safe)."""
        self.stopping = True
        loop = self._loop
        if loop is None:
            return

        def cancel() -> None:
            if self._task is not None:
                self._task.cancel()

        try:
            loop.call_soon_threadsafe(cancel)
        except RuntimeError:  # the lane's loop already closed
            pass

    async def watched(
        self, seconds: float | None, on_stall: Callable[[], None], call: Callable[[], Any]
    ) -> Any:
        """`await call()` (an agent call) inside a watch window of this lane's claim: at the
        deadline the watchdog cancels it (raised here as `TimeoutError`), past the grace
        it records it instead of a blocked lane (`LaneAbandoned` here if it ever returns)."""
        claim = self.claim
        assert claim is not None, "watched() outside a conversation"
        with claim.watching(seconds, on_stall):
            try:
                result = await call()
            except asyncio.CancelledError:
                if not claim.expired or self._cancelled_otherwise():
                    raise
                raise TimeoutError from None
            if claim.expired:  # the agent swallowed the deadline's cancel and answered
                self._cancelled_otherwise()  # take the request back all the same
            return result

    def _cancelled_otherwise(self) -> bool:
        """After the deadline's cancel: True when the run was stopped too (keep cancelling)."""
        uncancel = getattr(asyncio.current_task(), "uncancel", None)
        if uncancel is not None:  # Python 3.11+: take our own request back
            return bool(uncancel() > 0)
        return self.stopping

    def new_claim(self) -> Claim:
        """A claim for the conversation this lane starts (its deadlines cancel this lane's
        task); call from the lane's own thread."""
        self.claim = Claim(self._loop, self._task)
        return self.claim

    def check_stall(self, now: float) -> bool:
        """Time out this lane's agent call at its deadline, and run the stall handler when
        its loop is still blocked in it past the grace; True if it did the latter."""
        claim = self.claim
        if claim is None:
            return False
        claim.expire_if_due(now)
        handler = claim.take_if_stalled(now)
        if handler is None:
            return False
        log.warning(
            "an agent blocked its event loop past the turn timeout; its conversation is "
            "recorded as timed out and %s is left behind", self.name
        )
        handler()
        return True


async def drive_on_lanes(
    count: int,
    *,
    jobs: int,
    drive: Callable[[int, Lane], Coroutine[Any, Any, None]],
    on_tick: Callable[[], None],
    tick: float = 0.05,
    stop_wait: float = 2.0,
) -> None:
    """Run `drive(index, lane)` for every index in `range(jobs)` on `count` lanes, one job
    at a time per lane; this coroutine is the watchdog.

    Every `tick` seconds it calls `on_tick` (deliver progress), times out agent calls past
    their deadline and replaces a lane blocked in one past the grace by a fresh lane. Cancelled (Ctrl-C), it stops every
    lane, gives them `stop_wait` seconds to record their conversation as interrupted, does
    it for those still blocked, and re-raises. A lane's unexpected exception is re-raised
    once every lane has ended.
    """
    home = asyncio.get_running_loop()
    next_job = iter(range(jobs))
    job_lock = threading.Lock()
    live: set[Lane] = set()
    errors: list[Exception] = []
    all_done: asyncio.Future[None] = home.create_future()
    serial = itertools.count()

    async def work(lane: Lane) -> None:
        while not lane.stopping:
            with job_lock:
                index = next(next_job, None)
            if index is None:
                return
            await drive(index, lane)

    def exited(lane: Lane) -> None:
        if lane.error is not None:
            errors.append(lane.error)
            for other in live:
                other.stopping = True
        live.discard(lane)
        if not live and not all_done.done():
            all_done.set_result(None)

    def spawn() -> None:
        lane = Lane(f"tracesim-lane-{next(serial)}", home=home, work=work, on_exit=exited)
        live.add(lane)
        lane.start()

    for _ in range(min(count, jobs)):
        spawn()
    if not live:
        return
    try:
        while not all_done.done():
            await asyncio.wait([all_done], timeout=tick)
            on_tick()
            now = time.monotonic()
            for lane in list(live):
                if lane.check_stall(now):
                    live.discard(lane)
                    spawn()  # the remaining conversations go on without the blocked thread
    except asyncio.CancelledError:
        for lane in live:
            lane.stop()
        if live:
            await asyncio.wait([all_done], timeout=stop_wait)
        for lane in list(live):  # still blocked in agent code: record it for the lane
            claim, handler = lane.claim, lane.on_interrupt
            if claim is not None and handler is not None and claim.take():
                handler()
        on_tick()
        raise
    on_tick()
    if errors:
        raise errors[0]
