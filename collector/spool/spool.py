"""Write-ahead spool: acknowledged requests are on disk (fsync'd) before the OK.

Append-only segment files `spool-<first seq>.log` in one directory. Each record
is `header + payload`; the header holds a magic, the kind, a monotonically
increasing sequence number, the payload length and a CRC32 of all of it, so a
torn tail after a crash is detected and ignored. Many threads append; one of
them fsyncs for all the records written so far (group fsync). Segments whose
records are all loaded into DuckDB are deleted by `release`.

A write or fsync that fails (disk full, EIO) raises `Busy` to the appender and
to every request waiting on that fsync; a partial record is cut off (or its
segment abandoned) and the next append starts a fresh segment, so the spool
resumes by itself when the disk does.

Thread-safe. A new process always starts a new segment; older segments are
read once by `recover` and deleted by `release` after their replay commits.
A clean `close` after everything is loaded deletes every segment.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tracesim.collector.errors import Busy
from tracesim.schemas.ascii_index import ascii_index

__all__ = ["Spool", "SpoolRecord", "write_all"]

log = logging.getLogger(__name__)

_HEADER = struct.Struct("<2sBxQII")  # magic, kind, pad, seq, length, crc32
_MAGIC = b"TS"
_PREFIX = "spool-"
_SUFFIX = ".log"


@dataclass(frozen=True)
class SpoolRecord:
    """One spooled request."""

    seq: int
    kind: int
    payload: bytes


def _crc(kind: int, seq: int, payload: bytes) -> int:
    """Checksum of a record's kind, sequence number and payload."""
    return zlib.crc32(payload, zlib.crc32(struct.pack("<BQ", kind, seq)))


def write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is written (a write may be short, e.g. near a full disk)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(f"write returned {written}")
        view = view[written:]


def _unavailable(what: str, error: OSError) -> Busy:
    """The retryable error of a failed spool write or fsync."""
    reason = error.strerror or str(error)
    return Busy(f"the collector could not {what} its spool ({reason}); retry later")


def _record_at(data: bytes, offset: int) -> SpoolRecord | None:
    """The intact record starting at `offset`, or None."""
    if offset + _HEADER.size > len(data):
        return None
    magic, kind, seq, length, crc = _HEADER.unpack_from(data, offset)
    start = offset + _HEADER.size
    if magic != _MAGIC or start + length > len(data):
        return None
    payload = data[start : start + length]
    if _crc(kind, seq, payload) != crc:
        return None
    return SpoolRecord(seq, kind, payload)


def scan_segment(data: bytes) -> Iterator[SpoolRecord | tuple[int, int]]:
    """Records of one segment in order, and (start, end) byte ranges that hold no intact
    record: after a damaged one the scan resynchronises on the next intact header (the
    magic, then the CRC of kind, seq and payload), so one bad byte costs one record."""
    offset = 0
    size = len(data)
    while offset < size:
        record = _record_at(data, offset)
        if record is not None:
            yield record
            offset += _HEADER.size + len(record.payload)
            continue
        resume = data.find(_MAGIC, offset + 1)
        while resume != -1 and _record_at(data, resume) is None:
            resume = data.find(_MAGIC, resume + 1)
        end = size if resume == -1 else resume
        yield (offset, end)
        offset = end


def _segments_in(directory: Path) -> list[tuple[int, Path]]:
    """(first seq, path) of the segment files in `directory`; anything else is left alone
    with a warning (a stray file never stops start-up)."""
    found = []
    for path in directory.iterdir():
        name = path.name
        number = ascii_index(name[len(_PREFIX) : -len(_SUFFIX)])
        if name.startswith(_PREFIX) and name.endswith(_SUFFIX) and number is not None:
            if path.is_file():
                found.append((number, path))
                continue
        log.warning("ignoring %s in the spool folder: not a spool segment", path)
    return sorted(found)


class Spool:
    """Segmented append-only log with group fsync."""

    def __init__(
        self, directory: str | Path, *, segment_bytes: int = 64 << 20, fsync: bool = True
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._segment_bytes = segment_bytes
        self._fsync = fsync
        self._cond = threading.Condition()
        self._segments = _segments_in(self.directory)
        self.quarantine_dir = self.directory.with_name(self.directory.name + ".quarantine")
        self.quarantined_ranges = 0
        self.quarantined_bytes = 0
        self._fd: int | None = None
        self._size = 0
        self._next_seq = 1
        self._written = 0
        self._synced = 0
        self._syncing = False
        self._open = False
        self._failed: list[tuple[int, int]] = []  # (after, upto]: records whose fsync failed

    def recover(self, after: int) -> Iterator[SpoolRecord]:
        """Records left by earlier processes with seq > `after`, in order."""
        for _first, path in list(self._segments):
            try:
                data = path.read_bytes()
            except OSError as error:
                log.error("cannot read spool segment %s (%s); it is skipped", path, error)
                continue
            for item in scan_segment(data):
                if isinstance(item, SpoolRecord):
                    self._next_seq = max(self._next_seq, item.seq + 1)
                    if item.seq > after:
                        yield item
                else:
                    self._quarantine(path, data, *item)

    def read_range(self, first: int, last: int) -> list[SpoolRecord]:
        """Records first..last of this process's segments, read back (to store a failed
        batch again); damaged bytes are skipped here (counted when recovered at start)."""
        with self._cond:
            segments = list(self._segments)
        found = []
        for index, (start, path) in enumerate(segments):
            following = segments[index + 1][0] if index + 1 < len(segments) else None
            if start > last or (following is not None and following <= first):
                continue
            try:
                data = path.read_bytes()
            except OSError as error:
                log.error("cannot read spool segment %s again: %s", path, error)
                continue
            found.extend(
                item
                for item in scan_segment(data)
                if isinstance(item, SpoolRecord) and first <= item.seq <= last
            )
        return found

    def _quarantine(self, path: Path, data: bytes, start: int, end: int) -> None:
        """Keep bytes that hold no intact record in the quarantine folder, count and log them."""
        self.quarantined_ranges += 1
        self.quarantined_bytes += end - start
        kept = self.quarantine_dir / f"{path.name}.{start}-{end}.bin"
        try:
            self.quarantine_dir.mkdir(parents=True, exist_ok=True)
            kept.write_bytes(data[start:end])
        except OSError as error:
            log.error("could not keep damaged spool bytes in %s: %s", kept, error)
        where = "at the end: a torn tail of a crash, or damage" if end == len(data) else "damage"
        log.warning(
            "spool segment %s: %d bytes at %d hold no intact record (%s); kept in %s, the "
            "intact records after them are loaded",
            path,
            end - start,
            start,
            where,
            kept,
        )

    def open(self, *, next_seq: int) -> None:
        """Start appending in a fresh segment, numbering records from `next_seq` on."""
        with self._cond:
            self._next_seq = max(self._next_seq, next_seq)
            self._written = self._synced = self._next_seq - 1
            self._open = True
            self._new_segment()

    def _new_segment(self) -> None:
        """Open a new segment file (caller holds the lock; no fsync in flight)."""
        path = self.directory / f"{_PREFIX}{self._next_seq:020d}{_SUFFIX}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            if self._fsync:
                dir_fd = os.open(self.directory, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
        except OSError:
            os.close(fd)
            raise
        self._fd = fd
        self._size = 0
        if not self._segments or self._segments[-1][1] != path:
            self._segments.append((self._next_seq, path))

    def _abandon_segment(self) -> None:
        """Stop writing the current segment after a failure; the next append opens a new one
        (records already in it stay readable; a torn tail is skipped when read)."""
        if self._fd is None:
            return
        if self._written > self._synced:  # records nobody fsync'd yet: now or never
            try:
                self._sync_fd(self._fd)
                self._synced = self._written
            except OSError:
                self._fail_sync(self._written)
        try:
            os.close(self._fd)
        except OSError:
            pass
        self._fd = None

    def append(self, kind: int, payload: bytes) -> int:
        """Write one record (not yet durable: call `sync`); returns its sequence number."""
        with self._cond:
            if not self._open:
                raise RuntimeError("spool is not open")
            while self._syncing and (self._fd is None or self._size >= self._segment_bytes):
                self._cond.wait()
            if self._fd is not None and self._size >= self._segment_bytes:
                self._rotate()
            if self._fd is None:
                try:
                    self._new_segment()
                except OSError as error:
                    raise _unavailable("open a new segment of", error) from None
            seq = self._next_seq
            header = _HEADER.pack(_MAGIC, kind, seq, len(payload), _crc(kind, seq, payload))
            try:
                write_all(self._fd, header + payload)
            except OSError as error:
                self._cut(self._size)
                raise _unavailable("write", error) from None
            self._next_seq += 1
            self._size += _HEADER.size + len(payload)
            self._written = seq
            return seq

    def _rotate(self) -> None:
        """fsync and close a full segment, then start the next (caller holds the lock)."""
        fd = self._fd
        assert fd is not None
        try:
            self._sync_fd(fd)
        except OSError as error:
            self._fail_sync(self._written)
            self._abandon_segment()
            raise _unavailable("fsync", error) from None
        self._synced = self._written
        self._abandon_segment()

    def _cut(self, size: int) -> None:
        """Remove a partly written record (file back to `size` bytes); when even that fails,
        abandon the segment, whose torn tail the reader skips."""
        try:
            os.ftruncate(self._fd, size)  # type: ignore[arg-type]
        except OSError:
            while self._syncing:  # never close a descriptor another thread fsyncs
                self._cond.wait()
            self._abandon_segment()

    def _fail_sync(self, upto: int) -> None:
        """Records (synced, upto] may not be on disk: their waiters must not be told OK."""
        self._failed.append((self._synced, upto))
        del self._failed[:-64]

    def _sync_fd(self, fd: int) -> None:
        """fsync (fdatasync) one descriptor unless disabled."""
        if self._fsync:
            os.fdatasync(fd)

    def sync(self, seq: int) -> None:
        """Block until record `seq` is on disk; concurrent callers share one fsync."""
        with self._cond:
            while True:
                for after, upto in self._failed:
                    if after < seq <= upto:
                        raise Busy(
                            "the collector could not fsync its spool (disk error); retry later"
                        )
                if self._synced >= seq:
                    return
                if self._syncing:
                    self._cond.wait()
                    continue
                self._syncing = True
                target, fd = self._written, self._fd
                self._cond.release()
                failed = False
                try:
                    if fd is not None:
                        self._sync_fd(fd)
                except OSError:
                    failed = True
                finally:
                    self._cond.acquire()
                    self._syncing = False
                    if failed:
                        self._fail_sync(target)
                        if self._fd == fd:
                            self._abandon_segment()
                    else:
                        self._synced = max(self._synced, target)
                    self._cond.notify_all()

    def releasable(self, loaded: int) -> bool:
        """True when `release(loaded)` would delete a segment."""
        with self._cond:
            return len(self._segments) > 1 and self._segments[1][0] - 1 <= loaded

    def release(self, loaded: int) -> None:
        """Delete segments whose records are all <= `loaded` (never the one being written)."""
        with self._cond:
            while len(self._segments) > 1 and self._segments[1][0] - 1 <= loaded:
                _first, path = self._segments.pop(0)
                path.unlink(missing_ok=True)

    def drop_recovered(self) -> None:
        """Delete the segments of earlier processes, once their replay is committed (before `open`)."""
        with self._cond:
            if self._open:
                raise RuntimeError("drop_recovered() must run before open()")
            for _first, path in self._segments:
                path.unlink(missing_ok=True)
            self._segments.clear()

    @property
    def last_seq(self) -> int:
        """Sequence number of the last record appended."""
        return self._next_seq - 1

    def disk_bytes(self) -> int:
        """Bytes currently held by segment files."""
        with self._cond:
            paths = [path for _first, path in self._segments]
        return sum(path.stat().st_size for path in paths if path.exists())

    def close(self, *, loaded: int | None = None) -> None:
        """fsync and close the current segment (idempotent). When `loaded` covers every record
        written, all segments are deleted (and the folder, when empty): nothing is left to
        replay, and raw payloads (which may hold data that redaction keeps out of DuckDB) do
        not outlive the process."""
        with self._cond:
            while self._syncing:
                self._cond.wait()
            self._open = False
            if self._fd is not None:
                try:
                    self._sync_fd(self._fd)
                    self._synced = self._written
                except OSError as error:  # the records stay, unacknowledged; replay decides
                    self._fail_sync(self._written)
                    log.error("fsync of the spool %s on close failed: %s", self.directory, error)
                self._abandon_segment()
            if loaded is not None and loaded >= self._next_seq - 1:
                for _first, path in self._segments:
                    path.unlink(missing_ok=True)
                self._segments.clear()
                try:  # nothing to replay: leave no empty spool folder beside the database
                    self.directory.rmdir()
                except OSError:
                    pass  # not empty (someone else's files) or already gone
