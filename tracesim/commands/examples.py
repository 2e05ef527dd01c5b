"""`tracesim examples [NAME] [--to DIR]`: list the shipped examples, or copy one (with the
helpers it imports) into `DIR/examples/NAME`, ready to run offline (arksim's `arksim
examples`, without a download: the examples ship with tracesim)."""

from __future__ import annotations

from pathlib import Path

import click

from tracesim.commands.errors import BadInput
from tracesim.shown import shown

__all__ = ["command"]


@click.command("examples")
@click.argument("name", required=False)
@click.option(
    "--to",
    "destination",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Folder to copy into (the example lands in DIR/examples/NAME).",
)
@click.option("--force", is_flag=True, help="Replace example folders that exist.")
@click.option("--list", "list_only", is_flag=True, help="List the examples (arksim's flag).")
def command(name: str | None, destination: Path, force: bool, list_only: bool) -> None:
    """List the shipped examples, or copy example NAME into --to DIR, ready to run."""
    from tracesim.examples_bundle import copy_example, list_examples

    examples = list_examples()
    if not examples:
        raise BadInput("no examples found in this installation", command="examples")
    if name is None or list_only:
        width = max(len(e.name) for e in examples)
        for example in examples:
            needs = f"  (needs tracesim[{','.join(example.extras)}])" if example.extras else ""
            click.echo(f"{example.name:<{width}}  {example.title}{needs}")
        click.echo("copy one: tracesim examples NAME [--to DIR]")
        return
    chosen = next((e for e in examples if e.name == name.replace("-", "_")), None)
    if chosen is None:
        import difflib

        close = difflib.get_close_matches(name, [e.name for e in examples], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        known = ", ".join(e.name for e in examples)
        raise BadInput(f"no example {name!r} (examples: {known}){hint}", command="examples")
    try:
        config = copy_example(chosen, destination, force=force)
    except FileExistsError as exc:
        raise BadInput(str(exc), command="examples") from None
    except OSError as exc:
        raise BadInput(
            f"cannot copy into {shown(destination)}: {exc}", command="examples"
        ) from None
    click.echo(f"copied {chosen.name} to {shown(config.parent)}")
    missing = chosen.missing_extras()
    if missing:
        extras = ",".join(missing)
        click.echo(f"first: pip install 'tracesim[{extras}]' (this example imports it)")
    where = "" if destination == Path(".") else f"cd {shown(destination)} && "
    click.echo(f"next: {where}tracesim run {config.relative_to(destination)}")
