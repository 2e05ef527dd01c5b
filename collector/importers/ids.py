"""Trace and span ids as the trace-file formats write them: hex (OTLP/JSON, Jaeger, maybe
shortened by Jaeger's 64-bit ids) or base64 (Tempo's protobuf-JSON). One place decides."""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["id_bytes", "line_of"]

_HEX = re.compile(r"[0-9a-fA-F]+")


def id_bytes(value: object, size: int, *, allow_short_hex: bool = False) -> bytes | None:
    """The `size`-byte id written as `value` (hex or base64), None when it is not one.

    `allow_short_hex`: Jaeger writes ids without leading zeros (and 64-bit trace ids);
    they are left-padded to `size` bytes.
    """
    if not isinstance(value, str) or not value:
        return None
    if _HEX.fullmatch(value):
        if len(value) == 2 * size:
            return bytes.fromhex(value)
        if allow_short_hex and len(value) < 2 * size:
            return bytes.fromhex(value.rjust(2 * size, "0"))
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == size else None


def line_of(text: str, key: str, value: object) -> int | None:
    """The 1-based line where `"key": value` first appears in a JSON text (None if not found):
    where a bad value sits in a pretty-printed file."""
    import json

    pattern = re.compile(rf'"{re.escape(key)}"\s*:\s*{re.escape(json.dumps(value))}')
    found = pattern.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else None
