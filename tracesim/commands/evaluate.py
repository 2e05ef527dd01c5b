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
from tracesim.disk_errors import disk_problem
from tracesim.paths import outputs_dir
from tracesim.shown import one_line, shown

__all__ = ["command", "choose_run", "db_of_config", "load_eval_settings", "paths_of_config"]


def _fail(message: str, code: int) -> None:
    click.echo(f"tracesim evaluate: {message}", err=True)
    sys.exit(code)


def _validation_message(path: Path, section: str, model: Any, exc: Any) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in (section, *error["loc"]))
        if error["type"] == "extra_forbidden":
            allowed = ", ".join(model.model_fields)
            problems.append(f"{key}: unknown key (allowed keys: {allowed})")
        else:
            problems.append(f"{key}: {error['msg']}")
    return f"{path}: " + "; ".join(problems)


def load_eval_settings(path: Path) -> tuple[Any, Any]:
    """(EvalConfig, LLMConfig | None) from a config file's `evaluation:` and `llm:` keys.

    Raises EvalConfigError naming the file and the key on any problem.
    """
    import yaml
    from pydantic import ValidationError

    from tracesim.evaluator.scoring.gates import EvalConfigError
    from tracesim.schemas.eval_config import EvalConfig
    from tracesim.schemas.llm_config import LLMConfig
    from tracesim.schemas.text_file import TextFileError, read_text_file
    from tracesim.schemas.yaml_limits import YamlTooLarge, load_yaml

    try:
        data = load_yaml(read_text_file(path)) or {}
    except FileNotFoundError:
        raise EvalConfigError(f"config file {path} does not exist") from None
    except (YamlTooLarge, TextFileError) as exc:
        raise EvalConfigError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise EvalConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise EvalConfigError(f"{path}: the config must be a mapping of keys")
    from tracesim.arksim_config import translate_arksim_config

    try:
        data, notes = translate_arksim_config(data, base_dir=path.resolve().parent)
    except ValueError as exc:
        raise EvalConfigError(f"{path}: {exc}") from exc
    for note in notes:
        if not note.startswith("simulation_file_path"):  # evaluate reads --db: expected here
            click.echo(f"warning: {shown(path)}: {one_line(note)}", err=True)
    evaluation = data.get("evaluation") or {}
    llm = data.get("llm")
    for key, value in (("evaluation", evaluation), ("llm", llm)):
        if value is not None and not isinstance(value, dict):
            raise EvalConfigError(f"{path}: `{key}` must be a mapping")
    try:
        config = EvalConfig.model_validate(evaluation)
    except ValidationError as exc:
        raise EvalConfigError(_validation_message(path, "evaluation", EvalConfig, exc)) from exc
    try:  # no `llm:` key: the same default model as `tracesim run`
        llm_config = LLMConfig.model_validate(llm if llm is not None else {})
    except ValidationError as exc:
        raise EvalConfigError(_validation_message(path, "llm", LLMConfig, exc)) from exc
    return config, llm_config


def paths_of_config(path: Path) -> tuple[Path, Path]:
    """(the DuckDB file a run of config `path` writes, the folder its results go to):
    `db_path`, else `<output_dir>/tracesim.duckdb`; `output_dir` (default `results`), both
    relative to the config's folder, as `tracesim run` resolves them."""
    import yaml

    from tracesim.arksim_config import translate_arksim_config
    from tracesim.evaluator.scoring.gates import EvalConfigError
    from tracesim.schemas.text_file import read_text_file
    from tracesim.schemas.yaml_limits import load_yaml

    try:
        raw = load_yaml(read_text_file(path)) or {}
        data, _ = translate_arksim_config(raw, base_dir=path.resolve().parent)
    except (OSError, yaml.YAMLError, ValueError, AttributeError) as exc:
        raise EvalConfigError(f"{path}: cannot read it to find its DuckDB file: {exc}") from exc
    base = path.resolve().parent

    def resolved(target: str) -> Path:
        candidate = Path(target).expanduser()
        return candidate if candidate.is_absolute() else base / candidate

    output_dir = str(data.get("output_dir") or "results").rstrip("/") or "."
    db = resolved(str(data.get("db_path") or f"{output_dir}/tracesim.duckdb"))
    return db, resolved(output_dir)


def db_of_config(path: Path) -> Path:
    """The DuckDB file a run of config `path` writes (`db_path`, else `<output_dir>/tracesim.duckdb`)."""
    return paths_of_config(path)[0]


def _outputs_dir(store: Any) -> Path:
    """Where results.json and report.html go by default: `tracesim.paths.outputs_dir` of a
    DuckDB file (two files in one folder keep their own), else the store's default."""
    path = getattr(store, "path", None)
    return outputs_dir(path) if isinstance(path, Path) else store.default_report_path().parent


def choose_run(store: Any, run_id: str | None, *, all_runs: bool) -> tuple[str | None, str]:
    """(run_id to evaluate, a sentence saying what is evaluated) for the evaluate command,
    on an open `EvalStore`.

    Default: the newest run when the file holds several (by its conversations' start
    time), everything when it holds one run or none (`tracesim collect` traces). A store
    that does not choose (ClickHouse: production traces) evaluates every conversation,
    or the run asked for.
    """
    runs = store.runs_newest_first()
    if runs is None:
        what = (
            f"evaluating run {run_id} in {store.label}" if run_id else f"evaluating {store.label}"
        )
        return run_id, what
    if run_id is not None:
        starting = [run for run in runs if run.startswith(run_id)] if len(run_id) >= 4 else []
        if run_id not in runs and len(starting) == 1:  # the short id `tracesim run` prints
            run_id = starting[0]
        if run_id not in runs:  # else an evaluation of nothing, written over the last one
            known = ", ".join(runs[:10]) + (f" and {len(runs) - 10} more" if len(runs) > 10 else "")
            raise ValueError(
                f"--run-id {run_id}: no such run in {store.label}; "
                + (f"its runs, newest first: {known}" if runs else "it holds no run")
                + " (or --all-runs for every conversation)"
            )
        return run_id, f"evaluating run {run_id}"
    if all_runs or len(runs) <= 1:
        what = "every conversation in the file" if all_runs else "the file"
        if not runs:
            return None, f"evaluating {what}: collected conversations, no tracesim run"
        return None, f"evaluating {what} ({len(runs)} run(s))"
    return runs[0], (
        f"evaluating the newest run {runs[0]}; the file holds {len(runs)} runs "
        "(--run-id ID for another, --all-runs for all)"
    )


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


class NothingSelected(Exception):
    """--since/--sample kept no conversation: nothing to grade, so no evaluation is written
    (an empty one would be an hourly job's noise, and `latest` for a careless reader)."""

    def __init__(self, report: Any) -> None:
        super().__init__(report.describe())
        self.report = report


def refusing_empty(select: Any, reports: list[Any]) -> Any:
    """`select` (a production selection appending to `reports`) raising NothingSelected
    when it keeps nothing."""

    def nonempty(store: Any, plan: Any) -> Any:
        narrowed = select(store, plan)
        if not narrowed.num_conversations:
            raise NothingSelected(reports[-1])
        return narrowed

    return nonempty


def production_selection(
    since: str | None, sample: str | None, seed: int, include_evaluated: bool
) -> tuple[Any, list[Any]]:
    """The `select` hook of `evaluate_db` for --since/--sample (None without them), and the
    list its SelectionReport is appended to. ValueError names the bad option."""
    from tracesim.evaluator.select import Selection, apply_selection, parse_sample, parse_since

    if since is None and sample is None:
        if include_evaluated:
            raise ValueError("--all goes with --since or --sample")
        return None, []
    selection = Selection(
        since=parse_since(since) if since is not None else None,
        sample=parse_sample(sample) if sample is not None else None,
        seed=seed,
        new_only=not include_evaluated,
    )
    reports: list[Any] = []

    def select(store: Any, plan: Any) -> Any:
        narrowed, report = apply_selection(store, plan, selection)
        reports.append(report)
        return narrowed

    return select, reports


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
            _fail(str(problem), ExitCode.BAD_CONFIG)
            return
        click.echo(traceback.format_exc(), err=True)
        _fail("internal error (traceback above); please report it", ExitCode.INTERNAL_ERROR)
        return
    sys.exit(outcome.exit_code)
