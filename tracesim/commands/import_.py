"""`tracesim import FILE...`: load trace files (OTLP/JSON or protobuf dumps, the Collector
file exporter's JSON lines, Jaeger and Tempo exports, gzip'd or not) into a DuckDB file.

Every file is read and checked before anything is stored (a bad file: one line naming the
file, line and field, exit 2, nothing imported); then the requests go through the
collector's own ingest path in-process (redaction, spool and fsync, routing to
conversations), exactly as if they had been sent to `tracesim collect`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tracesim.commands.errors import BadInput
from tracesim.damage_lines import damage_lines
from tracesim.db_option import db_option
from tracesim.paths import PathProblem, check_writable_file
from tracesim.shown import shown

__all__ = ["command", "summarise"]


_BATCH_BYTES = 4 << 20
"""Consecutive requests of one signal are stored together up to about this size: one spool
fsync per batch instead of per request (a file exporter's file holds thousands)."""


def _batches(requests: list[Any]) -> list[Any]:
    """The requests merged into as few as possible of at most ~_BATCH_BYTES each, in order
    (the first of each batch is merged into: the requests are changed)."""
    out: list[Any] = []
    size = 0
    for request in requests:
        nbytes = request.ByteSize()
        last = out[-1] if out else None
        if last is not None and type(last) is type(request) and size + nbytes <= _BATCH_BYTES:
            last.MergeFrom(request)  # repeated resource_spans / resource_logs: appended
            size += nbytes
            continue
        out.append(request)  # merged into in place: no copy of every request
        size = nbytes
    return out


def _ingest(collector: Any, request: Any) -> int:
    """Store one request; when the collector is busy (its writer behind), wait for the
    writer to commit what it holds and try once more. Returns the rejected items."""
    from tracesim.collector import Busy

    try:
        return collector.ingest(request)[0]
    except Busy:
        collector.flush()
        return collector.ingest(request)[0]


def _count(requests: list[Any]) -> tuple[int, int, set[str]]:
    """(spans, log records, trace ids in hex) of OTLP export requests."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    spans = logs = 0
    traces: set[str] = set()
    for request in requests:
        if isinstance(request, ExportTraceServiceRequest):
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    spans += len(scope.spans)
                    traces.update(s.trace_id.hex() for s in scope.spans)
        else:
            for resource in request.resource_logs:
                for scope in resource.scope_logs:
                    logs += len(scope.log_records)
    return spans, logs, traces


def summarise(db_path: str, trace_ids: set[str]) -> tuple[int, int]:
    """(conversations, traces with no conversation key) among `trace_ids` as stored, read
    through the store (`evaluator.store.open_store`)."""
    from tracesim.evaluator.store import open_store

    if not trace_ids:
        return 0, 0
    ids = ", ".join(f"'{t}'" for t in sorted(trace_ids) if t.isalnum())  # hex from .hex()
    with open_store(db_path, read_only=True) as store:
        rows = store.query(
            "SELECT count(DISTINCT chat_id), "
            "count(DISTINCT trace_id) FILTER (WHERE chat_id IS NULL) "
            f"FROM spans WHERE trace_id IN ({ids})"
        ).rows
    conversations, unkeyed = rows[0]
    return int(conversations), int(unkeyed)


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@db_option("write")
@click.option(
    "--redact",
    "presets",
    multiple=True,
    metavar="PRESET",
    help="Redact this kind of personal data before it is stored: email, phone, credit_card, "
    "ssn or ipv4 (repeatable), as `tracesim collect --redact`.",
)
@click.option(
    "--redact-attr",
    "redact_attrs",
    multiple=True,
    metavar="NAME",
    help="Replace the whole value of attributes matching this name or glob (repeatable).",
)
@click.option(
    "--redaction-file",
    default=None,
    type=click.Path(dir_okay=False),
    help="YAML file of redaction rules, as `tracesim collect --redaction-file`.",
)
def command(
    files: tuple[str, ...],
    db_path: str,
    presets: tuple[str, ...],
    redact_attrs: tuple[str, ...],
    redaction_file: str | None,
) -> None:
    """Import trace files: OTLP/JSON or protobuf, Collector file-exporter JSON lines,
    Jaeger or Tempo JSON exports, the OTel SDK's span JSON (gzip'd or not)."""
    import duckdb

    from tracesim.collector import (
        Collector,
        CollectorError,
        InvalidRedactionRule,
        NotADuckDBFile,
        RedactionRule,
        StoreLocked,
        load_redaction_file,
    )
    from tracesim.collector.importers import MAX_FILE_BYTES, TraceFileError, read_trace_file

    try:
        check_writable_file(db_path, what="--db")
    except PathProblem as exc:
        raise BadInput(str(exc), command="import") from None
    read = []
    held = 0
    for name in files:
        try:
            read.append(read_trace_file(name))
        except TraceFileError as error:
            raise BadInput(
                f"{error}; nothing was imported (fix or leave out that file)", command="import"
            ) from None
        held += read[-1].size
        if held > MAX_FILE_BYTES:  # all are held until stored: bound them together
            raise BadInput(
                f"{name}: the files up to this one hold more than {MAX_FILE_BYTES >> 20} MiB "
                "together, the most one import reads before storing; nothing was imported "
                "(import them in several commands)",
                command="import",
            )
    rules = [RedactionRule(preset=name) for name in presets]
    if redact_attrs:
        rules.append(RedactionRule(attributes=redact_attrs))
    try:
        if redaction_file:
            rules.extend(load_redaction_file(redaction_file))
        collector = Collector(db_path, grpc_port=None, http_port=None, redaction=rules)
    except (InvalidRedactionRule, ValueError) as error:
        raise click.UsageError(str(error)) from None
    requests = [request for found in read for request in found.requests]
    spans, logs, traces = _count(requests)  # before batching merges requests in place
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    rejected = 0
    try:
        try:
            collector.start()
        except StoreLocked:  # the collector's own message says its fix: one line, once
            raise BadInput(
                f"--db {db_path} is open in another process (a running `tracesim collect` or "
                "`tracesim run` writes it): stop that process and import again, or import "
                "into another --db",
                command="import",
            ) from None
        except NotADuckDBFile as error:
            raise BadInput(str(error), command="import") from None
        except (duckdb.Error, OSError) as error:  # not a DuckDB file, a folder not writable
            first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise BadInput(
                f"--db {db_path}: cannot be opened as a DuckDB file ({first_line}); "
                "give a new file name or an existing tracesim DuckDB file",
                command="import",
            ) from None
        done = 0
        batches = _batches(requests)
        try:
            for batch in batches:
                rejected += _ingest(collector, batch)
                done += 1
        except CollectorError as error:  # disk full, spool failure: say what is stored
            collector.shutdown()
            raise click.ClickException(
                f"import stopped after {done} of {len(batches)} batch(es) of requests: "
                f"{error}; the {done} stored are in {shown(db_path)}, and importing again stores "
                "nothing twice"
            ) from None
    finally:
        collector.shutdown()
    stats = collector.stats()
    conversations, unkeyed = summarise(db_path, traces)
    for found in read:
        gz = ", gzip" if found.gzipped else ""
        click.echo(f"{shown(found.path)}: {found.format}{gz}, {len(found.requests)} request(s)")
        for note in found.skipped:
            click.echo(f"{shown(found.path)}: not imported: {note}")
    stored = stats.spans_stored + stats.logs_stored
    read_note = "" if stored == spans + logs else f" read, {stored} stored"
    click.echo(
        f"imported {len(read)} file(s): {spans} spans, {logs} logs{read_note}, "
        f"{len(traces)} traces, {conversations} conversations into {shown(db_path)}"
    )
    if unkeyed:
        click.echo(
            f"{unkeyed} trace(s) carry no conversation key (stored with chat_id NULL; "
            "`tracesim inspect` lists them)"
        )
    if rejected:
        click.echo(f"not stored: {rejected} rejected item(s) (invalid ids or values)")
    for line in damage_lines(stats, db_path):
        click.echo(line)
