"""A start that fails after a receiver listens (SPEC §9 "acknowledges nothing before it is
fully started; a store or spool that has received a request is never deleted"): an
exporter already sending gets UNAVAILABLE (it retries), never an OK for data the clean
stop would then remove; and `tracesim collect` never removes a store that took data."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import grpc
import pytest
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.collector import collector as collector_module

from tests.collector.otlp import GrpcClient, span, trace_request
from tracesim.cli import cli


def _fail_last_step(
    monkeypatch: pytest.MonkeyPatch, answers: list[Any], *, open_early: bool = False
) -> None:
    """The sidecar write (the last start-up step) first lets an exporter send to the gRPC
    receiver, which is listening by then, then fails as with `ulimit -n` exhausted."""
    real_init = Collector.__init__
    started: list[Collector] = []

    def init(self: Collector, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        started.append(self)

    def failing_sidecar(*_args: Any, **_kwargs: Any) -> None:
        running = started[-1]
        if open_early:  # what a receiver acknowledging before the end of start would do
            running._ingest.open()  # type: ignore[union-attr]
        client = GrpcClient(running.grpc_endpoint)
        try:
            client.export(trace_request([span("sent-during-start")]))
            answers.append("OK")
        except grpc.RpcError as error:
            answers.append(error.code())
        finally:
            client.close()
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(Collector, "__init__", init)
    monkeypatch.setattr(collector_module, "write_sidecar", failing_sidecar)


def test_nothing_is_acknowledged_before_the_collector_is_fully_up(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[Any] = []
    _fail_last_step(monkeypatch, answers)
    with pytest.raises(OSError, match="Too many open files"):
        Collector(db_path, grpc_port=0, http_port=0).start()
    assert answers == [grpc.StatusCode.UNAVAILABLE]


def test_collect_keeps_a_store_that_took_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[Any] = []
    _fail_last_step(monkeypatch, answers, open_early=True)
    db = tmp_path / "new" / "t.duckdb"
    result = CliRunner().invoke(
        cli, ["collect", "--db", str(db), "--grpc-port", "0", "--http-port", "0"]
    )
    assert result.exit_code == 2, result.output
    assert "Too many open files" in result.output and "Traceback" not in result.output
    assert answers == ["OK"]
    assert db.exists(), "an acknowledged request's store was deleted"
    with Collector(db, grpc_port=None, http_port=None) as reopened:
        names = reopened.query("SELECT name FROM spans")[1]
    assert names == [["sent-during-start"]]


def test_collect_still_removes_a_new_store_that_took_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[Any] = []
    _fail_last_step(monkeypatch, answers)
    db = tmp_path / "new" / "t.duckdb"
    result = CliRunner().invoke(
        cli, ["collect", "--db", str(db), "--grpc-port", "0", "--http-port", "0"]
    )
    assert result.exit_code == 2, result.output
    assert answers == [grpc.StatusCode.UNAVAILABLE]
    assert not (tmp_path / "new").exists()
