"""arksim's command names as thin aliases of `tracesim run` (same options, overrides and
exit codes, so `--help` lists everything they accept)."""

from __future__ import annotations

from typing import Any

import click

__all__ = ["run_alias"]


def run_alias(name: str, *, help_text: str, capture_only: bool = False) -> click.Command:
    """A command `name CONFIG [options] [--key value ...]` that is `tracesim run` with the
    same options (less `--capture-only` when `capture_only` forces it)."""
    from tracesim.commands.run import command as run_command

    # capture only: no evaluation, so no JUnit file either
    forced: dict[str, Any] = {"capture_only": True, "junit_path": None} if capture_only else {}
    params = [p for p in run_command.params if p.name not in forced]

    @click.pass_context
    def callback(ctx: click.Context, **kwargs: Any) -> None:
        ctx.invoke(run_command.callback, **kwargs, **forced)  # type: ignore[arg-type]

    return click.Command(
        name,
        help=help_text
        + "\n\nExtra `--key value` pairs override config keys (dotted for nested keys), "
        "e.g. `--max_turns 3`; exit codes as `tracesim run`.",
        params=params,
        callback=callback,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
