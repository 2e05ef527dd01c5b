"""The run's progress bar: conversations done / total, turns sent, failures."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tracesim.simulator.results import ConversationResult, TurnResult

__all__ = ["RunProgress"]


class RunProgress:
    """A rich progress bar fed by the runner's observer callbacks (shown on terminals only)."""

    def __init__(self, console: Console, *, enabled: bool) -> None:
        self._enabled = enabled and console.is_terminal
        self._bar = Progress(
            TextColumn("[bold]conversations"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("turns {task.fields[turns]}  failed {task.fields[failed]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task: Any = None
        self._turns = 0
        self._failed = 0

    @contextmanager
    def running(self, total: int) -> Iterator[None]:
        if not self._enabled:
            yield
            return
        with self._bar:
            self._task = self._bar.add_task("run", total=total, turns=0, failed=0)
            yield

    def on_turn_end(self, conversation: ConversationResult, turn: TurnResult) -> None:
        self._turns += 1
        self._failed += turn.status != "ok"
        if self._task is not None:
            self._bar.update(self._task, turns=self._turns, failed=self._failed)

    def on_conversation_end(self, conversation: ConversationResult) -> None:
        if self._task is not None:
            self._bar.advance(self._task)
