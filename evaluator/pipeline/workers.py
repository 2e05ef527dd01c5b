"""Evaluate chunks in worker processes, so extraction and scoring use every core.

The main process keeps the store (DuckDB and chdb allow one connection, and
chdb one query at a time), the judges and the custom metrics; workers get a
chunk as read (`EvalStore.raw_chunks`: Arrow tables from DuckDB, pickled as
buffers) and send back its `ChunkResult` (`evaluator.pipeline.chunk`).
`ChunkPool.run` yields results in chunk order and keeps at most `workers` + 1
chunks in flight (one queued for the first worker to finish), so memory stays
bounded while the main process reads the next chunk and writes finished ones.

Workers start by `forkserver` (`spawn` where there is none): forking a
process that has a DuckDB or chdb connection open is unsafe. They are started
by a thread as soon as the pool exists, and the main process evaluates the
first chunk itself if they are not up when it is read (the server's imports
take ~0.5 s: one core would idle meanwhile). A worker that
raises or dies fails the evaluation with `WorkerError`, naming the chunk;
no chunk is waited for forever.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

__all__ = ["AUTO_MIN_TURNS", "ChunkPool", "WorkerError", "auto_workers", "start_server"]

K = TypeVar("K")
T = TypeVar("T")
R = TypeVar("R")

AUTO_MIN_TURNS = 20_000
"""Below this many turns the automatic choice stays serial: starting the workers costs
~1 s of CPU (a fresh interpreter importing the evaluator), what a second core saves on
~10k turns."""

_PRELOAD = ["tracesim.evaluator.pipeline.chunk"]


class WorkerError(RuntimeError):
    """A worker process raised or died while evaluating a chunk (an internal error)."""


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def auto_workers(*, chunks: int, turns: int) -> int:
    """The workers an evaluation of `chunks` chunks and `turns` turns gets by default:
    min(2, CPUs) when there are two chunks or more and at least `AUTO_MIN_TURNS` turns
    (a second core pays only then), else 1 (serial, in-process)."""
    if chunks < 2 or turns < AUTO_MIN_TURNS:
        return 1
    return max(1, min(2, _cpus()))


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        from multiprocessing import forkserver

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)  # used when the server starts (once)
        # start it now: its imports overlap the reading of the first chunk
        forkserver.ensure_running()
        return context
    return multiprocessing.get_context("spawn")


def start_server() -> None:
    """Start the process workers are forked from, if not running yet (a no-op where there
    is no forkserver): its imports (~0.5 s) then overlap what the caller does before its
    first chunk is submitted (planning, opening the judges' cache, reading)."""
    _context()


def _init_worker(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    # Ctrl-C reaches the whole process group: the main process stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def _ping() -> None:
    """A task that only proves a worker process is up (`ChunkPool._start`)."""
    return None


class ChunkPool:
    """A pool of `workers` processes running `fn` on chunks; a context manager.

    Its processes are started by a thread at once: a process forked from the forkserver
    only after the server's imports (~0.5 s), and submitting waits for that. Meanwhile
    `run` may evaluate the first item in this process (`here`), instead of waiting.
    """

    def __init__(
        self,
        workers: int,
        *,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(initializer, initargs),
        )
        self._ready = threading.Event()
        self._starter = threading.Thread(target=self._start, name="tracesim-workers", daemon=True)
        self._starter.start()

    def _start(self) -> None:
        """Start every worker process (one ping each); `_ready` once they are up, or once
        starting failed (the first submit then reports it)."""
        try:
            executor = self._executor
            if executor is not None:
                for future in [executor.submit(_ping) for _ in range(self.workers)]:
                    future.result()
        except BaseException:  # noqa: BLE001 - a broken pool: the chunks' futures say so
            pass
        finally:
            self._ready.set()

    def __enter__(self) -> ChunkPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers; chunks not started are cancelled (safe twice)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
            self._starter.join(timeout=10)

    def run(
        self,
        fn: Callable[[T], R],
        items: Iterable[tuple[K, T]],
        *,
        describe: Callable[[K], str] = str,
        here: Callable[[T], R] | None = None,
    ) -> Iterator[tuple[K, R]]:
        """(key, fn(item)) for each (key, item), in order; `describe(key)` names the item in
        a `WorkerError`. At most `workers` + 1 items are in flight (the one queued goes to
        the first worker that finishes, while this process is still writing an earlier
        result), and one more is read ahead from `items` (4 chunks in memory with 2
        workers). `here`: what evaluates the first item in this process when the workers
        are not up yet (the same answer as `fn`, by the same functions)."""
        assert self._executor is not None, "ChunkPool is closed"
        executor = self._executor
        pending: deque[tuple[K, Future[R]]] = deque()
        for index, (key, item) in enumerate(items):
            done = _result(pending, describe) if len(pending) > self.workers else None
            # the freed worker gets the item read ahead before the caller takes the result
            if index == 0 and here is not None and not self._ready.is_set():
                pending.append((key, _here(here, item)))
            else:
                pending.append((key, _submit(executor, fn, item)))
            del item
            if done is not None:
                yield done
        while pending:
            yield _result(pending, describe)


def _here(fn: Callable[[T], R], item: T) -> Future[R]:
    """`fn(item)` evaluated in this process, as a finished future."""
    future: Future[R] = Future()
    try:
        future.set_result(fn(item))
    except Exception as exc:  # noqa: BLE001 - reported as a chunk's failure (`_result`)
        future.set_exception(exc)
    return future


def _submit(executor: ProcessPoolExecutor, fn: Callable[[T], R], item: T) -> Future[R]:
    try:
        return executor.submit(fn, item)
    except BrokenProcessPool as exc:  # a worker died since: the results say which
        future: Future[R] = Future()
        future.set_exception(exc)
        return future


def _result(pending: deque[tuple[K, Future[R]]], describe: Callable[[K], str]) -> tuple[K, R]:
    """The oldest item's result, taken off `pending`; a `WorkerError` if it failed."""
    key, future = pending[0]
    try:
        result = future.result()
    except BrokenProcessPool as exc:
        in_flight = " or ".join(describe(k) for k, _ in pending)
        raise WorkerError(
            f"a worker process died while evaluating {in_flight} (killed, out of memory, "
            "or crashed); the evaluation stopped and its scores were removed: rerun with "
            "--workers 1 to evaluate in one process"
        ) from exc
    except Exception as exc:
        raise WorkerError(
            f"evaluating {describe(key)} failed in a worker process: {type(exc).__name__}: {exc}"
        ) from exc
    pending.popleft()
    return key, result
