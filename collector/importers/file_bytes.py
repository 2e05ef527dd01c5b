"""The bytes of one trace file, bounded: regular files only, a size cap, gzip inflated to
the same cap, and a file that changes while it is read refused.

`tracesim import` reads a file whole before storing anything (so a bad file stores
nothing). Unbounded, that let `/dev/zero` or a FIFO hang it, a 2 MB gzip bomb
inflate to 2 GB (MemoryError, a traceback), and a file still being written import
half of itself.
"""

from __future__ import annotations

import os
import stat
import zlib

from tracesim.collector.importers.errors import TraceFileError

__all__ = ["GZIP_MAGIC", "MAX_FILE_BYTES", "read_bounded"]

MAX_FILE_BYTES = 256 << 20
"""Most bytes one file may hold, gunzipped (a larger export: split it, or send it to
`tracesim collect` with an OTLP exporter, which streams). Reading holds ~14x a file's
size at its peak (an 82 MB OTLP/JSON file: 1.16 GB RSS), so this bounds an import to a
few GB."""
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


def read_bounded(path: str, limit: int = MAX_FILE_BYTES) -> tuple[bytes, bool]:
    """(content, gzipped): the file's bytes, inflated when gzip'd, at most `limit` of them.
    TraceFileError (naming the file and the fix) for what is not a complete regular file."""
    try:  # non-blocking: opening a FIFO with no writer must not hang before the check
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise TraceFileError(path, f"cannot be read: {error.strerror or error}") from None
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            kind = _kind(before.st_mode)
            raise TraceFileError(
                path, f"is {kind}, not a regular file; save the export to a file and import that"
            )
        if before.st_size > limit and not _starts_with_gzip(fd):
            raise TraceFileError(path, _too_large(limit))
        data = _read_all(fd, path, limit)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if len(data) != after.st_size or (after.st_size, after.st_mtime_ns) != (
        before.st_size,
        before.st_mtime_ns,
    ):
        raise TraceFileError(
            path,
            "changed while it was read (still being written?); import it once it is complete",
        )
    if data[:2] != GZIP_MAGIC:
        return data, False
    return gunzip(data, path, limit), True


def gunzip(data: bytes, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """Every gzip member of `data` inflated, refused past `limit` bytes out (a gzip bomb
    stops at the cap, never allocating what it claims)."""
    out: list[bytes] = []
    size = 0
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=31)
        try:
            while rest:
                piece = inflater.decompress(rest, limit - size + 1)
                size += len(piece)
                out.append(piece)
                if size > limit:
                    raise TraceFileError(path, _too_large(limit, gunzipped=True))
                rest = inflater.unconsumed_tail
                if inflater.eof:
                    break
            size += len(tail := inflater.flush())
            out.append(tail)
        except zlib.error as error:
            raise TraceFileError(path, f"starts like gzip but does not gunzip: {error}") from None
        if not inflater.eof:
            raise TraceFileError(
                path, "starts like gzip but does not gunzip: the file ends mid-stream (truncated?)"
            )
        rest = inflater.unused_data.lstrip(b"\0")  # members follow one another; pad ignored
    if size > limit:
        raise TraceFileError(path, _too_large(limit, gunzipped=True))
    return b"".join(out)


def _read_all(fd: int, path: str, limit: int) -> bytes:
    """At most `limit` + 1 bytes of `fd` (gzip'd files: `limit` of compressed bytes too)."""
    os.set_blocking(fd, True)
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise TraceFileError(path, _too_large(limit))
        chunks.append(chunk)


def _starts_with_gzip(fd: int) -> bool:
    return os.pread(fd, 2, 0) == GZIP_MAGIC


def _too_large(limit: int, *, gunzipped: bool = False) -> str:
    what = "once gunzipped, more than" if gunzipped else "more than"
    return (
        f"holds {what} {limit >> 20} MiB, the most one import reads whole; split it into "
        "smaller files, or send it to `tracesim collect` with an OTLP exporter"
    )


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
