"""What the terminal and a CI log show: stored text verbatim, no wrapping, rounded floats."""

from __future__ import annotations

import io
from datetime import datetime
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from rich.console import Console
from tracesim.evaluator.llm.llm_client import LLMUsage
from tracesim.evaluator.output.results_model import ConversationResult, EvaluationReport, RunSummary
from tracesim.evaluator.output.summary import print_summary

from tracesim.cli import cli
from tracesim.console import make_console

MARKUP = "[/INST] ends :x: and [bold]bold[/bold] [link=http://e]l[/link]"
LONG = "money-back-phrasing-" + "x" * 180


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "t.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE notes (v VARCHAR, f DOUBLE)")
    con.execute(
        "INSERT INTO notes VALUES (?, 0.1::DOUBLE + 0.2::DOUBLE), (?, 1234.567890123)",
        [MARKUP, LONG],
    )
    con.close()
    return path


def _sql(*args: str):
    return CliRunner().invoke(cli, ["sql", *args])


def test_sql_prints_stored_markup_and_emoji_codes_verbatim(db: Path) -> None:
    result = _sql("SELECT v FROM notes", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert MARKUP in result.output  # no MarkupError, no emoji, [bold] kept
    assert "\N{CROSS MARK}" not in result.output


def test_piped_sql_output_is_not_wrapped_or_cut_or_coloured(db: Path) -> None:
    result = _sql("SELECT v FROM notes", "--db", str(db))
    lines = [line for line in result.output.splitlines() if LONG in line]
    assert len(lines) == 1  # the whole value on one line
    assert "…" not in result.output and "\x1b[" not in result.output


def test_sql_table_rounds_floats_but_csv_keeps_them(db: Path) -> None:
    table = _sql("SELECT f FROM notes ORDER BY f", "--db", str(db)).output
    assert " 0.3 " in table and "1234.5679" in table and "0.30000000000000004" not in table
    csv = _sql("SELECT f FROM notes ORDER BY f", "--db", str(db), "--format", "csv").output
    assert "0.30000000000000004" in csv and "1234.567890123" in csv


def _report(scenario: str, *, gates: bool = False) -> EvaluationReport:
    summary = RunSummary(
        num_conversations=1,
        num_turns=1,
        num_tool_calls=0,
        mean_final_score=0.0,
        status="Failed",
        status_counts={"Failed": 1},
        turn_success_ratio=0.0,
        assertions_passed=0,
        assertions_total=1,
        metric_means={},
        metric_graded={},
    )
    conversation = ConversationResult(
        chat_id="chat-[red]1[/red]",
        run_id="r",
        scenario_id=scenario,
        num_turns=1,
        num_tool_calls=0,
        final_score=0.0,
        status="Failed",
        turn_success_ratio=0.0,
        goal_completion=None,
        assertions_passed=0,
        assertions_total=1,
        reason="",
    )
    return EvaluationReport(
        eval_id="e",
        run_id="r",
        kind="run",
        created_at=datetime(2026, 1, 1),
        db_path="x",
        config={},
        summary=summary,
        gates=[],
        gates_passed=True,
        exit_code=0,
        llm_usage=LLMUsage(reason="no API key: set OPENAI_API_KEY"),
        conversations=[conversation],
    )


def test_run_summary_shows_scenario_ids_whole_and_verbatim_when_piped() -> None:
    out = io.StringIO()
    console = make_console(file=out)  # a file, as in a CI log
    print_summary(_report(LONG + MARKUP), console=console)
    text = out.getvalue()
    assert LONG + MARKUP in text and "chat-[red]1[/red]" in text
    assert "\x1b[" not in text


def test_no_gate_is_never_reported_as_passed() -> None:
    out = io.StringIO()
    print_summary(_report("s"), console=Console(file=out, width=200))
    text = out.getvalue()
    assert "no gates defined" in text and "gates passed" not in text


def test_a_terminal_console_keeps_its_width_and_has_no_highlighting() -> None:
    console = make_console(force_terminal=True, width=90)
    assert console.width == 90 and console.is_terminal
    assert make_console(file=io.StringIO()).width >= 1000
    assert console._highlight is False and console._emoji is False


def test_a_narrow_terminal_cuts_chat_ids_before_scenario_ids() -> None:
    out = io.StringIO()
    report = _report("money-back-phrasing")
    report.conversations[0].chat_id = "4a6674c2913d4c37afa031eaa1e0497d"
    print_summary(report, console=Console(file=out, force_terminal=True, width=100))
    text = out.getvalue()
    assert "money-back-phrasing" in text and "money-ba…" not in text


def test_the_summary_shows_the_agents_usage_and_the_trials() -> None:
    from tracesim.evaluator.stats import roll_up, scenario_trials

    scenarios = [
        scenario_trials("refund", [True, False, True, True]),
        scenario_trials("status", [True, True, True, True]),
    ]
    report = _report("refund").model_copy(
        update={
            "scenarios": scenarios,
            "trials": roll_up(scenarios),
            "agent_usage": {
                "conversations": 8,
                "input_tokens": 1200,
                "output_tokens": 300,
                "cost_usd": None,
                "unpriced_conversations": 8,
            },
        }
    )
    out = io.StringIO()
    print_summary(report, console=Console(file=out, width=200))
    text = out.getvalue()
    assert "agent: 1200+300 tokens over 8 conversation(s)" in text
    assert "8 with a model of unknown price: evaluation.prices" in text
    # 7/8 passed; pass^4 = (C(3,4)/C(4,4) + 1) / 2 = 0.5.
    assert "trials: 7/8 passed over 2 scenario(s), pass rate 88%" in text
    # the interval is clustered by scenario: two scenarios that differ say little about the
    # agent (Wilson over the 8 trials as if independent would print 53%-98%)
    assert "pass rate 88% (95% CI 3%-100%)" in text
    assert "pass^4 0.50; flaky: refund" in text
