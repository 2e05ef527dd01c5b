"""`tracesim import` on hostile files in each of the five formats (attack round 6): every
field of a real export given a value of each wrong type or a huge number, truncated gzip,
0-byte files, bytes that are not UTF-8, and the same spans in two files.

Each damaged file must either be read (every value it holds then fits its request) or
refused with a TraceFileError naming the file (and line and field when it has them); never
another exception, which the CLI would show as a traceback. A refused import exits 2 and
stores nothing; spans sent twice are stored once and the repeat is said.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.collector.importers import TraceFileError, read_trace_file

from tests.collector import trace_files
from tests.collector.otlp import span, trace_request
from tracesim.cli import cli

_WRONG: tuple[Any, ...] = (None, True, -1, 2**70, 1e308, "x", "", [], {}, [1], {"a": 1})
"""A value of every JSON type, and numbers past int64 and float range."""


def _request() -> Any:
    first = span("chat", attrs={"session.id": "c1", "n": 3, "f": 1.5, "ok": True})
    first.events.add(name="e", time_unix_nano=1_700_000_000_100_000_000).attributes.add(
        key="k"
    ).value.string_value = "v"
    first.links.add(trace_id=first.trace_id, span_id=b"\x01" * 8).attributes.add(
        key="l"
    ).value.int_value = 1
    first.status.code = 2
    first.status.message = "boom"
    child = span("tool", trace_id=first.trace_id, parent=first.span_id, attrs={"a": ["x", "y"]})
    return trace_request([first, child], resource={"service.name": "svc", "n": 1})


def _sdk_span(pb: Any) -> dict[str, Any]:
    """One span as the OpenTelemetry Python SDK's ConsoleSpanExporter writes it."""
    return {
        "name": pb.name,
        "context": {
            "trace_id": "0x" + pb.trace_id.hex(),
            "span_id": "0x" + pb.span_id.hex(),
            "trace_state": "[]",
        },
        "kind": "SpanKind.INTERNAL",
        "parent_id": ("0x" + pb.parent_span_id.hex()) if pb.parent_span_id else None,
        "start_time": "2023-11-14T22:13:20.000000Z",
        "end_time": "2023-11-14T22:13:20.005000Z",
        "status": {"status_code": "ERROR", "description": "boom"},
        "attributes": {"session.id": "c1", "n": 3},
        "events": [{"name": "e", "timestamp": "2023-11-14T22:13:20.001000Z", "attributes": {}}],
        "links": [],
        "resource": {"attributes": {"service.name": "svc"}, "schema_url": ""},
    }


def _documents() -> dict[str, Any]:
    request = _request()
    return {
        "otlp-json": trace_files.otlp_json(request),
        "jaeger": trace_files.jaeger(request),
        "tempo": trace_files.tempo(request),
        "sdk-json": [_sdk_span(s) for s in request.resource_spans[0].scope_spans[0].spans],
    }


def _paths(item: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON document: each value, nested ones included."""
    yield at
    if isinstance(item, dict):
        for key, value in item.items():
            yield from _paths(value, (*at, key))
    elif isinstance(item, list):
        for index, value in enumerate(item):
            yield from _paths(value, (*at, index))


def _replaced(document: Any, at: tuple[Any, ...], value: Any) -> Any:
    if not at:
        return value
    copy = json.loads(json.dumps(document))
    holder = copy
    for step in at[:-1]:
        holder = holder[step]
    holder[at[-1]] = value
    return copy


def _read_or_refused(path: Path) -> None:
    """Read (every request then serialises) or TraceFileError naming the file."""
    try:
        found = read_trace_file(path)
    except TraceFileError as error:
        assert str(path) in str(error)
        assert "\n" not in str(error)
        return
    for request in found.requests:
        request.SerializeToString()


@pytest.mark.parametrize("fmt", ["otlp-json", "jaeger", "tempo", "sdk-json"])
def test_every_field_of_the_wrong_type_is_read_or_named(tmp_path: Path, fmt: str) -> None:
    document = _documents()[fmt]
    read = read_trace_file(_write(tmp_path / "ok.json", json.dumps(document)))
    assert read.format == fmt and read.requests  # the undamaged file is what it says
    places = list(_paths(document))
    assert len(places) > 40
    path = tmp_path / "bad.json"
    for at in places:
        for value in _WRONG:
            path.write_text(json.dumps(_replaced(document, at, value)))
            _read_or_refused(path)


def test_damaged_protobuf_is_read_or_named(tmp_path: Path) -> None:
    import random

    payload = _request().SerializeToString()
    rng = random.Random(6)
    path = tmp_path / "bad.pb"
    for _ in range(1500):
        damaged = bytearray(payload)
        at = rng.randrange(len(damaged))
        choice = rng.random()
        if choice < 0.4:
            damaged[at] = rng.randrange(256)
        elif choice < 0.7:
            del damaged[at:]
        else:
            damaged[at:at] = rng.choice([b"\xff" * 10, b"\x80" * 11, rng.randbytes(4)])
        path.write_bytes(bytes(damaged) or b"\x0a")
        _read_or_refused(path)


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _files(tmp_path: Path) -> dict[str, bytes]:
    docs = _documents()
    out = {name: json.dumps(doc).encode() for name, doc in docs.items()}
    out["otlp-protobuf"] = _request().SerializeToString()
    return out


def _import(db: Path, *files: Path) -> Any:
    return CliRunner().invoke(cli, ["import", *map(str, files), "--db", str(db)])


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM spans").fetchone()[0]
    finally:
        con.close()


def _damaged(fmt: str, good: bytes) -> dict[str, bytes]:
    zipped = gzip.compress(good)
    cases = {"truncated gzip": zipped[: len(zipped) // 2], "0 bytes": b""}
    if fmt != "otlp-protobuf":
        text = good.decode()
        cut = text.index('"svc"') + 2  # inside a string value
        cases["not UTF-8"] = (text[:cut] + "\udcff").encode("utf-8", "surrogateescape") + (
            text[cut:].encode()
        )
    return cases


@pytest.mark.parametrize("fmt", ["otlp-json", "jaeger", "tempo", "sdk-json", "otlp-protobuf"])
def test_damaged_files_exit_2_naming_the_file_and_store_nothing(tmp_path: Path, fmt: str) -> None:
    good = _files(tmp_path)[fmt]
    ok = _write(tmp_path / f"ok-{fmt}", good)
    for case, data in _damaged(fmt, good).items():
        db = tmp_path / f"{case}.duckdb"
        bad = _write(tmp_path / f"{case}-{fmt}", data)
        result = _import(db, ok, bad)
        assert result.exit_code == 2, (case, result.output)
        assert str(bad) in result.output, (case, result.output)
        assert "Traceback" not in result.output
        assert _stored(db) == 0, case


@pytest.mark.parametrize("fmt", ["otlp-json", "jaeger", "tempo", "sdk-json", "otlp-protobuf"])
def test_the_same_spans_in_two_files_are_stored_once_and_said(tmp_path: Path, fmt: str) -> None:
    good = _files(tmp_path)[fmt]
    first, second = _write(tmp_path / "a", good), _write(tmp_path / "b", gzip.compress(good))
    db = tmp_path / "t.duckdb"
    result = _import(db, first, second)
    assert result.exit_code == 0, result.output
    assert _stored(db) == 2
    assert "2 span(s)" in result.output and "stored already" in result.output, result.output


def test_json_lines_with_a_bad_first_line_name_that_line_and_field(tmp_path: Path) -> None:
    """Before: a JSON-lines export whose first line held a bad value was refused as "line 2:
    not valid JSON (unexpected content after document)", pointing away from the problem."""
    bad = trace_request([span("s", span_id=b"\0" * 8)])
    text = trace_files.json_lines([bad, _request()], metrics_line=False)
    path = _write(tmp_path / "export.jsonl", text)
    with pytest.raises(TraceFileError) as caught:
        read_trace_file(path)
    assert caught.value.line == 1
    assert caught.value.field is not None and caught.value.field.endswith("spanId")
    assert "not valid JSON" not in str(caught.value)
