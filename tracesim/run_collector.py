"""The collector a run sends its spans to: the embedded one (started on the run's DuckDB
file, shut down = drained and committed) or a remote endpoint. A locked file or a busy
port is `CollectorUnavailable`: one line naming the file or port and the fix (exit 2)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tracesim.schemas.config import RunConfig

__all__ = ["CollectorUnavailable", "busy_port_message", "run_collector"]


class CollectorUnavailable(RuntimeError):
    """The embedded collector could not start: its DuckDB file is locked or a port is
    busy (bad input: one line naming the file or port and the fix, exit 2)."""


@contextmanager
def run_collector(config: RunConfig, db_path: Path) -> Iterator[tuple[Any, str, dict[str, str]]]:
    """The embedded collector (started, shut down = drained and committed) or the remote endpoint."""
    settings = config.collector
    if settings.mode in ("remote", "otlp"):
        token = os.environ.get(settings.auth_token_env) if settings.auth_token_env else None
        headers = {"authorization": f"Bearer {token}"} if token else {}
        yield None, settings.endpoint or "", headers
        return
    from tracesim.collector.collector import Collector
    from tracesim.collector.errors import NotADuckDBFile, StoreLocked

    collector = Collector(
        db_path, host=settings.host, grpc_port=settings.grpc_port, http_port=settings.http_port
    )
    try:
        collector.start()
    except StoreLocked:
        raise CollectorUnavailable(
            f"{db_path} is in use by another process (another `tracesim run` on the same "
            "output_dir, or a `tracesim collect`): wait for it to finish, or give this run "
            "its own file (`--output_dir results-2`, or `--db_path other.duckdb`)"
        ) from None
    except NotADuckDBFile as exc:
        raise CollectorUnavailable(str(exc)) from None
    except OSError as exc:
        raise CollectorUnavailable(busy_port_message(settings, exc)) from None
    try:
        yield collector, collector.grpc_endpoint or "", {}
    finally:
        collector.shutdown()


def busy_port_message(settings: Any, error: OSError) -> str:
    """One line for an embedded collector that could not listen: which configured port is
    taken and the fix in the config's own words (never a flag `run` does not have)."""
    import socket

    for setting in ("collector.grpc_port", "collector.http_port"):  # the config's words
        port = getattr(settings, setting.partition(".")[2], 0)
        if not port:
            continue
        probe = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
        try:
            probe.bind((settings.host, port))
        except OSError:
            return (
                f"{setting}: {settings.host}:{port} is already in use (by a running "
                "`tracesim collect`, another run or another collector?): stop that process, "
                f"or set {setting} to a free port (0 picks one: `--{setting} 0`)"
            )
        finally:
            probe.close()
    return (
        f"the embedded collector could not listen on {settings.host}: {error}; set "
        "collector.grpc_port and collector.http_port to 0 (free ports) or to ports not in use"
    )
