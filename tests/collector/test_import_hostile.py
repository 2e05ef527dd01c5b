"""`tracesim import` against hostile files (SPEC §9 "bad input: one line, exit 2"; "memory
is bounded"): a gzip bomb, JSON nested past any parser's depth, a FIFO, a device, a
directory, a file that changes while it is read and files too large together all exit 2
naming the file, read a bounded number of bytes and store nothing; an import killed with
SIGKILL part-way stores, once re-run, exactly what an uninterrupted import stores.

Before: the bomb raised MemoryError and the deep JSON RecursionError (tracebacks), the FIFO
and /dev/zero hung, and a file growing while read was imported as far as it had got."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.collector.importers import TraceFileError, file_bytes, read_trace_file

from tracesim.cli import cli


def _import(db: Path, *files: str | Path):
    return CliRunner().invoke(cli, ["import", *map(str, files), "--db", str(db)])


def _span_line(index: int) -> str:
    span = {
        "traceId": f"{index + 1:032x}",
        "spanId": f"{index + 1:016x}",
        "name": f"span-{index}",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": [{"key": "session.id", "value": {"stringValue": f"chat-{index % 3}"}}],
    }
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


def _bomb(path: Path, inflated_mib: int) -> Path:
    """A gzip file of 1 MiB members, one after another: KBs on disk, MiBs inflated."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = deflate.compress(b" " * (1 << 20)) + deflate.flush()
    path.write_bytes(b"".join([member] * inflated_mib))
    return path


def _nothing_stored(db: Path) -> bool:
    if not db.exists():
        return True
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM spans").fetchone()[0] == 0


def test_a_gzip_bomb_stops_at_the_cap_without_inflating_it(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.json.gz", 8)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(TraceFileError, match="once gunzipped, more than 4 MiB"):
        read_trace_file(bomb, limit=4 << 20)
    assert file_bytes.gunzip(bomb.read_bytes(), "b", 8 << 20) == b" " * (8 << 20)


def test_a_bomb_past_the_import_limit_exits_2_naming_the_file(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.json.gz", (file_bytes.MAX_FILE_BYTES >> 20) + 1)
    db = tmp_path / "t.duckdb"
    done = _import(db, bomb)
    assert done.exit_code == 2, done.output
    limit = file_bytes.MAX_FILE_BYTES >> 20
    assert f"bomb.json.gz: holds once gunzipped, more than {limit} MiB" in done.output
    assert "Traceback" not in done.output and _nothing_stored(db)


@pytest.mark.parametrize(
    "text",
    ['{"resourceSpans":' + "[" * 100_000 + "]" * 100_000 + "}", "[" * 5000 + "]" * 5000],
    ids=["otlp", "array"],
)
def test_json_nested_past_any_parser_exits_2(tmp_path: Path, text: str) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(text)
    db = tmp_path / "t.duckdb"
    done = _import(db, deep)
    assert done.exit_code == 2 and "deep.json:1:" in done.output, done.output
    assert "Traceback" not in done.output and _nothing_stored(db)


def test_a_fifo_a_device_and_a_directory_are_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "spans.fifo"
    os.mkfifo(fifo)  # no writer: opening it for reading would block forever
    db = tmp_path / "t.duckdb"
    done = subprocess.run(  # its own process: a hang fails the test instead of stalling it
        [str(Path(sys.executable).parent / "tracesim"), "import", str(fifo), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "spans.fifo: is a FIFO (named pipe), not a regular file" in done.stderr
    zero = _import(db, "/dev/zero")
    assert zero.exit_code == 2 and "/dev/zero: is a device" in zero.output, zero.output
    folder = _import(db, tmp_path)
    assert folder.exit_code == 2 and "is a directory" in folder.output, folder.output
    assert _nothing_stored(db)


def test_a_file_that_changes_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    growing = tmp_path / "growing.jsonl"
    growing.write_text(_span_line(0) + "\n")
    read_all = file_bytes._read_all

    def read_while_written(fd: int, path: str, limit: int) -> bytes:
        data = read_all(fd, path, limit)
        with growing.open("a") as more:  # the exporter appends meanwhile
            more.write(_span_line(1) + "\n")
        return data

    monkeypatch.setattr(file_bytes, "_read_all", read_while_written)
    db = tmp_path / "t.duckdb"
    done = _import(db, growing)
    assert done.exit_code == 2, done.output
    assert "growing.jsonl: changed while it was read" in done.output
    assert _nothing_stored(db)


def test_files_too_large_together_exit_2_before_storing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracesim.collector.importers as importers

    files = []
    for index in range(3):
        path = tmp_path / f"{index}.jsonl"
        path.write_text(_span_line(index) + "\n")
        files.append(path)
    monkeypatch.setattr(importers, "MAX_FILE_BYTES", 2 * files[0].stat().st_size + 10)
    db = tmp_path / "t.duckdb"
    done = _import(db, *files)
    assert done.exit_code == 2, done.output
    assert "2.jsonl: the files up to this one hold more than" in done.output
    assert _nothing_stored(db)


_KILLED_AFTER_TWO = """
import os, signal, sys
import tracesim.commands.import_ as imp
imp._BATCH_BYTES = 1  # one request per batch, each its own spool record
stored = 0
ingest = imp._ingest
def ingest_then_die(collector, request):
    global stored
    if stored == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    stored += 1
    return ingest(collector, request)
imp._ingest = ingest_then_die
from tracesim.cli import cli
cli(["import", sys.argv[1], "--db", sys.argv[2]])
"""


def _rows(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT trace_id, span_id, name, chat_id FROM spans ORDER BY trace_id"
        ).fetchall()


def test_an_import_killed_part_way_and_re_run_stores_what_one_import_does(
    tmp_path: Path,
) -> None:
    lines = tmp_path / "six.jsonl"
    lines.write_text("".join(_span_line(index) + "\n" for index in range(6)))
    killed = tmp_path / "killed.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_AFTER_TWO, str(lines), str(killed)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == -9, done.stderr
    again = _import(killed, lines)
    assert again.exit_code == 0, again.output
    clean = tmp_path / "clean.duckdb"
    assert _import(clean, lines).exit_code == 0
    assert _rows(killed) == _rows(clean) and len(_rows(clean)) == 6
