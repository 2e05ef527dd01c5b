"""The dead-letter file: what could not be stored, kept beside the database instead of lost.

`<db>.deadletter.jsonl`, one JSON object a line: a row DuckDB refused (`table`,
`row`, `reason`) or a spool record that could not be loaded (`seq`, `kind`,
`payload_base64`, `reason`). Appended and fsync'd; nothing reads it back
automatically: it is for a person to inspect (and re-send) after the fix.
Thread-safe.
"""

from __future__ import annotations

import base64
import logging
import os
import threading
from pathlib import Path
from typing import Any

import orjson
from tracesim.collector.spool.spool import write_all

__all__ = ["DeadLetter"]

log = logging.getLogger(__name__)


class DeadLetter:
    """Appends entries to one JSON-lines file and counts them."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.count = 0
        self._lock = threading.Lock()

    def row(self, table: str, row: dict[str, Any], reason: str) -> None:
        """Keep one row that could not be inserted into `table`."""
        self._append({"table": table, "row": row, "reason": reason})

    def record(self, seq: int, kind: int, payload: bytes, reason: str) -> None:
        """Keep one spool record that could not be loaded."""
        self._append(
            {
                "seq": seq,
                "kind": kind,
                "payload_base64": base64.b64encode(payload).decode("ascii"),
                "reason": reason,
            }
        )

    def _append(self, entry: dict[str, Any]) -> None:
        line = orjson.dumps(entry, default=str, option=orjson.OPT_NON_STR_KEYS) + b"\n"
        with self._lock:
            self.count += 1
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    write_all(fd, line)
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as error:  # the count and the log line still say it happened
                log.error("could not write the dead-letter file %s: %s", self.path, error)
                return
        log.error("kept in %s: %s", self.path, entry["reason"])
