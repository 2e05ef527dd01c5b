"""An HTTP answer drained to a temporary file as fast as the server sends it, read at the
consumer's pace.

ClickHouse aborts a query whose client reads nothing for `http_send_timeout` (30 s by
default, a server setting) once the answer fills the socket buffers; the evaluation holds
its span stream open while it scores a chunk, which with LLM judges takes minutes. Memory
stays bounded (the file is on disk, Arrow buffers compressed as the server sends them).
"""

from __future__ import annotations

import io
import tempfile
import threading
from typing import Any

__all__ = ["Spool"]

_CHUNK = 1 << 20


class Spool(io.RawIOBase):
    """A readable stream over `source` (anything with `read(n)` and `close()`): a thread
    copies `source` to a temporary file until its end; `readinto` waits for what has not
    arrived yet and raises what the copy failed with. `close` stops the copy (safe twice)."""

    def __init__(self, source: Any) -> None:
        super().__init__()
        self._source = source
        self._file = tempfile.TemporaryFile()
        self._arrived = threading.Condition()
        self._written = self._read = 0
        self._done = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, name="http-spool", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        try:
            while data := self._source.read(_CHUNK):
                with self._arrived:
                    if self._file.closed:
                        return
                    self._file.seek(self._written)
                    self._file.write(data)
                    self._written += len(data)
                    self._arrived.notify_all()
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, raised there
            self._error = exc
        finally:
            with self._arrived:
                self._done = True
                self._arrived.notify_all()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        with self._arrived:
            self._arrived.wait_for(lambda: self._read < self._written or self._done)
            if self._read >= self._written:
                if self._error is not None and not self.closed:
                    raise self._error
                return 0
            self._file.seek(self._read)
            size = self._file.readinto(memoryview(buffer)[: self._written - self._read])
            self._read += size
            return size

    def close(self) -> None:
        if self.closed:
            return
        try:
            self._source.close()  # ends the copy: its read fails or returns b""
        finally:
            with self._arrived:
                self._file.close()
            super().close()
