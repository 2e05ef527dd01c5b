"""JSON text of any nesting depth -> Python values, without recursion.

DuckDB's parse tree of a valid query (`json_serialize_sql`) nests about three levels
per nested expression: 400 nested CASEs are 1,200 levels, past what `json` (Python's
recursion limit) and orjson (1,024) parse. The guard must read it anyway, so this
parser keeps its own stack. orjson is tried first: the common shallow tree costs nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["loads_any_depth"]

_TOKEN = re.compile(
    r"\s*(?:(?P<open>[\[{])|(?P<close>[\]}])|(?P<sep>[,:])"
    r'|(?P<string>"[^"\\]*(?:\\.[^"\\]*)*")'
    r"|(?P<scalar>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null))"
)
_SCALARS = {"true": True, "false": False, "null": None}


def loads_any_depth(text: str) -> Any:
    """Parse `text` as JSON whatever its depth; ValueError when it is not JSON."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        if "depth" not in str(error) and "recursion" not in str(error):
            raise ValueError(f"not JSON: {error}") from None
    return _loads_iteratively(text)


def _loads_iteratively(text: str) -> Any:
    """The same document with an explicit stack (containers open, keys pending)."""
    stack: list[list[Any] | dict[str, Any]] = []
    keys: list[str | None] = []
    result: Any = None
    done = False
    position, end = 0, len(text.rstrip())
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None or done:
            raise ValueError(f"not JSON at character {position}")
        position = match.end()
        kind = match.lastgroup
        token = match.group(kind)  # type: ignore[arg-type]
        if kind == "sep":
            continue  # structure is carried by the stack; the text came from DuckDB
        if kind == "open":
            stack.append({} if token == "{" else [])
            keys.append(None)
            continue
        if kind == "close":
            if not stack:
                raise ValueError(f"unbalanced {token!r} at character {position}")
            value: Any = stack.pop()
            keys.pop()
        elif kind == "string":
            value = json.loads(token) if "\\" in token else token[1:-1]
            top = stack[-1] if stack else None
            if isinstance(top, dict) and keys[-1] is None:
                keys[-1] = value
                continue
        else:
            value = _SCALARS[token] if token in _SCALARS else json.loads(token)
        if not stack:
            result, done = value, True
            continue
        top = stack[-1]
        if isinstance(top, dict):
            top[keys[-1]] = value  # type: ignore[index]
            keys[-1] = None
        else:
            top.append(value)
    if not done:
        raise ValueError("not JSON: the document ends early")
    return result
