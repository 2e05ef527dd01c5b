"""`<db>.collector.json`: written while the HTTP receiver runs, removed on shutdown, only by its owner."""

from __future__ import annotations

from pathlib import Path

from tracesim.collector import Collector, read_sidecar, sidecar_path


def test_sidecar_names_the_http_endpoint_while_running(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=0, auth_token="hidden") as collector:
        document = read_sidecar(db_path)
        assert document is not None
        assert document["http_endpoint"] == collector.http_endpoint
        assert document["grpc_endpoint"] == collector.grpc_endpoint
        assert document["token_required"] is True
        assert "hidden" not in sidecar_path(db_path).read_text()
    assert not sidecar_path(db_path).exists()


def test_no_sidecar_without_an_http_receiver(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=None):
        assert read_sidecar(db_path) is None
