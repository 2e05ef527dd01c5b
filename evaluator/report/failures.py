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
ITEMS_SHOWN_MANY = 3
"""... when more than `MANY_LABELS` labels fail: the section stays about a screen high."""
MANY_LABELS = 6
REASON_CHARS = 160
"""A reason longer than this is cut in the lists (whole in its tooltip and conversation)."""


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
        + (f":{_reason(w['reason'])}" if w["reason"] else "")
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
        f"<h3>Worst first: {data.failing} of {len(data.conversations)} conversations fail</h3>"
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
        + (_reason(it["reason"]) if it["reason"] else "")
        + "</li>"
    )


def _reason(text: str) -> str:
    short = text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"
    return f" <span class='reason' title='{e(text)}'>{e(short)}</span>"


_SEVERITY = {"critical": 0, "high": 1, "medium": 2, "low": 3}
_DERIVED = frozenset({"turn_success", "turn_success_ratio"})
"""Metrics computed from the others: they say that a turn failed, the checks say why."""
_LISTED = ("Agent behaviour failure", "Failed metric")
"""Groups listed by label (final statuses are the worst-first table's and the filter's)."""


def _label_order(item: tuple[str, Any]) -> tuple[int, int, int]:
    """Most severe first, derived metrics last, then most frequent."""
    label, failing = item
    severity = min((_SEVERITY.get(str(it.get("severity")), 4) for it in failing.items), default=4)
    return (label in _DERIVED, severity, -failing.count)


def _groups(data: ReportData) -> str:
    listed = {g: labels for g, labels in data.failures.items() if g in _LISTED}
    labels_failing = sum(len(labels) for labels in listed.values())
    per_label = ITEMS_SHOWN if labels_failing <= MANY_LABELS else ITEMS_SHOWN_MANY
    groups = []
    for group, labels in listed.items():
        if not labels:
            continue
        parts = []
        for label, failing in sorted(labels.items(), key=_label_order):
            shown = failing.items[: min(per_label, MAX_FAILURE_ITEMS)]
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
