"""`tracesim scenarios from-db`: collected conversations become scenarios `tracesim run` loads."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.evaluator import evaluate_db
from tracesim.evaluator.checks.assertions import parse_assertions
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig
from tracesim.simulator.scenarios import load_scenarios

from tests.fakes.openai_server import chat_completion, fake_openai
from tracesim.cli import cli

T0 = datetime(2025, 3, 1, 9, 0, 0)
TOOLS = [{"type": "function", "name": "lookup_order", "parameters": {"type": "object"}}]


def _turn(con, n: int, chat: str, user: str, reply: str, calls: list[tuple]) -> None:
    trace = f"{n:032x}"
    start = T0 + timedelta(minutes=n)
    rows = [
        (
            f"{n:08x}{0:08x}",
            "chat model",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.tool.definitions": json.dumps(TOOLS),
                "gen_ai.input.messages": json.dumps([{"role": "user", "content": user}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": reply}]),
            },
            None,
        )
    ]
    for i, (tool, args, result, error) in enumerate(calls, start=1):
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.arguments": json.dumps(args),
        }
        if result is not None:
            attrs["gen_ai.tool.call.result"] = result
        rows.append((f"{n:08x}{i:08x}", f"execute_tool {tool}", attrs, error))
    for i, (span_id, name, attrs, error) in enumerate(rows):
        attrs["gen_ai.conversation.id"] = chat
        con.execute(
            "INSERT INTO spans (trace_id, span_id, name, start_time, end_time, status_code, "
            "status_message, attributes, events, chat_id, turn_id, tool_name) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, NULL, ?)",
            [
                trace,
                span_id,
                name,
                start + timedelta(seconds=i),
                start + timedelta(seconds=i),
                "ERROR" if error else "UNSET",
                error,
                json.dumps(attrs),
                chat,
                attrs.get("gen_ai.tool.name"),
            ],
        )


def _store(path: Path) -> str:
    con = duckdb.connect(str(path))
    create_all(con)
    _turn(
        con,
        1,
        "prod-1",
        "Where is order A1001?",
        "It is shipped.",
        [("lookup_order", {"order_id": "A1001"}, '{"status": "shipped"}', None)],
    )
    _turn(
        con,
        2,
        "prod-1",
        "Refund it please",
        "Sorry, that failed.",
        [
            ("lookup_order", {"order_id": "A1001"}, '{"status": "delivered"}', None),
            ("request_refund", {"order_id": "A1001"}, None, "refunds are down"),
        ],
    )
    _turn(con, 3, "prod-2", "What is your return policy?", "30 days.", [])
    con.close()
    return str(path)


def _from_db(*args: str) -> object:
    return CliRunner().invoke(cli, ["scenarios", "from-db", *args])


def test_a_conversation_becomes_a_replayable_scenario(tmp_path: Path) -> None:
    db = _store(tmp_path / "prod.duckdb")
    out = tmp_path / "scenarios.json"
    done = _from_db("--db", db, "--chat-id", "prod-1", "-o", str(out))
    assert done.exit_code == 0, done.output
    assert f"wrote 1 scenarios to {out}" in done.output
    [scenario] = load_scenarios(out)  # what `tracesim run` loads
    parse_assertions(scenario.assertions, where="replay")
    assert scenario.scenario_id == "prod-prod-1"
    assert scenario.turns == ["Where is order A1001?", "Refund it please"]
    assert scenario.goal == "Where is order A1001?" and scenario.knowledge == [scenario.goal]
    [trajectory] = scenario.assertions
    assert trajectory == {
        "type": "tool_calls",
        "description": "recorded trajectory of prod-1",
        "expected": [
            {"name": "lookup_order", "args": {"order_id": "A1001"}},
            {"name": "lookup_order", "args": {"order_id": "A1001"}},
            {"name": "request_refund", "args": {"order_id": "A1001"}},
        ],
        "order": "in_order",
        "arg_mode": "subset",
    }
    stubs = [s.model_dump(exclude_none=True) for s in scenario.tool_stubs]
    assert stubs == [
        {
            "name": "lookup_order",
            "args": {"order_id": "A1001"},
            "result": '{"status": "shipped"}',
            "repeat": 1,
        },
        {
            "name": "lookup_order",
            "args": {"order_id": "A1001"},
            "result": '{"status": "delivered"}',
            "repeat": 1,
        },
        {
            "name": "request_refund",
            "args": {"order_id": "A1001"},
            "error": "refunds are down",
            "repeat": 1,
        },
    ]
    assert [t["name"] for t in scenario.tools] == ["lookup_order"]
    assert scenario.model_extra["origin"]["chat_id"] == "prod-1"


def test_failed_selects_what_the_latest_evaluation_failed(tmp_path: Path) -> None:
    db = _store(tmp_path / "prod.duckdb")
    config = EvalConfig(metrics=[], policies=[{"never": ["request_refund"]}])
    evaluate_db(db, config=config, output_dir=tmp_path / "o", progress=False)
    out = tmp_path / "failed.json"
    done = _from_db("--db", db, "--failed", "-o", str(out))
    assert done.exit_code == 0, done.output
    [scenario] = load_scenarios(out)
    assert scenario.scenario_id == "prod-prod-1"
    assert "failed in their latest evaluation: 1" in done.output
    # the recorded calls are what failed (request_refund): asserting them would pass the
    # replay on the same failure, so they are kept aside, not asserted
    assert scenario.assertions == []
    origin = scenario.model_extra["origin"]
    assert origin["failed"] is True
    assert [c["name"] for c in origin["recorded_trajectory"]] == [
        "lookup_order",
        "lookup_order",
        "request_refund",
    ]
    assert "1 have none to carry (prod-1)" in done.output
    assert len(scenario.tool_stubs) == 3  # the recorded results still answer the replay


def test_a_failed_run_conversation_carries_the_assertions_it_failed() -> None:
    from tracesim.evaluator.promote.scenario import conversation_scenario
    from tracesim.schemas import ToolCall

    played = {
        "scenario_id": "refund",
        "assertions": [{"type": "tool_calls", "expected": [{"name": "request_refund"}]}],
    }
    turns = [{"turn_id": 0, "user_message": "money back for A1"}]
    calls = [[ToolCall(name="lookup_order", arguments={"id": "A1"}, result="ok")]]
    failed = conversation_scenario("c1", turns, calls, failed=True, played=played)
    assert failed.scenario["assertions"] == played["assertions"]  # what should happen
    assert failed.failed == "scenario assertions"
    passed = conversation_scenario("c1", turns, calls, played=played)
    assert passed.scenario["assertions"][0]["expected"] == [
        {"name": "lookup_order", "args": {"id": "A1"}}
    ]  # a conversation that did not fail: its recorded behaviour is the regression test


def test_nothing_failed_is_good_news_not_bad_input(tmp_path: Path) -> None:
    """A nightly `--failed` promotion on a day nothing failed exits 0 and says so."""
    db = _store(tmp_path / "prod.duckdb")
    config = EvalConfig(metrics=[], policies=[{"never": ["delete_account"]}])
    evaluate_db(db, config=config, output_dir=tmp_path / "o", progress=False)
    out = tmp_path / "failed.json"
    done = _from_db("--db", db, "--failed", "-o", str(out))
    assert done.exit_code == 0, done.output
    assert "nothing to promote: no conversation failed in its latest evaluation" in done.output
    assert not out.exists()


def test_llm_summary_when_configured(tmp_path: Path) -> None:
    db = _store(tmp_path / "prod.duckdb")
    answer = {"goal": "Get order A1001 refunded", "knowledge": ["Order number: A1001"]}
    with fake_openai(lambda body: chat_completion(json.dumps(answer))) as fake:
        config = tmp_path / "config.yaml"
        config.write_text(f"llm:\n  model: m\n  base_url: {fake.base_url}\n")
        out = tmp_path / "s.json"
        done = _from_db("--db", db, "--chat-id", "prod-1", "--config", str(config), "-o", str(out))
        assert done.exit_code == 0, done.output
    [scenario] = load_scenarios(out)
    assert scenario.goal == answer["goal"] and scenario.knowledge == answer["knowledge"]
    assert scenario.model_extra["origin"]["summary"] == "llm"
    assert "Refund it please" in fake.requests[0]["messages"][1]["content"]


def test_chat_ids_that_read_alike_get_distinct_scenario_ids(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "p.duckdb"))
    create_all(con)
    _turn(con, 1, "a/b", "hello", "hi", [])
    _turn(con, 2, "a:b", "hello", "hi", [])
    con.close()
    out = tmp_path / "s.json"
    done = _from_db("--db", str(tmp_path / "p.duckdb"), "-o", str(out))
    assert done.exit_code == 0, done.output
    assert [s.scenario_id for s in load_scenarios(out)] == ["prod-a-b", "prod-a-b-2"]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = _from_db("--db", str(tmp_path / "missing.duckdb"), "-o", str(tmp_path / "x.json"))
    assert done.exit_code == 2 and "does not exist (--db)" in done.output
    db = _store(tmp_path / "prod.duckdb")
    done = _from_db("--db", db, "--chat-id", "nope", "-o", str(tmp_path / "x.json"))
    assert done.exit_code == 2 and "not in the store: nope" in done.output
    assert "no conversation could become a scenario" in done.output


def test_from_chdb_the_same_scenario(tmp_path: Path) -> None:
    """The exporter's ClickHouse tables (through chdb) promote like a DuckDB file."""
    import pytest

    pytest.importorskip("chdb", reason="the clickhouse extra is not installed")
    from tests.clickhouse.conftest import request_of, write_exporter_tables
    from tests.collector.otlp import new_trace_id, span

    start = 1_740_819_600_000_000_000
    spans = []
    for n, (user, reply, tool, args, result) in enumerate(
        [
            (
                "Where is order A1001?",
                "It is shipped.",
                "lookup_order",
                {"order_id": "A1001"},
                "shipped",
            ),
            ("Thanks", "Bye", None, None, None),
        ]
    ):
        trace = new_trace_id()
        spans.append(
            span(
                "chat model",
                trace_id=trace,
                start=start + n * 60_000_000_000,
                attrs={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.conversation.id": "ch-1",
                    "gen_ai.input.messages": json.dumps([{"role": "user", "content": user}]),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": reply}]),
                },
            )
        )
        if tool:
            spans.append(
                span(
                    f"execute_tool {tool}",
                    trace_id=trace,
                    start=start + n * 60_000_000_000 + 1_000_000,
                    attrs={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": tool,
                        "gen_ai.tool.call.arguments": json.dumps(args),
                        "gen_ai.tool.call.result": result,
                    },
                )
            )
    url = write_exporter_tables(tmp_path / "ch", request_of(({"service.name": "prod"}, spans)))
    out = tmp_path / "s.json"
    config = EvalConfig(metrics=[], policies=[{"never": ["lookup_order"]}])
    evaluate_db(url, config=config, output_dir=tmp_path / "o", progress=False)
    done = _from_db("--db", url, "--failed", "-o", str(out))
    assert done.exit_code == 0, done.output
    [scenario] = load_scenarios(out)
    assert scenario.turns == ["Where is order A1001?", "Thanks"]
    assert scenario.assertions == []  # it failed (a policy): its calls are not asserted
    assert scenario.model_extra["origin"]["recorded_trajectory"] == [
        {"name": "lookup_order", "args": {"order_id": "A1001"}}
    ]
    assert [s.result for s in scenario.tool_stubs] == ["shipped"]
    assert "failed in their latest evaluation: 1" in done.output
