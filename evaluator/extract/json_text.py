"""JSON text read leniently: the one decoder every span reader shares (a leaf module, so
readers that `span` itself imports, such as Genkit's, can use it too)."""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["json_or_none"]


def json_or_none(value: Any) -> Any:
    """JSON text decoded (None when it is not JSON); other values as they are."""
    if isinstance(value, (str, bytes)):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    return value
