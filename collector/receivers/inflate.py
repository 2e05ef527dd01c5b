"""Inflating a compressed request whole, within a size limit, for both receivers.

Every gzip member is inflated (RFC 1952 allows several; gRPC's own inflater takes one),
zlib too; a truncated stream or trailing garbage is refused, so a request is never
stored in part, and no more than `limit` bytes are ever held (no gzip bombs).
"""

from __future__ import annotations

import zlib

from tracesim.collector.errors import InvalidRequest, TooLarge

__all__ = ["inflate", "looks_compressed"]


def inflate(data: bytes, limit: int) -> bytes:
    """Decompress a whole gzip (or zlib) body, every member of it, never holding more
    than `limit` bytes; InvalidRequest when it is not whole, TooLarge past `limit`."""
    out: list[bytes] = []
    size = 0
    rest = data
    while True:
        inflater = zlib.decompressobj(wbits=47)  # gzip or zlib header
        try:
            chunk = inflater.decompress(rest, limit - size + 1)
        except zlib.error as error:
            raise InvalidRequest(f"body is not valid gzip: {error}") from None
        size += len(chunk)
        if size > limit or inflater.unconsumed_tail:
            raise TooLarge(f"decompressed body exceeds {limit} bytes")
        if not inflater.eof:
            raise InvalidRequest(
                "gzip body is truncated (its end is missing); send the whole body again"
            )
        out.append(chunk)
        rest = inflater.unused_data
        if not rest:
            return b"".join(out)
        if not rest.startswith(b"\x1f\x8b"):
            raise InvalidRequest(
                f"{len(rest)} bytes after the end of the gzip data are not gzip; send only "
                "the gzip stream"
            )


def looks_compressed(message: bytes) -> bool:
    """True when a gRPC message starts like gzip (1f 8b) or zlib (78, header check): an
    OTLP request itself starts with field 1 (0a) or is empty, never so."""
    if message[:2] == b"\x1f\x8b":
        return True
    return len(message) >= 2 and message[0] == 0x78 and (message[0] << 8 | message[1]) % 31 == 0
