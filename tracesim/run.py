"""The `tracesim run` pipeline: validate, collect, simulate, settle, evaluate, report.

    prepare(config)  -> everything checked before anything runs (exit 2 on error),
                        gate metric names included (a typo costs no LLM call)
    capture(...)     -> embedded (or remote) collector (a locked DuckDB file or a busy
                        port: one line, exit 2), the agent's server (when
                        `agent_config.server` says; exit 2 if its program is missing,
                        3 if it fails to start), simulator; spans in DuckDB
    evaluate(...)    -> tool calls, scores, gates, results.json, report.html (the
                        verdict's exit code: `evaluator.scoring.verdict`)

A run that completed no turn exits 3 whatever the gates say; Ctrl-C exits 130
(the unfinished conversations are stored `interrupted`).

`run_from_file` is what the CLI calls; `run(loaded)` returns a `RunOutcome`
(run id, DuckDB path, output dir, counts, exit code) for the next step.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from tracesim.agent_server import (
    AgentServerError,
    CollectorEndpoints,
    agent_under_test,
)
from tracesim.config_loader import ConfigError, LoadedConfig, load_run_config
from tracesim.console import make_console
from tracesim.progress import RunProgress
from tracesim.run_collector import CollectorUnavailable, run_collector
from tracesim.run_marker import marking_run
from tracesim.run_prepare import check_baseline, prepare
from tracesim.run_summary import (
    count_earlier_runs,
    count_spans,
    missing_conversations,
    print_run_summary,
    run_failure_lines,
    user_llm_usage,
    write_run_summary,
)
from tracesim.scenario_notes import ignored_args_note, misspelt_keys_note
from tracesim.schemas.config import RunConfig
from tracesim.schemas.scenario import Scenario
from tracesim.schemas.terminal_text import SafeConsole
from tracesim.shown import shown
from tracesim.simulator.connectors.base import AgentConnector
from tracesim.simulator.connectors.factory import agent_timeout, make_connector_factory
from tracesim.simulator.loader import AgentLoadError
from tracesim.simulator.results import RunResult
from tracesim.simulator.runner import Runner
from tracesim.simulator.scenarios import ScenarioError
from tracesim.simulator.tracing import make_simulator_provider
from tracesim.simulator.users import UserConfigError, UserFactory

log = logging.getLogger(__name__)

__all__ = [
    "EXIT_BAD_CONFIG",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "RunOutcome",
    "run",
    "run_from_file",
]

EXIT_OK = 0
EXIT_BAD_CONFIG = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


@dataclass
class RunOutcome:
    """What a run left behind, for the evaluation step and the caller."""

    exit_code: int
    run_id: str = ""
    db_path: Path | str | None = None
    """The DuckDB file, or the ClickHouse store URL (`collector.mode: otlp`)."""
    output_dir: Path | None = None
    config: RunConfig | None = None
    result: RunResult | None = None
    spans_stored: int | None = None
    tool_spans: int | None = None
    summary_path: Path | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def run_from_file(
    path: str | Path,
    overrides: Mapping[str, str] | None = None,
    *,
    console: Console | None = None,
    show_progress: bool = True,
    evaluate: bool = True,
    junit_path: Path | None = None,
) -> RunOutcome:
    """Load `path` (with overrides) and run it; errors become exit codes, never tracebacks."""
    console = console or make_console()
    try:
        loaded = load_run_config(path, overrides)
    except ConfigError as exc:
        _print_error(console, "config error", exc)
        return RunOutcome(exit_code=EXIT_BAD_CONFIG, error=str(exc))
    return run(
        loaded,
        console=console,
        show_progress=show_progress,
        evaluate=evaluate,
        junit_path=junit_path,
    )


def run(
    loaded: LoadedConfig,
    *,
    console: Console | None = None,
    show_progress: bool = True,
    evaluate: bool = True,
    junit_path: Path | None = None,
) -> RunOutcome:
    """Validate everything, capture, then evaluate (unless `evaluate=False`); never raises.

    `junit_path`: also write a JUnit XML file of the evaluation (one testcase per conversation).
    """
    console = console or make_console()
    config = loaded.config
    for note in loaded.warnings:
        SafeConsole(stderr=True).print(
            f"warning: {note}", markup=False, highlight=False, soft_wrap=True
        )
    try:
        scenarios, users = prepare(config, loaded.base_dir, str(loaded.path))
        for make_note in (ignored_args_note, misspelt_keys_note):
            note = make_note(scenarios, config.scenario_file_path)
            if note is not None:
                SafeConsole(stderr=True).print(
                    f"warning: {note}", markup=False, highlight=False, soft_wrap=True
                )
        if evaluate:
            check_baseline(config, loaded.base_dir)
    except (ConfigError, ScenarioError, UserConfigError) as exc:
        _print_error(console, "config error", exc)
        return RunOutcome(exit_code=EXIT_BAD_CONFIG, error=str(exc), config=config)
    try:
        outcome = asyncio.run(_capture(loaded, scenarios, users, console, show_progress))
    except _AgentLoadFailed as exc:
        _print_error(console, "agent error", exc)
        return RunOutcome(exit_code=EXIT_BAD_CONFIG, error=str(exc), config=config)
    except AgentServerError as exc:  # exit 2 when its command is missing, else 3
        _print_error(console, "agent server error", exc)
        return RunOutcome(exit_code=exc.exit_code, error=str(exc), config=config)
    except CollectorUnavailable as exc:  # one line: the file or port, and the fix
        err = console if console.stderr else make_console(stderr=True)
        err.print(f"tracesim run: {exc}", markup=False, highlight=False, soft_wrap=True)
        return RunOutcome(exit_code=EXIT_BAD_CONFIG, error=str(exc), config=config)
    except KeyboardInterrupt:  # the collector was shut down (drained, committed) on the way out
        db_path = Path(config.resolved_db_path) if config.collector.mode == "embedded" else None
        _print_error(
            console,
            "interrupted",
            RuntimeError(
                "The run was stopped. Everything captured so far is stored"
                + (f" in {db_path}" if db_path else " in the remote collector")
                + "; its unfinished conversations are marked interrupted (an evaluation of "
                "it says so and cannot pass). Score it with `tracesim evaluate --db <file>`."
            ),
        )
        return RunOutcome(
            exit_code=EXIT_INTERRUPTED, error="interrupted", config=config, db_path=db_path
        )
    except Exception as exc:  # an internal failure: report it, exit 3
        console.print_exception()
        return RunOutcome(exit_code=EXIT_INTERNAL, error=f"{type(exc).__name__}: {exc}")
    if evaluate:
        _evaluate(outcome, loaded, console, show_progress, junit_path=junit_path)
    else:
        for line in run_failure_lines(outcome.result):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    if outcome.result is not None and outcome.result.completed_turns == 0:
        outcome.error = (
            f"the run completed no turn ({outcome.result.num_turns} turn(s) sent to the "
            "agent, none answered): nothing was tested"
        )
        first = next((c.error for c in outcome.result.conversations if c.error), None)
        if first:
            outcome.error += f"; first error: {first}"
        _print_error(console, "nothing ran", RuntimeError(outcome.error))
        outcome.exit_code = EXIT_INTERNAL
    missing = outcome.extra.get("missing_conversations")
    if missing:  # after the evaluation, so its gates cannot turn this into a pass
        outcome.error = (
            f"{len(missing)} conversation(s) ran but are missing from {outcome.db_path}, so "
            "the report and the gates do not cover them: " + "; ".join(missing) + ". The "
            "collector's log says why (a refused or oversized export?)."
        )
        _print_error(console, "incomplete capture", RuntimeError(outcome.error))
        outcome.exit_code = EXIT_INTERNAL
    return outcome


def _evaluate(
    outcome: RunOutcome,
    loaded: LoadedConfig,
    console: Console,
    show_progress: bool,
    *,
    junit_path: Path | None = None,
) -> None:
    """Score what was captured; sets the outcome's exit code (1 when a gate failed)."""
    if outcome.exit_code != EXIT_OK or outcome.config is None:
        return
    if outcome.db_path is None:
        console.print(
            "The spans went to a remote collector: stop it, then run "
            "`tracesim evaluate --db <its file> --config <this config>`.",
            highlight=False,
        )
        return
    from tracesim.evaluate_step import evaluate_and_report
    from tracesim.evaluator.scoring.gates import EvalConfigError

    try:
        evaluation = evaluate_and_report(
            outcome.db_path,
            config=outcome.config.evaluation,
            llm=outcome.config.llm,
            run_id=outcome.run_id,
            base_dir=loaded.base_dir,
            output_dir=outcome.output_dir,
            kind="run",
            progress=show_progress,
            console=console,
            junit_path=junit_path,
        )
    except EvalConfigError as exc:
        _print_error(console, "evaluation config error", exc)
        outcome.exit_code = EXIT_BAD_CONFIG
        outcome.error = str(exc)
        return
    except Exception as exc:  # noqa: BLE001 - the capture is safe in DuckDB; say so
        console.print_exception()
        console.print(
            f"Evaluation failed; the captured spans are in {shown(outcome.db_path)}: "
            "re-run `tracesim evaluate --db` on it.",
            highlight=False,
        )
        outcome.exit_code = EXIT_INTERNAL
        outcome.error = f"{type(exc).__name__}: {exc}"
        return
    outcome.exit_code = evaluation.exit_code
    outcome.extra["eval_id"] = evaluation.result.eval_id
    outcome.extra["results_path"] = evaluation.result.results_path
    outcome.extra["report_path"] = evaluation.report_path


def _print_error(console: Console, title: str, exc: BaseException) -> None:
    """An error for the user, on stderr: never wrapped, never read as markup."""
    err = console if console.stderr else make_console(stderr=True)
    err.print(f"[red]{title}[/red]")
    err.print(str(exc), markup=False, highlight=False, soft_wrap=True)


class _AgentLoadFailed(RuntimeError):
    """The agent class could not be loaded (a config problem found after start)."""


async def _capture(
    loaded: LoadedConfig,
    scenarios: list[Scenario],
    users: UserFactory,
    console: Console,
    show_progress: bool,
) -> RunOutcome:
    config = loaded.config
    run_id = uuid.uuid4().hex
    output_dir = Path(config.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    db_path = Path(config.resolved_db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with (
        run_collector(config, db_path) as (collector, endpoint, headers),
        # said beside the file while the run writes it: `tracesim evaluate` then knows
        marking_run(db_path, run_id) if collector is not None else nullcontext(),
    ):
        provider = make_simulator_provider(endpoint, headers=headers)
        agent = agent_under_test(  # a server stops before settling: it flushes on SIGTERM
            config.agent_config,
            base_dir=loaded.base_dir,
            output_dir=output_dir,
            collector=CollectorEndpoints.of(collector, endpoint, headers),
        )
        try:
            with agent as agent_config:
                try:
                    factory = make_connector_factory(agent_config, base_dir=loaded.base_dir)
                except AgentLoadError as exc:
                    raise _AgentLoadFailed(str(exc)) from None
                result = await _simulate(
                    config, scenarios, users, factory, provider, run_id, console, show_progress
                )
        finally:
            provider.force_flush()
            provider.shutdown()
            await users.aclose()
        spans_stored = tool_spans = earlier_runs = None
        missing: list[str] = []
        if config.collector.mode == "otlp" and config.store:
            spans_stored = await asyncio.to_thread(_wait_for_store, config, run_id, result)
        if collector is not None:
            await asyncio.to_thread(
                collector.wait_settled, config.trace_wait.settle, config.trace_wait.wait_timeout
            )
            spans_stored, tool_spans = count_spans(collector, run_id)
            missing = missing_conversations(collector, run_id, result)
            earlier_runs = count_earlier_runs(collector, run_id)
    outcome = RunOutcome(
        exit_code=EXIT_OK,
        run_id=run_id,
        db_path=db_path if collector is not None else _store_of(config),
        output_dir=output_dir,
        config=config,
        result=result,
        spans_stored=spans_stored,
        tool_spans=tool_spans,
    )
    outcome.extra["earlier_runs"] = earlier_runs
    outcome.extra["user_llm_usage"] = user_llm_usage(users.usage, config.llm)
    outcome.summary_path = write_run_summary(outcome, started=started)
    print_run_summary(console, outcome)
    if missing:
        outcome.extra["missing_conversations"] = missing
    return outcome


def _store_of(config: RunConfig) -> Any:
    """The store the run is evaluated from when it has no collector of its own."""
    return config.store if config.collector.mode == "otlp" else None


def _wait_for_store(config: RunConfig, run_id: str, result: Any) -> int | None:
    """Wait until the run's spans landed in `store` (every turn, then no new span for
    `settle` seconds) or `wait_timeout` passed; the spans stored, None when unknown."""
    from tracesim.evaluator.store import StoreError, open_clickhouse

    try:
        with open_clickhouse(config.store or "") as store:
            return store.wait_for_run(
                run_id,
                turns=result.num_turns,
                settle=config.trace_wait.settle,
                timeout=config.trace_wait.wait_timeout,
            )
    except StoreError as exc:
        log.warning("could not watch %s for the run's spans: %s", config.store, exc)
        return None


async def _simulate(
    config: RunConfig,
    scenarios: list[Scenario],
    users: UserFactory,
    factory: Callable[[], AgentConnector],
    provider: Any,
    run_id: str,
    console: Console,
    show_progress: bool,
) -> RunResult:
    progress = RunProgress(console, enabled=show_progress)
    runner = Runner(
        tracer=provider.get_tracer("tracesim.simulator"),
        connector_factory=factory,
        user_factory=users,
        scenarios=scenarios,
        run_id=run_id,
        agent_type=config.agent_config.agent_type,
        max_turns=config.max_turns,
        num_conversations_per_scenario=config.num_conversations_per_scenario,
        num_workers=config.workers_for(
            sum(s.repeats or config.num_conversations_per_scenario for s in scenarios)
        ),
        turn_timeout=agent_timeout(config.agent_config),
        run_config_json=config.model_dump_json(),
        observer=progress,
    )
    with progress.running(runner.total_conversations):
        return await runner.run()
