"""What an Arrow IPC stream from a client may hold before it is decoded: no compressed
bodies, no encodings that expand (dictionary, run-end encoded).

A 584-byte zstd-compressed record batch inflates to 8 MB when read, so a body within the
collector's size limit could inflate to hundreds of GB inside `read_all`; a dictionary
array repeating one 10 MB value a million times is 1 MB on the wire and 10 TB once a
table or a query answer holds it as text. Compression is read from each message's
flatbuffer header (the `compression` field of a RecordBatch, also inside a
DictionaryBatch) before any body is touched.
"""

from __future__ import annotations

import struct

import pyarrow as pa

__all__ = ["expanding_type", "is_compressed"]

_DICTIONARY_BATCH = 2
_RECORD_BATCH = 3
_COMPRESSION = 3
"""Field index of `compression` in the RecordBatch table of Arrow's Message.fbs."""


def _table(buffer: bytes, at: int) -> tuple[int, int, int]:
    """(position, vtable position, vtable size) of the flatbuffer table at `at`."""
    (back,) = struct.unpack_from("<i", buffer, at)
    vtable = at - back
    (size,) = struct.unpack_from("<H", buffer, vtable)
    return at, vtable, size


def _field(buffer: bytes, table: tuple[int, int, int], index: int) -> int | None:
    """Where field `index` of `table` is stored, None when it is absent."""
    at, vtable, size = table
    entry = 4 + 2 * index
    if entry + 2 > size:
        return None
    (offset,) = struct.unpack_from("<H", buffer, vtable + entry)
    return at + offset if offset else None


def _child(buffer: bytes, at: int) -> tuple[int, int, int]:
    (relative,) = struct.unpack_from("<I", buffer, at)
    return _table(buffer, at + relative)


def is_compressed(metadata: bytes) -> bool:
    """True when the IPC message whose flatbuffer header is `metadata` has a compressed
    body. ValueError when the header is not a flatbuffer Message."""
    try:
        (root,) = struct.unpack_from("<I", metadata, 0)
        message = _table(metadata, root)
        kind_at = _field(metadata, message, 1)
        kind = metadata[kind_at] if kind_at is not None else 0
        header_at = _field(metadata, message, 2)
        if header_at is None or kind not in (_RECORD_BATCH, _DICTIONARY_BATCH):
            return False
        header = _child(metadata, header_at)
        if kind == _DICTIONARY_BATCH:  # a DictionaryBatch holds its RecordBatch as `data`
            data_at = _field(metadata, header, 1)
            if data_at is None:
                return False
            header = _child(metadata, data_at)
        return _field(metadata, header, _COMPRESSION) is not None
    except (struct.error, IndexError):
        raise ValueError("an IPC message header is not a valid flatbuffer") from None


def expanding_type(data_type: pa.DataType) -> str | None:
    """The name of an encoding in `data_type` (nested fields included) whose values take
    more room decoded than sent, or None."""
    if pa.types.is_dictionary(data_type):
        return "dictionary"
    if pa.types.is_run_end_encoded(data_type):
        return "run-end encoded"
    for index in range(data_type.num_fields):
        found = expanding_type(data_type.field(index).type)
        if found is not None:
            return found
    return None
