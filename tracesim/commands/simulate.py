"""`tracesim simulate CONFIG`: arksim's command name for `tracesim run --capture-only`.

Drives the scenarios and captures the traces without scoring them (score
later with `tracesim evaluate`). Same overrides and exit codes as `run`.
"""

from __future__ import annotations

import click

from tracesim.commands.run import command as run_command

__all__ = ["command"]


@click.command(
    "simulate",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--no-progress", is_flag=True, help="Do not show the progress bar.")
@click.pass_context
def command(ctx: click.Context, config: str, no_progress: bool) -> None:
    """Drive CONFIG's scenarios and capture, without evaluating (arksim's `simulate`)."""
    args = [config, *ctx.args, *(["--no-progress"] if no_progress else [])]
    args.append("--capture-only")
    with run_command.make_context(run_command.name, args, parent=ctx) as sub:
        run_command.invoke(sub)
