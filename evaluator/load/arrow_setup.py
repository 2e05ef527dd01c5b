"""Build Arrow arrays from Python lists without importing pandas (0.3-0.8 s per process).

pyarrow's `pa.array(list)` asks, once per process, whether pandas is importable (to
recognise a Series passed in) and imports it if so. The evaluator never hands pandas
objects to pyarrow, so `skip_pandas` lets that first question find no pandas: pyarrow
remembers the answer for its detection only, and an explicit `to_pandas()` later still
imports pandas as usual. `evaluate_db` does not ask when custom metrics are configured
(user code that may hand pyarrow a pandas object runs in that process).
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
from typing import Any

__all__ = ["skip_pandas"]

_done = threading.Lock()


class _NoPandas(importlib.abc.MetaPathFinder):
    """An import finder that answers 'not installed' for pandas, while it is installed,
    to the thread that installed it only (another thread's import goes on as usual)."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if (name == "pandas" or name.startswith("pandas.")) and (
            threading.get_ident() == self.thread
        ):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def skip_pandas() -> bool:
    """Make pyarrow's one-time pandas detection find none; True when it did (False when
    pandas was imported already or pyarrow asked before)."""
    if "pandas" in sys.modules:
        return False
    import pyarrow as pa

    with _done:
        finder = _NoPandas()
        sys.meta_path.insert(0, finder)
        try:
            pa.array([0])  # pyarrow's first conversion asks for pandas, here: none
        finally:
            sys.meta_path.remove(finder)
    return "pandas" not in sys.modules
