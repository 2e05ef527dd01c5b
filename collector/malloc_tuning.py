"""glibc's `malloc_trim` for the decoder process (a no-op elsewhere)."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Any

__all__ = ["malloc_trim"]


def malloc_trim() -> Callable[[], Any]:
    """glibc's `malloc_trim(0)` as a callable (a no-op elsewhere): freed heap pages go back
    to the system."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return lambda: None
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return lambda: None
    return lambda: trim(0)
