"""`tracesim evaluate` on a file a `tracesim run` is still writing (issue: never silent).

The file is held by a running collector (as during a run) and marked by a live process
(`tracesim.run_marker`, as `tracesim run` marks it): chat c1 finished (its conversation
span is stored), c2 has turns only. By default the evaluation is refused with one line,
exit 3; `--allow-in-progress` grades c1 only and says c2 was not graded. A marker whose
process is gone (a killed run) is a note, and grading goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span
from tests.store.conftest import two_chats
from tracesim.cli import cli
from tracesim.run_marker import marker_path, marking_run

RUN = "run-1"
_HOLD = (
    "import sys; from tracesim.run_marker import marking_run\n"
    "with marking_run(sys.argv[1], sys.argv[2]):\n"
    "    print('marked', flush=True); sys.stdin.read()\n"
)


def _finished(chat: str) -> object:
    request = two_chats()
    request.resource_spans[0].scope_spans[0].spans.append(
        span(
            "tracesim.conversation",
            trace_id=new_trace_id(),
            span_id=new_span_id(),
            attrs={
                "tracesim.chat_id": chat,
                "tracesim.run_id": RUN,
                "tracesim.scenario_id": "s",
                "tracesim.conversation.num_turns": 2,
                "tracesim.conversation.status": "completed",
            },
        )  # fmt: skip
    )
    return request


@pytest.fixture
def live_run(tmp_path: Path) -> Iterator[Path]:
    """A file a collector holds, marked by a live process as its run's, until the test ends."""
    db = tmp_path / "tracesim.duckdb"
    collector = Collector(db, grpc_port=0, http_port=0, spool_dir=tmp_path / "spool").start()
    client = GrpcClient(collector.grpc_endpoint or "")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(db), RUN],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        client.export(_finished("c1"))
        assert collector.flush(30)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "marked"
        yield db
    finally:
        client.close()
        holder.communicate("")
        collector.shutdown()


def _evaluate(db: Path, *extra: str) -> object:
    config = db.parent / "config.yaml"
    config.write_text("evaluation:\n  metrics: []\n  policies: [{never: delete_everything}]\n")
    return CliRunner().invoke(cli, [
        "evaluate", "--db", str(db), "--config", str(config), "--output-dir",
        str(db.parent / "out"), "--no-progress", "--workers", "1", *extra,
    ])  # fmt: skip


def test_a_run_in_progress_is_refused_in_one_line(live_run: Path) -> None:
    result = _evaluate(live_run)
    assert result.exit_code == 3, result.output
    line = [x for x in result.output.splitlines() if "in progress" in x]
    assert len(line) == 1 and RUN in line[0] and "1 of its 2 conversation(s)" in line[0]
    assert "--allow-in-progress" in line[0] and "Traceback" not in result.output
    assert not (live_run.parent / "out" / "results.json").exists()


def test_allow_in_progress_grades_the_finished_conversations(live_run: Path) -> None:
    result = _evaluate(live_run, "--allow-in-progress")
    assert result.exit_code == 0, result.output
    assert "1 of its 2 conversation(s) stored so far are not finished: not graded" in (
        result.output.replace("\n", " ")
    )
    results = json.loads((live_run.parent / "out" / "results.json").read_text())
    assert results["summary"]["num_conversations"] == 1


def test_a_killed_run_is_a_note(tmp_path: Path) -> None:
    db = tmp_path / "tracesim.duckdb"
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(_finished("c1"))
        finally:
            client.close()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    marker_path(db).write_text(json.dumps({"run_id": RUN, "pid": int(gone.stdout)}))
    result = _evaluate(db)
    assert result.exit_code == 0, result.output
    assert "stopped before its end" in result.output.replace("\n", " ")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["summary"]["num_conversations"] == 2


def test_the_marker_is_gone_when_the_run_ends(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    with pytest.raises(KeyboardInterrupt), marking_run(db, RUN):
        assert json.loads(marker_path(db).read_text())["run_id"] == RUN
        raise KeyboardInterrupt
    assert not marker_path(db).exists()
