"""`tracesim compare`: is the candidate evaluation worse than the baseline?

Each side is an eval id, a run id or `latest`, read from its own store
(`--baseline-db`, `--candidate-db`, both defaulting to `--db`; DuckDB files
or ClickHouse). Exit 0, or 1 with `--fail-on-regression` when a scenario
regressed; 2 for a reference or store that cannot be read.
"""

from __future__ import annotations

import click

from tracesim.commands.errors import BadInput
from tracesim.db_option import db_option
from tracesim.schemas.eval_config import BOOTSTRAP_SEED

__all__ = ["command"]


@click.command(name="compare")
@click.option("--baseline", "baseline_ref", required=True, help="Eval id, run id or `latest`.")
@click.option("--candidate", "candidate_ref", required=True, help="Eval id, run id or `latest`.")
@db_option("read", extra_help="The store of both sides (--baseline-db / --candidate-db for two).")
@click.option("--baseline-db", default=None, help="The baseline's store (default: --db).")
@click.option("--candidate-db", default=None, help="The candidate's store (default: --db).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.option("--fail-on-regression", is_flag=True, help="Exit 1 when any scenario regressed.")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Significance level of the exact test on each scenario's pass counts.",
)
@click.option(
    "--correction",
    type=click.Choice(["none", "holm"]),
    default="none",
    show_default=True,
    help="holm: Holm-Bonferroni over the scenarios (alpha bounds any false verdict of all).",
)
@click.option(
    "--seed",
    type=int,
    default=BOOTSTRAP_SEED,
    show_default=True,
    help="Seed of the metric changes' bootstrap intervals (as `evaluation.seed`).",
)
def command(
    baseline_ref: str,
    candidate_ref: str,
    db_path: str,
    baseline_db: str | None,
    candidate_db: str | None,
    fmt: str,
    fail_on_regression: bool,
    alpha: float,
    correction: str,
    seed: int,
) -> None:
    """Compare two evaluations scenario by scenario (Fisher's exact test on the pass counts,
    two-sided) and metric by metric (paired mean change with a bootstrap interval).

    Verdicts: regressed / improved (significant change), unchanged (same pass rate),
    inconclusive (a change the trials cannot tell from chance). Example:

        tracesim compare --baseline latest --baseline-db main.duckdb --candidate latest
    """
    from tracesim.compare_format import comparison_json, comparison_markdown, comparison_text
    from tracesim.evaluate_in_progress import in_progress_note
    from tracesim.evaluations import EvaluationRefError, incomplete_note, load_digest
    from tracesim.evaluator.stats.compare import compare_evaluations

    base_db = baseline_db or db_path
    cand_db = candidate_db or db_path
    for note in dict.fromkeys(in_progress_note(db) for db in (cand_db, base_db)):
        if note is not None:
            click.echo(note, err=True)
    try:
        candidate = load_digest(cand_db, candidate_ref)
        same_store = base_db == cand_db
        exclude = candidate.eval_id if same_store and baseline_ref == "latest" else None
        baseline = load_digest(base_db, baseline_ref, exclude=exclude)
    except EvaluationRefError as exc:
        raise BadInput(str(exc), command="compare") from None
    if baseline.eval_id == candidate.eval_id and base_db == cand_db:
        raise BadInput(
            f"--baseline and --candidate are the same evaluation ({baseline.eval_id}); "
            "name two different ones",
            command="compare",
        )
    for side, db, digest in (("baseline", base_db, baseline), ("candidate", cand_db, candidate)):
        note = incomplete_note(db, digest, side)
        if note is not None:  # said, never silent: the verdicts stand on what was graded
            click.echo(note, err=True)
    comparison = compare_evaluations(
        baseline,
        candidate,
        alpha=alpha,
        correction="holm" if correction == "holm" else "none",
        seed=seed,
    ).model_dump(mode="json")
    if fmt == "json":
        click.echo(comparison_json(comparison), nl=False)
    elif fmt == "markdown":
        click.echo(comparison_markdown(comparison), nl=False)
    else:
        click.echo(comparison_text(comparison))
    if fail_on_regression and comparison["summary"]["regressed"]:
        raise SystemExit(1)
