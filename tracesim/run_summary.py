"""What a run reports once captured: span counts, `run_summary.json` and the terminal table.

Counts are read through the embedded collector's query path (the collector
owns the file while it runs) and are informative: a failing count is `None`,
never a failed run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from tracesim.console import plain
from tracesim.schemas.conventions import GENAI, TRACESIM
from tracesim.shown import shown

if TYPE_CHECKING:
    from tracesim.run import RunOutcome
    from tracesim.simulator.results import RunResult

__all__ = [
    "count_earlier_runs",
    "count_spans",
    "missing_conversations",
    "print_run_summary",
    "run_failure_lines",
    "user_llm_usage",
    "write_run_summary",
]

RUN_FAILURE_LIMIT = 10
"""Conversations ended by an error the terminal lists after a capture-only run."""


def count_spans(collector: Any, run_id: str) -> tuple[int | None, int | None]:
    """Spans stored for this run's turns and conversations, and tool spans among them."""
    sql = f"""
        WITH run_chats AS (
            SELECT DISTINCT chat_id FROM spans
            WHERE name IN ('{TRACESIM.TURN_SPAN}', '{TRACESIM.CONVERSATION_SPAN}')
              AND attributes->>'{TRACESIM.RUN_ID}' = ?
        )
        SELECT count(*), count(*) FILTER (WHERE operation = '{GENAI.OP_EXECUTE_TOOL}')
        FROM spans WHERE chat_id IN (SELECT chat_id FROM run_chats)
    """
    try:
        _, rows = collector.query(sql, [run_id])
        return int(rows[0][0]), int(rows[0][1])
    except Exception:  # counts are informative; never fail a run on them
        return None, None


def missing_conversations(collector: Any, run_id: str, result: RunResult) -> list[str]:
    """Each conversation of `result` whose conversation row or one of whose turns is not in
    the store, described (scenario#index, chat id, missing turns)."""
    _, turn_rows = collector.query("SELECT chat_id, turn_id FROM turns WHERE run_id = ?", [run_id])
    _, chat_rows = collector.query("SELECT chat_id FROM conversations WHERE run_id = ?", [run_id])
    turns = {(row[0], row[1]) for row in turn_rows}
    chats = {row[0] for row in chat_rows}
    missing = []
    for conversation in result.conversations:
        gone = [
            t.turn_id for t in conversation.turns if (conversation.chat_id, t.turn_id) not in turns
        ]
        if conversation.chat_id in chats and not gone:
            continue
        what = f"turns {gone}" if gone else "its conversation span"
        missing.append(
            f"{conversation.scenario_id}#{conversation.conversation_index} "
            f"(chat {conversation.chat_id}): {what}"
        )
    return missing


def count_earlier_runs(collector: Any, run_id: str) -> int | None:
    """How many other runs the DuckDB file already holds (runs accumulate in one file)."""
    try:
        _, rows = collector.query(
            "SELECT count(DISTINCT run_id) FROM conversations WHERE run_id <> ?", [run_id]
        )
        return int(rows[0][0])
    except Exception:  # informative only
        return None


def user_llm_usage(usage: Any, llm: Any) -> dict[str, Any] | None:
    """The LLM simulated users' requests, tokens and cost (None when no LLM user ran): priced
    like the judges (`llm.input/output_cost_per_mtok`, else the built-in table); a model
    with no price has `cost_usd` None, never 0."""
    if usage is None or not usage.requests:
        return None
    from tracesim.evaluator.llm.llm_client import judge_price

    price = judge_price(llm)
    return {
        "model": llm.model,
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": None if price is None else price.cost(usage.input_tokens, usage.output_tokens),
    }


def write_run_summary(outcome: RunOutcome, *, started: float) -> Path:
    """Write `run_summary.json` (what the simulator did, counts, config) to the output dir."""
    assert outcome.output_dir is not None and outcome.result is not None
    path = outcome.output_dir / "run_summary.json"
    result = outcome.result
    finished = time.time()
    body = {
        "run_id": outcome.run_id,
        "started_at": started,
        "finished_at": finished,
        "wall_seconds": round(finished - started, 3),
        "simulate_seconds": round(result.wall_seconds, 3),
        "db_path": str(outcome.db_path) if outcome.db_path else None,
        "counts": {
            **result.counts(),
            "spans_stored": outcome.spans_stored,
            "tool_spans": outcome.tool_spans,
        },
        "user_llm_usage": outcome.extra.get("user_llm_usage"),
        "conversations": [c.summary() for c in result.conversations],
        "config": outcome.config.model_dump(mode="json") if outcome.config else None,
    }
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def print_run_summary(console: Console, outcome: RunOutcome) -> None:
    """The run's table (conversations, turns, errors, spans) and where its files are."""
    result = outcome.result
    assert result is not None
    table = Table(title=plain(f"tracesim run {outcome.run_id[:12]}"), show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    counts = result.counts()
    for label, value in (
        ("conversations", counts["conversations"]),
        ("  completed", counts.get("conversations_completed", 0)),
        ("  max turns reached", counts.get("conversations_max_turns", 0)),
        ("  ended by an error", counts.get("conversations_error", 0)),
        ("  interrupted", counts.get("conversations_interrupted", 0)),
        ("turns", counts["turns"]),
        ("  answered", counts.get("turns_completed", 0)),
        ("turn errors", counts["turn_errors"]),
        ("turn timeouts", counts["turn_timeouts"]),
        ("spans stored", "-" if outcome.spans_stored is None else outcome.spans_stored),
        ("tool spans", "-" if outcome.tool_spans is None else outcome.tool_spans),
    ):
        table.add_row(label, str(value))
    console.print(table)
    if outcome.db_path:
        earlier = outcome.extra.get("earlier_runs")
        note = (
            f" (also holds {earlier} earlier run(s); this run is evaluated alone, "
            "`tracesim evaluate --all-runs` scores them together)"
            if earlier
            else ""
        )
        console.print(f"DuckDB: {shown(outcome.db_path)}{note}", highlight=False, markup=False)
    usage = outcome.extra.get("user_llm_usage")
    if usage:
        cost = usage["cost_usd"]
        console.print(
            f"simulated users ({usage['model']}): {usage['requests']} request(s), "
            f"{usage['input_tokens']}+{usage['output_tokens']} tokens, "
            + ("cost unknown (set llm.input_cost_per_mtok)" if cost is None else f"${cost:.4f}"),
            highlight=False,
            markup=False,
        )
    console.print(f"summary: {shown(outcome.summary_path)}", highlight=False, markup=False)


def run_failure_lines(result: RunResult | None, *, limit: int = RUN_FAILURE_LIMIT) -> list[str]:
    """The conversations a run could not finish (error, interrupted), each with its error and
    whose it is, at most `limit` then `... and N more`; printed after a capture-only run
    (an evaluation lists them itself, with the failing checks)."""
    from tracesim.schemas.error_source import split_error

    if result is None:
        return []
    bad = [c for c in result.conversations if c.status in ("error", "interrupted")]
    if not bad:
        return []
    lines = [f"Conversations that did not finish ({len(bad)}):"]
    for conversation in bad[:limit]:
        source, message = split_error(conversation.error)
        if conversation.status == "interrupted":
            source = "run stopped"
        lines.append(
            f"  {conversation.scenario_id} #{conversation.conversation_index}  "
            f"[{conversation.status}]  {source}: {' '.join(message.split())}"
        )
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more (see run_summary.json)")
    return lines
