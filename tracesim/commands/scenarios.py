"""`tracesim scenarios from-db`: collected conversations become a scenarios file (SPEC §14).

    tracesim scenarios from-db --db prod.duckdb --failed --sample 20 -o scenarios.json

Each chosen conversation becomes a scripted scenario (`evaluator.promote`):
its user turns, a goal and knowledge (the config's LLM summarises them when one
is configured, else the first user message), its recorded trajectory as a
`tool_calls` assertion (`in_order`, `arg_mode: subset`) and its recorded
results as `tool_stubs`. `tracesim run` runs the file unchanged. Conversations
that cannot be replayed (a turn without a user message in its spans) are
listed with the reason; none at all is exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from tracesim.commands.errors import BadInput
from tracesim.db_option import db_option
from tracesim.schemas.terminal_text import printable
from tracesim.shown import shown

__all__ = ["command"]


def _summariser(config_path: Path | None) -> Any:
    """The LLM summary function when the config names a usable model, else None."""
    if config_path is None:
        return None
    from tracesim.evaluate_settings import load_eval_settings
    from tracesim.evaluator.llm.llm_client import judge_unavailable_reason
    from tracesim.evaluator.promote import summarise

    config, llm = load_eval_settings(config_path)
    model = config.llm or llm
    if model is None or judge_unavailable_reason(model) is not None:
        return None
    return lambda conversations: summarise(conversations, model)


def _nothing_failed(report: Any) -> bool:
    """`--failed` found conversations, and none of them failed (no named id was missing)."""
    if report is None or report.unknown_chat_ids or not report.total:
        return False
    return ("failed in their latest evaluation", 0) in report.steps


@click.group(name="scenarios")
def command() -> None:
    """Make scenarios from what a store holds."""


@command.command(name="from-db")
@db_option("read")
@click.option(
    "--chat-id", "chat_ids", multiple=True, help="A conversation to promote (repeatable)."
)
@click.option("--failed", is_flag=True, help="Only conversations whose latest evaluation failed.")
@click.option(
    "--sample", default=None, help="A deterministic sample: a count (20) or a share (5%)."
)
@click.option("--seed", default=0, show_default=True, help="Seed of --sample's hash order.")
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="config.yaml whose `llm:` summarises goal and knowledge (else the first user message).",
)
@click.option(
    "-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=Path)
)
def from_db(
    db_path: str,
    chat_ids: tuple[str, ...],
    failed: bool,
    sample: str | None,
    seed: int,
    config_path: Path | None,
    output: Path,
) -> None:
    """Turn collected conversations into a scenarios file `tracesim run` replays."""
    from tracesim.evaluator.promote import promote_store
    from tracesim.evaluator.scoring.gates import EvalConfigError
    from tracesim.evaluator.select import Selection, parse_sample
    from tracesim.evaluator.store import StoreError, open_store

    def fail(message: str) -> None:
        raise BadInput(message, command="scenarios from-db")

    if not output.parent.is_dir():
        fail(f"{output.parent} is not a folder (-o)")
    try:
        selection = Selection(
            chat_ids=chat_ids,
            failed=failed,
            sample=parse_sample(sample) if sample is not None else None,
            seed=seed,
        )
        summarise = _summariser(config_path)
        with open_store(db_path) as store:
            result = promote_store(store, selection, summarise=summarise)
    except (ValueError, StoreError, EvalConfigError) as exc:
        fail(str(exc))
        return
    report = result.selection
    if report is not None and report.unknown_chat_ids:
        unknown = ", ".join(report.unknown_chat_ids)
        click.echo(printable(f"not in the store: {unknown}"), err=True)
    for promotion in result.skipped:  # chat ids are span text: no control characters shown
        click.echo(printable(f"skipped {promotion.chat_id}: {promotion.skipped}"), err=True)
    scenarios = result.scenarios
    if not scenarios and _nothing_failed(report):  # good news, not bad input: a nightly
        click.echo(  # promotion job stays green on a day nothing failed
            f"nothing to promote: no conversation failed in its latest evaluation "
            f"({report.describe()}); {shown(output)} not written"
        )
        return
    if not scenarios:
        what = report.describe() if report is not None else "no conversation"
        fail(f"no conversation could become a scenario ({what})")
    output.write_text(json.dumps({"scenarios": scenarios}, indent=2, ensure_ascii=False) + "\n")
    carried = sum(p.failed == "scenario assertions" for p in result.promotions)
    bare = [p.chat_id for p in result.promotions if p.failed == "no assertion"]
    if carried or bare:
        click.echo(
            f"{carried + len(bare)} conversation(s) failed a check of their calls in their "
            "latest evaluation: their recorded trajectory is not asserted (it is what failed; "
            "kept in origin.recorded_trajectory)"
            + (f"; {carried} carry the assertions of the scenario they played" if carried else "")
            + (
                printable(
                    f"; {len(bare)} have none to carry ({', '.join(bare[:3])}"
                    + (" ..." if len(bare) > 3 else "")
                    + "): write their expected calls in `assertions`, or their replay is "
                    "graded by your judges and policies alone"
                )
                if bare
                else ""
            ),
            err=True,
        )
    unstubbed = sum(p.calls_without_result for p in result.promotions)
    note = f"; {unstubbed} recorded calls had no result to stub" if unstubbed else ""
    click.echo(f"wrote {len(scenarios)} scenarios to {shown(output)} ({report.describe()}){note}")
