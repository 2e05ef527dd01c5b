"""The CLI's bad-input error: exit code 2 and one clear line, never a traceback."""

from __future__ import annotations

from typing import IO, Any

import click

from tracesim.shown import one_line

__all__ = ["BadInput"]


class BadInput(click.ClickException):
    """Bad input (a path, a port, a missing file): `tracesim <command>: message`, exit 2."""

    exit_code = 2

    def __init__(self, message: str, *, command: str = "") -> None:
        super().__init__(message)
        self.command = command

    def show(self, file: IO[Any] | None = None) -> None:
        prefix = f"tracesim {self.command}: " if self.command else "error: "
        click.echo(prefix + one_line(self.format_message()), err=True)  # a name's newline too
