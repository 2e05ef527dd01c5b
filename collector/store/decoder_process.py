"""The decoder process: decoding and routing out of the receivers' and DuckDB's GIL.

Decoding (protobuf -> columns, routing, Arrow tables) is most of a span's CPU and holds
the GIL throughout, so in one process it stalls the gRPC handlers and DuckDB's writer
(which takes the GIL back many times per batch). `DecoderProcess` runs
`prepare_items` in a child process: the writer sends the spooled bytes of a batch's
requests down a pipe and gets the `Prepared` batch back; DuckDB stays in the collector.

The child owns the `Router` it is given at start. Nothing acknowledged lives only in the
child: the writer keeps each batch's bytes until the child answered, and the spool keeps
them until they are committed. When the child dies (kill -9, OOM), `prepare` raises
`DecoderDied` and the writer starts a new one with a router rebuilt from the store.
The child exits when the pipe closes, so a collector killed with -9 leaves no orphan.
Log records of the child are sent back with each answer and logged by the collector.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import socket
import subprocess
import sys
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from tracesim.collector.malloc_tuning import malloc_trim
from tracesim.collector.routing.routing import Router
from tracesim.collector.store.decoder_transport import (
    MemfdUnavailable,
    read_prepared,
    read_requests,
    shared_memory_works,
    write_prepared,
    write_requests,
)
from tracesim.collector.store.prepare_items import Prepared, prepare_items

__all__ = ["ANSWER_TIMEOUT", "DecoderDied", "DecoderProcess", "DecoderUnreachable", "child_main"]

log = logging.getLogger(__name__)

_START_TIMEOUT = 120.0
"""Seconds a new child may take to import and load its router (spawned, on a busy box)."""


_IDLE_BEFORE_TRIM = 0.05
"""Seconds without a next batch after which the child gives its freed memory back to the
system. Trimming after every batch (when the next one is already waiting) made the next
batch fault every page in again (~5% of the child's CPU); the peak is the same."""

_GC_THRESHOLDS = (20_000, 20, 20)
"""A batch allocates ~6 containers a span, nearly none in cycles: collecting every 700
allocations (the default) traversed them ~70 times a batch for nothing."""

ANSWER_TIMEOUT = 300.0
"""Seconds a batch may take in the child before it is taken for hung (SIGSTOP, a decoder
stuck on a hostile payload, swapped out): killed and handled as a death, so the writer
never waits forever. A batch takes well under a second of CPU; this is minutes."""


class DecoderDied(RuntimeError):
    """The decoder process is gone (killed, crashed) or could not be started."""


class DecoderUnreachable(DecoderDied):
    """A batch could not be handed to the child for want of a resource of this process
    (a memfd: file descriptors or memory exhausted); the child is not at fault."""


class DecoderProcess:
    """A child process preparing batches; one caller at a time (the writer's thread).

    Started as `python -c` on a socket pair rather than by multiprocessing's spawn, which
    would run the embedding program's main module again in the child."""

    def __init__(self, router: Router) -> None:
        self._conn: Connection | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self.start(router)

    @property
    def pid(self) -> int | None:
        """The child's process id (None when not running)."""
        return self._process.pid if self._process is not None else None

    def start(self, router: Router) -> None:
        """Start a child owning `router`; DecoderDied when it does not come up."""
        self.close()
        if not shared_memory_works():
            raise DecoderDied("a decoder process needs memfds (Linux)")
        ours, theirs = socket.socketpair()
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
        except OSError as error:
            ours.close()
            raise DecoderDied(f"the decoder process could not be started: {error}") from None
        finally:
            theirs.close()
        conn = Connection(ours.detach())
        self._conn, self._process = conn, process
        try:
            conn.send(("router", router))
            if not conn.poll(_START_TIMEOUT):
                raise DecoderDied("the decoder process did not start in time")
            answer = conn.recv()
        except (OSError, EOFError) as error:
            self.close()
            raise DecoderDied(f"the decoder process did not start: {error!r}") from None
        except DecoderDied:
            self.close()
            raise
        if answer != ("ready",):
            self.close()
            raise DecoderDied(f"the decoder process did not start: {answer!r}")

    def restart(self, router: Router) -> None:
        """Replace a dead (or live) child by a new one owning `router`."""
        self.restarts += 1
        self.start(router)

    def prepare(self, items: Sequence[tuple[int, int, bytes]]) -> Prepared:
        """`prepare_items` of (seq, kind, request bytes) in the child. DecoderDied when the
        child is gone or hung (no answer in `ANSWER_TIMEOUT`: killed); RuntimeError with the child's traceback when preparing raised."""
        conn = self._conn
        if conn is None:
            raise DecoderDied("the decoder process is not running")
        try:
            try:
                write_requests(conn, self._process.pid, items)
            except MemfdUnavailable as error:
                raise DecoderUnreachable(f"{error.strerror} ({error!r})") from None
            if not conn.poll(ANSWER_TIMEOUT):
                self._process.kill()
                raise RuntimeError(f"no answer in {ANSWER_TIMEOUT:g} s: killed as hung")
            status, result, records = conn.recv()
            if status == "done":
                try:
                    result = read_prepared(conn, result)
                except (OSError, EOFError):
                    raise
                except Exception as error:  # an answer that cannot be read: not trusted
                    self._process.kill()
                    raise RuntimeError(f"unreadable answer, killed: {error!r}") from None
        except DecoderUnreachable:
            raise
        except (OSError, EOFError, RuntimeError) as error:
            code = None
            if self._process is not None:
                try:
                    code = self._process.wait(1.0)
                except subprocess.TimeoutExpired:
                    pass
            raise DecoderDied(f"the decoder process died (exit code {code}): {error!r}") from None
        _relog(records)
        if status != "done":
            raise RuntimeError(f"preparing a batch failed in the decoder process: {result}")
        return result

    def close(self) -> None:
        """Stop the child (idempotent): closing the pipe ends it; killed if it lingers."""
        conn, process = self._conn, self._process
        self._conn = self._process = None
        if conn is not None:
            conn.close()
        if process is not None:
            try:
                process.wait(5.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5.0)


_CHILD = (
    "import sys; from multiprocessing.connection import Connection; "
    "from tracesim.collector.store.decoder_process import child_main; "
    "child_main(Connection(int(sys.argv[1])))"
)


def _relog(records: list[logging.LogRecord]) -> None:
    """Log the child's records in this process, through the same loggers."""
    for record in records:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


class _Collect(logging.Handler):
    """Keeps the child's log records (formatted, picklable) to send with the next answer."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg = record.getMessage()
        record.args = None
        if record.exc_info:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip()
            record.exc_info = None
        self.records.append(record)

    def take(self) -> list[logging.LogRecord]:
        taken, self.records = self.records, []
        return taken


def child_main(conn: Connection) -> None:
    """The child: take a router, then prepare batches until the pipe closes."""
    # the collector decides when to stop: Ctrl-C in a terminal and a SIGTERM sent to the
    # whole group (systemd, process managers) reach it, and it then closes the pipe
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    handler = _Collect()
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    router: Router | None = None
    trim = malloc_trim()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the collector is gone or closed the pipe
            os._exit(0)  # nothing to keep: skip the interpreter's teardown (~1 s loaded)
        op = message[0]
        if op == "router":
            router = message[1]
            gc.collect()
            gc.freeze()  # the router and the modules: never traversed again
            gc.set_threshold(*_GC_THRESHOLDS)
            conn.send(("ready",))
            continue
        assert router is not None and op == "prepare"
        try:
            items, mapped = read_requests(conn, message[1])
            try:
                prepared: Prepared | None = prepare_items(items, router)
                failure = ""
            except Exception:
                prepared, failure = None, traceback.format_exc()
            del items
            _unmap(mapped)
            if prepared is None:
                conn.send(("error", failure, handler.take()))
            else:
                write_prepared(conn, os.getppid(), prepared, handler.take())
            del prepared
            if not conn.poll(_IDLE_BEFORE_TRIM):
                trim()  # idle: a batch's garbage back to the system
        except (OSError, EOFError, RuntimeError):  # the collector is gone
            os._exit(0)


def _unmap(mapped: Any) -> None:
    """Close the requests' mapping (left to the garbage collector while a view is held)."""
    if mapped is None:
        return
    mapping, view = mapped
    try:
        view.release()
        mapping.close()
    except BufferError:
        pass
