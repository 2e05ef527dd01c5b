"""arksim's config cases (test_agent_config, test_simulation_input, test_evaluation_input,
test_workers) on tracesim's loader: arksim's keys and shapes, same outcomes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from tracesim.schemas.agent_config import (
    A2AAgentConfig,
    ChatCompletionsAgentConfig,
    CustomAgentConfig,
)
from tracesim.simulator.connectors.base import ConnectorError
from tracesim.simulator.connectors.headers import substitute_env

from tests.arksim_compat.cases import spec_override
from tracesim.commands.evaluate import load_eval_settings
from tracesim.config_loader import ConfigError, load_run_config

CHAT = {
    "agent_type": "chat_completions",
    "agent_name": "bank",
    "api_config": {
        "endpoint": "https://llm.invalid/v1/chat/completions",
        "headers": {"Authorization": "Bearer ${TEST_TOKEN}"},
        "body": {"model": "gpt-4", "messages": []},
    },
}
A2A = {"agent_type": "a2a", "agent_name": "a", "api_config": {"endpoint": "https://a2a.invalid"}}


def _write(tmp_path: Path, data: dict[str, Any], name: str = "config.yaml") -> Path:
    (tmp_path / "scenarios.json").write_text('{"schema_version": "v1", "scenarios": []}')
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"scenario_file_path": "./scenarios.json", **data}))
    return path


# -- headers: ${ENV_VAR} ------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Authorization": "Bearer ${TEST_TOKEN}"}, {"Authorization": "Bearer test-token-123"}),
        (
            {"Authorization": "Bearer ${TEST_TOKEN}", "X-Custom": "${CUSTOM}"},
            {"Authorization": "Bearer test-token-123", "X-Custom": "custom-value"},
        ),
        ({"Combined": "${TEST_TOKEN}-${CUSTOM}"}, {"Combined": "test-token-123-custom-value"}),
        ({"Content-Type": "application/json"}, {"Content-Type": "application/json"}),
        ({}, {}),
    ],
    ids=["single", "multiple", "two_in_one_value", "unchanged", "empty"],
)
def test_env_vars_in_headers(monkeypatch, headers, expected) -> None:
    monkeypatch.setenv("TEST_TOKEN", "test-token-123")
    monkeypatch.setenv("CUSTOM", "custom-value")
    assert substitute_env(headers) == expected


@spec_override("SPEC §9: a bad config fails naming the field and what to do; arksim sends ''")
def test_missing_env_var_is_an_error_not_an_empty_header(monkeypatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    with pytest.raises(ConnectorError, match="NOT_SET_ANYWHERE"):
        substitute_env({"Auth": "${NOT_SET_ANYWHERE}"})


# -- agent_config shapes ------------------------------------------------------------


def test_a2a_with_and_without_headers(tmp_path: Path) -> None:
    with_headers = {**A2A, "api_config": {**A2A["api_config"], "headers": {"Authorization": "x"}}}
    config = load_run_config(_write(tmp_path, {"agent_config": with_headers})).config
    assert isinstance(config.agent_config, A2AAgentConfig)
    assert config.agent_config.api_config.headers == {"Authorization": "x"}
    bare = load_run_config(_write(tmp_path, {"agent_config": A2A})).config.agent_config
    assert bare.api_config.headers == {} and bare.api_config.endpoint == "https://a2a.invalid"


def test_chat_completions_config(tmp_path: Path) -> None:
    agent = load_run_config(_write(tmp_path, {"agent_config": CHAT})).config.agent_config
    assert isinstance(agent, ChatCompletionsAgentConfig)
    assert agent.api_config.body == {"model": "gpt-4", "messages": []}


def test_unsupported_agent_type(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="agent_type"):
        load_run_config(_write(tmp_path, {"agent_config": {"agent_type": "unsupported"}}))


def test_non_mapping_agent_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="agent_config"):
        load_run_config(_write(tmp_path, {"agent_config": "not-a-dict"}))


def test_custom_config_module_path_is_nested_as_arksim(tmp_path: Path) -> None:
    data = {
        "agent_config": {
            "agent_type": "custom",
            "agent_name": "x",
            "custom_config": {"module_path": "./a.py", "class_name": "A"},
        }
    }
    agent = load_run_config(_write(tmp_path, data)).config.agent_config
    assert isinstance(agent, CustomAgentConfig)
    assert (agent.module_path, agent.class_name) == ("./a.py", "A")
    assert agent.custom_config.module_path == "./a.py"  # arksim's attribute path works too


@pytest.mark.parametrize(
    ("custom", "match"),
    [({}, "module_path"), ({"module_path": "./a.py", "agent_class": "m:A"}, "not both")],
    ids=["neither", "both"],
)
def test_custom_needs_exactly_one_class_source(tmp_path: Path, custom: dict, match: str) -> None:
    data = {"agent_config": {"agent_type": "custom", "custom_config": custom}}
    with pytest.raises(ConfigError, match=match):
        load_run_config(_write(tmp_path, data))


# -- agent_config_file_path (arksim's JSON agent config) -----------------------------


@pytest.mark.parametrize("agent", [A2A, CHAT], ids=["a2a", "chat_completions"])
def test_agent_config_file_path_loads_the_json(tmp_path: Path, agent: dict) -> None:
    (tmp_path / "agent.json").write_text(json.dumps(agent))
    config = load_run_config(_write(tmp_path, {"agent_config_file_path": "agent.json"})).config
    assert config.agent_config.agent_type == agent["agent_type"]


def test_agent_config_file_missing_or_invalid(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="agent.json"):
        load_run_config(_write(tmp_path, {"agent_config_file_path": "agent.json"}))
    (tmp_path / "agent.json").write_text("{not json")
    with pytest.raises(ConfigError, match="agent.json"):
        load_run_config(_write(tmp_path, {"agent_config_file_path": "agent.json"}))


def test_no_agent_config_raises(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="agent_config"):
        load_run_config(_write(tmp_path, {"model": "gpt-4o"}))


# -- num_workers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "conversations", "expected"), [(4, 8, 4), (1, 8, 1), ("auto", 100, 100)]
)
def test_num_workers(tmp_path: Path, value: Any, conversations: int, expected: int) -> None:
    config = load_run_config(_write(tmp_path, {"agent_config": A2A, "num_workers": value})).config
    assert config.workers_for(conversations) == expected


@pytest.mark.parametrize("value", ["fast", 2.5, 0, -1])
def test_invalid_num_workers(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ConfigError, match="num_workers"):
        load_run_config(_write(tmp_path, {"agent_config": A2A, "num_workers": value}))


# -- paths resolve against the config's folder --------------------------------------


def test_paths_resolve_config_relative_and_absolute_stays(tmp_path: Path) -> None:
    data = {"agent_config": A2A, "output_file_path": "./out/simulation.json"}
    config = load_run_config(_write(tmp_path, data)).config
    assert config.scenario_file_path == str(tmp_path / "scenarios.json")
    assert config.output_dir == str(tmp_path / "out")  # arksim's output folder
    absolute = str(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text('{"scenarios": []}')
    config = load_run_config(
        _write(tmp_path, {"agent_config": A2A, "scenario_file_path": absolute})
    ).config
    assert config.scenario_file_path == absolute


# -- every documented key is honoured or warned about --------------------------------


def test_arksim_keys_map_onto_tracesim(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("LLM_PROVIDER", raising=False)
    data = {
        "agent_config": CHAT,
        "model": "gpt-5.1",
        "provider": "anthropic",
        "simulated_user_prompt_template": "Be {{ scenario.user_profile }}",
        "metrics_to_run": ["helpfulness", "tool_call_behavior_failure"],
        "numeric_thresholds": {"helpfulness": 4, "goal_completion": 0.6, "overall_score": 0.7},
        "trace_receiver": {"enabled": True, "port": 0, "wait_timeout": 5},
        "num_workers": "auto",
    }
    loaded = load_run_config(_write(tmp_path, data))
    config = loaded.config
    assert (config.llm.model, config.llm.provider, config.llm.api_key_env) == (
        "gpt-5.1",
        "anthropic",
        "ANTHROPIC_API_KEY",
    )
    assert config.user.prompt_template == "Be {{ scenario.user_profile }}"
    assert config.evaluation.metrics == ["helpfulness", "tool_call_behavior_failure"]
    assert config.evaluation.thresholds == {
        "helpfulness": 0.75,  # 4 on arksim's 1-5 scale
        "goal_completion": 0.6,
        "final_score": 0.7,
    }
    assert config.trace_wait.wait_timeout == 5 and config.num_workers == "auto"
    assert loaded.warnings == ()


def test_enabled_trace_receiver_listens_where_arksim_agents_export(tmp_path: Path) -> None:
    data = {"agent_config": A2A, "trace_receiver": {"enabled": True, "wait_timeout": 5}}
    config = load_run_config(_write(tmp_path, data)).config
    assert (config.collector.http_port, config.trace_wait.wait_timeout) == (4318, 5)


def test_generate_html_report_false_writes_no_report(tmp_path: Path) -> None:
    loaded = load_run_config(_write(tmp_path, {"agent_config": A2A, "generate_html_report": False}))
    assert loaded.config.evaluation.html_report is False and loaded.warnings == ()


def test_qualitative_failure_labels_become_label_gates(tmp_path: Path) -> None:
    labels = {"agent_behavior_failure": ["false information"], "prohibited_statements": ["x"]}
    loaded = load_run_config(
        _write(tmp_path, {"agent_config": A2A, "qualitative_failure_labels": labels})
    )
    assert loaded.config.evaluation.failure_labels == {
        "agent_behavior_failure": ["false information"]
    }
    [warning] = loaded.warnings  # the custom metric's labels: no metric of that name runs
    assert "prohibited_statements" in warning


def test_llm_provider_env_overrides_the_config(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LLM_PROVIDER", "google")
    config = load_run_config(_write(tmp_path, {"agent_config": A2A, "provider": "openai"})).config
    assert config.llm.provider == "google"


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("output_file_path", "./simulation.json", "DuckDB"),
        ("trace_receiver", {"enabled": False}, "embedded collector"),
    ],
)
def test_keys_without_an_equivalent_warn_in_one_line(tmp_path: Path, key, value, said) -> None:
    loaded = load_run_config(_write(tmp_path, {"agent_config": A2A, key: value}))
    [warning] = loaded.warnings
    assert key in warning and said in warning and "\n" not in warning


def test_evaluate_only_config_points_to_tracesim_evaluate(tmp_path: Path) -> None:
    path = _write(tmp_path, {"simulation_file_path": "./sim.json", "metrics_to_run": ["coherence"]})
    with pytest.raises(ConfigError, match="tracesim evaluate --db"):
        load_run_config(path)
    evaluation, _ = load_eval_settings(path)
    assert evaluation.metrics == ["coherence"]


def test_arksim_custom_metric_files_are_kept_and_run(tmp_path: Path) -> None:
    """arksim metric classes run as they are (checks.arksim_metrics): the file is kept."""
    (tmp_path / "custom_metrics.py").write_text("from arksim.evaluator import QuantitativeMetric\n")
    (tmp_path / "mine.py").write_text("from evaluator import metric\n")
    data = {
        "agent_config": A2A,
        "custom_metrics_file_paths": ["./custom_metrics.py", "./mine.py"],
        "numeric_thresholds": {"clarity": 3},
    }
    loaded = load_run_config(_write(tmp_path, data))
    assert loaded.config.evaluation.custom_metrics_file_paths == [
        "./custom_metrics.py",
        "./mine.py",
    ]
    assert not any("custom_metrics.py" in w for w in loaded.warnings)
    assert loaded.config.evaluation.thresholds == {"clarity": 3}  # raw, as the metric reports


ARKSIM_DOCUMENTED_KEYS = {
    # SimulationInput
    "agent_config_file_path",
    "agent_config",
    "scenario_file_path",
    "model",
    "provider",
    "num_conversations_per_scenario",
    "max_turns",
    "num_workers",
    "output_file_path",
    "simulated_user_prompt_template",
    "trace_receiver",
    # EvaluationInput
    "simulation_file_path",
    "output_dir",
    "custom_metrics_file_paths",
    "metrics_to_run",
    "generate_html_report",
    "score_threshold",
    "numeric_thresholds",
    "qualitative_failure_labels",
}


def test_every_documented_arksim_key_is_taken_or_translated() -> None:
    from tracesim.schemas.config import RunConfig

    from tracesim.arksim_config import ARKSIM_KEYS

    assert ARKSIM_DOCUMENTED_KEYS <= set(RunConfig.model_fields) | set(ARKSIM_KEYS)


# -- LLM providers (arksim's test_llm_factory) --------------------------------------


@pytest.mark.parametrize(
    ("provider", "client"),
    [
        ("openai", "OpenAIChat"),
        ("azure", "OpenAIChat"),
        ("anthropic", "AnthropicChat"),
        ("google", "GoogleChat"),
    ],
)
def test_each_provider_gets_its_sdk_client(provider: str, client: str) -> None:
    from tracesim.providers import make_chat_client
    from tracesim.schemas.llm_config import LLMConfig

    chat = make_chat_client(LLMConfig(provider=provider, model="m", base_url="http://127.0.0.1:9"))
    assert type(chat).__name__ == client and chat.provider == provider


@pytest.mark.parametrize("value", [{"provider": "nonexistent"}, {"model": ""}, {"model": None}])
def test_unsupported_provider_or_missing_model(tmp_path: Path, value: dict) -> None:
    with pytest.raises(ConfigError, match="provider|model"):
        load_run_config(_write(tmp_path, {"agent_config": A2A, **value}))


@pytest.mark.parametrize(("alias", "provider"), [("claude", "anthropic"), ("gemini", "google")])
def test_deprecated_provider_names_warn_and_map(
    tmp_path: Path, monkeypatch, alias, provider
) -> None:
    monkeypatch.delenv("LLM_PROVIDER", raising=False)
    loaded = load_run_config(_write(tmp_path, {"agent_config": A2A, "provider": alias}))
    assert loaded.config.llm.provider == provider
    [warning] = loaded.warnings
    assert "deprecated" in warning
