"""OTLP `AnyValue` / `KeyValue` -> plain Python values, the innermost loop of decoding.

Kept apart so spans, logs and resources share one fast path: `string_value` is
checked before `WhichOneof` because most attribute values are strings.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

__all__ = ["any_value", "attributes", "hex_id", "iso_time"]


def _other(value: Any) -> Any:
    """Convert a non-string (or empty-string) AnyValue."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "string_value":
        return value.string_value
    if which == "int_value":
        return value.int_value
    if which == "bool_value":
        return value.bool_value
    if which == "double_value":
        return value.double_value
    if which == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return attributes(value.kvlist_value.values)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None


def any_value(value: Any) -> Any:
    """Convert one AnyValue, keeping its type (kvlist -> dict, bytes -> base64)."""
    text = value.string_value
    return text if text else _other(value)


def attributes(key_values: Iterable[Any]) -> dict[str, Any]:
    """Convert repeated KeyValue to a dict (last key wins)."""
    out: dict[str, Any] = {}
    for kv in key_values:
        value = kv.value
        text = value.string_value
        out[kv.key] = text if text else _other(value)
    return out


def hex_id(raw: bytes) -> str | None:
    """Lower-case hex of an id, None when empty."""
    return raw.hex() if raw else None


def iso_time(unix_nano: int) -> str | None:
    """ISO-8601 UTC text of a nanosecond timestamp (None when unset)."""
    if not unix_nano:
        return None
    moment = datetime.fromtimestamp(unix_nano // 1_000_000_000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{unix_nano % 1_000_000_000:09d}Z"
