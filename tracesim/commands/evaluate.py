"""`tracesim evaluate`: re-evaluate what a DuckDB file holds, without re-running the agent,
and write `results.json` and `report.html`.

Reads only the `evaluation:` and `llm:` keys of the config (the rest of the
run config is not needed here). Exit code: 0 gates passed, 1 a gate failed,
2 bad configuration or file, 3 internal error.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

import click

__all__ = ["command", "load_eval_settings"]


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

    from evaluator.gates import EvalConfigError
    from schemas.eval_config import EvalConfig
    from schemas.llm_config import LLMConfig

    if not path.is_file():
        raise EvalConfigError(f"config file {path} does not exist")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise EvalConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise EvalConfigError(f"{path}: the config must be a mapping of keys")
    evaluation = data.get("evaluation") or {}
    llm = data.get("llm")
    for key, value in (("evaluation", evaluation), ("llm", llm)):
        if value is not None and not isinstance(value, dict):
            raise EvalConfigError(f"{path}: `{key}` must be a mapping")
    try:
        config = EvalConfig.model_validate(evaluation)
    except ValidationError as exc:
        raise EvalConfigError(_validation_message(path, "evaluation", EvalConfig, exc)) from exc
    try:
        llm_config = LLMConfig.model_validate(llm) if llm is not None else None
    except ValidationError as exc:
        raise EvalConfigError(_validation_message(path, "llm", LLMConfig, exc)) from exc
    return config, llm_config


@click.command("evaluate")
@click.option(
    "--db",
    "db_path",
    required=True,
    help=(
        "The DuckDB file a run or collector wrote, or the OTel Collector ClickHouse exporter's "
        "database: clickhouse://user:pass@host:8123/otel or chdb://DIR."
    ),
)
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="config.yaml: its `evaluation:` and `llm:` keys (default: tool checks only, no judges).",
)
@click.option(
    "--output-dir",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where results.json goes (default: <db stem>_results/ next to the file).",
)
@click.option(
    "--run-id", default=None, help="Evaluate this run only (default: everything in the file)."
)
@click.option("--progress/--no-progress", default=True, help="Show a progress bar on a terminal.")
def command(
    db_path: str,
    config_path: Path | None,
    output_dir: Path | None,
    run_id: str | None,
    progress: bool,
) -> None:
    """Re-evaluate what a DuckDB file (or a ClickHouse store) holds, without re-running the agent."""
    import duckdb

    from evaluator.gates import EvalConfigError, ExitCode
    from evaluator.store import StoreError, is_store_url
    from schemas.eval_config import EvalConfig
    from tracesim.evaluate_step import evaluate_and_report

    try:
        if not is_store_url(db_path) and not Path(db_path).is_file():
            raise EvalConfigError(f"DuckDB file {db_path} does not exist (--db)")
        if config_path is not None:
            config, llm = load_eval_settings(config_path)
            base_dir = config_path.resolve().parent
        else:
            config, llm, base_dir = EvalConfig(), None, Path.cwd()
        outcome = evaluate_and_report(
            db_path if is_store_url(db_path) else Path(db_path),
            config=config,
            run_id=run_id,
            llm=llm,
            base_dir=base_dir,
            output_dir=output_dir,
            progress=progress,
        )
    except (EvalConfigError, StoreError) as exc:
        _fail(str(exc), ExitCode.BAD_CONFIG)
        return
    except duckdb.IOException as exc:
        _fail(
            f"cannot open {db_path} ({exc}); is a collector still writing it? stop it first",
            ExitCode.BAD_CONFIG,
        )
        return
    except Exception:  # noqa: BLE001 - the CLI's last resort: say so, exit 3
        click.echo(traceback.format_exc(), err=True)
        _fail("internal error (traceback above); please report it", ExitCode.INTERNAL_ERROR)
        return
    sys.exit(outcome.exit_code)
