"""A run in progress, said beside its DuckDB file: `<db>.running` holds the run id and pid of
a `tracesim run` from the moment its collector holds the file until its conversations
ended and settled (before its own evaluation).

`tracesim evaluate` reads it so that grading a file while a run is still writing to it is
never silent: half-finished conversations would be graded as failures (SPEC §11, never
silent). A marker whose process is gone (a run killed before its end) is reported as such.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tracesim.schemas.text_file import read_text_file

__all__ = ["RunInProgress", "marker_path", "marking_run", "run_in_progress"]


_MARKER_BYTES = 64 << 10
"""A marker is a few dozen bytes; a larger one (or a FIFO, a device) is not read."""


def marker_path(db_path: str | Path) -> Path:
    """Where the marker of a run writing `db_path` lives."""
    path = Path(db_path)
    return path.with_name(path.name + ".running")


@dataclass(frozen=True)
class RunInProgress:
    """What a marker says: which run writes the file, from which process, since when."""

    run_id: str
    pid: int
    started_at: float
    alive: bool
    """False when the process is gone: the run stopped before its end (killed)."""


@contextmanager
def marking_run(db_path: str | Path, run_id: str) -> Iterator[None]:
    """Mark `db_path` as written by run `run_id` for the duration (removed on the way out,
    Ctrl-C included; a killed process leaves it, and readers see its pid is gone)."""
    path = marker_path(db_path)
    body = {"run_id": run_id, "pid": os.getpid(), "started_at": time.time()}
    try:
        path.write_text(json.dumps(body), encoding="utf-8")
    except OSError:  # informative only: a read-only folder still runs
        yield
        return
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def run_in_progress(db_path: str | Path) -> RunInProgress | None:
    """The run another process is writing into `db_path`, or None (no marker, an unreadable
    one, or this process's own run)."""
    try:
        body = json.loads(read_text_file(marker_path(db_path), limit=_MARKER_BYTES))
        run_id, pid = str(body["run_id"]), int(body["pid"])
        started = float(body.get("started_at") or 0.0)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # TextFileError too
        return None
    if pid == os.getpid():
        return None
    return RunInProgress(run_id, pid, started, _alive(pid))
