"""Assemble the report page: summary and failures as escaped HTML, the rest as embedded data.

The page is one file, written in order to a text stream: the CSS, the
summary, plotly.js (once), the chart figures and the conversation index as
JSON, then one compressed block per conversation as `details.py` yields it
(decompressed only when opened), then the script. Every string from the
database is HTML-escaped here or handed to the page through `embed.py`, so
agent text cannot close a script block or inject markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any, TextIO
from urllib.parse import quote

import orjson
from tracesim.evaluator.report.aggregate import MAX_FAILURE_ITEMS
from tracesim.evaluator.report.app_js import APP_JS
from tracesim.evaluator.report.assets import CSS
from tracesim.evaluator.report.charts import Chart
from tracesim.evaluator.report.data import ReportData
from tracesim.evaluator.report.embed import gzip_script, json_script
from tracesim.evaluator.report.methodology import methodology_html

__all__ = ["write_page"]


def _e(value: Any) -> str:
    return "–" if value is None else escape(str(value))


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _table(headers: Iterable[str], rows: Iterable[Iterable[str]], *, numeric: set[int]) -> str:
    head = "".join(
        f'<th class="num">{_e(h)}</th>' if i in numeric else f"<th>{_e(h)}</th>"
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


def _card(key: str, value: str, cls: str = "") -> str:
    return (
        f'<div class="card {cls}"><div class="v">{value}</div><div class="k">{_e(key)}</div></div>'
    )


def _summary(data: ReportData) -> str:
    run, totals = data.run or {}, data.totals
    cards = []
    summary = run.get("summary") if isinstance(run.get("summary"), dict) else {}
    defined = summary.get("gates") if isinstance(summary.get("gates"), list) else None
    gates = run.get("gates_passed")
    if defined:  # a verdict only where gates exist: no gate is never a green "PASSED"
        cards.append(
            _card("quality gates", "PASSED" if gates else "FAILED", "pass" if gates else "fail")
        )
    elif run:
        cards.append(_card("quality gates", "none", "nogates"))
    cards.append(_card("mean final score", _num(run.get("final_score"))))
    if run.get("status"):
        cards.append(_card("run status", _e(run["status"])))
    cards.append(_card("conversations", _e(totals["conversations"])))
    cards.append(_card("turns", _e(totals["turns"])))
    errors = totals["tool_errors"]
    cards.append(_card(f"tool calls ({errors} errors)", _e(totals["tool_calls"])))
    counts: dict[str, int] = {}
    for _, label, n in data.status_by_scenario:
        counts[label] = counts.get(label, 0) + n
    for label in ("Done", "Partial Failure", "Failed", *sorted(counts)):
        if label in counts:
            cls = {"Done": "pass", "Failed": "fail"}.get(label, "")
            cards.append(_card(label, _e(counts.pop(label)), cls))
    meta = ", ".join(
        f"{k} <code>{_e(run.get(k))}</code>"
        for k in ("eval_id", "run_id", "kind", "started_at", "finished_at", "exit_code")
        if run.get(k) is not None
    )
    others = [e for e in data.evals if e != data.eval_id]
    other_note = (
        f"<p class='muted'>Other evaluations in this file: {_e(', '.join(others))} "
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
        f"{other_note}{_gates(run)}{_unexplained(run)}{_metrics_table(data)}"
        f"{_tools_table(data)}</section>"
    )


def _unexplained(run: dict[str, Any]) -> str:
    """Tool evidence that did not become a call (`runs.summary.unexplained_evidence`, SPEC
    §5): a short list of counts, and where to see the items."""
    from tracesim.evaluator.extract.audit import KINDS

    summary = run.get("summary")
    counts = summary.get("unexplained_evidence") if isinstance(summary, dict) else None
    if not isinstance(counts, dict) or not counts:
        return ""
    items = "".join(
        f"<li>{_e(counts[kind])} {_e(what)}</li>"
        for kind, what in KINDS.items()
        if isinstance(counts.get(kind), int) and counts[kind]
    )
    return (
        "<div id='unexplained'><h3>Tool evidence that did not become a call</h3>"
        f"<ul>{items}</ul><p class='muted'>The tool calls scored may be incomplete: "
        "<code>tracesim inspect --db FILE</code> lists each piece.</p></div>"
    )


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
                    row.append(_num(v, 3))
                else:
                    row.append(_e(v))
            rows.append(row)
        out += "<h3>Quality gates</h3>" + _table(keys, rows, numeric=set())
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
        return f"LLM judges not run: {_e(reason)}"
    cost = usage.get("cost_usd")
    return (
        f"LLM judges ({_e(usage.get('model'))}): {_e(usage.get('requests', 0))} request(s), "
        f"{_e(usage.get('cached', 0))} cached, {_e(usage.get('failed', 0))} failed, "
        f"{_e(usage.get('input_tokens', 0))} + {_e(usage.get('output_tokens', 0))} tokens"
        + (f", ${cost:.4f}" if isinstance(cost, (int, float)) and cost else "")
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
            f"<code>{_e(m.metric)}</code>",
            _e(m.level),
            _num(m.mean, 3),
            f"{m.graded} / {m.total}",
            _e(m.passed),
            _e(m.failed),
            _e(m.total - m.graded) if m.total > m.graded else "0",
        ]
        for m in shown
    ]
    headers = ["metric", "level", "mean", "graded", "passed", "failed", "not graded"]
    note = ""
    if never:  # judges with no model: one line, not a row each
        names = ", ".join(f"<code>{_e(m.metric)}</code>" for m in never)
        note = (
            f"<p class='muted notrun'>{len(never)} metric(s) not run, so not graded "
            f"(never counted as 0): {names}.</p>"
        )
    return "<h3>Metrics</h3>" + _table(headers, rows, numeric={2, 3, 4, 5, 6}) + note


def _tools_table(data: ReportData) -> str:
    if not data.tools:
        return ""
    rows = [
        [
            f"<code>{_e(t['name'])}</code>",
            _e(t["calls"]),
            _e(t["explicit"]),
            _e(t["traced"]),
            _e(t["both"]),
            _e(t["errors"]),
            _num(t["errors"] / t["calls"] if t["calls"] else None, 3),
            _num(t["p50_ms"], 0),
            _num(t["p95_ms"], 0),
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
    return "<h3>Tools</h3>" + _table(headers, rows, numeric=set(range(1, 9)))


def _charts(charts: list[Chart]) -> str:
    if not charts:
        return ""
    panels = "".join(
        f'<div class="panel"><div id="{escape(c.id)}" class="chart"></div>'
        f'<p class="caption">{escape(c.caption)}</p></div>'
        for c in charts
    )
    return (
        f'<section id="charts"><h2>Metrics and tools</h2><div class="grid">{panels}</div></section>'
    )


_OPEN_UP_TO = 30
"""Failure groups are shown open (reasons visible) when they list at most this many items."""


def _failures(data: ReportData) -> str:
    total_items = sum(len(f.items) for labels in data.failures.values() for f in labels.values())
    groups = []
    for group, labels in data.failures.items():
        if not labels:
            continue
        parts = []
        for label, failing in labels.items():
            lis = "".join(
                f'<li><a href="#conv={escape(quote(str(it["chat_id"]), safe=""))}">'
                f"{_e(it['chat_id'])}</a>"
                + (f" turn {_e(it['turn_id'])}" if it["turn_id"] is not None else "")
                + (f" <span class='muted'>[{_e(it['scenario'])}]</span>" if it["scenario"] else "")
                + (
                    f" <span class='sev {_e(it['severity'])}'>{_e(it['severity'])}</span>"
                    if it.get("severity")
                    else ""
                )
                + (f" <span class='reason'>{_e(it['reason'])}</span>" if it["reason"] else "")
                + "</li>"
                for it in failing.items[:MAX_FAILURE_ITEMS]
            )
            tag = f"{group}: {label}"
            more = (
                f"<li><a href='#conversations' data-tag=\"{escape(tag)}\">show all "
                f"{failing.count} in the conversation list</a></li>"
                if failing.count > len(failing.items[:MAX_FAILURE_ITEMS])
                else ""
            )
            opened = " open" if total_items <= _OPEN_UP_TO else ""
            parts.append(
                f'<details class="group"{opened}><summary>{_e(label)} '
                f'<span class="badge">{failing.count}</span></summary>'
                f'<ul class="items">{lis}{more}</ul></details>'
            )
        groups.append(f"<h3>{_e(group)}</h3><div class='groupgrid'>{''.join(parts)}</div>")
    empty = (
        "No failures in this evaluation."
        if data.eval_id is not None
        else "Not evaluated yet: run <code>tracesim evaluate</code> to check the tool calls."
    )
    body = "".join(groups) or f"<p class='muted'>{empty}</p>"
    return f'<section id="failures"><h2>Failures</h2>{body}</section>'


_CONVERSATIONS = """
<section id="conversations"><h2>Conversations</h2>
<div class="filters">
  <input id="f-search" type="search" placeholder="search chat id or scenario">
  <select id="f-scenario"><option value="">all scenarios</option></select>
  <select id="f-label"><option value="">all statuses</option></select>
  <select id="f-tag"><option value="">all failures</option></select>
</div>
<table><thead><tr><th>chat id</th><th>scenario</th><th>final status</th>
<th class="num">final score</th><th class="num">turns</th><th class="num">tool calls</th>
<th class="num">tool errors</th><th>simulator status</th><th>failures</th></tr></thead>
<tbody id="conv-rows"></tbody></table>
<div class="pager"><button id="prev">&larr; prev</button><button id="next">next &rarr;</button>
<span id="conv-count"></span></div>
<div id="conversation"><p class="muted">Open a conversation to see its transcript, tool calls
and span waterfalls.</p></div>
</section>
"""


def _compact_index(rows: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The distinct failure tags, and the index rows with each tag as its position there
    (a 10,000-conversation list repeats a few dozen tags ~100,000 times)."""
    positions: dict[str, int] = {}
    compact = [
        {**row, "tags": [positions.setdefault(t, len(positions)) for t in row["tags"]]}
        for row in rows
    ]
    return list(positions), compact


def write_page(
    out: TextIO,
    data: ReportData,
    charts: list[Chart],
    *,
    plotly_js: str,
    details: Iterable[tuple[int, dict[str, Any]]],
) -> None:
    """Write the complete report page to `out`, one conversation block at a time.

    `details` yields (position in `data.conversations`, details); each is
    compressed into block `conv-<position>` as it arrives and then dropped.
    """
    title = f"tracesim report: {data.eval_id or 'no evaluation'}"
    chart_specs = [{"id": c.id, "figure": c.figure_json} for c in charts]
    out.write(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<link rel='icon' href='data:,'><title>{escape(title)}</title>"
        f"<style>{CSS}</style></head><body>"
        f"<header class='top'><h1>{escape(title)}</h1><span class='meta'>"
        f"{_e(data.db_path)} · generated {_e(data.generated_at)}</span></header>"
        "<nav class='sections'><a href='#summary'>Summary</a><a href='#charts'>Charts</a>"
        "<a href='#failures'>Failures</a><a href='#conversations'>Conversations</a>"
        "<a href='#methodology'>How scores are computed</a></nav>"
        f"<main>{_summary(data)}{_charts(charts)}{_failures(data)}{_CONVERSATIONS}"
        f"{methodology_html((data.run or {}).get('config'), data.metrics)}</main>"
    )
    out.write(f"<script>{plotly_js}</script>")
    tags, index = _compact_index(data.conversations)
    out.write(json_script("report-tags", tags))
    out.write(json_script("report-index", index))
    out.write(json_script("report-charts", chart_specs))
    out.write("\n")
    for position, detail in details:
        out.write(gzip_script(f"conv-{position}", detail))
        out.write("\n")
    out.write(f"<script>{APP_JS}</script></body></html>\n")
