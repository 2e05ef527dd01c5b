"""The terminal summary of an evaluation: a rich table per conversation (or per
scenario when there are many), then the gates and the judges' usage."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text
from tracesim.evaluator.output.results_model import ConversationResult, EvaluationReport
from tracesim.evaluator.scoring.scoring import (
    STATUS_DONE,
    STATUS_ERROR,
    STATUS_FAILED,
    STATUS_INTERRUPTED,
    STATUS_PARTIAL,
)
from tracesim.schemas.terminal_text import SafeConsole

__all__ = ["MAX_CONVERSATION_ROWS", "gate_verdict", "print_summary"]

MAX_CONVERSATION_ROWS = 30
"""Above this many conversations the table shows one row per scenario."""
MAX_SCENARIO_ROWS = 15
"""Scenarios shown, worst first; the rest are counted in one line (the report lists all)."""
_RANK = {STATUS_FAILED: 0, STATUS_PARTIAL: 2, STATUS_DONE: 3}
"""Worst first: Failed, then any other (not graded, error), then Partial Failure, then Done."""


def _worst_first(conv: ConversationResult) -> tuple[int, float]:
    score = conv.final_score if conv.final_score is not None else -1.0
    return (_RANK.get(conv.status, 1), score)


_STYLE = {
    STATUS_DONE: "green",
    STATUS_PARTIAL: "yellow",
    STATUS_FAILED: "red",
    STATUS_ERROR: "red",
    STATUS_INTERRUPTED: "red",
}
_TONE = {"ok": "green", "warn": "yellow", "fail": "red"}


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _status(status: str) -> Text:
    return Text(status, style=_STYLE.get(status, ""))


def _text(value: object) -> Text:
    """Stored text (scenario ids, chat ids) shown verbatim, never read as markup."""
    return Text("-" if value is None or value == "" else str(value))


def _per_conversation(conversations: list[ConversationResult], *, terminal: bool) -> Table:
    """One row per conversation; on a narrow terminal chat ids give way, scenario ids wrap
    (never `money-ba…`); piped output (a CI log) shows both whole."""
    table = Table(title="Conversations", title_justify="left")
    for column in (
        "scenario",
        "chat",
        "turns",
        "tool calls",
        "assertions",
        "final score",
        "status",
    ):
        table.add_column(  # scenario ids keep their width (chat ids give way): never `money-ba…`
            column,
            justify="right" if column in ("turns", "tool calls", "final score") else "left",
            overflow="fold" if column == "scenario" else "ellipsis",
            max_width=14 if column == "chat" and terminal else None,
        )
    for conv in sorted(conversations, key=_worst_first):
        table.add_row(
            _text(conv.scenario_id),
            _text(conv.chat_id),
            str(conv.num_turns),
            str(conv.num_tool_calls),
            f"{conv.assertions_passed}/{conv.assertions_total}" if conv.assertions_total else "-",
            _score(conv.final_score),
            _status(conv.status),
        )
    return table


def _per_scenario(conversations: list[ConversationResult]) -> Table:
    """One row per scenario, worst first (most Failed, then most not Done, then lowest mean),
    at most `MAX_SCENARIO_ROWS`; a caption counts the rest."""
    groups: dict[str, list[ConversationResult]] = defaultdict(list)
    for conv in conversations:
        groups[conv.scenario_id or "-"].append(conv)
    table = Table(title="Scenarios, worst first", title_justify="left")
    for column in (
        "scenario",
        "conversations",
        "turns",
        "tool calls",
        "assertions",
        "mean score",
        "done/partial/failed",
    ):
        table.add_column(column, overflow="fold")
    rows = []
    for scenario, convs in groups.items():
        finals = [c.final_score for c in convs if c.final_score is not None]
        counts = [
            sum(1 for c in convs if c.status == s)
            for s in (STATUS_DONE, STATUS_PARTIAL, STATUS_FAILED)
        ]
        mean = sum(finals) / len(finals) if finals else None
        rank = (-counts[2], -(len(convs) - counts[0]), mean if mean is not None else -1.0, scenario)
        rows.append((rank, scenario, convs, mean, counts))
    rows.sort(key=lambda r: r[0])
    for _, scenario, convs, mean, counts in rows[:MAX_SCENARIO_ROWS]:
        passed = sum(c.assertions_passed for c in convs)
        total = sum(c.assertions_total for c in convs)
        table.add_row(
            _text(scenario),
            str(len(convs)),
            str(sum(c.num_turns for c in convs)),
            str(sum(c.num_tool_calls for c in convs)),
            f"{passed}/{total}" if total else "-",
            _score(mean),
            "/".join(map(str, counts)),
        )
    rest = rows[MAX_SCENARIO_ROWS:]
    if rest:
        not_done = sum(1 for r in rest if r[4][0] < len(r[2]))
        table.caption = (
            f"and {len(rest)} more scenario(s), {not_done} of them not all Done "
            "(every scenario: report.html or results.json)"
        )
        table.caption_justify = "left"
    return table


def print_summary(
    report: EvaluationReport, *, console: Console | None = None, failures: Sequence[str] = ()
) -> None:
    """Print the summary table, the gates, the judges' usage, `failures` (the failing
    conversations with their first reason, worst first) and the verdict line."""
    console = console or SafeConsole(highlight=False, emoji=False)
    convs = report.conversations
    console.print(
        _per_conversation(convs, terminal=console.is_terminal)
        if len(convs) <= MAX_CONVERSATION_ROWS
        else _per_scenario(convs)
    )
    s = report.summary
    console.print(
        Text.assemble(
            f"{s.num_conversations} conversation(s), {s.num_turns} turn(s), "
            f"{s.num_tool_calls} tool call(s); assertions {s.assertions_passed}/"
            f"{s.assertions_total}; mean final score {_score(s.mean_final_score)} (",
            _status(s.status),
            ")",
        )
    )
    means = metric_means_line(report)
    if means:
        console.print(Text(means), soft_wrap=True)
    if report.gates:
        gates = Table(title="Gates", title_justify="left")
        for column in ("metric", "bound", "observed", "result"):
            gates.add_column(column)
        for gate in report.gates:
            verdict = {
                True: Text("pass", style="green"),
                False: Text("FAIL", style="red"),
                None: Text("skipped"),
            }[gate.passed]
            word = ">=" if gate.bound == "min" else "<="
            gates.add_row(
                _text(gate.metric),
                f"{word} {gate.threshold:g} ({gate.scope})",
                _score(gate.observed),
                verdict,
            )
        console.print(gates)
    usage = report.llm_usage
    if usage.enabled:
        console.print(
            Text(
                f"judges ({usage.model}): {usage.requests} request(s), {usage.cached} cached, "
                f"{usage.failed} failed, {usage.input_tokens}+{usage.output_tokens} tokens, "
                + (
                    f"${usage.cost_usd:.4f}"
                    if usage.priced
                    else "cost unknown (set llm.input_cost_per_mtok and llm.output_cost_per_mtok)"
                )
            )
        )
    elif usage.reason:
        console.print(Text(f"judges not run: {usage.reason}", style="dim"))
    for line in trial_lines(report):
        console.print(Text(line))
    for line in failures:
        console.print(Text(line), soft_wrap=True)
    console.print(
        Text.assemble(
            gate_verdict(report), f" (exit code {report.exit_code}); eval_id {report.eval_id}"
        ),
        soft_wrap=True,
    )


_SHOWN_ELSEWHERE = frozenset({"final_score", "turn_success", "turn_success_ratio"})
_COUNTS = (
    "agent_input_tokens",
    "agent_output_tokens",
    "agent_tokens",
    "agent_cost_usd",
    "run_agent_",
    "num_",
)  # tokens, cost and counts: not 0..1 scores


def metric_means_line(report: EvaluationReport) -> str | None:
    """`metric means: coherence 0.75, goal_completion 1.00, ...`: every graded metric's mean
    (judges, checks, custom metrics), as arksim prints per-metric scores; None when none."""
    means = {
        name: value
        for name, value in report.summary.metric_means.items()
        if value is not None and name not in _SHOWN_ELSEWHERE and not name.startswith(_COUNTS)
    }
    if not means:
        return None
    shown = ", ".join(f"{name} {value:.2f}" for name, value in sorted(means.items()))
    return f"metric means: {shown} (graded values only; per conversation in the report)"


def trial_lines(report: EvaluationReport) -> list[str]:
    """The agent's usage, and the trials when a scenario ran more than once (else none)."""
    lines = []
    agent = report.agent_usage
    if agent.get("conversations"):
        cost = agent.get("cost_usd")
        unpriced = agent.get("unpriced_conversations") or 0
        lines.append(
            f"agent: {agent.get('input_tokens')}+{agent.get('output_tokens')} tokens over "
            f"{agent.get('conversations')} conversation(s)"
            + (f", ${cost:.4f}" if cost is not None else "")
            + (
                f" ({unpriced} with a model of unknown price: evaluation.prices)"
                if unpriced
                else ""
            )
        )
    t = report.trials
    if t.trials and any(s.trials > 1 for s in report.scenarios):
        ci = t.pass_rate_ci or [0.0, 0.0]
        k = max(t.pass_hat_k) if t.pass_hat_k else 0
        lines.append(
            f"trials: {t.passed}/{t.trials} passed over {t.scenarios} scenario(s), pass rate "
            f"{t.pass_rate:.0%} (95% CI {ci[0]:.0%}-{ci[1]:.0%})"
            + (f", pass^{k} {t.pass_hat_k[k]:.2f}" if k else "")
            + (f"; flaky: {', '.join(t.flaky_scenarios)}" if t.flaky_scenarios else "")
        )
    return lines


def gate_verdict(report: EvaluationReport) -> Text:
    """The verdict line (`evaluator.scoring.verdict`): `gates passed` (green), `a gate
    failed: ...`, `nothing graded: ...`, `no gates defined` (never green without a gate)."""
    if report.verdict:
        tone = "ok" if report.exit_code == 0 else "fail"
        if tone == "ok" and (not report.gates) and report.verdict != "no gates defined":
            tone = "warn"
        style = _TONE[tone] if report.gates or tone != "ok" else ""
        return Text(report.verdict, style=style)
    if not report.gates:
        counts = report.summary.status_counts
        failed = counts.get(STATUS_FAILED, 0) + counts.get(STATUS_PARTIAL, 0)
        if not failed:
            return Text("no gates defined")
        return Text(
            f"no gates defined: {failed} conversation(s) did not pass, and nothing sets the "
            "exit code (add evaluation.thresholds, e.g. final_score: 0.8)",
            style="yellow",
        )
    if report.gates_passed:
        return Text("gates passed", style="green")
    return Text("a gate failed", style="red")
