"""The report's Failures section, placed right after the summary and open: the worst
failing conversations first (each with its first reason), then every failure label
with its worst conversations, so 2,000 scenarios never push the reasons off screen.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from tracesim.evaluator.report.aggregate import MAX_FAILURE_ITEMS
from tracesim.evaluator.report.data import ReportData
from tracesim.evaluator.report.summary_html import e, num

__all__ = ["ITEMS_SHOWN", "failures_html"]

ITEMS_SHOWN = 8
"""Conversations listed under each failure label (worst first); the rest: the list filter."""


def _link(chat_id: Any) -> str:
    return f'<a href="#conv={escape(quote(str(chat_id), safe=""))}">{e(chat_id)}</a>'


def _worst(data: ReportData) -> str:
    if not data.worst:
        return ""
    rows = "".join(
        "<tr>"
        f'<td class="nowrap">{_link(w["chat_id"])}</td><td>{e(w["scenario"])}</td>'
        f'<td><span class="badge {e(str(w["label"] or "").replace(" ", "-"))}">'
        f"{e(w['label'] or 'no final score')}</span></td>"
        f'<td class="num">{num(w["final"])}</td><td class="num">{e(w["failures"])}</td>'
        f"<td><strong>{e(w['why_label'])}</strong>"
        + (f" turn {e(w['turn_id'])}" if w["turn_id"] is not None else "")
        + (f": <span class='reason'>{e(w['reason'])}</span>" if w["reason"] else "")
        + "</td></tr>"
        for w in data.worst
    )
    more = (
        f"<p class='muted'>{len(data.worst)} worst of {data.failing} failing conversations; "
        "<a href='#conversations' data-only-failing='1'>list every failing one</a> "
        "(sort and filter below).</p>"
        if data.failing > len(data.worst)
        else ""
    )
    return (
        f"<h3>Worst first ({data.failing} of {len(data.conversations)} conversations fail)</h3>"
        "<table class='worst'><thead><tr><th>chat id</th><th>scenario</th><th>final status</th>"
        "<th class='num'>final score</th><th class='num'>failures</th><th>first reason</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>{more}"
    )


def _item(it: dict[str, Any]) -> str:
    return (
        f"<li>{_link(it['chat_id'])}"
        + (f" turn {e(it['turn_id'])}" if it["turn_id"] is not None else "")
        + (f" <span class='muted'>[{e(it['scenario'])}]</span>" if it["scenario"] else "")
        + (
            f" <span class='sev {e(it['severity'])}'>{e(it['severity'])}</span>"
            if it.get("severity")
            else ""
        )
        + (f" <span class='reason'>{e(it['reason'])}</span>" if it["reason"] else "")
        + "</li>"
    )


def _groups(data: ReportData) -> str:
    groups = []
    for group, labels in data.failures.items():
        if not labels:
            continue
        parts = []
        for label, failing in labels.items():
            shown = failing.items[: min(ITEMS_SHOWN, MAX_FAILURE_ITEMS)]
            tag = f"{group}: {label}"
            more = (
                f"<li><a href='#conversations' data-tag=\"{escape(tag)}\">all "
                f"{failing.count} in the conversation list</a></li>"
                if failing.count > len(shown)
                else ""
            )
            parts.append(
                f'<details class="group" open><summary>{e(label)} '
                f'<span class="badge">{failing.count}</span></summary>'
                f'<ul class="items">{"".join(_item(it) for it in shown)}{more}</ul></details>'
            )
        groups.append(f"<h3>{e(group)}</h3><div class='groupgrid'>{''.join(parts)}</div>")
    return "".join(groups)


def failures_html(data: ReportData) -> str:
    """Worst failing conversations, then failures by label; or why there are none."""
    body = _worst(data) + _groups(data)
    if not body:
        empty = (
            "No failures in this evaluation."
            if data.eval_id is not None
            else "Not evaluated yet: run <code>tracesim evaluate</code> to check the tool calls."
        )
        body = f"<p class='muted'>{empty}</p>"
    return f'<section id="failures"><h2>Failures</h2>{body}</section>'
