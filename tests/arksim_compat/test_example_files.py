"""arksim's own example files, unchanged (data/, Apache-2.0): all 33 `config*.yaml` and
18 `scenarios.json` load; those whose agent can run here run offline.

Runnable here: the configs whose agent is a chat-completions endpoint (the agent
is replaced by a loopback stand-in LLM; so are the simulated user and the
judges), the A2A configs (their endpoint answered by tracesim's offline example
A2A agent, as arksim's example servers need a paid model), and the
evaluate-only configs (evaluating a DuckDB file those runs wrote). Custom
agents import arksim and real frameworks: they load but are not run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from rich.console import Console
from tracesim.evaluator.checks.assertions import parse_assertions
from tracesim.schemas.config import RunConfig
from tracesim.simulator.scenarios import load_scenarios

from tests.fakes.openai_server import chat_completion, fake_openai, judge_reply
from tracesim.arksim_config import ARKSIM_KEYS
from tracesim.commands.evaluate import command as evaluate_command
from tracesim.commands.evaluate import load_eval_settings
from tracesim.config_loader import ConfigError, load_run_config
from tracesim.run import run

DATA = Path(__file__).parent / "data"
EXAMPLES = sorted((DATA / "examples").rglob("config*.yaml"))
PACKAGE = sorted((DATA / "arksim").glob("config*.yaml"))
SCENARIOS = sorted((DATA / "examples").rglob("scenarios.json"))


def _id(path: Path) -> str:
    return str(path.relative_to(DATA))


def _raw(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text()) or {}


def test_the_files_are_all_there() -> None:
    assert (len(EXAMPLES), len(SCENARIOS), len(PACKAGE)) == (33, 18, 3)


@pytest.mark.parametrize("path", EXAMPLES + PACKAGE, ids=_id)
def test_config_loads_and_no_key_is_dropped_silently(path: Path) -> None:
    raw = _raw(path)
    known = set(RunConfig.model_fields) | set(ARKSIM_KEYS)
    assert set(raw) <= known, f"keys neither translated nor warned: {set(raw) - known}"
    if "agent_config" not in raw:  # arksim's evaluate-only config
        with pytest.raises(ConfigError, match="tracesim evaluate"):
            load_run_config(path)
        evaluation, llm = load_eval_settings(path)
        assert llm is not None and llm.model == raw["model"]
        assert (
            evaluation.metrics
            == [
                m
                for m in raw["metrics_to_run"]
                if m in evaluation.model_fields["metrics"].annotation.__args__[0].__args__
            ]
            or evaluation.metrics
        )
        return
    loaded = load_run_config(path)
    config = loaded.config
    assert config.agent_config.agent_type == raw["agent_config"]["agent_type"]
    assert (config.llm.model, config.llm.provider) == (raw["model"], raw["provider"])
    assert config.max_turns == raw.get("max_turns", 5)
    custom = raw["agent_config"].get("custom_config") or {}
    if custom:
        assert config.agent_config.module_path == custom["module_path"]
    for name in raw.get("metrics_to_run") or []:
        assert name in config.evaluation.metrics or any(name in w for w in loaded.warnings)
    if raw.get("output_file_path"):
        assert any("output_file_path" in w for w in loaded.warnings)


@pytest.mark.parametrize("path", SCENARIOS, ids=_id)
def test_scenario_file_loads_with_its_assertions(path: Path) -> None:
    scenarios = load_scenarios(str(path))
    assert scenarios and len({s.scenario_id for s in scenarios}) == len(scenarios)
    for index, scenario in enumerate(scenarios):
        parse_assertions(scenario.assertions, where=f"{path}: scenario #{index}")
        assert scenario.goal_text() and scenario.profile_text()


def _stand_in(body: dict[str, Any]) -> dict[str, Any]:
    """One loopback stand-in playing the agent, the simulated user and the judges."""
    if "response_format" in body:
        return judge_reply(body)
    system = (body.get("messages") or [{}])[0].get("content") or ""
    if "role-playing a USER" in system:
        said = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return chat_completion("###STOP###" if said else "Hi, I have a question about my policy.")
    return chat_completion("Happy to help: here is what your policy covers.")


def _one_scenario(config: Path, tmp_path: Path) -> Path:
    raw = _raw(config)
    source = (config.parent / raw["scenario_file_path"]).resolve()
    if not source.is_file():  # the package configs name a path inside arksim's repository
        source = DATA / "examples" / "bank-insurance" / "scenarios.json"
    data = json.loads(source.read_text())
    data["scenarios"] = data["scenarios"][:1]
    target = tmp_path / "scenarios.json"
    target.write_text(json.dumps(data))
    return target


RUNNABLE = [
    p
    for p in EXAMPLES + PACKAGE
    if (_raw(p).get("agent_config") or {}).get("agent_type") == "chat_completions"
]
ARKSIM_METRICS = """
from arksim.evaluator import QualitativeMetric, QualResult, QuantitativeMetric, QuantResult


class Clarity(QuantitativeMetric):
    def __init__(self, llm=None):
        super().__init__(name="clarity", score_range=(1, 5), llm=llm)

    def score(self, score_input):
        return QuantResult(name=self.name, value=4.0, reason="clear")


class Prohibited(QualitativeMetric):
    def __init__(self):
        super().__init__(name="prohibited_statements")

    def evaluate(self, score_input):
        return QualResult(name=self.name, value="none", reason="nothing prohibited")
"""
"""arksim-style custom metrics named by the example evaluate configs' gates."""

EVALUATE_AFTER = {
    "examples/bank-insurance/config.yaml": "examples/bank-insurance/config_evaluate.yaml",
    "examples/e-commerce/config.yaml": "examples/e-commerce/config_evaluate.yaml",
    "arksim/config.yaml": "arksim/config_evaluate.yaml",
}


def config_metrics(path: Path) -> set[str]:
    return set(load_run_config(path).config.evaluation.metrics)


def test_runnable_count() -> None:
    assert len(RUNNABLE) == 11  # 9 examples + arksim's config.yaml and config_simulate.yaml


@pytest.mark.parametrize("path", RUNNABLE, ids=_id)
def test_chat_completions_config_runs_offline(path: Path, tmp_path: Path, monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENCLAW_TOKEN", "AGENT_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.setenv(name, "test-key")
    monkeypatch.delenv("LLM_PROVIDER", raising=False)
    with fake_openai(_stand_in) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)  # as an arksim user points the SDK
        overrides = {
            "agent_config.api_config.endpoint": f"{fake.base_url}/chat/completions",
            "scenario_file_path": str(_one_scenario(path, tmp_path)),
            "output_dir": str(tmp_path / "out"),
            "custom_metrics_file_paths": "[]",
            "llm.base_url": fake.base_url,
            "trace_wait.settle": "0",  # the stand-in agent exports no spans
        }
        outcome = run(
            load_run_config(path, overrides),
            console=Console(file=open(tmp_path / "console.txt", "w")),
            show_progress=False,
        )
        assert outcome.exit_code == 0, (tmp_path / "console.txt").read_text()[-2000:]
        [conversation] = outcome.result.conversations
        assert conversation.status == "completed" and conversation.num_turns >= 1
        agent_requests = [
            b
            for b in fake.requests
            if "response_format" not in b
            and "role-playing a USER" not in (b["messages"][0].get("content") or "")
        ]
        assert agent_requests, "the agent endpoint was not called"
        results = json.loads((tmp_path / "out" / "results.json").read_text())
        gates = {g["metric"]: g for g in results["gates"]}
        for name in _raw(path).get("qualitative_failure_labels") or {}:
            if name in config_metrics(path):  # arksim's labels gate the run here too
                assert gates[f"{name} labels"]["passed"] is True
        follow = EVALUATE_AFTER.get(_id(path))
        if follow:
            # beside it, a custom_metrics.py in arksim's form (arksim's own is not copied:
            # code) defining the metrics the config gates on; they run as they are
            evaluate_config = tmp_path / "config_evaluate.yaml"
            evaluate_config.write_text((DATA / follow).read_text())
            (tmp_path / "custom_metrics.py").write_text(ARKSIM_METRICS)
            answer = CliRunner().invoke(
                evaluate_command,
                [
                    str(evaluate_config),
                    "--db",
                    str(outcome.db_path),
                    "--output-dir",
                    str(tmp_path / "eval"),
                    "--no-progress",
                ],
            )
            assert answer.exit_code == 0, answer.output
            evaluated = json.loads((tmp_path / "eval" / "results.json").read_text())
            label_gates = {g["metric"]: g["passed"] for g in evaluated["gates"]}
            for name in _raw(DATA / follow).get("qualitative_failure_labels") or {}:
                # built in or custom (the arksim metric above): a label gate, passed here
                assert label_gates[f"{name} labels"] is True


A2A_CONFIGS = [
    p for p in EXAMPLES if (_raw(p).get("agent_config") or {}).get("agent_type") == "a2a"
]


def test_a2a_count() -> None:
    assert len(A2A_CONFIGS) == 3


@pytest.mark.parametrize("path", A2A_CONFIGS, ids=_id)
def test_a2a_config_runs_offline(path: Path, tmp_path: Path, monkeypatch) -> None:
    from examples.a2a_agent import build_app
    from tests.fakes.asgi import serve_asgi

    monkeypatch.delenv("LLM_PROVIDER", raising=False)
    for name in ("OPENAI_API_KEY", "A2A_API_KEY"):
        monkeypatch.setenv(name, "test-key")
    with fake_openai(_stand_in) as fake, serve_asgi(build_app()) as agent_url:
        overrides = {
            "agent_config.api_config.endpoint": agent_url,
            "scenario_file_path": str(_one_scenario(path, tmp_path)),
            "output_dir": str(tmp_path / "out"),
            "custom_metrics_file_paths": "[]",
            "llm.base_url": fake.base_url,
            "trace_wait.settle": "0",
        }
        outcome = run(
            load_run_config(path, overrides),
            console=Console(file=open(tmp_path / "console.txt", "w")),
            show_progress=False,
        )
    assert outcome.exit_code == 0, (tmp_path / "console.txt").read_text()[-2000:]
    [conversation] = outcome.result.conversations
    assert conversation.status == "completed" and conversation.num_turns >= 1
    assert (tmp_path / "out" / "results.json").is_file()
