"""deploy/: the collector config and compose file say what tracesim reads."""

from __future__ import annotations

from pathlib import Path

import yaml
from tracesim.evaluator.store.url import (
    DEFAULT_DATABASE,
    DEFAULT_LOGS_TABLE,
    DEFAULT_TRACES_TABLE,
    parse_store_url,
)

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _load(name: str) -> dict:
    return yaml.safe_load((DEPLOY / name).read_text())


def test_collector_exports_what_tracesim_reads() -> None:
    config = _load("otel-collector.yaml")
    exporter = config["exporters"]["clickhouse"]
    assert exporter["database"] == DEFAULT_DATABASE
    assert exporter["traces_table_name"] == DEFAULT_TRACES_TABLE
    assert exporter["logs_table_name"] == DEFAULT_LOGS_TABLE
    assert exporter.get("json", False) is False  # the Map schema (JSON is read too)
    assert exporter["create_schema"] is True
    for signal in ("traces", "logs"):
        pipeline = config["service"]["pipelines"][signal]
        assert pipeline["receivers"] == ["otlp"]
        assert pipeline["processors"][-1] == "batch"
        assert pipeline["exporters"] == ["clickhouse"]
    protocols = config["receivers"]["otlp"]["protocols"]
    assert protocols["grpc"]["endpoint"].endswith(":4317")
    assert protocols["http"]["endpoint"].endswith(":4318")


def test_compose_wires_collector_to_clickhouse() -> None:
    compose = _load("docker-compose.yaml")
    services = compose["services"]
    clickhouse, collector = services["clickhouse"], services["otel-collector"]
    assert clickhouse["image"].startswith("clickhouse/clickhouse-server")
    assert collector["image"].startswith("otel/opentelemetry-collector-contrib")
    mount = next(v for v in collector["volumes"] if v.startswith("./otel-collector.yaml:"))
    assert collector["command"] == [f"--config={mount.split(':')[1]}"]
    exporter = _load("otel-collector.yaml")["exporters"]["clickhouse"]
    host_port = exporter["endpoint"].split("://")[1].split("?")[0]
    assert host_port.split(":")[0] == "clickhouse"
    assert f"{host_port.split(':')[1]}:{host_port.split(':')[1]}" in clickhouse["ports"][1]
    # the URL the README and the compose file's comment give tracesim
    url = parse_store_url("clickhouse://tracesim:tracesim@localhost:8123/otel", env={})
    assert "8123:8123" in clickhouse["ports"][0]
    assert clickhouse["environment"]["CLICKHOUSE_USER"].endswith(f"-{url.username}}}")
    assert url.database == DEFAULT_DATABASE
