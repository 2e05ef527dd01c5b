"""How readers reach a running collector: the sidecar it announces itself in, and the body
of its store routes (`/tracesim/arrow`, `/tracesim/write`): a JSON header and Arrow
tables in one request, shared by the collector and its store client.

Layout: `TSF1`, the header's length (4 bytes, big-endian), the JSON header, then per
table its length (8 bytes, big-endian) and an Arrow IPC stream. Decoding checks every
length and validates every table fully, so a malformed body is a ValueError, never a crash.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pyarrow as pa
from tracesim.schemas.arrow_ipc import expanding_type, is_compressed

__all__ = [
    "ARROW_STREAM",
    "FRAMES",
    "SIDECAR_SUFFIX",
    "decode_frames",
    "encode_frames",
    "read_arrow",
    "write_arrow",
]

SIDECAR_SUFFIX = ".collector.json"
"""Appended to a DuckDB file's path: where its running collector says it answers."""

FRAMES = "application/vnd.tracesim.frames"
"""Content type of a framed body."""
ARROW_STREAM = "application/vnd.apache.arrow.stream"
"""Content type of an answer holding one Arrow IPC stream."""
_MAGIC = b"TSF1"


def write_arrow(table: pa.Table) -> bytes:
    """`table` as an Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def read_arrow(data: bytes) -> pa.Table:
    """The table an Arrow IPC stream holds; ValueError when it is not a valid one, or holds
    what would grow once decoded (compressed bodies, dictionary or run-end encoding:
    `arrow_ipc`), so a table takes about the room it took on the wire."""
    buffer = pa.py_buffer(data)
    try:
        for message in pa.ipc.MessageReader.open_stream(buffer):
            if is_compressed(message.metadata.to_pybytes()):
                raise ValueError("Arrow IPC stream has a compressed body; send it uncompressed")
        table = pa.ipc.open_stream(buffer).read_all()
        table.validate(full=True)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"not a valid Arrow IPC stream: {exc}") from None
    for arrow_field in table.schema:
        encoding = expanding_type(arrow_field.type)
        if encoding is not None:
            raise ValueError(
                f"Arrow column {arrow_field.name!r} is {encoding}; send its values plain"
            )
    return table


def encode_frames(header: dict[str, Any], tables: list[pa.Table]) -> bytes:
    """One body holding `header` (JSON-able) and `tables`, in order."""
    head = json.dumps({**header, "tables": len(tables)}).encode()
    parts = [_MAGIC, struct.pack(">I", len(head)), head]
    for table in tables:
        data = write_arrow(table)
        parts += [struct.pack(">Q", len(data)), data]
    return b"".join(parts)


def decode_frames(body: bytes) -> tuple[dict[str, Any], list[pa.Table]]:
    """(header, tables) of a framed body; ValueError saying what is wrong."""
    if body[:4] != _MAGIC or len(body) < 8:
        raise ValueError(f"body is not a tracesim frames body (it must start with {_MAGIC!r})")
    (size,) = struct.unpack(">I", body[4:8])
    if 8 + size > len(body):
        raise ValueError("frames header runs past the end of the body")
    try:
        header = json.loads(body[8 : 8 + size])
    except ValueError as exc:
        raise ValueError(f"frames header is not JSON: {exc}") from None
    except RecursionError:
        raise ValueError("frames header is nested too deeply") from None
    count = header.get("tables") if isinstance(header, dict) else None
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 64:
        raise ValueError('frames header must be a JSON object with "tables": 0..64')
    tables: list[pa.Table] = []
    at = 8 + size
    for _ in range(count):
        if at + 8 > len(body):
            raise ValueError("frames body ends before a table's length")
        (length,) = struct.unpack(">Q", body[at : at + 8])
        at += 8
        if at + length > len(body):
            raise ValueError("a table runs past the end of the body")
        tables.append(read_arrow(body[at : at + length]))
        at += length
    if at != len(body):
        raise ValueError("bytes left after the last table")
    return header, tables
