"""A pytest plugin: run scenarios against an agent inside your own test suite, assert on scores.

Installed with tracesim (entry point `pytest11`), it provides the fixture
`tracesim_run`, a function that runs one scenario file against one agent
(offline with scripted users, or with an LLM user when a model is set) and
returns a `TracesimResult`::

    def test_refunds(tracesim_run):
        result = tracesim_run("scenarios.json", agent="my_agent.py:MyAgent")
        result.assert_passed()                       # every conversation Done, gates passed
        assert result.mean("trajectory") == 1.0
        assert result.conversation("order-status").status == "Done"

Relative paths resolve against the test file's folder; everything the run
writes (DuckDB file, results.json, report.html) goes to a temporary folder
(`result.output_dir`), kept by pytest like any `tmp_path`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["TracesimResult", "tracesim_run"]


@dataclass
class TracesimResult:
    """What one `tracesim_run` produced: exit code, scores, conversations, files."""

    exit_code: int
    """0 done and gates passed, 1 a gate failed, 2 bad config, 3 internal error."""
    output_dir: Path
    db_path: Path | None
    report_path: Path | None
    report: Any
    """The evaluation (`evaluator.output.EvaluationReport`), None if it did not run."""
    scores: list[dict[str, Any]] = field(default_factory=list)
    """Every score row of the evaluation: chat_id, turn_id, metric, value, passed, label,
    reason (value None = not graded)."""
    outcomes: list[Any] = field(default_factory=list)
    """Per conversation: `tracesim.ci.ConversationOutcome` (verdict, failed checks, why)."""
    log: str = ""
    """What the run printed."""
    error: str | None = None

    @property
    def conversations(self) -> list[Any]:
        """The evaluated conversations (`ConversationResult`: scenario_id, status, final_score)."""
        return list(self.report.conversations) if self.report is not None else []

    @property
    def passed(self) -> bool:
        """True when the run evaluated, no gate failed and no conversation failed or errored."""
        return (
            self.exit_code == 0
            and self.report is not None
            and not any(o.verdict in ("failure", "error") for o in self.outcomes)
        )

    def conversation(self, scenario_id: str, repetition: int = 0) -> Any:
        """The `ConversationOutcome` of `scenario_id` (its `repetition`-th run)."""
        for outcome in self.outcomes:
            if outcome.scenario_id == scenario_id and (outcome.repetition or 0) == repetition:
                return outcome
        known = sorted({o.name for o in self.outcomes})
        raise KeyError(f"no conversation {scenario_id} #{repetition}; ran: {', '.join(known)}")

    def trials(self, scenario_id: str | None = None) -> Any:
        """The run's trials (`TrialRollup`: pass_rate, pass_rate_ci, pass_hat_k, flaky...), or
        one scenario's (`ScenarioTrials`) when `scenario_id` is given."""
        if self.report is None:
            raise KeyError("nothing was evaluated")
        if scenario_id is None:
            return self.report.trials
        for trials in self.report.scenarios:
            if trials.scenario_id == scenario_id:
                return trials
        known = ", ".join(t.scenario_id for t in self.report.scenarios)
        raise KeyError(f"no scenario {scenario_id}; ran: {known}")

    def values(self, metric: str, *, turn_level: bool | None = None) -> list[float]:
        """Graded values of `metric` (turn or conversation level, or both when None)."""
        return [
            row["value"]
            for row in self.scores
            if row["metric"] == metric
            and row["value"] is not None
            and (turn_level is None or (row["turn_id"] is not None) == turn_level)
        ]

    def mean(self, metric: str) -> float | None:
        """Mean of the graded values of `metric` (None when it was never graded)."""
        values = self.values(metric)
        return sum(values) / len(values) if values else None

    def failures(self) -> list[str]:
        """One line per conversation that failed or errored: which checks and why."""
        from tracesim.evaluator.report.why import explain

        lines = []
        for o in self.outcomes:
            if o.verdict not in ("failure", "error"):
                continue
            if o.verdict == "error" or not o.failed:
                lines.append(f"{o.name}: {o.message()}")
                continue
            checks = [f"{c.where}: {explain(c.reason, c.details)}" for c in o.failed]
            lines.append(f"{o.name}: {len(checks)} check(s) failed: " + "; ".join(checks))
        return lines

    def assert_passed(self) -> None:
        """Raise AssertionError saying which conversations failed, which checks and why."""
        if self.report is None:
            raise AssertionError(
                f"tracesim run did not evaluate (exit {self.exit_code}): {self.error or self.log}"
            )
        problems = self.failures()
        if self.exit_code != 0:  # the verdict line says why (a gate, nothing graded, ...)
            verdict = getattr(self.report, "verdict", "") or "a quality gate failed"
            problems.insert(0, f"exit code {self.exit_code} ({verdict})")
        if problems:
            raise AssertionError(
                "tracesim: " + "; ".join(problems) + f" (report: {self.report_path})"
            )


def _load_scores(store: Any, eval_id: str) -> list[dict[str, Any]]:
    """The scores rows of evaluation `eval_id` in an open `EvalStore`."""
    with store.report_connection(eval_id) as con:
        cur = con.execute(
            "SELECT chat_id, turn_id, metric, value, passed, label, reason FROM scores "
            "WHERE eval_id = ? ORDER BY chat_id, turn_id NULLS LAST, metric",
            [eval_id],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def run_scenarios(
    scenarios: str | Path | None = None,
    *,
    base_dir: Path,
    output_dir: Path,
    agent: str | Mapping[str, Any] | None = None,
    config: str | Path | None = None,
    **overrides: Any,
) -> TracesimResult:
    """Run `scenarios` against `agent` (a `file.py[:Class]` / module path, or a whole
    `agent_config` mapping) or the agent of `config` (then `scenarios` defaults to the
    config's own `scenario_file_path`); `overrides` set config keys (dotted)."""
    import yaml

    from tracesim.ci import load_outcomes
    from tracesim.config_loader import load_run_config
    from tracesim.console import make_console
    from tracesim.evaluator.output.results_file import read_results
    from tracesim.run import run

    def resolve(path: str | Path) -> Path:
        path = Path(path)
        return path if path.is_absolute() else base_dir / path

    if config is not None:
        config_path = resolve(config)
    else:
        if agent is None or scenarios is None:
            raise ValueError(
                "tracesim_run needs a scenario file and agent= (a file.py[:Class]), or config="
            )
        agent_config: dict[str, Any] = (
            dict(agent)
            if isinstance(agent, Mapping)
            else {"agent_type": "custom", "module_path": str(agent)}
        )
        module_path = agent_config.get("module_path")
        if isinstance(module_path, str) and module_path.partition(":")[0].endswith(".py"):
            target, colon, cls = module_path.partition(":")
            agent_config["module_path"] = str(resolve(target)) + colon + cls
        config_path = output_dir / "config.yaml"
        output_dir.mkdir(parents=True, exist_ok=True)
        config_path.write_text(
            yaml.safe_dump(
                {
                    "agent_config": agent_config,
                    "scenario_file_path": str(resolve(scenarios)),
                    "trace_wait": {"settle": 0.2, "wait_timeout": 10},
                }
            )
        )
    settings = {
        "output_dir": str(output_dir / "results"),
        **({"scenario_file_path": str(resolve(scenarios))} if scenarios is not None else {}),
        **{key: str(value) for key, value in overrides.items()},
    }
    log = io.StringIO()
    outcome = run(
        load_run_config(config_path, settings),
        console=make_console(file=log),
        show_progress=False,
    )
    report_path = outcome.extra.get("report_path")
    results_path = outcome.extra.get("results_path")
    report = read_results(results_path) if results_path else None
    scores: list[dict[str, Any]] = []
    outcomes: list[Any] = []
    if report is not None and outcome.db_path is not None:
        from tracesim.evaluator.store import open_store

        with open_store(outcome.db_path, read_only=True) as store:
            scores = _load_scores(store, report.eval_id)
            outcomes = load_outcomes(store, report.eval_id)
    return TracesimResult(
        exit_code=outcome.exit_code,
        output_dir=output_dir,
        db_path=outcome.db_path,
        report_path=report_path,
        report=report,
        scores=scores,
        outcomes=outcomes,
        log=log.getvalue(),
        error=outcome.error,
    )


@pytest.fixture
def tracesim_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., TracesimResult]:
    """`tracesim_run(scenarios, agent="agent.py:Class")` or `tracesim_run(config="config.yaml")`
    (`**overrides` set config keys): run, evaluate, return a `TracesimResult` to assert on."""
    base_dir = Path(request.path).parent
    count = 0

    def _run(
        scenarios: str | Path | None = None,
        *,
        agent: str | Mapping[str, Any] | None = None,
        config: str | Path | None = None,
        **overrides: Any,
    ) -> TracesimResult:
        nonlocal count
        count += 1
        name = re.sub(r"\W+", "_", request.node.name)[:30]
        output_dir = tmp_path_factory.mktemp(f"tracesim-{name}-{count}")
        return run_scenarios(
            scenarios,
            base_dir=base_dir,
            output_dir=output_dir,
            agent=agent,
            config=config,
            **overrides,
        )

    return _run
