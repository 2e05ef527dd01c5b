"""The report's summary section: verdict cards, the quality gates, the judges' usage, and
the per-metric and per-tool tables, as escaped HTML.

`section_html` helpers (`e`, `num`, `table`) are shared with the other sections.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

import orjson
from tracesim.evaluator.report.data import ReportData

__all__ = ["card", "e", "num", "summary_html", "table", "tables_html"]


def e(value: Any) -> str:
    return "–" if value is None else escape(str(value))


def num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(headers: Iterable[str], rows: Iterable[Iterable[str]], *, numeric: set[int]) -> str:
    head = "".join(
        f'<th class="num">{e(h)}</th>' if i in numeric else f"<th>{e(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def card(key: str, value: str, cls: str = "") -> str:
    return (
        f'<div class="card {cls}"><div class="v">{value}</div><div class="k">{e(key)}</div></div>'
    )


def summary_html(data: ReportData) -> str:
    """Verdict and count cards, the evaluation's metadata, gates and judges' usage."""
    run, totals = data.run or {}, data.totals
    cards = []
    summary = run.get("summary") if isinstance(run.get("summary"), dict) else {}
    defined = summary.get("gates") if isinstance(summary.get("gates"), list) else None
    gates = run.get("gates_passed")
    if defined:  # a verdict only where gates exist: no gate is never a green "PASSED"
        cards.append(
            card("quality gates", "PASSED" if gates else "FAILED", "pass" if gates else "fail")
        )
    elif run:
        cards.append(card("quality gates", "none", "nogates"))
    cards.append(card("mean final score", num(run.get("final_score"))))
    if run.get("status"):
        cards.append(card("run status", e(run["status"])))
    cards.append(card("conversations", e(totals["conversations"])))
    cards.append(card("turns", e(totals["turns"])))
    errors = totals["tool_errors"]
    cards.append(card(f"tool calls ({errors} errors)", e(totals["tool_calls"])))
    by_source = totals.get("errors_by_source") or {}
    if by_source:  # ungradeable conversations, by whose error (issue 23 item 2)
        sources = ", ".join(f"{k} {v}" for k, v in sorted(by_source.items()))
        cards.append(card(f"turn errors ({sources})", e(sum(by_source.values())), "fail"))
    counts: dict[str, int] = {}
    for _, label, n in data.status_by_scenario:
        counts[label] = counts.get(label, 0) + n
    for label in ("Done", "Partial Failure", "Failed", *sorted(counts)):
        if label in counts:
            cls = {"Done": "pass", "Failed": "fail"}.get(label, "")
            cards.append(card(label, e(counts.pop(label)), cls))
    meta = ", ".join(
        f"{k} <code>{e(run.get(k))}</code>"
        for k in ("eval_id", "run_id", "kind", "started_at", "finished_at", "exit_code")
        if run.get(k) is not None
    )
    others = [e for e in data.evals if e != data.eval_id]
    other_note = (
        f"<p class='muted'>Other evaluations in this file: {e(', '.join(others))} "
        "(<code>tracesim report --eval-id ID</code>).</p>"
        if others
        else ""
    )
    if data.eval_id is None:
        meta = (
            "Not evaluated yet: these are the captured traces. "
            "<code>tracesim evaluate --db FILE</code> derives tool calls and scores them."
        )
    return (
        f'<section id="summary"><h2>Summary</h2><div class="cards">{"".join(cards)}</div>'
        f"<p class='muted'>{meta or 'No run recorded (no row in <code>runs</code>).'}</p>"
        f"{other_note}{_gates(run)}</section>"
    )


def tables_html(data: ReportData) -> str:
    """The per-metric and per-tool tables (every metric and tool, one row each)."""
    body = _metrics_table(data) + _tools_table(data)
    return f'<section id="tables"><h2>Metrics and tools</h2>{body}</section>' if body else ""


def _gates(run: dict[str, Any]) -> str:
    """The gates table and the judges' usage from `runs.summary` (the evaluator's
    `{"summary": ..., "gates": [...], "llm_usage": {...}}`); other shapes as JSON."""
    summary = run.get("summary")
    if not isinstance(summary, dict) or not summary:
        return ""
    out = ""
    gates = summary.get("gates")
    if isinstance(gates, list) and not gates:
        out += (
            "<p class='nogates'><strong>No gates defined</strong>: nothing was checked against "
            "a bound, so this run cannot pass or fail a gate. Add "
            "<code>evaluation.thresholds</code> (e.g. <code>final_score: 0.8</code>) to make "
            "CI fail on a bad score.</p>"
        )
    if isinstance(gates, list) and gates and all(isinstance(g, dict) for g in gates):
        keys = list(dict.fromkeys(k for g in gates for k in g))
        rows = []
        for g in gates:
            row = []
            for k in keys:
                v = g.get(k)
                if k == "passed":
                    cls, text = {True: ("pass", "passed"), False: ("fail", "failed")}.get(
                        v, ("notgraded", "skipped")
                    )
                    row.append(f'<span class="badge {cls}">{text}</span>')
                elif isinstance(v, float):
                    row.append(num(v, 3))
                else:
                    row.append(e(v))
            rows.append(row)
        out += "<h3>Quality gates</h3>" + table(keys, rows, numeric=set())
    usage = summary.get("llm_usage")
    if isinstance(usage, dict) and usage:
        out += f"<p class='muted judges'>{_usage_line(usage)}</p>"
    if not out:
        text = orjson.dumps(summary, option=orjson.OPT_INDENT_2, default=str).decode()
        out = f"<h3>Run summary</h3><pre>{escape(text)}</pre>"
    return out


def _usage_line(usage: dict[str, Any]) -> str:
    """The judges' usage in one sentence (never a dump of the record's fields)."""
    if not usage.get("enabled"):
        reason = usage.get("reason") or "not configured"
        return f"LLM judges not run: {e(reason)}"
    cost = usage.get("cost_usd")
    return (
        f"LLM judges ({e(usage.get('model'))}): {e(usage.get('requests', 0))} request(s), "
        f"{e(usage.get('cached', 0))} cached, {e(usage.get('failed', 0))} failed, "
        f"{e(usage.get('input_tokens', 0))} + {e(usage.get('output_tokens', 0))} tokens"
        + (
            ", cost unknown (no price for the judge model)"
            if usage.get("priced") is False
            else (f", ${cost:.4f}" if isinstance(cost, (int, float)) and cost else "")
        )
    )


def _metrics_table(data: ReportData) -> str:
    if data.eval_id is None:  # the summary says it is not evaluated yet
        return ""
    if not data.metrics:
        return "<p class='muted'>No scores for this evaluation.</p>"
    never = [m for m in data.metrics if m.never_run]
    shown = [m for m in data.metrics if not m.never_run]
    rows = [
        [
            f"<code>{e(m.metric)}</code>",
            e(m.level),
            num(m.mean, 3),
            f"{m.graded} / {m.total}",
            e(m.passed),
            e(m.failed),
            e(m.total - m.graded) if m.total > m.graded else "0",
        ]
        for m in shown
    ]
    headers = ["metric", "level", "mean", "graded", "passed", "failed", "not graded"]
    note = ""
    if never:  # judges with no model: one line, not a row each
        names = ", ".join(f"<code>{e(m.metric)}</code>" for m in never)
        note = (
            f"<p class='muted notrun'>{len(never)} metric(s) not run, so not graded "
            f"(never counted as 0): {names}.</p>"
        )
    return "<h3>Metrics</h3>" + table(headers, rows, numeric={2, 3, 4, 5, 6}) + note


def _tools_table(data: ReportData) -> str:
    if not data.tools:
        return ""
    rows = [
        [
            f"<code>{e(t['name'])}</code>",
            e(t["calls"]),
            e(t["explicit"]),
            e(t["traced"]),
            e(t["both"]),
            e(t["errors"]),
            num(t["errors"] / t["calls"] if t["calls"] else None, 3),
            num(t["p50_ms"], 0),
            num(t["p95_ms"], 0),
        ]
        for t in data.tools
    ]
    headers = [
        "tool",
        "calls",
        "explicit",
        "traced",
        "both",
        "errors",
        "error rate",
        "p50 ms",
        "p95 ms",
    ]
    return "<h3>Tools</h3>" + table(headers, rows, numeric=set(range(1, 9)))
