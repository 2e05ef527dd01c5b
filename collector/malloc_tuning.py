"""glibc malloc settings for the collector's processes (no-ops elsewhere).

Requests arrive as ~0.5 MB buffers on several threads. glibc raises its mmap threshold
after each large free (up to 32 MB), so such buffers soon come from the heap arenas,
which fragment and keep the collector's RSS ~170 MB higher at full speed
(benchmarks/ingest.py: 496 -> 325 MB peak). A fixed 128 KiB threshold maps each large
buffer and unmaps it when freed. Process-wide: only `tracesim collect` and the decoder
process set it, never a host program that embeds a collector.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Any

__all__ = ["fix_mmap_threshold", "malloc_trim"]

_M_MMAP_THRESHOLD = -3
_THRESHOLD = 128 << 10


def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def fix_mmap_threshold() -> bool:
    """Pin glibc's mmap threshold at 128 KiB (its initial value); False where unsupported."""
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None)
    return bool(mallopt is not None and mallopt(_M_MMAP_THRESHOLD, _THRESHOLD) == 1)


def malloc_trim() -> Callable[[], Any]:
    """glibc's `malloc_trim(0)` as a callable (a no-op elsewhere): freed heap pages go back
    to the system."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is None:
        return lambda: None
    return lambda: trim(0)
