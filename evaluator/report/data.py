"""Read the report's summary and conversation index from a tracesim DuckDB file.

Everything here is a SQL aggregate or one row per conversation: the
summary never holds the scores, tool calls or spans themselves, so its
memory does not grow with the number of turns. The per-conversation
transcripts, tool calls and spans are streamed separately, in chunks, by
`details.py`. Only the tables of `schemas.ddl` are read (not the views),
so a file written by an older version, opened read-only, still reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import orjson
from tracesim.evaluator.report.aggregate import (
    FAILURES_SQL,
    TOOL_SOURCE_SQL,
    LabelFailures,
    MetricSummary,
    failure_tags,
    group_failures,
    metric_summaries,
    scenario_means,
    service_tools,
    status_by_scenario,
    tool_rows,
    worst_conversations,
)
from tracesim.evaluator.report.shape import clip_sql
from tracesim.evaluator.report.title import run_title
from tracesim.schemas.error_source import split_error

__all__ = ["ReportData", "choose_eval", "load_report_data"]


@dataclass
class ReportData:
    """Everything the report's summary, charts and conversation list show, aggregated."""

    db_path: str
    generated_at: str
    eval_id: str | None
    run: dict[str, Any] | None
    evals: list[str]
    metrics: list[MetricSummary]
    scenario_means: list[tuple[str, str, float, int]]  # scenario, metric, mean, graded
    status_by_scenario: list[tuple[str, str, int]]  # scenario, final status label, count
    tools: list[dict[str, Any]]
    failures: dict[str, dict[str, LabelFailures]]  # group -> label -> count, first items
    conversations: list[dict[str, Any]]  # index rows, in list order (details.py follows it)
    totals: dict[str, Any]
    tool_services: list[tuple[str, str, int]] = field(default_factory=list)  # service, tool, n
    title: str = "tracesim report"  # names the run (agent / config / folder), not a hash
    failing: int = 0  # conversations with at least one failure
    worst: list[dict[str, Any]] = field(default_factory=list)  # the worst failing, worst first

    @property
    def status_counts(self) -> dict[str, int]:
        """Conversations per final status label, over every scenario."""
        counts: dict[str, int] = {}
        for _, label, n in self.status_by_scenario:
            counts[label] = counts.get(label, 0) + n
        return counts


def _rows(con: Any, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _iso(value: Any) -> str | None:
    return value.isoformat(sep=" ", timespec="seconds") if isinstance(value, datetime) else value


def choose_eval(con: Any, eval_id: str | None = None) -> tuple[str | None, list[str]]:
    """The evaluation to report (given, else the newest) and every known eval_id.

    Raises ValueError naming the known evaluations when `eval_id` is unknown.
    """
    known = [
        r[0]
        for r in con.execute(
            "SELECT eval_id FROM ("
            " SELECT eval_id, coalesce(started_at, finished_at) AS t FROM runs"
            " UNION ALL SELECT eval_id, min(created_at) FROM scores GROUP BY eval_id)"
            " GROUP BY eval_id ORDER BY max(t) DESC NULLS LAST, eval_id DESC"
        ).fetchall()
    ]
    if eval_id is None:
        return (known[0] if known else None), known
    starting = [k for k in known if k.startswith(eval_id)] if len(eval_id) >= 4 else []
    if eval_id not in known and len(starting) == 1:  # a short id, as compare takes
        eval_id = starting[0]
    if eval_id not in known:
        raise ValueError(
            f"eval_id {eval_id!r} is not in this file; known evaluations: "
            f"{', '.join(known) or '(none: run `tracesim evaluate` first)'}"
        )
    return eval_id, known


def _create_chats(con: Any, eval_id: str | None, run_id: str | None) -> None:
    """`_report_chats`: the run's conversations (all of them when the run has none),
    then chats scored by the evaluation but absent from `conversations`; `ord` is the
    list order (by start time). `_report_final`: each one's final_score row."""
    where = ""
    if run_id is not None:
        (n,) = con.execute(
            "SELECT count(*) FROM conversations WHERE run_id = ?", [run_id]
        ).fetchall()[0]
        if n:
            where = "WHERE run_id = $run_id"
    traced = (  # chats only traced (`tracesim collect`), when no run narrows the report
        ""
        if where
        else " UNION SELECT chat_id FROM spans WHERE chat_id IS NOT NULL"
        " AND chat_id NOT IN (SELECT chat_id FROM conv)"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _report_chats AS"
        " WITH conv AS (SELECT chat_id, scenario_id, status, error, duration_ms, start_time"
        f"   FROM conversations {where}),"
        " extra AS (SELECT DISTINCT chat_id FROM scores WHERE eval_id = $eval_id"
        f"   AND chat_id IS NOT NULL AND chat_id NOT IN (SELECT chat_id FROM conv){traced}),"
        " extra_spans AS (SELECT chat_id, min(start_time) AS start_time,"
        "   (epoch_us(max(end_time)) - epoch_us(min(start_time))) / 1000.0 AS duration_ms"
        "   FROM spans WHERE chat_id IN (SELECT chat_id FROM extra) GROUP BY chat_id),"
        " all_chats AS (SELECT *, 0 AS extra FROM conv"
        "   UNION ALL SELECT e.chat_id, NULL, NULL, NULL, s.duration_ms, s.start_time, 1"
        "   FROM extra e LEFT JOIN extra_spans s USING (chat_id))"
        " SELECT (row_number() OVER (ORDER BY extra, start_time NULLS LAST, chat_id) - 1)::INTEGER"
        "   AS ord, chat_id, scenario_id, status, error, duration_ms FROM all_chats",
        {"eval_id": eval_id, "run_id": run_id} if where else {"eval_id": eval_id},
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _report_final AS"
        " SELECT DISTINCT ON (chat_id) chat_id, value, label, reason FROM scores"
        " WHERE eval_id = ? AND turn_id IS NULL AND metric = 'final_score' AND chat_id IS NOT NULL"
        " ORDER BY chat_id",
        [eval_id],
    )


def _index(con: Any, tags: dict[str, list[str]]) -> list[dict[str, Any]]:
    """One row per conversation, in list order: what the list shows and filters on."""
    rows = _rows(
        con,
        "SELECT c.chat_id, c.scenario_id AS scenario, c.status, f.value AS final, f.label,"
        " coalesce(t.turns, ts.turns, 0) AS turns, coalesce(k.calls, 0) AS calls,"
        " coalesce(k.tool_errors, 0) AS tool_errors, round(c.duration_ms, 1) AS ms,"
        " coalesce(k.tools, []) AS tools, coalesce(e.turn_errors, 0) AS turn_errors,"
        f" {clip_sql('coalesce(c.error, e.first_error)', 160)} AS err"
        " FROM _report_chats c LEFT JOIN _report_final f USING (chat_id)"
        " LEFT JOIN (SELECT chat_id, count(*) AS turn_errors,"
        "   arg_min(error, turn_id) AS first_error FROM turns WHERE error <> ''"
        "   AND chat_id IN (SELECT chat_id FROM _report_chats) GROUP BY chat_id) e USING (chat_id)"
        " LEFT JOIN (SELECT chat_id, count(*) AS turns FROM turns"
        "   WHERE chat_id IN (SELECT chat_id FROM _report_chats) GROUP BY chat_id) t USING (chat_id)"
        # a traced-only chat: one turn per stored turn_id, else per trace (evaluator.load.traced)
        " LEFT JOIN (SELECT chat_id,"
        "   count(DISTINCT coalesce(turn_id::VARCHAR, 'trace ' || trace_id)) AS turns FROM spans"
        "   WHERE chat_id IN (SELECT chat_id FROM _report_chats)"
        "   AND chat_id NOT IN (SELECT chat_id FROM turns) GROUP BY chat_id) ts USING (chat_id)"
        " LEFT JOIN (SELECT chat_id, count(*) AS calls,"
        f"   count(*) FILTER (error <> '') AS tool_errors,"
        "   list(DISTINCT coalesce(name, '(unnamed)') ORDER BY coalesce(name, '(unnamed)')) AS tools"
        f"   FROM ({TOOL_SOURCE_SQL})"
        "   GROUP BY chat_id) k USING (chat_id)"
        " ORDER BY c.ord",
    )
    for row in rows:
        row["tags"] = tags.get(row["chat_id"], [])
    return rows


def load_report_data(con: Any, *, db_path: str, eval_id: str | None = None) -> ReportData:
    """Aggregate everything the report's summary and list show for one evaluation
    (default: the newest). Temporary tables are created and dropped on `con`."""
    eval_id, evals = choose_eval(con, eval_id)
    runs = _rows(con, "SELECT * FROM runs WHERE eval_id = ?", [eval_id]) if eval_id else []
    run = runs[0] if runs else None
    if run:
        for key in ("config", "summary"):
            if isinstance(run.get(key), str):
                run[key] = orjson.loads(run[key])
    _create_chats(con, eval_id, run["run_id"] if run else None)
    try:
        con.execute(FAILURES_SQL, {"eval_id": eval_id})
        summaries = metric_summaries(con, eval_id)
        index = _index(con, failure_tags(con))
        failing, worst = worst_conversations(con)
        data = ReportData(
            db_path=db_path,
            generated_at=datetime.now(timezone.utc).isoformat(sep=" ", timespec="seconds"),
            eval_id=eval_id,
            run={k: _iso(v) for k, v in run.items()} if run else None,
            evals=evals,
            metrics=summaries,
            scenario_means=scenario_means(con, eval_id, summaries),
            status_by_scenario=status_by_scenario(con),
            tools=tool_rows(con),
            tool_services=service_tools(con),
            failures=group_failures(con),
            conversations=index,
            title=run_title(con, db_path, run),
            failing=failing,
            worst=worst,
            totals={
                "conversations": len(index),
                "turns": sum(r["turns"] for r in index),
                "tool_calls": sum(r["calls"] for r in index),
                "tool_errors": sum(r["tool_errors"] for r in index),
                "errors_by_source": _turn_errors(con),
            },
        )
    finally:
        for table in ("_report_failures", "_report_final", "_report_chats"):
            con.execute(f"DROP TABLE IF EXISTS {table}")
    return data


def _turn_errors(con: Any) -> dict[str, int]:
    """Conversations the report's run could not grade because of an error, by source
    (agent: an errored or timed-out turn; simulated user, tracesim: from the stored error)."""
    rows = con.execute(
        "SELECT c.status, c.error, EXISTS (SELECT 1 FROM turns t WHERE t.chat_id = c.chat_id "
        "AND t.status IN ('error', 'timeout')) FROM conversations c "
        "WHERE c.chat_id IN (SELECT chat_id FROM _report_chats) "
        "AND (c.status = 'error' OR EXISTS (SELECT 1 FROM turns t WHERE t.chat_id = c.chat_id "
        "AND t.status IN ('error', 'timeout')))"
    ).fetchall()
    counts: dict[str, int] = {}
    for _, error, turn_failed in rows:
        source = "agent" if turn_failed else split_error(error)[0]
        counts[source] = counts.get(source, 0) + 1
    return counts
