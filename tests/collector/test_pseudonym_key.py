"""The pseudonym key (`<db>.pseudonym-key`) stays secret and whole (SPEC §9: redacted
conversation ids become HMAC pseudonyms "that cannot be reversed"): a key file left empty
by a crash is never used as a key (an empty HMAC key makes every pseudonym checkable
against guessed ids), a key readable by others is made 0600, and processes creating it at
once all use one key. Before: the empty file was used (`read_bytes()[:32]` of nothing)."""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
import threading
from pathlib import Path

from tracesim.collector import Collector
from tracesim.collector.redaction.pseudonym import PSEUDONYM_PREFIX, load_or_create_key

from tests.collector.otlp import GrpcClient, span, trace_request


def _guessable(value: str) -> str:
    digest = hmac.new(b"", value.encode(), hashlib.sha256).hexdigest()[:24]
    return PSEUDONYM_PREFIX + digest


def test_a_key_file_left_empty_is_moved_aside_and_replaced(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    key_file = tmp_path / "k.duckdb.pseudonym-key"
    key_file.write_bytes(b"")  # created, then the process died before writing
    with Collector(
        db, grpc_port=0, http_port=None, redaction=[{"attributes": ["session.id"]}]
    ) as c:
        client = GrpcClient(c.grpc_endpoint)
        client.export(trace_request([span("s", attrs={"session.id": "alice"})]))
        client.close()
        assert c.flush(10)
        [[chat]] = c.query("SELECT chat_id FROM spans")[1]
    assert chat.startswith(PSEUDONYM_PREFIX) and chat != _guessable("alice")
    assert len(key_file.read_bytes()) == 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.glob("k.duckdb.pseudonym-key.damaged-*")]  # kept


def test_a_key_readable_by_others_is_made_owner_only(tmp_path: Path) -> None:
    key_file = tmp_path / "x.pseudonym-key"
    key_file.write_bytes(os.urandom(32))
    key_file.chmod(0o644)
    assert load_or_create_key(key_file) == key_file.read_bytes()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_processes_creating_the_key_at_once_share_one(tmp_path: Path) -> None:
    key_file = tmp_path / "y.pseudonym-key"
    keys: list[bytes] = []
    start = threading.Barrier(8)

    def create() -> None:
        start.wait()
        keys.append(load_or_create_key(key_file))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and keys[0] == key_file.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["y.pseudonym-key"]  # no temporaries
