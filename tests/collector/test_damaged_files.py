"""A damaged spool or DuckDB WAL never loses intact data silently and never blocks start-up."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from tracesim.collector import Collector
from tracesim.collector.spool.spool import Spool
from tracesim.collector.store.writer import KIND_TRACES

from tests.collector.otlp import span, trace_request

ROOT = Path(__file__).resolve().parents[2]


def _spool_with(directory: Path, count: int) -> list[int]:
    spool = Spool(directory)
    spool.open(next_seq=1)
    seqs = [spool.append(KIND_TRACES, f"record {i} ".encode() * 20) for i in range(count)]
    spool.sync(seqs[-1])
    spool.close()
    return seqs


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", ["payload", "length"])
def test_a_flipped_byte_quarantines_one_record_and_keeps_the_rest(
    tmp_path: Path, where: str
) -> None:
    directory = tmp_path / "spool"
    seqs = _spool_with(directory, 10)
    (segment,) = directory.glob("spool-*.log")
    record_size = segment.stat().st_size // 10
    # header: magic 2, kind 1, pad 1, seq 8, length 4, crc 4
    _flip(segment, 2 * record_size + (30 if where == "payload" else 12))
    spool = Spool(directory)
    recovered = [record.seq for record in spool.recover(0)]
    assert recovered == seqs[:2] + seqs[3:]
    assert spool.quarantined_ranges == 1
    (kept,) = (tmp_path / "spool.quarantine").iterdir()
    assert kept.stat().st_size == record_size


def test_stray_files_in_the_spool_folder_are_ignored(tmp_path: Path, caplog) -> None:
    directory = tmp_path / "spool"
    seqs = _spool_with(directory, 2)
    (directory / "spool-notanumber.log").write_text("?")
    (directory / "README.txt").write_text("hello")
    (directory / "spool-00000000000000000099.log").mkdir()
    with caplog.at_level(logging.WARNING):
        spool = Spool(directory)
        assert [record.seq for record in spool.recover(0)] == seqs
    assert "spool-notanumber.log" in caplog.text


def test_collector_starts_over_a_damaged_spool_and_reports_it(db_path: Path) -> None:
    spool = Spool(f"{db_path}.spool")
    spool.open(next_seq=1)
    for i in range(8):
        request = trace_request([span(f"s{i}")]).SerializeToString()
        spool.sync(spool.append(KIND_TRACES, request))
    spool.close()
    (segment,) = Path(f"{db_path}.spool").glob("spool-*.log")
    _flip(segment, 40)  # inside the first record
    (Path(f"{db_path}.spool") / "stray.bin").write_bytes(b"x")
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        stats = collector.stats()
        assert stats.spans_stored == 7
        assert stats.quarantined_ranges == 1


_SERVE = """
import os, sys
from tracesim.collector import Collector
from tests.collector.otlp import GrpcClient, span, trace_request
collector = Collector(sys.argv[1], grpc_port=0, http_port=None, batch_seconds=0.01,
                      duckdb_checkpoint_threshold="1GB").start()
client = GrpcClient(collector.grpc_endpoint)
for i in range(30):
    client.export(trace_request([span(f"acked-{i}", attrs={"pad": "z" * 2000})]))
assert collector.flush(10)
os.kill(os.getpid(), 9)
"""


def test_a_damaged_wal_is_moved_aside_and_the_spool_replays(db_path: Path, caplog) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SERVE, str(db_path)], cwd=ROOT, capture_output=True, timeout=60
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    wal = Path(f"{db_path}.wal")
    assert wal.exists() and wal.stat().st_size > 10_000
    _flip(wal, wal.stat().st_size // 2)
    with caplog.at_level(logging.ERROR), Collector(db_path, grpc_port=None, http_port=None):
        pass
    assert "write-ahead log" in caplog.text and "damaged" in caplog.text
    assert list(db_path.parent.glob(f"{db_path.name}.wal.damaged-*"))
    with duckdb.connect(str(db_path), read_only=True) as con:
        names = {row[0] for row in con.execute("SELECT name FROM spans").fetchall()}
    assert names == {f"acked-{i}" for i in range(30)}
    os.sync()


def test_collect_summary_counts_damage(db_path: Path) -> None:
    spool = Spool(f"{db_path}.spool")
    spool.open(next_seq=1)
    for i in range(3):
        spool.sync(spool.append(KIND_TRACES, trace_request([span(f"s{i}")]).SerializeToString()))
    spool.sync(spool.append(KIND_TRACES, b"not protobuf"))
    spool.close()
    (segment,) = Path(f"{db_path}.spool").glob("spool-*.log")
    _flip(segment, 40)
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tracesim.cli import main; main()",
            "collect",
            "--db",
            str(db_path),
            "--grpc-port",
            "0",
            "--http-port",
            "-1",
        ],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert "writing" in process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "stored 2 spans" in out
    assert "1 damaged stretch" in out and "dead letters: 1" in out
