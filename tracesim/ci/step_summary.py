"""The Markdown summary GitHub Actions shows on a job's page (`$GITHUB_STEP_SUMMARY`).

Appended to the file the variable names (GitHub's contract: several steps
may write to it): the verdict, the run's numbers, the gates, and the
failing conversations with the checks that failed and why. Every value from
the database is escaped so that it cannot break the table or add markup.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tracesim.ci.failures import worst_first
from tracesim.ci.outcomes import ConversationOutcome, describe_details
from tracesim.ci.trials_summary import trials_markdown

__all__ = [
    "MAX_LISTED",
    "STEP_SUMMARY_ENV",
    "headline",
    "step_summary_markdown",
    "write_step_summary",
]

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
MAX_LISTED = 50
"""Failing conversations listed; the rest are counted."""


def _md(value: Any) -> str:
    """A table cell: pipes, backticks, angle brackets and newlines neutralised."""
    text = "–" if value is None else str(value)
    for old, new in (("\\", "\\\\"), ("|", "\\|"), ("`", "'"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(old, new)
    return " ".join(text.split())


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def step_summary_markdown(
    report: Any, outcomes: list[ConversationOutcome], *, report_path: Path | None = None
) -> str:
    """The Markdown text for one evaluation (`report`: the evaluator's EvaluationReport)."""
    s = report.summary
    failed = worst_first(outcomes)
    verdict, icon = headline(report, failed)
    lines = [
        f"## {icon} tracesim: {_md(verdict)} (exit code {report.exit_code})",
        "",
        "| conversations | turns | tool calls | assertions | mean final score | status |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {s.num_conversations} | {s.num_turns} | {s.num_tool_calls} | "
        f"{s.assertions_passed}/{s.assertions_total} | {_score(s.mean_final_score)} | "
        f"{_md(s.status)} |",
        "",
    ]
    if report.gates:
        lines += ["| gate | bound | observed | result |", "|---|---|---:|---|"]
        for gate in report.gates:
            word = ">=" if gate.bound == "min" else "<="
            result = {True: "pass", False: "**FAIL**", None: "skipped"}[gate.passed]
            lines.append(
                f"| {_md(gate.metric)} | {word} {gate.threshold:g} ({gate.scope}) | "
                f"{_score(gate.observed)} | {result} |"
            )
        lines.append("")
    lines += trials_markdown(report)
    if failed:
        lines += [
            f"### Failing conversations ({len(failed)}, worst first)",
            "",
            "| conversation | status | why |",
            "|---|---|---|",
        ]
        for outcome in failed[:MAX_LISTED]:
            why = [outcome.message()]
            for check in outcome.failed:
                why.extend(describe_details(check.details))
            lines.append(
                f"| {_md(outcome.name)} | {_md(outcome.status or outcome.verdict)} | "
                + "<br>".join(_md(w) for w in why)
                + " |"
            )
        if len(failed) > MAX_LISTED:
            lines.append(f"\n…and {len(failed) - MAX_LISTED} more (see the report).")
        lines.append("")
    usage = report.llm_usage
    if not usage.enabled and usage.reason:
        lines.append(f"LLM judges not run: {_md(usage.reason)}")
        lines.append("")
    lines.append(
        f"eval_id `{report.eval_id}`" + (f", report `{report_path}`" if report_path else "")
    )
    return "\n".join(lines) + "\n"


def headline(report: Any, failed: list[ConversationOutcome]) -> tuple[str, str]:
    """(the verdict line the terminal prints, its icon)."""
    verdict = getattr(report, "verdict", "") or ""
    if not verdict:  # a report written before verdicts existed: decide it now
        from tracesim.evaluator.pipeline.pipeline import verdict_of

        verdict = verdict_of(report.gates, report.summary).headline
    if report.exit_code != 0:
        return verdict, "❌"
    if not report.gates:
        return verdict, "⚠️" if failed else "ℹ️"
    return verdict, "✅"


def write_step_summary(
    report: Any, outcomes: list[ConversationOutcome], *, report_path: Path | None = None
) -> Path | None:
    """Append the summary to `$GITHUB_STEP_SUMMARY` when it is set; its path, else None."""
    target = os.environ.get(STEP_SUMMARY_ENV)
    if not target:
        return None
    path = Path(target)
    with path.open("a", encoding="utf-8") as out:
        out.write(step_summary_markdown(report, outcomes, report_path=report_path))
    return path
