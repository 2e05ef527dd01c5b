"""`tracesim import`: real recorded OTLP requests written in each trace-file format real tools
write (OTLP/JSON, OTLP protobuf, the Collector file exporter's JSON lines and proto stream,
Tempo and Jaeger exports, gzip'd or not) are stored exactly as the gRPC receiver stores the
same requests; a Jaeger file in the shape of Jaeger's own UI export is read field by field;
bad files name the file, line and field, exit 2 and import nothing."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from tests.collector import trace_files
from tests.conformance.replay import _to_protobuf, load, store, stored_rows
from tracesim.cli import cli

HERE = Path(__file__).resolve().parent
RECORDINGS = HERE.parent / "conformance" / "recordings"
# spans + log records (GenAI events), and one with a conversation id on every span
VARIANTS = ("otel-genai-openai-v2-latest-event", "openllmetry-openai")


def _requests(variant: str) -> list:
    recording = load(RECORDINGS / variant)
    return [_to_protobuf(signal, ext, body) for signal, ext, body in recording.requests]


def _import(db: Path, *files: Path):
    return CliRunner().invoke(cli, ["import", *map(str, files), "--db", str(db)])


def _write(path: Path, data: str | bytes, *, gz: bool = False) -> Path:
    raw = data.encode() if isinstance(data, str) else data
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return path


@pytest.fixture(scope="module", params=VARIANTS)
def grpc_rows(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    variant = request.param
    db = store(load(RECORDINGS / variant), transport="grpc", workdir=tmp_path_factory.mktemp("g"))
    return variant, stored_rows(db)


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("fmt", ["otlp-json", "otlp-protobuf", "jsonl", "proto-stream", "tempo"])
def test_lossless_formats_store_what_grpc_stores(grpc_rows, fmt: str, gz: bool, tmp_path: Path):
    variant, expected = grpc_rows
    requests = _requests(variant)
    files = []
    for n, request in enumerate(requests):
        signal = "traces" if request.DESCRIPTOR.name.startswith("ExportTrace") else "logs"
        if fmt == "otlp-json":
            files.append(
                _write(
                    tmp_path / f"{n}.json",
                    json.dumps(trace_files.otlp_json(request), indent=2),
                    gz=gz,
                )
            )
        elif fmt == "otlp-protobuf":
            files.append(_write(tmp_path / f"{n}-{signal}.pb", request.SerializeToString(), gz=gz))
        elif fmt == "tempo" and signal == "traces":
            files.append(
                _write(tmp_path / f"{n}.json", json.dumps(trace_files.tempo(request)), gz=gz)
            )
    if fmt == "jsonl":
        files.append(_write(tmp_path / "export.jsonl", trace_files.json_lines(requests), gz=gz))
    elif fmt == "proto-stream":
        files.append(_write(tmp_path / "export.pb", trace_files.delimited(requests), gz=gz))
    db = tmp_path / "imported.duckdb"
    result = _import(db, *files)
    assert result.exit_code == 0, result.output
    spans, logs = stored_rows(db)
    assert spans == expected[0]
    if fmt == "tempo":  # Tempo exports hold traces only
        assert logs == []
    else:
        assert logs == expected[1]
    summary = result.output.strip().splitlines()
    traces = len({row[0] for row in spans})
    conversations = len({row[15] for row in spans if row[15] is not None})
    assert (
        f"imported {len(files)} file(s): {len(spans)} spans, {len(logs)} logs, {traces} traces, "
        f"{conversations} conversations" in summary[-1] + "\n".join(summary)
    )
    if gz:
        assert ", gzip," in result.output
    if fmt == "jsonl":
        assert "not imported: 1 metrics line(s)" in result.output


def test_jaeger_export_of_a_recording_keeps_what_evaluation_reads(grpc_rows, tmp_path: Path):
    """Jaeger has no resource/scope objects or typed lists, but every span keeps its ids,
    parent, name, kind, status, times, scope, service, attributes and events."""
    variant, expected = grpc_rows
    requests = [r for r in _requests(variant) if r.DESCRIPTOR.name.startswith("ExportTrace")]
    files = [
        _write(tmp_path / f"jaeger-{n}.json", json.dumps(trace_files.jaeger(r), indent=1))
        for n, r in enumerate(requests)
    ]
    db = tmp_path / "jaeger.duckdb"
    result = _import(db, *files)
    assert result.exit_code == 0, result.output
    spans, _ = stored_rows(db)
    # trace_id, span_id, parent, name, kind, status, message, service, scope,
    # chat_id, turn_id, operation, tool_name, model, input/output tokens
    keep = (0, 1, 2, 3, 4, 7, 8, 9, 10, 15, 16, 17, 18, 19, 20, 21)
    assert [tuple(r[i] for i in keep) for r in spans] == [
        tuple(r[i] for i in keep) for r in expected[0]
    ]
    for got, want in zip(spans, expected[0], strict=True):
        # Jaeger writes start and duration in whole microseconds (truncated): 1 us apart at most
        assert abs((got[5] - want[5]).total_seconds()) <= 1e-6
        assert abs((got[6] - want[6]).total_seconds()) <= 2e-6
        got_attrs, want_attrs = json.loads(got[11]), json.loads(want[11])
        scalar = {k: v for k, v in want_attrs.items() if not isinstance(v, list | dict)}
        assert {k: got_attrs[k] for k in scalar} == scalar
        assert [e["name"] for e in json.loads(got[13])] == [e["name"] for e in json.loads(want[13])]


def test_jaeger_ui_shaped_file(tmp_path: Path):
    """A file in the shape of Jaeger's own UI export: 64-bit trace id, short span ids, typed
    tags, processes, an exception log, a reference into another trace."""
    db = tmp_path / "j.duckdb"
    result = _import(db, HERE / "data" / "jaeger_agent_trace.json")
    assert result.exit_code == 0, result.output
    assert "jaeger, 1 request(s)" in result.output
    assert "4 spans, 0 logs, 1 traces, 1 conversations" in result.output
    con = duckdb.connect(str(db), read_only=True)
    rows = {
        r[0]: r
        for r in con.execute(
            "SELECT span_id, trace_id, parent_span_id, kind, status_code, status_message, "
            "service_name, scope_name, attributes, events, links, chat_id, tool_name, "
            "input_tokens, duration_ms FROM spans"
        ).fetchall()
    }
    con.close()
    trace_id = "0" * 16 + "00000000000000a1"
    assert set(rows) == {f"{n:016x}" for n in (1, 2, 3, 4)}
    assert {r[1] for r in rows.values()} == {trace_id}
    root, chat, tool, failed = (rows[f"{n:016x}"] for n in (1, 2, 3, 4))
    assert root[2] is None and chat[2] == root[0] and failed[2] == root[0]
    assert chat[6] == "support-agent" and tool[6] == "tools"
    assert root[7] == "support-agent"
    assert chat[13] == 120 and tool[12] == "get_weather"
    assert {r[11] for r in rows.values()} == {"jaeger-conv-1"}
    attrs = json.loads(tool[8])
    assert attrs["retry.count"] == 0 and attrs["cache.hit"] is False
    assert attrs["latency.budget"] == 0.5 and "span.kind" not in attrs
    assert failed[5] == "order B7 not found" and "ERROR" in str(failed[4]).upper()
    events = json.loads(failed[9])
    assert events[0]["name"] == "exception"
    assert events[0]["attributes"]["exception.message"] == "order B7 not found"
    links = json.loads(failed[10])
    assert links and links[0]["span_id"].endswith("ff")
    assert tool[14] == pytest.approx(50.0)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "broken.jsonl",
            '{"resourceSpans": []}\n{"resourceSpans": [}\n',
            "broken.jsonl:2: not valid JSON",
        ),
        (
            "bad-id.json",
            json.dumps(
                {
                    "resourceSpans": [
                        {
                            "scopeSpans": [
                                {
                                    "spans": [
                                        {
                                            "traceId": "5b8efff798038103d269b633813fc60c",
                                            "spanId": "xyz",
                                            "name": "s",
                                        }
                                    ]
                                }
                            ]
                        }
                    ]
                },
                indent=2,
            ),
            "bad-id.json:9: resourceSpans[0].scopeSpans[0].spans[0].spanId: 'xyz' is not",
        ),
        (
            "jaeger-bad.json",
            json.dumps(
                {
                    "data": [
                        {
                            "traceID": "a1",
                            "spans": [
                                {
                                    "traceID": "a1",
                                    "spanID": "1",
                                    "startTime": "soon",
                                    "duration": 1,
                                    "processID": "p1",
                                }
                            ],
                            "processes": {"p1": {"serviceName": "x"}},
                        }
                    ]
                },
                indent=2,
            ),
            "jaeger-bad.json:9: data[0].spans[0].startTime: 'soon' is not a number",
        ),
        ("other.json", '{"hello": 1}', "other.json: not a trace export tracesim knows"),
        ("garbage.pb", b"\x0a\x05hello-not-otlp", "garbage.pb: message 1: not an OTLP"),
    ],
)
def test_bad_file_names_file_line_field_and_imports_nothing(
    tmp_path: Path, name: str, content: str | bytes, expected: str
):
    good = _write(
        tmp_path / "good.json", json.dumps(trace_files.otlp_json(_requests(VARIANTS[1])[0]))
    )
    bad = _write(tmp_path / name, content)
    db = tmp_path / "none.duckdb"
    result = _import(db, good, bad)
    assert result.exit_code == 2, result.output
    message = result.output.strip()
    assert message.startswith("tracesim import: ") and "\n" not in message
    assert expected in message
    assert "nothing was imported" in message
    assert "Traceback" not in result.output
    assert not db.exists()


def test_redaction_applies_to_imported_files(tmp_path: Path):
    request = _requests("openllmetry-openai")[0]
    path = _write(tmp_path / "t.json", json.dumps(trace_files.otlp_json(request)))
    db = tmp_path / "r.duckdb"
    result = CliRunner().invoke(
        cli, ["import", str(path), "--db", str(db), "--redact-attr", "gen_ai.input.messages"]
    )
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(db), read_only=True)
    values = [
        json.loads(a).get("gen_ai.input.messages")
        for (a,) in con.execute("SELECT attributes FROM spans").fetchall()
    ]
    con.close()
    assert values and all(v is not None and "Paris" not in v for v in values)


def test_import_adds_to_an_existing_file_and_a_resent_span_is_stored_once(tmp_path: Path):
    request = _requests("openllmetry-openai")[0]
    path = _write(tmp_path / "t.pb", request.SerializeToString())
    db = tmp_path / "twice.duckdb"
    assert _import(db, path).exit_code == 0
    once = stored_rows(db)[0]
    again = _import(db, path)
    assert again.exit_code == 0, again.output
    assert stored_rows(db)[0] == once


def _shapes(request) -> dict[str, object]:
    """The same spans in the other shapes the readers accept."""
    tempo = trace_files.tempo(request)
    old_tempo = {
        "batches": [
            {
                "resource": batch.get("resource", {}),
                "instrumentationLibrarySpans": [
                    {"instrumentationLibrary": scope.get("scope", {}), "spans": scope["spans"]}
                    for scope in batch["scopeSpans"]
                ],
            }
            for batch in tempo["batches"]
        ]
    }
    jaeger = trace_files.jaeger(request)
    return {
        "tempo-v2": {"trace": {"resourceSpans": tempo["batches"]}},
        "tempo-instrumentation-library": old_tempo,
        "jaeger-bare-trace": jaeger["data"][0],
        "jaeger-api-v3": {"result": trace_files.otlp_json(request)},
    }


@pytest.mark.parametrize(
    "shape", ["tempo-v2", "tempo-instrumentation-library", "jaeger-bare-trace", "jaeger-api-v3"]
)
def test_other_shapes_of_the_same_exports(shape: str, tmp_path: Path) -> None:
    request = _requests("openllmetry-openai")[0]
    spans = sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)
    document = _shapes(request)[shape]
    if shape == "jaeger-bare-trace":  # one trace of the request's four
        spans = len(document["spans"])  # type: ignore[index]
    path = _write(tmp_path / "t.json", json.dumps(document))
    db = tmp_path / "s.duckdb"
    result = _import(db, path)
    assert result.exit_code == 0, result.output
    assert f"{spans} spans, 0 logs" in result.output
    assert len(stored_rows(db)[0]) == spans


def test_a_file_held_by_another_process_is_refused_clearly(tmp_path: Path) -> None:
    """A DuckDB file another process writes (a running `tracesim collect`) is locked."""
    import subprocess
    import sys

    request = _requests("openllmetry-openai")[0]
    path = _write(tmp_path / "t.pb", request.SerializeToString())
    db = tmp_path / "busy.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb,sys; c=duckdb.connect({str(db)!r}); print('ready', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        result = _import(db, path)
    finally:
        holder.communicate("")
    assert result.exit_code == 2, result.output
    assert result.output.startswith("tracesim import: ")
    assert "import into another --db" in result.output
    assert "Traceback" not in result.output
    # one line, the fix said once
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.count("another --db") == 1 and result.output.count("stop") == 1


def test_a_db_that_is_not_duckdb_is_refused_clearly(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.pb", _requests("openllmetry-openai")[0].SerializeToString())
    db = _write(tmp_path / "notes.duckdb", "not a database\n")
    result = _import(db, path)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"tracesim import: {db} exists and is not a DuckDB file")
    assert "Traceback" not in result.output and db.read_text() == "not a database\n"


@pytest.mark.parametrize("lasting", [True, False], ids=["disk-full", "writer-behind"])
def test_a_busy_store_is_waited_for_once_then_said(
    lasting: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector answers Busy for the second batch: once (its writer behind), the
    import waits for the writer and goes on; for good (a full disk), it stops and says how
    many batches are stored, and they are."""
    from tracesim.collector import Busy, Collector

    real_ingest = Collector.ingest
    calls = {"n": 0}

    def busy_from_second(self, request):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2 or (lasting and calls["n"] > 2):
            raise Busy("spool: no space left on device")
        return real_ingest(self, request)

    monkeypatch.setattr(Collector, "ingest", busy_from_second)
    requests = _requests("otel-genai-openai-v2-latest-event")  # a traces and a logs request
    path = _write(tmp_path / "all.jsonl", trace_files.json_lines(requests, metrics_line=False))
    db = tmp_path / "half.duckdb"
    result = _import(db, path)
    spans, logs = stored_rows(db)
    if lasting:
        assert result.exit_code == 1, result.output
        assert "import stopped after 1 of 2 batch(es) of requests: spool: no space" in result.output
        assert spans and not logs
    else:
        assert result.exit_code == 0, result.output
        assert spans and logs
