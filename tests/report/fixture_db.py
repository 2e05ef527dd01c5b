"""A synthetic but realistic tracesim DuckDB file, built from the DDL in `schemas`.

Used by the report, SQL and notebook tests (and by `measure_report.py` at
1,000 conversations) while the simulator and evaluator that fill these
tables for real are written elsewhere. It holds several scenarios, turns
with explicit / traced / both tool calls, tool errors, agent errors, span
trees (turn -> agent -> llm / tool) for waterfalls, LLM judges that were not
run (NULL values), two evaluation passes, and agent text with HTML in it
(to check escaping).

Rows are built by `fixture_spans.py` (turns, spans, tool calls) and
`fixture_scores.py` (scores, gates) into `fixture_rows.Rows`, then loaded.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
from tracesim.schemas.ddl import create_all

from tests.report.fixture_rows import Rows, to_json
from tests.report.fixture_scores import add_scores, gate
from tests.report.fixture_spans import SCENARIOS, XSS_TEXT, add_turn, scenario_tools

__all__ = ["XSS_TEXT", "build_fixture_db"]


def build_fixture_db(
    path: str | Path,
    *,
    num_conversations: int = 12,
    turns: int = 3,
    seed: int = 7,
    num_scenarios: int | None = None,
) -> Path:
    """Write a fixture DuckDB file at `path` (replaced if present) and return its path.

    Two evaluation passes share one simulation run: `eval-1` (deterministic
    metrics only, judges NULL) and the newer `eval-2` (judges run). `num_scenarios`:
    that many distinct scenario ids (numbered copies of the four base ones).
    """
    path = Path(path)
    path.unlink(missing_ok=True)
    rng = random.Random(seed)
    rows = Rows()
    run_id = "run-0001"
    t0 = datetime(2025, 1, 15, 9, 0, 0)
    all_calls: dict[str, list[list[dict]]] = {}
    base = list(SCENARIOS)
    scenario_ids = (
        [f"{base[i % len(base)]}-{i:04d}" for i in range(num_scenarios)] if num_scenarios else base
    )
    for index in range(num_conversations):
        scenario_id = scenario_ids[index % len(scenario_ids)]
        chat_id = f"chat-{index:04d}"
        start = t0 + timedelta(seconds=index * 7)
        t = start
        all_calls[chat_id] = []
        for turn_id in range(turns):
            t, calls = add_turn(
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
            scenario=to_json(
                {
                    "scenario_id": scenario_id,
                    "goal": f"Get help with {scenario_id}",
                    "expected_tools": scenario_tools(scenario_id),
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
            add_scores(
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
            gate("final_score", 0.7, mean, num_conversations),
            gate("tool_call_args", 0.8, 0.83, num_conversations * turns),
            gate("helpfulness", 0.6, None if not judges else 0.66, num_conversations * turns),
        ]
        passed = all(g["passed"] is not False for g in gates)
        rows.add(
            "runs",
            eval_id=eval_id,
            run_id=run_id,
            kind="run" if n == 0 else "evaluate",
            started_at=created,
            finished_at=created + timedelta(seconds=30),
            config=to_json({"judges": judges}),
            num_conversations=num_conversations,
            num_turns=num_conversations * turns,
            final_score=mean,
            status="passed" if passed else "failed",
            gates_passed=passed,
            exit_code=0 if passed else 1,
            summary=to_json(
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
