"""arksim's `config.yaml` keys, translated into tracesim's before validation.

An arksim config runs unchanged: each key arksim documents is either mapped
onto its tracesim equivalent or, where it means nothing here, removed with a
one-line warning saying what tracesim does instead. Nothing is dropped
silently. tracesim's own keys, when both are given, win.

| arksim key                          | tracesim                                           |
|-------------------------------------|----------------------------------------------------|
| `model`, `provider` ($LLM_PROVIDER)  | `llm.model`, `llm.provider`                        |
| `agent_config.custom_config.*`      | `agent_config.module_path / class_name / agent_class` |
| `agent_config_file_path` (JSON)     | `agent_config`                                     |
| `simulated_user_prompt_template`    | `user.prompt_template`                             |
| `metrics_to_run`                    | `evaluation.metrics` (built-in judges)             |
| `custom_metrics_file_paths`         | `evaluation.custom_metrics_file_paths`             |
| `numeric_thresholds`, `score_threshold` | `evaluation.thresholds` (1-5 -> 0-1, `overall_score` -> `final_score`) |
| `qualitative_failure_labels`        | `evaluation.failure_labels` (label gates)          |
| `generate_html_report`              | `evaluation.html_report`                           |
| `trace_receiver.{host,port,wait_timeout}` | `collector.host / http_port`, `trace_wait.wait_timeout` |
| `output_file_path`                  | its folder is `output_dir` when that is unset (warning) |
| `simulation_file_path`, `api_config.azure_config`, `trace_receiver.enabled: false` | warning |
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ARKSIM_KEYS", "ARKSIM_RECEIVER_PORT", "SCALE_1_TO_5", "translate_arksim_config"]

ARKSIM_RECEIVER_PORT = 4318
"""arksim's trace receiver port (OTLP/HTTP): an enabled receiver binds the collector there."""

ARKSIM_KEYS: tuple[str, ...] = (
    "model",
    "provider",
    "agent_config_file_path",
    "output_file_path",
    "simulated_user_prompt_template",
    "trace_receiver",
    "simulation_file_path",
    "custom_metrics_file_paths",
    "metrics_to_run",
    "generate_html_report",
    "score_threshold",
    "numeric_thresholds",
    "qualitative_failure_labels",
)
"""Top-level keys of arksim's SimulationInput and EvaluationInput that tracesim translates."""

SCALE_1_TO_5: tuple[str, ...] = (
    "helpfulness",
    "coherence",
    "verbosity",
    "relevance",
    "faithfulness",
)
"""Built-in metrics arksim scores 1-5 (tracesim stores (score - 1) / 4)."""

_BUILTIN_JUDGES = (
    "goal_completion",
    *SCALE_1_TO_5,
    "agent_behavior_failure",
    "tool_call_behavior_failure",
    "tool_use",
)

Warn = Callable[[str], None]


def translate_arksim_config(
    raw: dict[str, Any], *, base_dir: Path, env: dict[str, str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """(tracesim config dict, warnings) for `raw`, which may use arksim's keys.

    `raw` is not modified. Paths stay as written (the loader resolves them
    against `base_dir`, as arksim does against the config's folder).
    """
    env = dict(os.environ) if env is None else env
    data = {k: v for k, v in raw.items()}
    notes: list[str] = []
    warn: Warn = notes.append

    _llm(data, env, warn=warn)
    _agent(data, base_dir=base_dir, warn=warn)
    _outputs(data, warn=warn)
    _user(data)
    _receiver(data, warn=warn)
    _evaluation(data, base_dir=base_dir, warn=warn)
    return data, notes


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    current = data.get(key)
    section = dict(current) if isinstance(current, dict) else {}
    data[key] = section
    return section


_PROVIDER_ALIASES = {"claude": "anthropic", "gemini": "google"}
"""arksim's deprecated provider names."""


def _llm(data: dict[str, Any], env: dict[str, str], *, warn: Warn) -> None:
    has_model = "model" in data
    model = data.pop("model", None)
    provider = env.get("LLM_PROVIDER") or data.pop("provider", None)
    data.pop("provider", None)
    if not has_model and provider is None:
        return
    llm = _section(data, "llm")
    if has_model:  # `model: null` is kept so that validation says a model is required
        llm.setdefault("model", model)
    if provider in _PROVIDER_ALIASES:
        warn(
            f"provider: {provider!r} is deprecated (in arksim too): using {_PROVIDER_ALIASES[provider]!r}"
        )
        provider = _PROVIDER_ALIASES[provider]
    if provider is not None:
        llm.setdefault("provider", provider)


def _agent(data: dict[str, Any], *, base_dir: Path, warn: Warn) -> None:
    file_path = data.pop("agent_config_file_path", None)
    if file_path and "agent_config" not in data:
        path = Path(file_path).expanduser()
        path = path if path.is_absolute() else base_dir / path
        try:
            data["agent_config"] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"agent_config_file_path: cannot read {path}: {exc}") from None
    agent = data.get("agent_config")
    if not isinstance(agent, dict):
        return
    agent = dict(agent)
    data["agent_config"] = agent
    custom = agent.pop("custom_config", None)
    if isinstance(custom, dict):
        for key, value in custom.items():
            if value is not None:
                agent.setdefault(key, value)
    elif custom is not None:
        agent["custom_config"] = custom  # let validation name the problem
    api = agent.get("api_config")
    if isinstance(api, dict) and "azure_config" in api:
        api = {k: v for k, v in api.items() if k != "azure_config"}
        agent["api_config"] = api
        warn(
            "agent_config.api_config.azure_config: ignored; tracesim sends the request to "
            "`endpoint` with `headers` (put the Azure api-key header there)"
        )


def _outputs(data: dict[str, Any], *, warn: Warn) -> None:
    output_file = data.pop("output_file_path", None)
    if output_file:
        folder = os.path.dirname(str(output_file)) or "."
        data.setdefault("output_dir", folder)
        warn(
            f"output_file_path: tracesim writes no simulation.json; conversations, spans and "
            f"tool calls go to the DuckDB file in output_dir ({data['output_dir']}) with "
            "run_summary.json and results.json"
        )
    simulation_file = data.pop("simulation_file_path", None)
    if simulation_file:
        warn(
            "simulation_file_path: tracesim evaluates the DuckDB file a run wrote "
            "(`tracesim evaluate --db FILE --config CONFIG`), not an arksim simulation.json"
        )


def _user(data: dict[str, Any]) -> None:
    template = data.pop("simulated_user_prompt_template", None)
    if template:
        _section(data, "user").setdefault("prompt_template", template)


def _receiver(data: dict[str, Any], *, warn: Warn) -> None:
    receiver = data.pop("trace_receiver", None)
    if not isinstance(receiver, dict):
        return
    if receiver.get("enabled") is False:
        warn(
            "trace_receiver.enabled: false: tracesim always captures spans with its embedded "
            "collector (set collector.mode: remote to use another one)"
        )
    collector = _section(data, "collector")
    if "host" in receiver:
        collector.setdefault("host", receiver["host"])
    if "port" in receiver or receiver.get("enabled") is True:
        # arksim's receiver listens on OTLP/HTTP 4318 by default: its agents export there
        collector.setdefault("http_port", receiver.get("port", ARKSIM_RECEIVER_PORT))
    if "wait_timeout" in receiver:
        _section(data, "trace_wait").setdefault("wait_timeout", receiver["wait_timeout"])
    if not collector:
        data.pop("collector")


def _evaluation(data: dict[str, Any], *, base_dir: Path, warn: Warn) -> None:
    moved: dict[str, Any] = {}
    metrics = data.pop("metrics_to_run", None)
    if metrics:
        known = [m for m in metrics if m in _BUILTIN_JUDGES]
        others = [m for m in metrics if m not in _BUILTIN_JUDGES]
        moved["metrics"] = known
        if others:
            warn(
                f"metrics_to_run: {', '.join(map(str, others))} not built-in; tracesim runs "
                "every metric of custom_metrics_file_paths"
            )
    paths = data.pop("custom_metrics_file_paths", None)
    kept: list[str] = list(paths or [])  # arksim's metric classes run as they are
    if kept:
        moved["custom_metrics_file_paths"] = kept
    thresholds: dict[str, float] = {}
    score_threshold = data.pop("score_threshold", None)
    if score_threshold is not None:
        thresholds["final_score"] = float(score_threshold)
    for name, value in (data.pop("numeric_thresholds", None) or {}).items():
        if not kept and name not in _BUILTIN_JUDGES and name != "overall_score":
            warn(f"numeric_thresholds.{name}: no gate, no custom metric of that name is run")
            continue
        thresholds[_gate_name(name)] = _native_to_unit(name, value)
    if thresholds:
        moved["thresholds"] = thresholds
    html = data.pop("generate_html_report", None)
    if html is not None:
        moved["html_report"] = html
    labels = data.pop("qualitative_failure_labels", None)
    if isinstance(labels, dict):
        gated = {}
        for name, values in labels.items():
            if name in _BUILTIN_JUDGES or kept:
                gated[name] = values
            else:
                warn(f"qualitative_failure_labels.{name}: no gate, no metric of that name is run")
        if gated:
            moved["failure_labels"] = gated
    elif labels:
        moved["failure_labels"] = labels  # let validation name the problem
    if not moved:
        return
    evaluation = _section(data, "evaluation")
    for key, value in moved.items():
        if key in ("thresholds", "failure_labels"):
            evaluation[key] = {**value, **(evaluation.get(key) or {})}
        else:
            evaluation.setdefault(key, value)


def _gate_name(name: str) -> str:
    return "final_score" if name == "overall_score" else name


def _native_to_unit(name: str, value: Any) -> Any:
    """arksim's native scale -> tracesim's 0..1 value (1-5 metrics: (t - 1) / 4)."""
    if name in SCALE_1_TO_5 and isinstance(value, (int, float)) and not isinstance(value, bool):
        return max(0.0, min(1.0, (float(value) - 1.0) / 4.0))
    return value
