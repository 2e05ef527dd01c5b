"""A synthetic but realistic tracesim DuckDB file, built from the DDL in `schemas`.

Used by the report, SQL and notebook tests (and by `measure_report.py` at
1,000 conversations) while the simulator and evaluator that fill these
tables for real are written elsewhere. It holds several scenarios, turns
with explicit / traced / both tool calls, tool errors, agent errors, span
trees (turn -> agent -> llm / tool) for waterfalls, LLM judges that were not
run (NULL values), two evaluation passes, and agent text with HTML in it
(to check escaping).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from schemas.ddl import create_all

__all__ = ["XSS_TEXT", "build_fixture_db"]

XSS_TEXT = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
"""Agent text that would run script if the report did not escape it."""

_SCENARIOS = {
    "refund_request": ["lookup_order", "check_refund_policy", "issue_refund"],
    "order_status": ["lookup_order", "track_shipment"],
    "change_address": ["lookup_order", "update_address"],
    "product_question": ["search_catalog"],
}
_BEHAVIOR_LABELS = [
    "no failure",
    "no failure",
    "no failure",
    "false information",
    "disobey user request",
    "repetition",
    "lack of specific information",
]
_DETERMINISTIC = ("tool_call_args", "tool_call_order", "tool_call_count", "trajectory")
_JUDGES = ("helpfulness", "coherence", "relevance", "faithfulness", "verbosity")


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


class _Rows:
    """Column lists per table (loaded as Arrow: fast at 1,000 conversations)."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, list[Any]]] = {}

    def add(self, table: str, **row: Any) -> None:
        cols = self.tables.setdefault(table, {})
        if not cols:
            for key in row:
                cols[key] = []
        for key, col in cols.items():
            col.append(row.get(key))

    def load(self, con: duckdb.DuckDBPyConnection) -> None:
        for table, cols in self.tables.items():
            arrow = pa.table(cols)  # noqa: F841 (read by DuckDB's replacement scan)
            names = ", ".join(cols)
            con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM arrow")


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def _span(
    rows: _Rows,
    *,
    trace: str,
    span: str,
    parent: str | None,
    name: str,
    start: datetime,
    ms: float,
    chat_id: str,
    turn_id: int,
    error: str | None = None,
    operation: str | None = None,
    tool_name: str | None = None,
    model: str | None = None,
    tokens: tuple[int, int] | None = None,
    attributes: dict[str, Any] | None = None,
    service: str = "support-agent",
) -> None:
    rows.add(
        "spans",
        trace_id=trace,
        span_id=span,
        parent_span_id=parent,
        name=name,
        kind="INTERNAL",
        start_time=start,
        end_time=start + timedelta(milliseconds=ms),
        duration_ms=ms,
        status_code="ERROR" if error else "UNSET",
        status_message=error,
        service_name=service,
        scope_name="fixture",
        attributes=_json(attributes or {}),
        resource_attributes=_json({"service.name": service}),
        events="[]",
        links="[]",
        chat_id=chat_id,
        turn_id=turn_id,
        operation=operation,
        tool_name=tool_name,
        model=model,
        input_tokens=tokens[0] if tokens else None,
        output_tokens=tokens[1] if tokens else None,
        received_at=start,
    )


def _turn(
    rows: _Rows,
    rng: random.Random,
    *,
    chat_id: str,
    turn_id: int,
    run_id: str,
    scenario_id: str,
    start: datetime,
    inject_xss: bool,
) -> tuple[datetime, list[dict]]:
    """One turn: its spans, turn row and tool calls. Returns its end and tool calls."""
    trace = _hex(rng, 32)
    turn_span, agent_span = _hex(rng, 16), _hex(rng, 16)
    t = start + timedelta(milliseconds=rng.uniform(1, 5))
    calls: list[dict] = []
    tools = _SCENARIOS[scenario_id]
    n_tools = rng.choice([0, 1, 1, 2, 2, 3])
    for i in range(n_tools + 1):  # llm -> tool -> llm -> tool ... -> llm
        llm_ms = rng.uniform(200, 1200)
        _span(
            rows,
            trace=trace,
            span=_hex(rng, 16),
            parent=agent_span,
            name="chat gpt-4o-mini",
            start=t,
            ms=llm_ms,
            chat_id=chat_id,
            turn_id=turn_id,
            operation="chat",
            model="gpt-4o-mini",
            tokens=(rng.randint(300, 2000), rng.randint(20, 300)),
        )
        t += timedelta(milliseconds=llm_ms + 1)
        if i == n_tools:
            break
        name = tools[i % len(tools)]
        tool_span = _hex(rng, 16)
        tool_ms = rng.uniform(5, 400)
        error = "TimeoutError: upstream took too long" if rng.random() < 0.05 else None
        args = {"order_id": f"A{rng.randint(1000, 9999)}"}
        if name == "search_catalog":
            args = {"query": rng.choice(["blue kettle", "usb-c cable", "desk lamp"]), "limit": 5}
        result = None if error else _json({"ok": True, "tool": name, "detail": "x" * 40})
        _span(
            rows,
            trace=trace,
            span=tool_span,
            parent=agent_span,
            name=f"execute_tool {name}",
            start=t,
            ms=tool_ms,
            chat_id=chat_id,
            turn_id=turn_id,
            error=error,
            operation="execute_tool",
            tool_name=name,
            attributes={"gen_ai.tool.name": name, "gen_ai.tool.call.arguments": _json(args)},
        )
        if rng.random() < 0.5:  # a nested HTTP call under some tools
            _span(
                rows,
                trace=trace,
                span=_hex(rng, 16),
                parent=tool_span,
                name="GET /api",
                start=t + timedelta(milliseconds=1),
                ms=tool_ms * 0.8,
                chat_id=chat_id,
                turn_id=turn_id,
                service="orders-api",
            )
        kind = rng.choice(["explicit", "traced", "both", "both"])
        calls.append(
            {
                "seq": i,
                "id": f"call_{_hex(rng, 8)}" if kind != "traced" else "",
                "name": name,
                "arguments": args,
                "result": result,
                "error": error,
                "source": "tracing_processor" if kind == "traced" else "agent_response",
                "traced": kind != "explicit",
                "span_id": tool_span if kind != "explicit" else None,
                "start_time": t,
                "duration_ms": tool_ms,
            }
        )
        t += timedelta(milliseconds=tool_ms + 1)
    end = t + timedelta(milliseconds=2)
    agent_ms = (end - start).total_seconds() * 1000 - 2
    _span(
        rows,
        trace=trace,
        span=agent_span,
        parent=turn_span,
        name="invoke_agent support",
        start=start + timedelta(milliseconds=1),
        ms=agent_ms,
        chat_id=chat_id,
        turn_id=turn_id,
        operation="invoke_agent",
    )
    status = "error" if rng.random() < 0.03 else "ok"
    turn_error = "AgentError: connector raised HTTP 502" if status == "error" else None
    total_ms = (end - start).total_seconds() * 1000
    _span(
        rows,
        trace=trace,
        span=turn_span,
        parent=None,
        name="tracesim.turn",
        start=start,
        ms=total_ms,
        chat_id=chat_id,
        turn_id=turn_id,
        error=turn_error,
        service="tracesim",
        attributes={"tracesim.chat_id": chat_id, "tracesim.turn_id": turn_id},
    )
    agent_message = f"Sure, I looked into {scenario_id.replace('_', ' ')} for you (turn {turn_id})."
    if inject_xss:
        agent_message += " " + XSS_TEXT
    explicit = [
        {k: c[k] for k in ("id", "name", "arguments", "result", "error")} | {"source": c["source"]}
        for c in calls
        if c["source"] != "tracing_processor"
    ]
    rows.add(
        "turns",
        chat_id=chat_id,
        turn_id=turn_id,
        run_id=run_id,
        scenario_id=scenario_id,
        trace_id=trace,
        span_id=turn_span,
        user_message=f"Hi, about my {scenario_id.replace('_', ' ')} <b>please</b> (turn {turn_id})",
        agent_message=None if status == "error" else agent_message,
        explicit_tool_calls=_json(explicit),
        start_time=start,
        end_time=end,
        duration_ms=total_ms,
        status=status,
        error=turn_error,
    )
    for c in calls:
        rows.add(
            "tool_calls",
            chat_id=chat_id,
            turn_id=turn_id,
            run_id=run_id,
            **{**c, "arguments": _json(c["arguments"])},
        )
    return end, calls


def _score(
    rows: _Rows,
    *,
    eval_id: str,
    run_id: str,
    chat_id: str,
    turn_id: int | None,
    metric: str,
    value: float | None,
    threshold: float | None = None,
    label: str | None = None,
    reason: str = "",
    created: datetime,
) -> None:
    passed = None if value is None or threshold is None else value >= threshold
    rows.add(
        "scores",
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=turn_id,
        metric=metric,
        value=value,
        passed=passed,
        threshold=threshold,
        label=label,
        reason=reason,
        details=_json({"fixture": True}),
        created_at=created,
    )


def _scores(
    rows: _Rows,
    rng: random.Random,
    *,
    eval_id: str,
    run_id: str,
    chat_id: str,
    turn_calls: list[list[dict]],
    created: datetime,
    judges_run: bool,
) -> float:
    """Turn and conversation scores of one conversation; returns its final score."""
    successes = 0
    for turn_id, calls in enumerate(turn_calls):
        values = {m: rng.choice([1.0] * 20 + [0.5, 0.0]) for m in _DETERMINISTIC}
        errors = sum(1 for c in calls if c["error"])
        values["tool_error_rate"] = errors / len(calls) if calls else 0.0
        for metric, value in values.items():
            threshold = None if metric == "tool_error_rate" else 1.0
            _score(
                rows,
                eval_id=eval_id,
                run_id=run_id,
                chat_id=chat_id,
                turn_id=turn_id,
                metric=metric,
                value=value,
                threshold=threshold,
                reason=f"{metric}: {value:.2f} for {len(calls)} call(s)",
                created=created,
            )
        for metric in _JUDGES:
            value = rng.choice([0.6, 0.8, 1.0, 0.4]) if judges_run else None
            _score(
                rows,
                eval_id=eval_id,
                run_id=run_id,
                chat_id=chat_id,
                turn_id=turn_id,
                metric=metric,
                value=value,
                threshold=0.6,
                label=None if judges_run else "not_run",
                reason="judge reasoning" if judges_run else "no LLM configured",
                created=created,
            )
        ok = all(values[m] >= 1.0 for m in _DETERMINISTIC) and errors == 0
        successes += ok
        _score(
            rows,
            eval_id=eval_id,
            run_id=run_id,
            chat_id=chat_id,
            turn_id=turn_id,
            metric="turn_success",
            value=1.0 if ok else 0.0,
            threshold=1.0,
            reason="all deterministic checks passed" if ok else "a tool-call check failed",
            created=created,
        )
    label = rng.choice(_BEHAVIOR_LABELS) if judges_run else "not_run"
    _score(
        rows,
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=None,
        metric="agent_behavior_failure",
        value=(1.0 if label == "no failure" else 0.0) if judges_run else None,
        threshold=1.0,
        label=label,
        reason=f"The agent showed: {label}. {XSS_TEXT}" if judges_run else "not run",
        created=created,
    )
    goal = rng.choice([1.0, 1.0, 0.5, 0.0]) if judges_run else None
    _score(
        rows,
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=None,
        metric="goal_completion",
        value=goal,
        threshold=0.6,
        created=created,
        reason="goal reached" if goal else "goal missed",
    )
    ratio = successes / max(len(turn_calls), 1)
    final = 0.75 * ratio + 0.25 * (goal if goal is not None else ratio)
    status = "Done" if final >= 1.0 else "Partial Failure" if final >= 0.6 else "Failed"
    _score(
        rows,
        eval_id=eval_id,
        run_id=run_id,
        chat_id=chat_id,
        turn_id=None,
        metric="final_score",
        value=final,
        threshold=0.6,
        label=status,
        reason=f"0.75 x {ratio:.2f} turn success + 0.25 x goal completion",
        created=created,
    )
    return final


def _gate(metric: str, threshold: float, observed: float | None, graded: int) -> dict:
    passed = None if observed is None else observed >= threshold
    return {
        "metric": metric,
        "bound": "min",
        "threshold": threshold,
        "scope": "mean",
        "observed": observed,
        "graded": graded if observed is not None else 0,
        "failing": 0 if passed else graded,
        "passed": passed,
        "reason": f"mean {metric} {observed} vs >= {threshold}"
        if observed is not None
        else f"{metric} was never graded: gate skipped",
    }


def build_fixture_db(
    path: str | Path, *, num_conversations: int = 12, turns: int = 3, seed: int = 7
) -> Path:
    """Write a fixture DuckDB file at `path` (replaced if present) and return its path.

    Two evaluation passes share one simulation run: `eval-1` (deterministic
    metrics only, judges NULL) and the newer `eval-2` (judges run).
    """
    path = Path(path)
    path.unlink(missing_ok=True)
    rng = random.Random(seed)
    rows = _Rows()
    run_id = "run-0001"
    t0 = datetime(2025, 1, 15, 9, 0, 0)
    all_calls: dict[str, list[list[dict]]] = {}
    scenario_ids = list(_SCENARIOS)
    for index in range(num_conversations):
        scenario_id = scenario_ids[index % len(scenario_ids)]
        chat_id = f"chat-{index:04d}"
        start = t0 + timedelta(seconds=index * 7)
        t = start
        all_calls[chat_id] = []
        for turn_id in range(turns):
            t, calls = _turn(
                rows,
                rng,
                chat_id=chat_id,
                turn_id=turn_id,
                run_id=run_id,
                scenario_id=scenario_id,
                start=t + timedelta(milliseconds=50),
                inject_xss=index == 1,
            )
            all_calls[chat_id].append(calls)
        rows.add(
            "conversations",
            chat_id=chat_id,
            run_id=run_id,
            scenario_id=scenario_id,
            conversation_index=index // len(scenario_ids),
            agent_type="custom",
            num_turns=turns,
            status="completed" if index % 9 else "max_turns",
            error=None,
            scenario=_json(
                {
                    "scenario_id": scenario_id,
                    "goal": f"Get help with {scenario_id}",
                    "expected_tools": _SCENARIOS[scenario_id],
                }
            ),
            start_time=start,
            end_time=t,
            duration_ms=(t - start).total_seconds() * 1000,
            trace_id=None,
            span_id=None,
        )
    for n, (eval_id, judges) in enumerate((("eval-1", False), ("eval-2", True))):
        created = t0 + timedelta(hours=1 + n)
        finals = [
            _scores(
                rows,
                rng,
                eval_id=eval_id,
                run_id=run_id,
                chat_id=chat_id,
                turn_calls=calls,
                created=created,
                judges_run=judges,
            )
            for chat_id, calls in all_calls.items()
        ]
        mean = sum(finals) / len(finals)
        gates = [  # the evaluator's GateResult fields
            _gate("final_score", 0.7, mean, num_conversations),
            _gate("tool_call_args", 0.8, 0.83, num_conversations * turns),
            _gate("helpfulness", 0.6, None if not judges else 0.66, num_conversations * turns),
        ]
        passed = all(g["passed"] is not False for g in gates)
        rows.add(
            "runs",
            eval_id=eval_id,
            run_id=run_id,
            kind="run" if n == 0 else "evaluate",
            started_at=created,
            finished_at=created + timedelta(seconds=30),
            config=_json({"judges": judges}),
            num_conversations=num_conversations,
            num_turns=num_conversations * turns,
            final_score=mean,
            status="passed" if passed else "failed",
            gates_passed=passed,
            exit_code=0 if passed else 1,
            summary=_json(
                {
                    "summary": {"num_conversations": num_conversations, "status": "Failed"},
                    "gates": gates,
                    "llm_usage": {
                        "model": "gpt-4o-mini" if judges else None,
                        "enabled": judges,
                        "requests": 120 if judges else 0,
                        "reason": "" if judges else "no LLM configured",
                    },
                }
            ),
            tracesim_version="0.1.0",
        )
    con = duckdb.connect(str(path))
    try:
        create_all(con)
        rows.load(con)
    finally:
        con.close()
    return path
