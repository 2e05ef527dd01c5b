"""What `tracesim evaluate` reads of a config: its `evaluation:` and `llm:` keys (checked,
arksim's spellings translated), and where that config's run wrote its DuckDB file and
results (as `tracesim run` resolves `db_path` and `output_dir`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tracesim.shown import one_line, shown

__all__ = ["db_of_config", "load_eval_settings", "paths_of_config"]


def _validation_message(path: Path, section: str, model: Any, exc: Any) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in (section, *error["loc"]))
        if error["type"] == "extra_forbidden":
            allowed = ", ".join(model.model_fields)
            problems.append(f"{key}: unknown key (allowed keys: {allowed})")
        else:
            problems.append(f"{key}: {error['msg']}")
    return f"{shown(path)}: " + "; ".join(problems)


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
        raise EvalConfigError(f"config file {shown(path)} does not exist") from None
    except (YamlTooLarge, TextFileError) as exc:
        raise EvalConfigError(f"{shown(path)}: {exc}") from None
    except yaml.YAMLError as exc:
        raise EvalConfigError(f"{shown(path)}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise EvalConfigError(f"{shown(path)}: the config must be a mapping of keys")
    from tracesim.arksim_config import translate_arksim_config

    try:
        data, notes = translate_arksim_config(data, base_dir=path.resolve().parent)
    except ValueError as exc:
        raise EvalConfigError(f"{shown(path)}: {exc}") from exc
    for note in notes:
        if not note.startswith("simulation_file_path"):  # evaluate reads --db: expected here
            click.echo(f"warning: {shown(path)}: {one_line(note)}", err=True)
    evaluation = data.get("evaluation") or {}
    llm = data.get("llm")
    for key, value in (("evaluation", evaluation), ("llm", llm)):
        if value is not None and not isinstance(value, dict):
            raise EvalConfigError(f"{shown(path)}: `{key}` must be a mapping")
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
        raise EvalConfigError(
            f"{shown(path)}: cannot read it to find its DuckDB file: {exc}"
        ) from exc
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
