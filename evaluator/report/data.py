"""Read what the HTML report shows from a tracesim DuckDB file.

All queries live here; `aggregate.py` and `shape.py` turn the rows into
what the page embeds. Only the tables of `schemas.ddl` are read (not the
views), so a file written by an older version, opened read-only, still
reports.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import orjson

from evaluator.report.aggregate import (
    MetricSummary,
    group_failures,
    metric_summaries,
    scenario_means,
    status_by_scenario,
    tool_rows,
)
from evaluator.report.shape import call_entry, clip, score_entry, span_tree

__all__ = ["ReportData", "choose_eval", "load_report_data"]


@dataclass
class ReportData:
    """Everything the report renders, already aggregated."""

    db_path: str
    generated_at: str
    eval_id: str | None
    run: dict[str, Any] | None
    evals: list[str]
    metrics: list[MetricSummary]
    scenario_means: list[tuple[str, str, float, int]]  # scenario, metric, mean, graded
    status_by_scenario: list[tuple[str, str, int]]  # scenario, final status label, count
    tools: list[dict[str, Any]]
    failures: dict[str, dict[str, list[dict[str, Any]]]]  # group -> label -> items
    conversations: list[dict[str, Any]]  # index rows (small; the list view)
    details: list[dict[str, Any]]  # per conversation: transcript, calls, spans (lazy in JS)
    totals: dict[str, Any]


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
    if eval_id not in known:
        raise ValueError(
            f"eval_id {eval_id!r} is not in this file; known evaluations: "
            f"{', '.join(known) or '(none: run `tracesim evaluate` first)'}"
        )
    return eval_id, known


def _conversations(con: Any, run_id: str | None) -> list[dict[str, Any]]:
    """The conversations of the run (all of them when the run is unknown)."""
    where, params = "", []
    if run_id is not None:
        (n,) = con.execute(
            "SELECT count(*) FROM conversations WHERE run_id = ?", [run_id]
        ).fetchall()[0]
        if n:
            where, params = "WHERE run_id = ?", [run_id]
    return _rows(
        con,
        "SELECT chat_id, run_id, scenario_id, conversation_index, agent_type, num_turns, status,"
        f" error, duration_ms, start_time FROM conversations {where}"
        " ORDER BY start_time NULLS LAST, chat_id",
        params,
    )


def load_report_data(con: Any, *, db_path: str, eval_id: str | None = None) -> ReportData:
    """Aggregate everything the report shows for one evaluation (default: the newest)."""
    eval_id, evals = choose_eval(con, eval_id)
    runs = _rows(con, "SELECT * FROM runs WHERE eval_id = ?", [eval_id]) if eval_id else []
    run = runs[0] if runs else None
    if run:
        for key in ("config", "summary"):
            if isinstance(run.get(key), str):
                run[key] = orjson.loads(run[key])
    run_id = run["run_id"] if run else None
    scores = _rows(
        con,
        "SELECT chat_id, turn_id, metric, value, passed, threshold, label, reason"
        " FROM scores WHERE eval_id = ? ORDER BY chat_id, turn_id NULLS FIRST, metric",
        [eval_id],
    )
    convs = _conversations(con, run_id)
    known = {c["chat_id"] for c in convs}
    for chat_id in sorted({s["chat_id"] for s in scores if s["chat_id"]} - known):
        convs.append(
            {
                "chat_id": chat_id,
                "scenario_id": None,
                "status": None,
                "error": None,
                "num_turns": None,
                "duration_ms": None,
            }
        )
    chat_ids = [c["chat_id"] for c in convs]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _report_chats AS SELECT unnest(?::VARCHAR[]) AS chat_id",
        [chat_ids],
    )

    turns = _rows(
        con,
        "SELECT t.chat_id, t.turn_id, t.trace_id, t.user_message, t.agent_message, t.status,"
        " t.error, t.duration_ms FROM turns t JOIN _report_chats USING (chat_id)"
        " ORDER BY t.chat_id, t.turn_id",
    )
    calls = _rows(
        con,
        "SELECT c.chat_id, c.turn_id, c.seq, c.id, c.name, c.arguments, c.result, c.error,"
        " c.source, c.traced, c.duration_ms, c.span_id"
        " FROM tool_calls c JOIN _report_chats USING (chat_id) ORDER BY c.chat_id, c.turn_id, c.seq",
    )
    spans = _rows(
        con,
        "SELECT coalesce(s.chat_id, t.chat_id) AS chat_id, coalesce(s.turn_id, t.turn_id) AS turn_id,"
        " s.span_id, s.parent_span_id, s.name, s.start_time, s.duration_ms, s.status_code,"
        " s.status_message, s.operation, s.tool_name, s.model, s.input_tokens, s.output_tokens,"
        " s.service_name FROM spans s"
        " LEFT JOIN turns t ON s.chat_id IS NULL AND t.trace_id = s.trace_id"
        " WHERE coalesce(s.chat_id, t.chat_id) IN (SELECT chat_id FROM _report_chats)"
        " AND coalesce(s.turn_id, t.turn_id) IS NOT NULL",
    )
    con.execute("DROP TABLE _report_chats")

    by_turn: dict[tuple[str, int], dict[str, Any]] = {}
    for t in turns:
        by_turn[(t["chat_id"], t["turn_id"])] = {
            "turn_id": t["turn_id"],
            "user": clip(t["user_message"]),
            "agent": clip(t["agent_message"]),
            "status": t["status"],
            "error": clip(t["error"]),
            "ms": round(t["duration_ms"], 1) if t["duration_ms"] is not None else None,
            "calls": [],
            "scores": [],
            "spans": [],
        }

    def turn(chat_id: str, turn_id: int) -> dict[str, Any]:
        key = (chat_id, turn_id)
        if key not in by_turn:
            by_turn[key] = {
                "turn_id": turn_id,
                "user": None,
                "agent": None,
                "status": None,
                "error": None,
                "ms": None,
                "calls": [],
                "scores": [],
                "spans": [],
            }
        return by_turn[key]

    for c in calls:
        turn(c["chat_id"], c["turn_id"])["calls"].append(call_entry(c))
    spans_by_turn: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for s in spans:
        spans_by_turn[(s["chat_id"], s["turn_id"])].append(s)
    span_counts = {}
    for key, group in spans_by_turn.items():
        turn(*key)["spans"] = span_tree(group)
        span_counts[key] = len(group)
    conv_scores: dict[str, list[list[Any]]] = defaultdict(list)
    final: dict[str, dict[str, Any]] = {}
    for s in scores:
        if s["turn_id"] is None:
            conv_scores[s["chat_id"]].append(score_entry(s))
            if s["metric"] == "final_score":
                final[s["chat_id"]] = s
        else:
            turn(s["chat_id"], s["turn_id"])["scores"].append(score_entry(s))

    turns_by_chat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (chat_id, turn_id), t in sorted(by_turn.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        t["spans_total"] = span_counts.get((chat_id, turn_id), 0)
        turns_by_chat[chat_id].append(t)

    index, details = [], []
    for c in convs:
        chat_id = c["chat_id"]
        ts = turns_by_chat.get(chat_id, [])
        f = final.get(chat_id, {})
        ncalls = sum(len(t["calls"]) for t in ts)
        nerr = sum(1 for t in ts for k in t["calls"] if k["error"])
        index.append(
            {
                "chat_id": chat_id,
                "scenario": c["scenario_id"],
                "status": c["status"],
                "final": f.get("value"),
                "label": f.get("label"),
                "turns": len(ts),
                "calls": ncalls,
                "tool_errors": nerr,
                "ms": round(c["duration_ms"], 1) if c.get("duration_ms") is not None else None,
            }
        )
        details.append(
            {
                "chat_id": chat_id,
                "error": clip(c["error"]),
                "scores": conv_scores.get(chat_id, []),
                "turns": ts,
            }
        )

    scenario_of = {c["chat_id"]: c["scenario_id"] or "(none)" for c in convs}
    summaries = metric_summaries(scores)
    grouped = group_failures(scores, final, scenario_of)
    tags: dict[str, list[str]] = defaultdict(list)
    for group, labels in grouped.items():
        for label, items in labels.items():
            for chat_id in dict.fromkeys(item["chat_id"] for item in items):
                tags[chat_id].append(f"{group}: {label}")
    for row in index:
        row["tags"] = tags.get(row["chat_id"], [])
    return ReportData(
        db_path=db_path,
        generated_at=datetime.now(timezone.utc).isoformat(sep=" ", timespec="seconds"),
        eval_id=eval_id,
        run={k: _iso(v) for k, v in run.items()} if run else None,
        evals=evals,
        metrics=summaries,
        scenario_means=scenario_means(scores, scenario_of, summaries),
        status_by_scenario=status_by_scenario(final, scenario_of),
        tools=tool_rows(calls),
        failures=grouped,
        conversations=index,
        details=details,
        totals={
            "conversations": len(index),
            "turns": sum(r["turns"] for r in index),
            "tool_calls": len(calls),
            "tool_errors": sum(1 for c in calls if c["error"]),
            "spans": len(spans),
        },
    )
