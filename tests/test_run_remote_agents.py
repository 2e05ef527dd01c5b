"""`tracesim run` starts the HTTP example agents itself and captures them offline.

Real subprocess servers on loopback (started from each example's `server:`
block), the real embedded collector, the evaluation step: every turn and
agent tool span is keyed, every explicit tool call absorbed a traced span.
Also: servers that die at start or never become ready fail the run clearly
and leave no process behind.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from rich.console import Console
from tracesim.schemas.agent_config import AgentServerConfig

from tracesim.agent_server import LOG_NAME, CollectorEndpoints, _server_env
from tracesim.run import RunOutcome, run_from_file

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CASES = {
    "chat_completions": (
        EXAMPLES / "chat_completions_agent" / "config.yaml",
        "example-chat-completions-agent",
    ),
    "a2a": (EXAMPLES / "a2a_agent" / "config.yaml", "example-a2a-agent"),
}
FAST_SETTLE = {"trace_wait.settle": "0.3"}  # the server flushed on SIGTERM before settling


def _quiet() -> Console:
    return Console(file=io.StringIO(), width=200)


def _query(db: Path | None, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    assert db is not None
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (an orphan's exit waits for init to reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status


@pytest.fixture(scope="module", params=sorted(CASES))
def example(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    config, service = CASES[request.param]
    out = tmp_path_factory.mktemp(request.param) / "results"
    outcome = run_from_file(
        config, {"output_dir": str(out), **FAST_SETTLE}, console=_quiet(), show_progress=False
    )
    return request.param, service, outcome


def test_the_run_starts_the_server_and_passes(example: Any) -> None:
    kind, _, outcome = example
    assert outcome.exit_code == 0, outcome.error
    assert outcome.result.num_turns == 6
    log = (outcome.output_dir / LOG_NAME).read_text()
    # stopped gracefully (SIGTERM -> lifespan shutdown) and really gone
    assert "Application shutdown complete" in log
    pid = int(re.search(r"Finished server process \[(\d+)\]", log).group(1))
    assert _gone(pid)


def test_every_turn_span_carries_its_keys(example: Any) -> None:
    _, _, outcome = example
    rows = _query(
        outcome.db_path,
        """SELECT chat_id, turn_id, attributes->>'tracesim.chat_id',
                  CAST(attributes->>'tracesim.turn_id' AS INTEGER)
           FROM spans WHERE name = 'tracesim.turn'""",
    )
    assert len(rows) == 6
    assert all(r[0] is not None and r[0] == r[2] and r[1] == r[3] for r in rows)


def test_every_agent_tool_span_is_keyed_to_the_turn_of_its_trace(example: Any) -> None:
    _, service, outcome = example
    rows = _query(
        outcome.db_path,
        """SELECT s.chat_id, s.turn_id, t.chat_id, t.turn_id
           FROM spans s LEFT JOIN spans t ON t.trace_id = s.trace_id AND t.name = 'tracesim.turn'
           WHERE s.operation = 'execute_tool' AND s.service_name = ?""",
        [service],
    )
    assert len(rows) == 7  # 1 + 2 + 2 + 2 tool calls in the four scenarios
    assert all(r[2] is not None and (r[0], r[1]) == (r[2], r[3]) for r in rows)


def test_explicit_tool_calls_absorbed_their_spans(example: Any) -> None:
    kind, service, outcome = example
    source = {"chat_completions": "chat_completions", "a2a": "a2a_protocol"}[kind]
    calls = _query(
        outcome.db_path,
        "SELECT chat_id, turn_id, name, source, traced, span_id FROM tool_calls WHERE run_id = ?",
        [outcome.run_id],
    )
    spans = _query(
        outcome.db_path,
        "SELECT chat_id, turn_id, tool_name, span_id FROM spans "
        "WHERE operation = 'execute_tool' AND service_name = ?",
        [service],
    )
    assert {c[3] for c in calls} == {source} and all(c[4] for c in calls)
    assert Counter(c[:3] for c in calls) == Counter(s[:3] for s in spans)
    assert {c[5] for c in calls} == {s[3] for s in spans}


def test_scores_exist_for_every_conversation(example: Any) -> None:
    _, _, outcome = example
    finals = _query(
        outcome.db_path,
        "SELECT label FROM scores WHERE metric = 'final_score' AND run_id = ?",
        [outcome.run_id],
    )
    assert [label for (label,) in finals] == ["Done"] * 4
    assert Path(outcome.extra["report_path"]).is_file()


# -- servers that do not come up -------------------------------------------------------


def _config(tmp_path: Path, command: list[str], **server: Any) -> Path:
    body = {
        "agent_config": {
            "agent_type": "chat_completions",
            "api_config": {"endpoint": "http://127.0.0.1:{port}/v1/chat/completions"},
            "server": {"command": command, **server},
        },
        "scenario_file_path": str(EXAMPLES / "chat_completions_agent" / "scenarios.json"),
        "output_dir": str(tmp_path / "results"),
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _run(config: Path) -> RunOutcome:
    return run_from_file(config, console=_quiet(), show_progress=False)


def test_a_server_that_exits_at_once_fails_the_run_with_its_log_tail(tmp_path: Path) -> None:
    script = (
        "import os, sys; print('pid', os.getpid()); "
        "print('agent: OPENAI_API_KEY is not set', file=sys.stderr); sys.exit(4)"
    )
    outcome = _run(_config(tmp_path, ["{python}", "-c", script]))
    assert outcome.exit_code == 3
    assert "exited with code 4 before it was ready" in outcome.error
    assert "OPENAI_API_KEY is not set" in outcome.error  # the log's tail
    assert LOG_NAME in outcome.error and "leave `server:` out" in outcome.error
    pid = int(re.search(r"pid (\d+)", outcome.error).group(1))
    assert _gone(pid)


def test_a_server_that_exits_leaves_no_child_behind(tmp_path: Path) -> None:
    script = (
        "import subprocess, sys; "
        "child = subprocess.Popen([sys.executable, '-c', 'import signal; signal.pause()']); "
        "print('child', child.pid, flush=True); sys.exit(5)"  # the leader dies, its child lives
    )
    outcome = _run(_config(tmp_path, ["{python}", "-c", script]))
    assert outcome.exit_code == 3 and "exited with code 5" in outcome.error
    child = int(re.search(r"child (\d+)", outcome.error).group(1))
    assert _gone(child)


@pytest.mark.parametrize("ignores_sigterm", [False, True])
def test_a_server_that_never_gets_ready_times_out_and_is_stopped(
    tmp_path: Path, ignores_sigterm: bool
) -> None:
    script = (
        "import os, signal; print('pid', os.getpid(), flush=True); "
        + ("signal.signal(signal.SIGTERM, signal.SIG_IGN); " if ignores_sigterm else "")
        + "signal.pause()"  # never listens
    )
    config = _config(tmp_path, ["{python}", "-c", script], ready_timeout=0.5, stop_timeout=0.5)
    outcome = _run(config)
    assert outcome.exit_code == 3
    assert "was not ready after 0.5 s" in outcome.error
    assert "ready_timeout" in outcome.error
    pid = int(re.search(r"pid (\d+)", outcome.error).group(1))
    assert _gone(pid)  # SIGTERM, or SIGKILL after stop_timeout


def test_a_missing_program_is_a_config_error(tmp_path: Path) -> None:
    outcome = _run(_config(tmp_path, ["no-such-agent-server-binary", "--port", "{port}"]))
    assert outcome.exit_code == 2
    assert "agent_config.server.command: program not found" in outcome.error
    assert not (tmp_path / "results").exists()  # nothing ran


def test_server_block_errors_name_the_key(tmp_path: Path) -> None:
    path = _config(tmp_path, ["{python}"])
    raw = yaml.safe_load(path.read_text())
    raw["agent_config"]["server"]["ready_timout"] = 5
    path.write_text(yaml.safe_dump(raw))
    outcome = _run(path)
    assert outcome.exit_code == 2
    assert "agent_config.server.ready_timout" in outcome.error
    assert "Did you mean 'ready_timeout'?" in outcome.error

    del raw["agent_config"]["server"]
    path.write_text(yaml.safe_dump(raw))
    outcome = _run(path)
    assert outcome.exit_code == 2
    assert "uses {port} but there is no `server` block" in outcome.error


def _env_for(collector: CollectorEndpoints, **server_env: str) -> dict[str, str]:
    server = AgentServerConfig(command=["agent"], env=server_env)
    return _server_env(server, {}, collector, agent_name="agent")


def test_server_env_drops_inherited_headers_when_the_collector_needs_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20foreign")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-other=1")
    env = _env_for(CollectorEndpoints(grpc="http://127.0.0.1:4317"))
    assert "OTEL_EXPORTER_OTLP_HEADERS" not in env
    assert "OTEL_EXPORTER_OTLP_TRACES_HEADERS" not in env
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://127.0.0.1:4317"


def test_server_env_headers_are_exactly_the_remote_collectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20foreign,x-a=1")
    remote = CollectorEndpoints(
        http="https://collector.example:4318", headers={"authorization": "Bearer ours"}
    )
    assert _env_for(remote)["OTEL_EXPORTER_OTLP_HEADERS"] == "authorization=Bearer%20ours"
    explicit = _env_for(remote, OTEL_EXPORTER_OTLP_HEADERS="x-b=2")  # server.env still wins
    assert explicit["OTEL_EXPORTER_OTLP_HEADERS"] == "x-b=2"
