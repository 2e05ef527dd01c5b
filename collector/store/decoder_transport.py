"""Batches between the collector and its decoder process through shared memory (Linux).

Pickling ~20 MB a batch through a socket cost ~7 µs a span in both processes (copies,
syscalls, wake-ups). Instead each side writes its data once into a memfd (an anonymous
memory file: no /dev/shm size limit, nothing left behind by a crash) and passes the file
descriptor over the socket: the child maps the request bytes and parses them in place,
the collector maps the Arrow IPC streams of the prepared tables and reads them without
a copy (the tables keep the mapping alive while DuckDB scans them).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle, send_handle
from typing import Any

import pyarrow as pa
from tracesim.collector.store.prepare_items import Prepared
from tracesim.collector.store.prepared import TABLE_FIELDS, PreparedBatch

__all__ = [
    "MemfdUnavailable",
    "read_prepared",
    "read_requests",
    "shared_memory_works",
    "write_prepared",
    "write_requests",
]

_TABLES = TABLE_FIELDS


def shared_memory_works() -> bool:
    """True where memfds exist (Linux); elsewhere the collector decodes in its own process."""
    return hasattr(os, "memfd_create")


def _write_all(fd: int, parts: Sequence[Any]) -> None:
    """Write every buffer of `parts` to `fd`, in order."""
    for part in parts:
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view) :]


class MemfdUnavailable(OSError):
    """This process could not put a batch in a memfd (file descriptors or memory
    exhausted): a fault of the machine, not of the child nor of the data."""


def write_requests(conn: Connection, pid: int, items: Sequence[tuple[int, int, bytes]]) -> None:
    """Send (seq, kind, request bytes) to the child: bytes in a memfd, the rest pickled.
    MemfdUnavailable when the memfd cannot be made or filled (nothing was sent then)."""
    try:
        fd = os.memfd_create("tracesim-requests", os.MFD_CLOEXEC)
    except OSError as error:
        raise MemfdUnavailable(error.errno, f"no memfd for a batch: {error.strerror}") from None
    try:
        try:
            _write_all(fd, [payload for _seq, _kind, payload in items])
        except OSError as error:
            raise MemfdUnavailable(error.errno, f"a batch's memfd: {error.strerror}") from None
        conn.send(("prepare", [(seq, kind, len(payload)) for seq, kind, payload in items]))
        send_handle(conn, fd, pid)
    finally:
        os.close(fd)


def read_requests(conn: Connection, meta: list[tuple[int, int, int]]) -> tuple[list, Any]:
    """In the child: (seq, kind, bytes view) of each request, and the mapping to close
    once they are parsed (None when there are none)."""
    fd = recv_handle(conn)
    try:
        size = sum(length for _seq, _kind, length in meta)
        if not size:
            return [(seq, kind, b"") for seq, kind, _length in meta], None
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
    view = memoryview(mapped)
    items, offset = [], 0
    for seq, kind, length in meta:
        items.append((seq, kind, view[offset : offset + length]))
        offset += length
    return items, (mapped, view)


def write_prepared(conn: Connection, pid: int, prepared: Prepared, records: list) -> None:
    """In the child: the prepared tables as Arrow IPC streams in a memfd, and the rest."""
    fd = os.memfd_create("tracesim-prepared", os.MFD_CLOEXEC)
    try:
        layout = []
        with pa.OSFile(f"/proc/self/fd/{fd}", "wb") as sink:
            for name in _TABLES:
                table = getattr(prepared.batch, name)
                if table is None:
                    continue
                start = sink.tell()
                with pa.ipc.new_stream(sink, table.schema) as writer:
                    writer.write_table(table)
                layout.append((name, start, sink.tell() - start))
        batch = prepared.batch
        meta = (layout, batch.nulled, batch.duplicates, prepared.unreadable, prepared.rejected)
        conn.send(("done", meta, records))
        send_handle(conn, fd, pid)
    finally:
        os.close(fd)


def read_prepared(conn: Connection, meta: tuple) -> Prepared:
    """In the collector: the `Prepared` batch the child wrote, its tables read in place."""
    layout, nulled, duplicates, unreadable, rejected = meta
    fd = recv_handle(conn)
    try:
        size = os.fstat(fd).st_size
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ) if size else None
    finally:
        os.close(fd)
    batch = PreparedBatch(nulled=nulled, duplicates=duplicates)
    if mapped is not None:
        buffer = pa.py_buffer(mapped)
        for name, start, length in layout:
            reader = pa.ipc.open_stream(buffer.slice(start, length))
            setattr(batch, name, reader.read_all())
    return Prepared(batch, unreadable, rejected)
