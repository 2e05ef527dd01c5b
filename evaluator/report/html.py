"""Assemble the report page: summary and failures as escaped HTML, the rest as embedded data.

The page is one file, written in order to a text stream: the CSS, the
summary, plotly.js (once), the chart figures and the conversation index as
JSON, then one compressed block per conversation as `details.py` yields it
(decompressed only when opened), then the script. Every string from the
database is HTML-escaped here or handed to the page through `embed.py`, so
agent text cannot close a script block or inject markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import escape
from typing import Any, TextIO

from tracesim.evaluator.report.app_js import APP_JS
from tracesim.evaluator.report.assets import CSS
from tracesim.evaluator.report.charts import Chart
from tracesim.evaluator.report.data import ReportData
from tracesim.evaluator.report.embed import gzip_script, json_script
from tracesim.evaluator.report.evidence import evidence_section
from tracesim.evaluator.report.failures import failures_html
from tracesim.evaluator.report.methodology import methodology_html
from tracesim.evaluator.report.summary_html import e, summary_html, tables_html
from tracesim.evaluator.report.trials import trials_section

__all__ = ["SECTIONS", "Section", "write_page"]


@dataclass(frozen=True)
class Section:
    """One part of the page: its anchor, its link in the top bar, and its HTML.

    `render(data, charts)` returns the whole `<section id=...>` ("" to leave it out).
    Adding a part of the report is adding a `Section` to `SECTIONS` where it belongs.
    """

    id: str
    nav: str
    render: Callable[[ReportData, list[Chart]], str]


def _charts(charts: list[Chart]) -> str:
    if not charts:
        return ""
    panels = "".join(
        f'<div class="panel"><div id="{escape(c.id)}" class="chart"></div>'
        f'<p class="caption">{escape(c.caption)}</p></div>'
        for c in charts
    )
    return f'<section id="charts"><h2>Charts</h2><div class="grid">{panels}</div></section>'


_CONVERSATIONS = """
<section id="conversations"><h2>Conversations</h2>
<div class="filters">
  <input id="f-search" type="search" placeholder="search chat id, scenario or error text">
  <select id="f-label"><option value="">all statuses</option>
    <option value="__failing">failing (any failure)</option></select>
  <select id="f-scenario"><option value="">all scenarios</option></select>
  <select id="f-tool"><option value="">all tools</option></select>
  <select id="f-error"><option value="">errors or not</option>
    <option value="any">with any error</option><option value="tool">with tool errors</option>
    <option value="turn">with agent / turn errors</option><option value="none">without errors</option>
  </select>
  <select id="f-tag"><option value="">all failure reasons</option></select>
  <button id="f-reset" type="button">reset</button>
</div>
<table id="conv-table"><thead><tr><th data-sort="chat_id">chat id</th>
<th data-sort="scenario">scenario</th><th data-sort="severity">final status</th>
<th class="num" data-sort="final">final score</th><th class="num" data-sort="turns">turns</th>
<th class="num" data-sort="calls">tool calls</th>
<th class="num" data-sort="tool_errors">tool errors</th><th data-sort="status">simulator status</th>
<th>failures / error</th></tr></thead>
<tbody id="conv-rows"></tbody></table>
<div class="pager"><button id="prev">&larr; prev</button><button id="next">next &rarr;</button>
<span id="conv-count"></span></div>
<div id="conversation"><p class="muted">Open a conversation to see its transcript, tool calls
and span waterfalls.</p></div>
</section>
"""


def _compact_index(rows: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The distinct failure tags and tool names, and the index rows with each as its
    position there (a 10,000-conversation list repeats a few dozen ~100,000 times)."""
    positions: dict[str, int] = {}
    compact = [
        {
            **row,
            "tags": [positions.setdefault(t, len(positions)) for t in row["tags"]],
            "tools": [positions.setdefault(t, len(positions)) for t in row.get("tools", [])],
        }
        for row in rows
    ]
    return list(positions), compact


SECTIONS: list[Section] = [
    Section("summary", "Summary", lambda data, charts: summary_html(data)),
    Section("evidence", "Unexplained evidence", lambda data, charts: evidence_section(data.run)),
    Section("trials", "Trials", lambda data, charts: trials_section(data.run)),
    Section("failures", "Failures", lambda data, charts: failures_html(data)),
    Section("charts", "Charts", lambda data, charts: _charts(charts)),
    Section("conversations", "Conversations", lambda data, charts: _CONVERSATIONS),
    Section("tables", "Metrics and tools", lambda data, charts: tables_html(data)),
    Section(
        "methodology",
        "How scores are computed",
        lambda data, charts: methodology_html((data.run or {}).get("config"), data.metrics),
    ),
]
"""The page's parts in order (failures before charts: the reasons come first)."""


def write_page(
    out: TextIO,
    data: ReportData,
    charts: list[Chart],
    *,
    plotly_js: str,
    details: Iterable[tuple[int, dict[str, Any]]],
    sections: list[Section] | None = None,
) -> None:
    """Write the complete report page to `out`, one conversation block at a time.

    `details` yields (position in `data.conversations`, details); each is
    compressed into block `conv-<position>` as it arrives and then dropped.
    """
    title = data.title
    chart_specs = [{"id": c.id, "figure": c.figure_json} for c in charts]
    parts = [(s, s.render(data, charts)) for s in (sections or SECTIONS)]
    parts = [(s, body) for s, body in parts if body]
    nav = "".join(f"<a href='#{escape(s.id)}'>{escape(s.nav)}</a>" for s, _ in parts)
    eval_note = f"eval_id {data.eval_id} · " if data.eval_id else ""
    out.write(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<link rel='icon' href='data:,'><title>{escape(title)} · tracesim</title>"
        f"<style>{CSS}</style></head><body>"
        f"<header class='top'><h1>{escape(title)}</h1><span class='meta'>"
        f"{e(eval_note)}{e(data.db_path)} · generated {e(data.generated_at)}</span></header>"
        f"<nav class='sections'>{nav}</nav>"
        f"<main>{''.join(body for _, body in parts)}</main>"
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
