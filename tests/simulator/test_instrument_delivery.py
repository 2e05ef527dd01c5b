"""Spans of an in-process agent are never lost between runs (SPEC §9 "an Export answered
OK is durable", from the agent's side): every span the agent ended during a run reaches
that run's collector before the run goes on, an agent module calling `instrument()` again
mid-run keeps the run's target (its token included), and spans that could not be
delivered are counted and said.

Before: the run's block ended with spans still queued for up to 200 ms (a collector
stopped right after never got them), and `instrument()` called without arguments during
a run re-pointed the exporter at the environment's endpoint without the run's token
(every span refused). The replay of `tests/production` lost the agent's spans about one
run in ten that way."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from opentelemetry import trace
from tracesim.collector.collector import Collector

from tracesim import instrument
from tracesim.agent_server import _in_process

TOKEN = "s3cret-token"


def _emit(name: str) -> None:
    with trace.get_tracer("test.delivery").start_as_current_span(name):
        pass


def _names(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [r[0] for r in con.execute("SELECT name FROM spans ORDER BY name").fetchall()]


def test_spans_ended_during_a_run_are_stored_when_its_block_ends(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        with _in_process(collector.grpc_endpoint, {}):
            instrument(openai_agents=False)  # the agent module, imported during the run
            _emit("ended-last")
        # no wait: the block delivered it (acknowledged by the collector) before returning
        assert collector.flush(10)
        stored = collector.query("SELECT name FROM spans")[1]
    assert ["ended-last"] in stored


def test_instrument_called_again_mid_run_keeps_the_runs_token(tmp_path: Path) -> None:
    db = tmp_path / "b.duckdb"
    headers = {"authorization": f"Bearer {TOKEN}"}
    with Collector(db, grpc_port=0, http_port=None, auth_token=TOKEN) as collector:
        with _in_process(collector.grpc_endpoint, headers):
            instrument(openai_agents=False)  # no endpoint, no headers: keep the run's
            _emit("with-token")
        assert collector.flush(10)
    assert _names(db) == ["with-token"]


def test_spans_the_collector_refused_are_counted_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.duckdb"
    with Collector(db, grpc_port=0, http_port=None, auth_token=TOKEN) as collector:
        with _in_process(collector.grpc_endpoint, {"authorization": "Bearer wrong"}):
            instrument(openai_agents=False)
            _emit("refused")
        assert collector.flush(10)
    assert _names(db) == []
    assert "1 span(s) of the in-process agent could not be delivered" in capsys.readouterr().err
