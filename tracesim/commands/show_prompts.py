"""`tracesim show-prompts [--category NAME]`: print the judges' prompts (arksim's command).

Each built-in judge's rubric (its system prompt), its answer labels or scale,
and how its score is computed (`evaluator.scoring.methodology`). Exit 2 for an
unknown category, naming the known ones.
"""

from __future__ import annotations

import sys

import click

__all__ = ["command"]


@click.command("show-prompts")
@click.option("--category", default=None, help="Only this judge (e.g. agent_behavior_failure).")
def command(category: str | None) -> None:
    """Print the built-in judges' prompts, labels and methodology."""
    from tracesim.evaluator.judges import BUILTIN_JUDGES
    from tracesim.evaluator.scoring.methodology import methodology_for

    names = sorted(BUILTIN_JUDGES)
    if category is not None and category not in BUILTIN_JUDGES:
        click.echo(f"unknown category {category!r}; available: {', '.join(names)}", err=True)
        sys.exit(2)
    for name in [category] if category else names:
        judge = BUILTIN_JUDGES[name]
        answer = judge.schema["properties"]
        choices = answer.get("label", answer.get("score", {})).get("enum", [])
        click.echo("=" * 60)
        click.echo(f"Category: {name} ({judge.level} level)")
        click.echo(f"Answer: {', '.join(map(str, choices))}")
        click.echo(f"Methodology: {methodology_for(name) or '-'}")
        click.echo("=" * 60)
        click.echo(judge.rubric.strip())
        click.echo()
