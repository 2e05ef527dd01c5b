"""From production to tests, end to end (SPEC §14, issue 22).

1. The offline example agent serves two conversations as in production: its own
   `instrument()` exports to a collector, conversations keyed by
   `gen_ai.conversation.id`, no tracesim run.
2. `evaluate` judges them against the local stand-in model: their user messages
   and replies come from the spans; the refund that could not be made fails.
3. `scenarios from-db --failed` promotes the failed one: scripted turns, the
   recorded trajectory, the recorded results as stubs.
4. `tracesim run` replays the file unchanged against the fixed agent (python tools
   stubbed, `lookup_order` an MCP tool served by `tracesim mcp-mock`): it passes,
   and the mock's calls are spans of the turns; against the broken agent the
   recorded-trajectory check fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.collector.collector import Collector
from tracesim.evaluator import evaluate_db
from tracesim.evaluator.output.results_file import read_results
from tracesim.schemas.eval_config import EvalConfig
from tracesim.schemas.llm_config import LLMConfig

from tests.fakes.openai_server import fake_openai, judge_reply
from tests.simulator.conftest import Project, custom_agent
from tracesim.cli import cli

HERE = Path(__file__).resolve().parent
TRACESIM = str(Path(sys.executable).parent / "tracesim")


def _judge(body: dict) -> dict:
    """The stand-in judge: a goal is not met when the agent could not do what was asked."""
    transcript = body["messages"][-1]["content"]
    return judge_reply(body, goal_done="can't refund" not in transcript)


def _production(tmp_path: Path) -> tuple[Path, list[str]]:
    db = tmp_path / "production.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.grpc_endpoint}
        done = subprocess.run(
            [sys.executable, str(HERE / "production_app.py")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert collector.flush(10)
    return db, json.loads(done.stdout.strip().splitlines()[-1])


def _replay(root: Path, collector: Collector, scenarios: Path, mcp_url: str, *, broken: bool):
    """`tracesim run` in its own process (a fresh agent process, as in CI), its spans and
    the mock's to `collector`. Not for lost spans any more (a run now delivers every span
    its in-process agent ended before it returns: tests/simulator/
    test_instrument_delivery.py): the replay agent imports the example's modules by their
    bare names (`agent`, `tools`, `local_model`), which other tests' modules of the same
    names shadow in a shared process."""
    name = "broken" if broken else "fixed"
    project = Project(root / name)
    project.root.mkdir(parents=True)
    config = project.config(
        agent_config=custom_agent(
            str(HERE / "replay_agent.py"),
            class_name="ReplayAgent",
            init_kwargs={"mcp_url": mcp_url, "broken": broken},
        ),
        scenario_file_path=str(scenarios),
        collector={"mode": "remote", "endpoint": collector.grpc_endpoint},
    )
    done = subprocess.run(
        [TRACESIM, "run", str(config)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _run_ids(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT run_id FROM conversations GROUP BY run_id ORDER BY min(start_time)"
        ).fetchall()
    return [r[0] for r in rows]


def _trajectory(db: Path, run_id: str, tmp_path: Path) -> object:
    result = evaluate_db(
        db,
        config=EvalConfig(metrics=[]),
        run_id=run_id,
        output_dir=tmp_path / run_id,
        progress=False,
    )
    [conversation] = read_results(result.results_path).conversations
    [check] = [m for m in conversation.metrics if m.name == "trajectory"]
    return check


def test_a_failed_production_conversation_becomes_a_regression_test(tmp_path: Path) -> None:
    production, (ok_chat, failed_chat) = _production(tmp_path)

    # 2. judged from the spans' messages, goal inferred
    with fake_openai(_judge) as judge:
        llm = LLMConfig(model="stand-in", base_url=judge.base_url)
        config = EvalConfig(metrics=["goal_completion", "helpfulness"], llm=llm)
        evaluate_db(production, config=config, output_dir=tmp_path / "judged", progress=False)
        assert any(
            "My email is kim@example.com" in m["content"]
            for r in judge.requests
            for m in r["messages"]
        )
    with duckdb.connect(str(production), read_only=True) as con:
        goals = dict(
            con.execute(
                "SELECT chat_id, value FROM scores WHERE metric = 'goal_completion'"
            ).fetchall()
        )
    assert goals == {ok_chat: 1.0, failed_chat: 0.0}

    # 3. promoted
    scenarios = tmp_path / "promoted.json"
    done = CliRunner().invoke(
        cli, ["scenarios", "from-db", "--db", str(production), "--failed", "-o", str(scenarios)]
    )
    assert done.exit_code == 0, done.output
    [scenario] = json.loads(scenarios.read_text())["scenarios"]
    assert scenario["origin"]["chat_id"] == failed_chat
    assert [c["name"] for c in scenario["assertions"][0]["expected"]] == [
        "lookup_order",
        "verify_identity",
        "request_refund",
    ]

    # 4. replayed: fixed agent passes, broken agent fails the recorded trajectory
    replays = tmp_path / "replays.duckdb"
    with Collector(replays, grpc_port=0, http_port=None) as collector:
        mock = subprocess.Popen(
            [
                TRACESIM,
                "mcp-mock",
                "--scenarios",
                str(scenarios),
                "--transport",
                "http",
                "--port",
                "0",
                "--otlp-endpoint",
                collector.grpc_endpoint,
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            url = mock.stderr.readline().rsplit(" ", 1)[-1].strip()
            assert url.startswith("http://127.0.0.1:"), url
            _replay(tmp_path, collector, scenarios, url, broken=False)
            _replay(tmp_path, collector, scenarios, url, broken=True)
        finally:
            mock.terminate()
            mock.wait(10)
        assert collector.flush(10)
    fixed, broken = _run_ids(replays)

    passed = _trajectory(replays, fixed, tmp_path)
    with duckdb.connect(str(replays), read_only=True) as con:
        seen = con.execute(
            "SELECT t.turn_id, t.agent_message, t.status, t.error, (SELECT list(name ORDER BY seq)"
            " FROM tool_calls c WHERE c.chat_id = t.chat_id AND c.turn_id = t.turn_id),"
            " (SELECT list(s.name) FROM spans s WHERE s.chat_id = t.chat_id"
            " AND s.turn_id = t.turn_id) FROM turns t WHERE run_id = ? ORDER BY turn_id",
            [fixed],
        ).fetchall()
    assert passed.passed is True, (passed.reason, seen)
    failed = _trajectory(replays, broken, tmp_path)
    assert failed.passed is False and "verify_identity" in json.dumps(failed.model_dump())
    with duckdb.connect(str(replays), read_only=True) as con:
        replies = [
            r[0]
            for r in con.execute(
                "SELECT agent_message FROM turns WHERE run_id = ? ORDER BY turn_id", [fixed]
            ).fetchall()
        ]
        mcp_spans = con.execute(
            "SELECT DISTINCT s.turn_id FROM spans s JOIN turns t USING (chat_id, turn_id) "
            "WHERE s.service_name = 'tracesim-mcp-mock' AND t.run_id = ?",
            [fixed],
        ).fetchall()
    assert replies[1].startswith("I can't refund that order")  # the recorded answers, stubbed
    assert mcp_spans == [(0,)]  # the MCP tool's call is a span of the turn that made it
