"""`tracesim evaluate`: re-evaluate what a DuckDB file holds, without re-running the agent,
and write `results.json` and `report.html`.

Reads only the `evaluation:` and `llm:` keys of the config (the rest of the
run config is not needed here); a missing `llm:` means the same default model
as in `tracesim run`. By default it scores the newest run in the file (and
says so when the file holds several): `--run-id ID` picks one, `--all-runs`
scores every conversation. `results.json` and `report.html` go next to the
DuckDB file, where `tracesim run` put its own (in `<stem>_results/` beside a
file not named `tracesim.duckdb`, so two files in one folder keep theirs).
`--config DIR/config.yaml` without `--db` evaluates the file that config's run
wrote (`db_path`, else `<output_dir>/tracesim.duckdb`) and writes the results to its
`output_dir`, where the run wrote its own. Exit codes: the README's table (0 passed, 1 a gate failed, 2 bad input,
3 nothing graded, incomplete or internal error).
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

import click

from tracesim.db_option import db_option
from tracesim.disk_errors import damaged_store, disk_problem
from tracesim.evaluate_selection import (
    NothingSelected,
    choose_run,
    production_selection,
    refusing_empty,
)
from tracesim.evaluate_settings import db_of_config, load_eval_settings, paths_of_config
from tracesim.paths import outputs_dir
from tracesim.shown import one_line, shown

__all__ = [
    "NothingSelected",
    "choose_run",
    "command",
    "db_of_config",
    "load_eval_settings",
    "paths_of_config",
    "production_selection",
    "refusing_empty",
]


def _fail(message: str, code: int) -> None:
    click.echo(f"tracesim evaluate: {one_line(message)}", err=True)  # a name's newline too
    sys.exit(code)


def _outputs_dir(store: Any) -> Path:
    """Where results.json and report.html go by default: `tracesim.paths.outputs_dir` of a
    DuckDB file (two files in one folder keep their own), else the store's default."""
    path = getattr(store, "path", None)
    return outputs_dir(path) if isinstance(path, Path) else store.default_report_path().parent


def _workers_option(ctx: click.Context, param: click.Parameter, value: str) -> int | None:
    """`--workers`: auto (None) or a count of 1 or more."""
    if value.strip().lower() == "auto":
        return None
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise click.BadParameter(f"{value!r}: give a number of processes (1 or more) or auto")
    return count


@click.command("evaluate")
@click.argument("config_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@db_option("evaluate", extra_help="When not given, the one CONFIG_FILE's run wrote.")
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="config.yaml: its `evaluation:` and `llm:` keys (default: the defaults of "
    "`tracesim run`; judges need an API key).",
)
@click.option(
    "--output-dir",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where results.json and report.html go (default: the config's output_dir when its "
    "run's file is evaluated, as `tracesim run` does; else beside the DuckDB file).",
)
@click.option(
    "--run-id",
    default=None,
    help="Evaluate this run only (default: the newest run in the file).",
)
@click.option(
    "--all-runs", is_flag=True, help="Evaluate every conversation in the file, of every run."
)
@click.option(
    "--junit-xml",
    "junit_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a JUnit XML file: one testcase per conversation (for CI test reports).",
)
@click.option("--progress/--no-progress", default=True, help="Show a progress bar on a terminal.")
@click.option(
    "--workers",
    default="auto",
    show_default=True,
    callback=_workers_option,
    help="Processes deriving tool calls and scoring, chunk by chunk: a number, or auto "
    "(2 on a 2+ core machine for 20,000+ turns, else 1). 1 evaluates in one process. "
    "LLM judges and custom metrics always run in one process.",
)
@click.option(
    "--since",
    default=None,
    help="Only conversations active within this window (30m, 24h, 7d): production stores.",
)
@click.option(
    "--sample",
    default=None,
    help="A deterministic sample by conversation id: a share (5%) or a count (20).",
)
@click.option("--seed", default=0, show_default=True, help="Seed of --sample's hash order.")
@click.option(
    "--all",
    "include_evaluated",
    is_flag=True,
    help="With --since/--sample: also conversations evaluated before (default: new ones only).",
)
@click.option(
    "--max-judge-cost",
    type=float,
    default=None,
    help="Judge budget in USD: once spent, the remaining judges are not run (checks go on).",
)
@click.option(
    "--allow-in-progress",
    is_flag=True,
    help="Evaluate a file a `tracesim run` is still writing: grade its finished "
    "conversations, count the unfinished ones as not graded (default: refuse, exit 3).",
)
def command(
    config_file: Path | None,
    db_path: Any,
    config_path: Path | None,
    output_dir: Path | None,
    run_id: str | None,
    all_runs: bool,
    junit_path: Path | None,
    progress: bool,
    workers: int | None,
    since: str | None,
    sample: str | None,
    seed: int,
    include_evaluated: bool,
    max_judge_cost: float | None,
    allow_in_progress: bool,
) -> None:
    """Re-evaluate what a DuckDB file holds, without re-running the agent.

    `tracesim evaluate config.yaml` (arksim's habit) evaluates the DuckDB file
    that config's run wrote, with its evaluation settings.
    """
    from tracesim.console import make_console, plain
    from tracesim.evaluate_in_progress import InProgressRefused, in_progress_selection
    from tracesim.evaluate_step import evaluate_and_report
    from tracesim.evaluator.scoring.gates import EvalConfigError, ExitCode
    from tracesim.evaluator.store import StoreError, open_store
    from tracesim.paths import PathProblem, check_writable_dir, check_writable_file
    from tracesim.schemas.eval_config import EvalConfig
    from tracesim.schemas.llm_config import LLMConfig

    console = make_console()
    out_dir: Path | None = None  # named by a disk error before it is known
    try:
        config_path = config_path or config_file
        if run_id is not None and all_runs:
            raise EvalConfigError("--run-id and --all-runs exclude each other: give one")
        given = click.get_current_context().get_parameter_source("db_path")
        config_out: Path | None = None
        if config_path is not None and given == click.core.ParameterSource.DEFAULT:
            # where that config's run wrote, and its results where the config says
            db_path, config_out = paths_of_config(config_path)
        with open_store(db_path) as store:  # a file, its running collector, ClickHouse
            try:
                default_dir = _outputs_dir(store)
                out_dir = check_writable_dir(
                    output_dir or config_out or default_dir, what="--output-dir"
                )
                if junit_path is not None:
                    check_writable_file(junit_path, what="--junit-xml")
            except PathProblem as exc:
                raise EvalConfigError(str(exc)) from None
            if config_path is not None:
                config, llm = load_eval_settings(config_path)
                base_dir = config_path.resolve().parent
            else:
                config, llm, base_dir = EvalConfig(), LLMConfig(), Path.cwd()
            if max_judge_cost is not None:
                if max_judge_cost < 0:
                    raise EvalConfigError(f"--max-judge-cost {max_judge_cost}: must be 0 or more")
                config = config.model_copy(update={"max_judge_cost": max_judge_cost})
            select, selected = production_selection(since, sample, seed, include_evaluated)
            if select is not None:
                select = refusing_empty(select, selected)
            if select is not None and run_id is None:
                all_runs = True  # a production selection spans every run (and none)
            run_id, what = choose_run(store, run_id, all_runs=all_runs)
            console.print(plain(what))
            try:
                select, notes = in_progress_selection(
                    store, run_id, select, allow=allow_in_progress
                )
            except InProgressRefused as exc:
                _fail(str(exc), ExitCode.INCOMPLETE)
                return
            for note in notes:
                console.print(plain(note))
            try:
                outcome = evaluate_and_report(
                    store,
                    config=config,
                    run_id=run_id,
                    llm=llm,
                    base_dir=base_dir,
                    output_dir=out_dir,
                    progress=progress,
                    console=console,
                    junit_path=junit_path,
                    workers=workers,
                    select=select,
                )
            except NothingSelected as nothing:
                console.print(
                    plain(
                        f"selected: {nothing.report.describe()}: nothing to evaluate, no "
                        "evaluation written (exit code 0)"
                    )
                )
                sys.exit(ExitCode.OK)
            if selected:
                console.print(plain("selected: " + selected[0].describe()))
    except (EvalConfigError, StoreError, ValueError) as exc:
        _fail(str(exc), ExitCode.BAD_CONFIG)
        return
    except Exception as exc:  # noqa: BLE001 - the CLI's last resort: say so, exit 3
        problem = disk_problem(exc, out_dir or db_path)
        if problem is not None:  # a full disk is the machine's, not an internal error
            damage = damaged_store(db_path)
            if damage is not None:  # never "complete" over a store that no longer opens
                _fail(
                    f"{str(problem).split('; free space')[0]}; and {shown(db_path)} no longer "
                    f"opens: DuckDB's checkpoint was cut short by the failed write ({damage}); "
                    "restore it from a copy (collected spans still in its spool are kept)",
                    ExitCode.BAD_CONFIG,
                )
                return
            _fail(str(problem), ExitCode.BAD_CONFIG)
            return
        click.echo(traceback.format_exc(), err=True)
        _fail("internal error (traceback above); please report it", ExitCode.INTERNAL_ERROR)
        return
    sys.exit(outcome.exit_code)
