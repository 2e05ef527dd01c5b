"""A write the machine refused (disk full, quota, read-only, I/O error): one line naming
where and the fix, exit 2, instead of a traceback called an internal error.

Evaluate writes scores into the store, then results.json, JUnit and the report into the
output folder; a full disk at any of those raised OSError (or DuckDB's IOException) and
ended as "internal error (traceback above)", exit 3, or as a yellow "report not written"
with exit 0. What was written is complete (results.json and the report appear whole or
not at all; scores commit in transactions), so running again once there is room gives
the same results.
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

__all__ = ["DiskProblem", "damaged_store", "disk_problem"]

_MACHINE = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}
_TEXTS = ("No space left on device", "Disk quota exceeded", "Read-only file system")
_FILE = re.compile(r'file "([^"]+)"')
"""The file DuckDB names in its I/O errors (`Could not write file "x.wal": ...`)."""


class DiskProblem(OSError):
    """A write the machine refused, said in one line (`str`)."""


def disk_problem(error: BaseException, where: str | Path) -> DiskProblem | None:
    """A DiskProblem naming `where` (or the file the error names) when `error` is a write
    the machine refused; None for any other error."""
    seen: set[int] = set()
    found: BaseException | None = error
    while found is not None and id(found) not in seen:  # the cause may be chained
        seen.add(id(found))
        problem = _one(found, where)
        if problem is not None:
            return problem
        found = found.__cause__ or found.__context__
    return None


def _one(error: BaseException, where: str | Path) -> DiskProblem | None:
    if isinstance(error, DiskProblem):
        return error
    if isinstance(error, OSError) and error.errno in _MACHINE:
        reason = error.strerror or str(error)
        where = error.filename or where
    else:
        text = str(error)
        reason = next((t for t in _TEXTS if t in text), None)  # DuckDB's IOException
        if reason is None:
            return None
        named = _FILE.search(text)
        where = named.group(1) if named else where
    return DiskProblem(
        f"cannot write {where}: {reason}; free space (or fix the disk) and run again: what was "
        "written is complete, and a re-run gives the same results"
    )


def damaged_store(db_path: str | Path) -> str | None:
    """After a refused write: the first line of the error when the store no longer opens or
    reads (a checkpoint cut short by the failed write rewrote one of its blocks halfway:
    DuckDB 2.0 rewrites partly filled blocks in place), None when it reads. Said instead
    of "what was written is complete"."""
    from tracesim.evaluator.store import StoreError, StoreMissing, open_store

    try:
        with open_store(db_path, read_only=True) as store:
            store.query("SELECT count(*) FROM spans")  # reads the table's blocks
    except StoreMissing:
        return None
    except StoreError as error:
        text = str(error).strip()
        return text.splitlines()[0] if text else type(error).__name__
    except Exception as error:  # noqa: BLE001 - whatever the engine raises reading it
        text = str(error).strip()
        if "Corrupt" not in text and "checksum" not in text and "IO Error" not in text:
            return None  # not damage (no spans table, a remote store's own problem)
        return text.splitlines()[0]
    return None
