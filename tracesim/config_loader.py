"""Load `config.yaml` into a `RunConfig`: YAML, command-line overrides, clear errors.

Every problem raises `ConfigError` naming the file, the key path, what is
allowed and, for an unknown key, the closest valid one (difflib). Nothing
runs before the whole config is valid. Relative paths inside the config
resolve against the config file's directory; paths given on the command line
(`--output_dir out`) against the current directory, as every CLI does. YAML
aliases are bounded (`schemas.yaml_limits`): a small file that expands to
millions of values is refused before anything copies it.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from tracesim.arksim_config import translate_arksim_config
from tracesim.schemas.config import RunConfig
from tracesim.schemas.text_file import TextFileError, read_text_file
from tracesim.schemas.yaml_limits import YamlTooLarge, load_yaml
from tracesim.shown import shown

__all__ = [
    "ConfigError",
    "LoadedConfig",
    "apply_overrides",
    "load_run_config",
    "parse_override_args",
]


class ConfigError(ValueError):
    """The config (or an override) is invalid; `str()` is the message for the user."""


class LoadedConfig(typing.NamedTuple):
    """A validated config, the directory its relative paths resolve against, and the
    warnings its arksim keys raised (`tracesim.arksim_config`)."""

    config: RunConfig
    path: Path
    base_dir: Path
    warnings: tuple[str, ...] = ()


def load_run_config(path: str | Path, overrides: Mapping[str, str] | None = None) -> LoadedConfig:
    """Read, override, validate and resolve paths of `path`."""
    path = Path(path)
    try:
        raw = load_yaml(read_text_file(path))
    except FileNotFoundError:
        raise ConfigError(f"{shown(path)}: config file not found") from None
    except (YamlTooLarge, TextFileError) as exc:
        raise ConfigError(f"{shown(path)}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = (
            f"{shown(path)}:{mark.line + 1}:{mark.column + 1}" if mark is not None else shown(path)
        )
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: invalid YAML: {problem}") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{shown(path)}: the config must be a mapping of keys, got {type(raw).__name__}"
        )
    raw = apply_overrides(raw, _cwd_paths(overrides or {}), source=str(path))
    base_dir = path.resolve().parent
    if "agent_config" not in raw and "simulation_file_path" in raw:
        raise ConfigError(
            f"{shown(path)}: an arksim evaluate-only config (simulation_file_path, no agent_config): "
            f"evaluate a run's DuckDB file with `tracesim evaluate --db FILE --config {shown(path)}`"
        )
    try:
        raw, notes = translate_arksim_config(raw, base_dir=base_dir)
    except ValueError as exc:
        raise ConfigError(f"{shown(path)}: {exc}") from None
    try:
        config = RunConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source=str(path))) from None
    return LoadedConfig(
        config=_resolve_paths(config, base_dir),
        path=path,
        base_dir=base_dir,
        warnings=tuple(f"{shown(path)}: {note}" for note in notes),
    )


def parse_override_args(args: Iterable[str]) -> dict[str, str]:
    """`["--max_turns", "3", "--a.b=x"]` -> `{"max_turns": "3", "a.b": "x"}`."""
    items = list(args)
    overrides: dict[str, str] = {}
    i = 0
    while i < len(items):
        arg = items[i]
        if not arg.startswith("--") or len(arg) == 2:
            raise ConfigError(f"unexpected argument {arg!r}; overrides look like --key value")
        key, eq, value = arg[2:].partition("=")
        if not eq:
            if i + 1 >= len(items) or items[i + 1].startswith("--"):
                raise ConfigError(f"override --{key} needs a value (--{key} VALUE)")
            value = items[i + 1]
            i += 1
        overrides[key.replace("-", "_") if "." not in key else key] = value
        i += 1
    return overrides


def apply_overrides(
    raw: dict[str, Any], overrides: Mapping[str, str], *, source: str = "<overrides>"
) -> dict[str, Any]:
    """A copy of `raw` with each dotted key set to its value parsed as a YAML scalar."""
    result = _deep_copy(raw)
    for dotted, text in overrides.items():
        parts = [p for p in dotted.split(".") if p]
        if not parts:
            raise ConfigError(f"{source}: empty override key")
        try:
            value = load_yaml(text) if text != "" else ""
        except YamlTooLarge as exc:
            raise ConfigError(f"{source}: override --{dotted}: {exc}") from None
        except yaml.YAMLError:
            value = text
        node = result
        for depth, part in enumerate(parts[:-1]):
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                where = ".".join(parts[: depth + 1])
                raise ConfigError(f"{source}: override --{dotted}: {where} is not a mapping")
            node = child
        node[parts[-1]] = value
    return result


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


_PATH_KEYS = ("scenario_file_path", "output_dir", "db_path")
"""Config keys holding a path (resolved against the config's folder when in the file)."""


def _cwd_paths(overrides: Mapping[str, str]) -> dict[str, str]:
    """Command-line overrides with relative paths made absolute against the current
    directory (the config's folder is only for paths written in the config)."""
    resolved = dict(overrides)
    for key in _PATH_KEYS:
        value = resolved.get(key)
        if isinstance(value, str) and value.strip():
            candidate = Path(value).expanduser()
            if not candidate.is_absolute():
                resolved[key] = str(Path.cwd() / candidate)
    return resolved


def _resolve_paths(config: RunConfig, base_dir: Path) -> RunConfig:
    def resolve(p: str | None) -> str | None:
        if p is None:
            return None
        candidate = Path(p).expanduser()
        return str(candidate if candidate.is_absolute() else (base_dir / candidate))

    update: dict[str, Any] = {
        "scenario_file_path": resolve(config.scenario_file_path),
        "output_dir": resolve(config.output_dir),
    }
    if config.db_path:
        update["db_path"] = resolve(config.db_path)
    return config.model_copy(update=update)


# -- error messages ----------------------------------------------------------------


def _describe(exc: ValidationError, *, source: str) -> str:
    lines = []
    for error in exc.errors():
        model, path = _walk(RunConfig, error["loc"])
        key = ".".join(path) or "(top level)"
        if error["type"] == "extra_forbidden":
            allowed = sorted(model.model_fields) if model is not None else []
            unknown = path[-1] if path else ""
            hint = difflib.get_close_matches(unknown, allowed, n=1, cutoff=0.6)
            message = f"unknown key; allowed keys here: {', '.join(allowed)}"
            if hint:
                message += f". Did you mean {hint[0]!r}?"
        elif error["type"] == "missing":
            message = "required key is missing"
        else:
            message = error["msg"].removeprefix("Value error, ")
            if "input" in error and error["type"] not in ("model_type", "dict_type"):
                given = error["input"]
                if not isinstance(given, (dict, list)):
                    message += f" (got {given!r})"
                expected = (error.get("ctx") or {}).get("expected")
                if error["type"] == "literal_error" and isinstance(given, str) and expected:
                    choices = re.findall(r"'([^']*)'", str(expected))
                    hint = difflib.get_close_matches(given, choices, n=1, cutoff=0.6)
                    if hint:
                        message += f". Did you mean {hint[0]!r}?"
        lines.append(f"{source}: {key}: {message}")
    return "\n".join(lines)


def _walk(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[type[BaseModel] | None, list[str]]:
    """The model owning the last key of `loc`, and `loc` without union tags."""
    current: type[BaseModel] | None = model
    path: list[str] = []
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        path.append(str(part))
        i += 1
        if current is None or i >= len(parts):
            break
        field = current.model_fields.get(str(part))
        if field is None:
            current = None
            continue
        models = _models_in(field.annotation)
        if len(models) == 1:
            current = models[0]
        elif models and i < len(parts):
            tagged = _by_tag(models, parts[i])
            if tagged is not None:  # pydantic puts the discriminator value in loc: skip it
                current = tagged
                i += 1
            else:
                current = None
        else:
            current = None
    return current, path


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        found: list[type[BaseModel]] = []
        for arg in typing.get_args(annotation):
            found.extend(_models_in(arg))
        return found
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


def _by_tag(models: list[type[BaseModel]], tag: Any) -> type[BaseModel] | None:
    for candidate in models:
        for field in candidate.model_fields.values():
            if typing.get_origin(field.annotation) is typing.Literal and tag in typing.get_args(
                field.annotation
            ):
                return candidate
    return None
