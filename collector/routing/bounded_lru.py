"""An LRU bounded by entries and by bytes, for maps keyed or valued by client-chosen text.

Conversation ids are whatever an exporter sends: 250 distinct 500 KB `session.id`s
would keep 125 MB per map if only entries were counted. Each entry is charged its
strings' lengths plus a fixed overhead, and the oldest go once either bound is passed.
Not thread-safe (the writer thread owns the router).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

__all__ = ["ENTRY_OVERHEAD", "BoundedLru", "size_of"]

ENTRY_OVERHEAD = 200
"""Bytes charged per entry beyond its strings (dict slot, tuple, str headers)."""


def _text_bytes(text: Any) -> int:
    """Bytes a str holds: one per character when ASCII, up to four otherwise (0 for None)."""
    if not isinstance(text, str):
        return 0
    return len(text) if text.isascii() else 4 * len(text)


def size_of(key: Any, value: Any) -> int:
    """Bytes charged for one entry: its strings (a value's first string too) plus overhead."""
    size = ENTRY_OVERHEAD + _text_bytes(key)
    if isinstance(value, str):
        size += _text_bytes(value)
    elif isinstance(value, tuple) and value and isinstance(value[0], str):
        size += _text_bytes(value[0])
    return size


class BoundedLru:
    """key -> value, newest last; at most `capacity` entries and about `max_bytes` bytes."""

    __slots__ = ("_bytes", "_items", "capacity", "max_bytes")

    def __init__(self, *, capacity: int, max_bytes: int) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    @property
    def bytes(self) -> int:
        """Bytes charged for the entries held now (at most `max_bytes` but for one entry)."""
        return self._bytes

    def get(self, key: str, default: Any = None) -> Any:
        """The value of `key` (not refreshed: lookups stay cheap)."""
        return self._items.get(key, default)

    def put(self, key: str, value: Any) -> bool:
        """Set key -> value as newest; True when older entries had to go."""
        items = self._items
        old = items.pop(key, _MISSING)
        if old is not _MISSING:
            self._bytes -= size_of(key, old)
        items[key] = value
        self._bytes += size_of(key, value)
        evicted = False
        while len(items) > 1 and (len(items) > self.capacity or self._bytes > self.max_bytes):
            gone_key, gone = items.popitem(last=False)
            self._bytes -= size_of(gone_key, gone)
            evicted = True
        return evicted

    def pop(self, key: str, default: Any = None) -> Any:
        """Remove `key`; its value, or `default`."""
        value = self._items.pop(key, _MISSING)
        if value is _MISSING:
            return default
        self._bytes -= size_of(key, value)
        return value


_MISSING = object()
