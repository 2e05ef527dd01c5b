"""A rich progress bar for the long steps of an evaluation (stderr, terminals only).

`Progress(enabled=False)` (and any non-terminal stderr) gives no-op tasks, so
the pipeline calls `advance()` unconditionally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Progress"]


def _noop(count: int = 1) -> None:
    return None


class Progress:
    """Context manager handing out `advance()` callables, one per step."""

    def __init__(self, *, enabled: bool = True) -> None:
        self._bar: Any = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
            from tracesim.schemas.terminal_text import SafeConsole

            console = SafeConsole(stderr=True)
            if console.is_terminal:
                self._bar = RichProgress(
                    TextColumn("{task.description:<16}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=console,
                    transient=True,
                )

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def task(self, description: str, total: int) -> Callable[..., None]:
        """A new step of `total` items; call the returned function once per item done (or
        with the count of items done at once)."""
        if self._bar is None or total <= 0:
            return _noop
        bar = self._bar
        task_id = bar.add_task(description, total=total)

        def advance(count: int = 1) -> None:
            bar.advance(task_id, count)

        return advance
