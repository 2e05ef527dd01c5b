"""Aggregate the chosen evaluation's scores and tool calls for the summary and charts.

Every number is a SQL aggregate, so the summary never holds a score or a
tool call per row in Python: metric summaries and histograms, means per
scenario, final status per scenario, per-tool counts and latencies, and
failures grouped by label (the first `MAX_FAILURE_ITEMS` of each, plus the
count, and per conversation the labels it fails on, for the list filter).

They read the temporary tables `data.py` creates on the connection:
`_report_chats` (the reported conversations), `_report_final` (their
`final_score` row) and `_report_failures` (see `FAILURES_SQL`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.report.shape import clip
from tracesim.evaluator.report.why import explain

__all__ = [
    "FAILURES_SQL",
    "FAILURE_GROUPS",
    "MAX_FAILURE_ITEMS",
    "NON_FAILURE_LABELS",
    "TOOL_SOURCE_SQL",
    "LabelFailures",
    "MetricSummary",
    "failure_tags",
    "group_failures",
    "metric_summaries",
    "scenario_means",
    "service_tools",
    "status_by_scenario",
    "tool_rows",
    "worst_conversations",
]

NON_FAILURE_LABELS = frozenset({"no failure", "no_failure", "none", "not_run", "pass", "ok"})
"""Behaviour-failure labels (agent_behavior_failure, tool_call_behavior_failure) that are
not failures (arksim's positive labels)."""
FAILURE_GROUPS = ("Final status", "Agent behaviour failure", "Failed metric")
"""How failures are grouped on the page, in order."""
MAX_FAILURE_ITEMS = 25
MAX_WORST = 10
"""Conversations in the report's "worst first" list (the rest: the list's filters)."""
"""Conversations listed per failure label; the rest are one click away in the list's filter."""

_NON_FAILURE_SQL = ", ".join(f"'{label}'" for label in sorted(NON_FAILURE_LABELS))
FAILURES_SQL = f"""
CREATE OR REPLACE TEMP TABLE _report_failures AS
SELECT 0 AS grp, label, chat_id, NULL::INTEGER AS turn_id, reason, NULL::VARCHAR AS severity,
  NULL::VARCHAR AS details
  FROM _report_final WHERE label IS NOT NULL AND label NOT IN ('', 'Done')
UNION ALL
SELECT 1, trim(label), chat_id, turn_id, reason, details->>'severity', NULL FROM scores
  WHERE eval_id = $eval_id AND chat_id IS NOT NULL
  AND metric IN ('agent_behavior_failure', 'tool_call_behavior_failure')
  AND trim(label) <> '' AND lower(trim(label)) NOT IN ({_NON_FAILURE_SQL})
UNION ALL
SELECT 2, metric, chat_id, turn_id, reason, severity, details FROM (
  SELECT DISTINCT ON (metric, chat_id) metric, chat_id, turn_id, reason,
    details->>'severity' AS severity, details::VARCHAR AS details FROM scores
  WHERE eval_id = $eval_id AND passed = false AND metric <> 'final_score' AND chat_id IS NOT NULL
  ORDER BY metric, chat_id, turn_id NULLS FIRST)
"""
"""Failing conversations as (group index into FAILURE_GROUPS, label, chat_id, turn_id,
reason, severity from the score's details when set, the failed check's details): a final status other than Done; a behaviour-failure label that is
a failure (one item per score); a failed metric (one item per conversation and metric)."""


@dataclass
class MetricSummary:
    """One metric of the chosen evaluation, over every turn or conversation it scored."""

    metric: str
    level: str  # "turn" | "conversation" | "mixed"
    total: int
    graded: int
    mean: float | None
    passed: int
    failed: int
    bounded: bool  # every value within [0, 1]: drawn on the 0..1 charts
    histogram: list[int] = field(default_factory=list)  # 10 bins over [0, 1]
    not_run: int = 0  # results labelled `not_run` (a judge with no model, ...)

    @property
    def never_run(self) -> bool:
        """Nothing graded and every result `not_run`: shown as one line, not a row."""
        return self.graded == 0 and self.total > 0 and self.not_run == self.total


@dataclass
class LabelFailures:
    """The conversations failing on one label: how many, and the first few to list."""

    count: int
    items: list[dict[str, Any]]  # chat_id, scenario, turn_id, reason


def metric_summaries(con: Any, eval_id: str | None) -> list[MetricSummary]:
    """Per metric: level, counts, mean of graded values, pass/fail, 10-bin histogram."""
    rows = con.execute(
        "SELECT metric, bool_and(turn_id IS NOT NULL), bool_or(turn_id IS NOT NULL), count(*),"
        " count(value), avg(value), count(*) FILTER (passed), count(*) FILTER (NOT passed),"
        " coalesce(min(value) >= 0 AND max(value) <= 1, true), count(*) FILTER (label = 'not_run')"
        " FROM scores WHERE eval_id = ? GROUP BY metric ORDER BY metric",
        [eval_id],
    ).fetchall()
    bins: dict[str, list[int]] = defaultdict(lambda: [0] * 10)
    for metric, b, n in con.execute(
        "SELECT metric, least(floor(value * 10)::INTEGER, 9), count(*) FROM scores"
        " WHERE eval_id = ? AND value BETWEEN 0 AND 1 GROUP BY ALL",
        [eval_id],
    ).fetchall():
        bins[metric][b] += n
    return [
        MetricSummary(
            metric=metric,
            level="turn" if all_turn else "mixed" if any_turn else "conversation",
            total=total,
            graded=graded,
            mean=mean,
            passed=passed,
            failed=failed,
            bounded=bounded,
            histogram=bins[metric] if bounded else [0] * 10,
            not_run=not_run,
        )
        for metric, all_turn, any_turn, total, graded, mean, passed, failed, bounded, not_run in rows
    ]


def scenario_means(
    con: Any, eval_id: str | None, summaries: list[MetricSummary]
) -> list[tuple[str, str, float, int]]:
    """(scenario, metric, mean of graded values, graded count) for metrics within [0, 1]."""
    bounded = [m.metric for m in summaries if m.bounded]
    if not bounded:
        return []
    return con.execute(
        "SELECT coalesce(c.scenario_id, '(none)') AS sc, s.metric, avg(s.value), count(s.value)"
        " FROM scores s LEFT JOIN _report_chats c USING (chat_id)"
        " WHERE s.eval_id = ? AND s.value IS NOT NULL AND list_contains(?, s.metric)"
        " GROUP BY ALL ORDER BY sc, s.metric",
        [eval_id, bounded],
    ).fetchall()


def status_by_scenario(con: Any) -> list[tuple[str, str, int]]:
    """(scenario, final status label, conversations) from the final_score rows."""
    return con.execute(
        "SELECT coalesce(c.scenario_id, '(none)') AS sc,"
        " coalesce(nullif(f.label, ''), '(no label)') AS label, count(*)"
        " FROM _report_final f LEFT JOIN _report_chats c USING (chat_id)"
        " GROUP BY ALL ORDER BY sc, label"
    ).fetchall()


TOOL_SOURCE_SQL = """
SELECT chat_id, name, error, source, traced, duration_ms FROM tool_calls
  WHERE chat_id IN (SELECT chat_id FROM _report_chats)
UNION ALL
SELECT chat_id, tool_name, CASE WHEN status_code = 'ERROR' THEN coalesce(nullif(status_message, ''),
  'error') END, 'traced', true, duration_ms FROM spans
  WHERE tool_name <> '' AND chat_id IN (SELECT chat_id FROM _report_chats)
  AND chat_id NOT IN (SELECT chat_id FROM tool_calls)
"""
"""The reported chats' tool calls: `tool_calls` rows, or the tool spans of chats not
evaluated yet (a file filled by `tracesim collect` alone), seen as traced calls."""


def tool_rows(con: Any) -> list[dict[str, Any]]:
    """Per tool: calls by how they were observed, errors and latency percentiles."""
    explicit = "(k.source IS NOT NULL AND k.source NOT IN ('traced', 'tracing_processor'))"
    rows = con.execute(
        f"WITH k AS ({TOOL_SOURCE_SQL}) "
        "SELECT coalesce(k.name, '(unnamed)') AS name, count(*) AS calls,"
        " count(*) FILTER (k.error <> ''),"
        f" count(*) FILTER ({explicit} AND NOT coalesce(k.traced, false)),"
        f" count(*) FILTER (NOT {explicit}),"
        f" count(*) FILTER ({explicit} AND coalesce(k.traced, false)),"
        " quantile_disc(round(k.duration_ms, 3), 0.5), quantile_disc(round(k.duration_ms, 3), 0.95)"
        " FROM k GROUP BY ALL ORDER BY calls DESC, name"
    ).fetchall()
    keys = ("name", "calls", "errors", "explicit", "traced", "both", "p50_ms", "p95_ms")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def service_tools(con: Any) -> list[tuple[str, str, int]]:
    """(service, tool, calls) from the reported chats' tool spans: who called what."""
    return con.execute(
        "SELECT coalesce(nullif(service_name, ''), '(unknown)'), tool_name, count(*) FROM spans"
        " WHERE tool_name <> '' AND chat_id IN (SELECT chat_id FROM _report_chats)"
        " GROUP BY ALL ORDER BY 1, 2"
    ).fetchall()


def group_failures(con: Any) -> dict[str, dict[str, LabelFailures]]:
    """Failing conversations by group and label (most frequent label first; within a
    label, worst final score first)."""
    counts = con.execute(
        "SELECT grp, label, count(*) AS n FROM _report_failures GROUP BY ALL"
        " ORDER BY grp, n DESC, label"
    ).fetchall()
    groups: dict[str, dict[str, LabelFailures]] = {g: {} for g in FAILURE_GROUPS}
    for grp, label, n in counts:
        groups[FAILURE_GROUPS[grp]][label] = LabelFailures(n, [])
    for grp, label, chat_id, turn_id, reason, severity, details, scenario in con.execute(
        "SELECT f.grp, f.label, f.chat_id, f.turn_id, f.reason, f.severity, f.details,"
        " coalesce(c.scenario_id, '(none)')"
        " FROM (SELECT f.*, row_number() OVER (PARTITION BY f.grp, f.label"
        "   ORDER BY fin.value NULLS LAST, f.chat_id, f.turn_id NULLS FIRST) AS rn"
        "   FROM _report_failures f LEFT JOIN _report_final fin USING (chat_id)) f"
        " LEFT JOIN _report_chats c USING (chat_id) WHERE f.rn <= ? ORDER BY f.grp, f.label, f.rn",
        [MAX_FAILURE_ITEMS],
    ).fetchall():
        groups[FAILURE_GROUPS[grp]][label].items.append(
            {
                "chat_id": chat_id,
                "scenario": scenario,
                "turn_id": turn_id,
                "reason": clip(explain(reason, details), 300),
                "severity": severity,
            }
        )
    return groups


def failure_tags(con: Any) -> dict[str, list[str]]:
    """Per conversation, the `group: label` tags it fails on (the list's failure filter)."""
    names = "[" + ", ".join(f"'{g}'" for g in FAILURE_GROUPS) + "]"
    return dict(
        con.execute(
            f"SELECT chat_id, list({names}[grp + 1] || ': ' || label ORDER BY grp, n DESC, label)"
            " FROM (SELECT DISTINCT f.chat_id, f.grp, f.label, n.n FROM _report_failures f"
            "   JOIN (SELECT grp, label, count(*) AS n FROM _report_failures GROUP BY ALL) n"
            "   USING (grp, label))"
            " GROUP BY chat_id"
        ).fetchall()
    )


_WHY_RANK = (  # a failed check, then a behaviour label, then a derived metric, then the status
    "-grp * 1000000 + CASE WHEN grp = 2 AND label IN ('turn_success', 'turn_success_ratio')"
    " THEN 1500000 ELSE 0 END + coalesce(turn_id, -1) + CASE WHEN reason IS NULL OR reason = ''"
    " THEN 100000 ELSE 0 END"
)
_STATUS_RANK = "CASE f.label WHEN 'Failed' THEN 0 WHEN 'Partial Failure' THEN 2 ELSE 1 END"


def worst_conversations(con: Any, limit: int = MAX_WORST) -> tuple[int, list[dict[str, Any]]]:
    """How many conversations fail, and the `limit` worst: Failed before not graded
    before Partial Failure, then lowest final score, then most failures; each with its
    first reason (a failed check's before a behaviour label's before the status's own)."""
    (count,) = con.execute("SELECT count(DISTINCT chat_id) FROM _report_failures").fetchone()
    rows = con.execute(
        f"WITH ranked AS (SELECT *, {_WHY_RANK} AS k FROM _report_failures),"
        " per AS (SELECT chat_id, count(*) AS n, arg_min(label, k) AS why_label,"
        "   arg_min(reason, k) AS why, arg_min(turn_id, k) AS why_turn,"
        "   arg_min(details, k) AS why_details"
        "   FROM ranked GROUP BY chat_id)"
        " SELECT per.chat_id, coalesce(c.scenario_id, '(none)'), f.label, f.value, per.n,"
        "  per.why_label, per.why, per.why_turn, per.why_details"
        " FROM per LEFT JOIN _report_final f USING (chat_id) LEFT JOIN _report_chats c"
        " USING (chat_id)"
        f" ORDER BY {_STATUS_RANK}, f.value NULLS FIRST, per.n DESC, per.chat_id LIMIT ?",
        [limit],
    ).fetchall()
    keys = ("chat_id", "scenario", "label", "final", "failures", "why_label", "reason", "turn_id")
    out = [dict(zip(keys, row[:-1], strict=True)) for row in rows]
    for row, raw in zip(out, rows, strict=True):
        row["reason"] = clip(explain(row["reason"], raw[-1]), 300)
    return count, out
