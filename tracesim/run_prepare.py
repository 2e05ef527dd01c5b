"""Everything `tracesim run` checks before anything runs: scenarios, assertions, every
name the evaluation gates on (with did-you-mean), users, the agent's files and server,
writable paths, the remote collector's token. A problem is a `ConfigError` (exit 2)
before the first conversation, so a typo never costs an LLM call."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from tracesim.agent_server import check_server
from tracesim.config_loader import ConfigError
from tracesim.paths import PathProblem, check_writable_dir, check_writable_file
from tracesim.schemas.agent_config import CustomAgentConfig
from tracesim.schemas.config import RunConfig
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.scenarios import ScenarioError, load_scenarios
from tracesim.simulator.users import UserFactory

__all__ = ["check_baseline", "check_gate_names", "prepare"]


def check_gate_names(config: RunConfig, base_dir: Path, source: str = "") -> None:
    """Every gate names a known metric (custom metrics included) and a failure-label gate
    labels its judge answers, before anything runs; `source` (the config file) prefixes."""
    from tracesim.evaluator.pipeline.pipeline import check_names
    from tracesim.evaluator.scoring.gates import EvalConfigError

    try:
        check_names(config.evaluation, base_dir=base_dir)
    except EvalConfigError as exc:
        raise ConfigError(f"{source}: {exc}" if source else str(exc)) from None


def check_baseline(config: RunConfig, base_dir: Path) -> None:
    """`evaluation.baseline` names a store and an evaluation that exist, checked before the
    first conversation (a typo'd ref or file must not cost a whole run, then exit 2)."""
    from types import SimpleNamespace

    from tracesim.evaluate_step import load_baseline
    from tracesim.evaluator.scoring.gates import EvalConfigError
    from tracesim.evaluator.store import StoreError, open_store

    baseline = config.evaluation.baseline
    if baseline is None:
        return
    try:
        if baseline.db:
            load_baseline(config.evaluation, SimpleNamespace(label=None), base_dir)
        elif config.collector.mode == "embedded":
            db = Path(config.resolved_db_path)
            if not db.exists():
                raise EvalConfigError(
                    f"evaluation.baseline: ref {baseline.ref!r}: {db} holds no evaluation yet. "
                    "Fix: run once without `baseline`, or point evaluation.baseline.db at the "
                    "baseline's DuckDB file"
                )
            try:
                own = open_store(str(db), read_only=True)
            except StoreError:
                return  # in use or unreadable: the run itself says so, naming the file
            with own:
                load_baseline(config.evaluation, own, base_dir)
    except EvalConfigError as exc:
        raise ConfigError(str(exc)) from None


def prepare(
    config: RunConfig, base_dir: Path, source: str = ""
) -> tuple[list[Scenario], UserFactory]:
    """Everything that can fail without running anything (`source`: the config file)."""
    scenarios = load_scenarios(config.scenario_file_path)
    if importlib.util.find_spec("tracesim.evaluator.checks.assertions") is not None:
        from tracesim.evaluator.checks.assertions import parse_assertions
        from tracesim.evaluator.checks.rules import check_config_rules

        try:  # evaluation.policies / tool_validity: checked like a scenario's assertions
            check_config_rules(config.evaluation)
        except ValueError as exc:
            raise ScenarioError(str(exc)) from None
        for index, scenario in enumerate(scenarios):
            where = f"{config.scenario_file_path}: scenario #{index} ({scenario.scenario_id!r})"
            try:
                parse_assertions(scenario.assertions, where=where)
            except ValueError as exc:
                raise ScenarioError(str(exc)) from None
    check_gate_names(config, base_dir, source)
    users = UserFactory(config.user, config.llm, seed=config.seed)
    users.check(scenarios)
    if isinstance(config.agent_config, CustomAgentConfig) and config.agent_config.module_path:
        target = config.agent_config.module_path.partition(":")[0]
        if target.endswith(".py") and not (base_dir / target).is_file():
            raise ConfigError(f"agent_config.module_path: file not found: {base_dir / target}")
    check_server(config.agent_config, base_dir)
    try:
        check_writable_dir(config.output_dir, what="output_dir")
        if config.collector.mode == "embedded":
            check_writable_file(config.resolved_db_path, what="db_path")
    except PathProblem as exc:
        raise ConfigError(str(exc)) from None
    if config.collector.mode == "remote" and config.collector.auth_token_env:
        if not os.environ.get(config.collector.auth_token_env):
            raise ConfigError(
                f"collector.auth_token_env: ${config.collector.auth_token_env} is not set"
            )
    return scenarios, users
