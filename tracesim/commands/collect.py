"""`tracesim collect`: run the OTLP collector until SIGINT/SIGTERM, writing a DuckDB file."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import click

from tracesim.collect_console import CollectConsole
from tracesim.collect_front import GRPC, HTTP, ProtocolFront
from tracesim.commands.errors import BadInput
from tracesim.damage_lines import damage_lines
from tracesim.db_option import db_option
from tracesim.paths import PathProblem, check_writable_file
from tracesim.shown import shown

__all__ = ["command"]


def _first_missing(folder: Path) -> Path | None:
    """The outermost folder of `folder` that does not exist yet (None: it exists)."""
    missing = None
    while not folder.exists() and folder != folder.parent:
        missing, folder = folder, folder.parent
    return missing


def _remove_new_files(db_path: Path, created_folder: Path | None) -> None:
    """Remove what a failed start created (the DuckDB file, its WAL, new empty folders)."""
    for path in (db_path, db_path.with_name(db_path.name + ".wal")):
        path.unlink(missing_ok=True)
    folder = db_path.parent
    while created_folder is not None and folder.is_relative_to(created_folder):
        try:
            folder.rmdir()
        except OSError:
            return
        if folder == created_folder:
            return
        folder = folder.parent


@click.command("collect")
@db_option("write")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--grpc-port",
    default=4317,
    show_default=True,
    type=click.IntRange(-1, 65535),
    help="OTLP gRPC port (0 picks a free one, -1 disables).",
)
@click.option(
    "--http-port",
    default=4318,
    show_default=True,
    type=click.IntRange(-1, 65535),
    help="OTLP/HTTP port (0 picks a free one, -1 disables).",
)
@click.option(
    "--auth-token-env",
    default=None,
    metavar="VAR",
    help="Require 'Authorization: Bearer <token>', the token read from env VAR.",
)
@click.option(
    "--max-request-mb",
    default=16.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Largest accepted request (after decompression), in MiB.",
)
@click.option(
    "--redact",
    "presets",
    multiple=True,
    metavar="PRESET",
    help="Redact this kind of personal data inside every attribute and log body before it is "
    "stored: email, phone, credit_card, ssn or ipv4 (repeatable).",
)
@click.option(
    "--redact-attr",
    "redact_attrs",
    multiple=True,
    metavar="NAME",
    help="Replace the whole value of attributes matching this name or glob, e.g. "
    "'gen_ai.tool.call.arguments' or '*.email' (repeatable).",
)
@click.option(
    "--redaction-file",
    default=None,
    type=click.Path(dir_okay=False),
    help="YAML file of redaction rules (attributes, pattern or preset, replacement, apply_to).",
)
@click.option(
    "--tls-cert",
    default=None,
    type=click.Path(dir_okay=False),
    help="PEM certificate chain: both receivers then speak TLS only (needs --tls-key).",
)
@click.option("--tls-key", default=None, type=click.Path(dir_okay=False), help="PEM private key.")
@click.option(
    "--query-max-rows",
    default=100_000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Most rows a live `tracesim sql` query answers (the answer says it was truncated).",
)
@click.option(
    "--query-timeout",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds after which a live query is interrupted.",
)
@click.option(
    "--duckdb-memory-limit",
    default=None,
    metavar="SIZE",
    help="DuckDB's memory limit for its buffers, e.g. 1GiB  [default: 512MB]",
)
@click.option(
    "--duckdb-checkpoint-threshold",
    default=None,
    metavar="SIZE",
    help="WAL size after which DuckDB checkpoints into the file  [default: 128MB]",
)
@click.option(
    "--progress-every",
    default=5.0,
    show_default=True,
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Print new services, new conversations and the span count at most this often "
    "(0: only the start and end lines).",
)
@click.option(
    "--protocol-check/--no-protocol-check",
    default=True,
    show_default=True,
    help="Recognise an OTLP/HTTP exporter sent to the gRPC port (or gRPC to the HTTP port), "
    "store its spans anyway and say which port to use. --no-protocol-check binds the "
    "receivers directly.",
)
def command(
    db_path: str,
    host: str,
    grpc_port: int,
    http_port: int,
    auth_token_env: str | None,
    max_request_mb: float,
    presets: tuple[str, ...],
    redact_attrs: tuple[str, ...],
    redaction_file: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    query_max_rows: int,
    query_timeout: float,
    duckdb_memory_limit: str | None,
    duckdb_checkpoint_threshold: str | None,
    progress_every: float,
    protocol_check: bool,
) -> None:
    """Receive OTLP spans and logs and store them in DuckDB."""
    from tracesim.collector import (
        Collector,
        InvalidRedactionRule,
        NotADuckDBFile,
        RedactionRule,
        StoreLocked,
        load_redaction_file,
    )

    token = None
    if auth_token_env:
        token = os.environ.get(auth_token_env)
        if not token:
            raise click.UsageError(
                f"--auth-token-env {auth_token_env}: that variable is not set or empty"
            )
    try:
        check_writable_file(db_path, what="--db")
    except PathProblem as exc:
        raise BadInput(str(exc), command="collect") from None
    rules = [RedactionRule(preset=name) for name in presets]
    duckdb_sizes = {  # unset: the collector's defaults
        name: value
        for name, value in (
            ("duckdb_memory_limit", duckdb_memory_limit),
            ("duckdb_checkpoint_threshold", duckdb_checkpoint_threshold),
        )
        if value is not None
    }
    if redact_attrs:
        rules.append(RedactionRule(attributes=redact_attrs))
    try:
        if redaction_file:
            rules.extend(load_redaction_file(redaction_file))
        fronted = protocol_check and not (grpc_port < 0 and http_port < 0)
        inner_host = "127.0.0.1" if fronted else host  # behind the front: loopback only
        collector = Collector(
            db_path,
            host=inner_host,
            grpc_port=None if grpc_port < 0 else 0 if fronted else grpc_port,
            http_port=None if http_port < 0 else 0 if fronted else http_port,
            auth_token=token,
            max_request_bytes=int(max_request_mb * (1 << 20)),
            redaction=rules,
            tls_cert=tls_cert,
            tls_key=tls_key,
            query_max_rows=query_max_rows,
            query_timeout=query_timeout,
            decoder_process=True,
            **duckdb_sizes,
        )
    except InvalidRedactionRule as error:
        raise click.UsageError(str(error)) from None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    stop = threading.Event()
    wake = threading.Event()

    def on_signal(*_: object) -> None:
        stop.set()
        wake.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    new_file = not Path(db_path).exists()
    created_folder = _first_missing(Path(db_path).parent)
    front = None
    try:
        try:
            if fronted:  # binds the public ports first: a busy one fails before any file
                front = ProtocolFront(host, _public_ports(grpc_port, http_port), {})
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
            collector.start()
        except (StoreLocked, NotADuckDBFile) as error:  # bad input, as in every command: exit 2
            raise BadInput(str(error), command="collect") from None
        except OSError as error:  # a port in use, a folder that cannot be written
            collector.shutdown()
            if new_file and not collector.received_requests:  # never a store that took data
                _remove_new_files(Path(db_path), created_folder)
            raise BadInput(str(error), command="collect") from None
        console = _console(collector, front, host, progress_every, wake)  # relaying from here
        endpoints = _endpoints(collector, front, host)
        listening = [f"{name} on {url}" for name, url in endpoints.items()]
        stats = collector.stats()
        replayed = (
            f" (replayed {stats.replayed_requests} spooled requests)"
            if stats.replayed_requests
            else ""
        )
        click.echo(f"{', '.join(listening)}, writing {shown(db_path)}{replayed}", err=False)
        if collector.redactor:
            click.echo(f"redacting with {len(collector.redactor.rules)} rule(s) before storing")
        click.echo("Ctrl-C or SIGTERM to stop.")
        _serve(stop, wake, console, progress_every)
        click.echo("stopping: draining and committing ...")
    finally:
        if front is not None:
            front.close()
        collector.shutdown()
        if front is not None:
            front.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    stats = collector.stats()
    click.echo(
        f"stored {stats.spans_stored} spans and {stats.logs_stored} logs in {shown(db_path)}"
        f" (rejected {stats.rejected_spans} spans, {stats.rejected_logs} logs)"
    )
    for line in damage_lines(stats, db_path):
        click.echo(line)


def _public_ports(grpc_port: int, http_port: int) -> dict[str, int]:
    ports = {}
    if grpc_port >= 0:
        ports[GRPC] = grpc_port
    if http_port >= 0:
        ports[HTTP] = http_port
    return ports


def _endpoints(collector: Any, front: ProtocolFront | None, host: str) -> dict[str, str]:
    """What the banner says: the ports an exporter should use (the front's, if any)."""
    out = {}
    if front is None:
        if collector.grpc_endpoint:
            out["OTLP gRPC"] = collector.grpc_endpoint
        if collector.http_endpoint:
            out["OTLP/HTTP"] = collector.http_endpoint
        return out
    shown = f"[{host}]" if ":" in host else host
    if front.port(GRPC) is not None:  # as the collector says it: a scheme only under TLS
        out["OTLP gRPC"] = ("https://" if collector.tls else "") + f"{shown}:{front.port(GRPC)}"
    if front.port(HTTP) is not None:
        scheme = "https" if collector.tls else "http"
        out["OTLP/HTTP"] = f"{scheme}://{shown}:{front.port(HTTP)}"
    return out


def _console(
    collector: Any,
    front: ProtocolFront | None,
    host: str,
    every: float,
    wake: threading.Event,
) -> CollectConsole | None:
    """Start relaying (the collector is up) with a console printing progress and mix-ups."""
    console = None
    if every > 0 or front is not None:
        ports = {p: front.port(p) for p in (GRPC, HTTP)} if front else {}
        console = CollectConsole(collector, click.echo, host=host, ports=ports, wake=wake)
    if front is not None:
        targets = {}
        if collector.grpc_endpoint:
            targets[GRPC] = ("127.0.0.1", int(collector.grpc_endpoint.rsplit(":", 1)[1]))
        if collector.http_endpoint:
            targets[HTTP] = ("127.0.0.1", int(collector.http_endpoint.rsplit(":", 1)[1]))
        front.set_targets(targets, on_mixup=console.on_mixup if console else None)
        front.start()
        _advertise(collector, _endpoints(collector, front, host))
    return console


def _advertise(collector: Any, endpoints: dict[str, str]) -> None:
    """Point the live-query sidecar (`tracesim sql` finds the collector by it) at the
    public ports, not the receivers' loopback ones behind the front."""
    from tracesim.collector.query.sidecar import read_sidecar, write_sidecar

    written = read_sidecar(collector.db_path)
    if written is None:
        return
    write_sidecar(
        collector.db_path,
        http_endpoint=endpoints.get("OTLP/HTTP"),
        grpc_endpoint=endpoints.get("OTLP gRPC"),
        token_required=bool(written.get("token_required")),
        nonce=written.get("nonce"),
    )


def _serve(
    stop: threading.Event, wake: threading.Event, console: CollectConsole | None, every: float
) -> None:
    """Wait for SIGINT/SIGTERM, printing progress at most every `every` seconds."""
    while not stop.is_set():
        wake.wait(every if every > 0 else None)
        wake.clear()
        if stop.is_set() or console is None:
            continue
        try:
            console.tick(progress=every > 0)
        except Exception as error:  # noqa: BLE001 - printing must never stop collecting
            click.echo(f"progress lines stopped: {type(error).__name__}: {error}", err=True)
            console = None
