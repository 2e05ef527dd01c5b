"""arksim's command names as thin aliases of `tracesim run` (same overrides and exit codes)."""

from __future__ import annotations

import click

__all__ = ["run_alias"]


def run_alias(name: str, *, help_text: str, extra_args: tuple[str, ...] = ()) -> click.Command:
    """A command `name CONFIG [overrides...]` that runs `tracesim run` with `extra_args` added."""

    @click.command(
        name,
        help=help_text,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
    @click.argument("config", type=click.Path(dir_okay=False))
    @click.option("--no-progress", is_flag=True, help="Do not show the progress bar.")
    @click.pass_context
    def command(ctx: click.Context, config: str, no_progress: bool) -> None:
        from tracesim.commands.run import command as run_command

        args = [config, *ctx.args, *extra_args, *(["--no-progress"] if no_progress else [])]
        with run_command.make_context(run_command.name, args, parent=ctx) as sub:
            run_command.invoke(sub)

    return command
