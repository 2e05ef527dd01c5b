"""`tracesim run` with `collector: {mode: otlp}`: spans go to any OTLP endpoint, the run
waits for them in `store:` and evaluates there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from tracesim.collector.collector import Collector
from tracesim.evaluator.store import open_clickhouse
from tracesim.schemas.config import RunConfig

from tests.clickhouse.conftest import StoreDB, request_of
from tests.clickhouse.exporter_mapping import request_from_duckdb
from tests.collector.otlp import new_span_id, new_trace_id, span
from tracesim.config_loader import load_run_config
from tracesim.run import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"


def test_otlp_mode_needs_an_endpoint_and_a_store() -> None:
    base = {
        "agent_config": {"agent_type": "custom", "module_path": "a.py", "class_name": "A"},
        "scenario_file_path": "s.json",
    }
    with pytest.raises(ValueError, match="needs an endpoint"):
        RunConfig.model_validate({**base, "collector": {"mode": "otlp"}, "store": "chdb:///x"})
    with pytest.raises(ValueError, match="needs `store:`"):
        RunConfig.model_validate({**base, "collector": {"mode": "otlp", "endpoint": "h:4317"}})
    with pytest.raises(ValueError, match="collector mode 'otlp' only"):
        RunConfig.model_validate({**base, "store": "chdb:///x"})


def test_run_sends_to_the_endpoint_and_evaluates_the_store(
    store_db: StoreDB, tmp_path: Path
) -> None:
    url = store_db(None)
    endpoint = Collector(
        tmp_path / "endpoint.duckdb", host="127.0.0.1", grpc_port=0, http_port=None
    ).start()
    try:
        loaded = load_run_config(
            EXAMPLE,
            {
                "output_dir": str(tmp_path / "out"),
                "collector.mode": "otlp",
                "collector.endpoint": endpoint.grpc_endpoint,
                "store": url,
                "trace_wait.settle": "0",
                "trace_wait.wait_timeout": "0.2",
            },
        )
        outcome = run(loaded, show_progress=False)
    finally:
        endpoint.shutdown()
    assert outcome.db_path == url
    con = duckdb.connect(str(tmp_path / "endpoint.duckdb"), read_only=True)
    try:  # the run's spans went to the OTLP endpoint
        (turns,) = con.execute(
            "SELECT count(*) FROM turns WHERE run_id = ?", [outcome.run_id]
        ).fetchone()
        request = request_from_duckdb(con)
    finally:
        con.close()
    assert turns == outcome.result.num_turns > 0
    # the store had none of them when the wait ended: evaluated, nothing to score
    assert outcome.exit_code == 0 and outcome.extra["eval_id"]
    store_db.insert(request)  # what the stock collector would insert
    with open_clickhouse(url) as store:
        spans = store.wait_for_run(outcome.run_id, turns=turns, settle=0, timeout=5)
    assert spans == sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)


def test_wait_gives_up_at_the_timeout(exporter_db: Callable[..., str]) -> None:
    trace = new_trace_id()
    one = request_of(
        (
            {"service.name": "a"},
            [
                span(
                    "tracesim.turn",
                    trace_id=trace,
                    span_id=new_span_id(),
                    attrs={"tracesim.chat_id": "c", "tracesim.turn_id": 0, "tracesim.run_id": "r"},
                )
            ],
        )
    )
    url = exporter_db(one)
    with open_clickhouse(url) as store:
        assert store.wait_for_run("r", turns=1, settle=0, timeout=5) == 1
        assert store.wait_for_run("r", turns=3, settle=0, timeout=0.1) == 1
