"""`clickhouses://` (HTTPS): a server whose certificate a private CA signed is trusted with
`?ca_cert=`; an untrusted certificate, or TLS spoken to a plain port (and the reverse), exit 2
with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.clickhouse.chdb_http import ChdbHttpServer, self_signed_cert
from tests.clickhouse.conftest import query, two_chats_request, write_exporter_tables
from tracesim.cli import cli

pytest.importorskip("cryptography", reason="makes the test certificate")


def _evaluate(db: str, tmp_path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", db, "--output-dir", str(tmp_path / "out"), "--no-progress"]
    )
    return result.exit_code, result.output


def test_https_with_a_private_ca(tmp_path: Path) -> None:
    write_exporter_tables(tmp_path / "ch", two_chats_request())
    cert, key = self_signed_cert(tmp_path / "tls")
    server = ChdbHttpServer(tmp_path / "ch", user="u", password="p", tls=(cert, key)).start()
    try:
        url = server.url()
        label = f"clickhouse://u@127.0.0.1:{server.port}/otel"
        code, output = _evaluate(f"{url}?ca_cert={cert}", tmp_path)
        # Connected and evaluated; nothing in this data can be graded (no judge, policy or
        # scenario), which exits 3 since "nothing graded never passes".
        assert code == 3 and "nothing graded" in output, output
        calls = query(f"{url}?ca_cert={cert}", "SELECT count() AS n FROM tool_calls FINAL")
        assert calls == [{"n": 4}]
        code, output = _evaluate(url, tmp_path)
        assert code == 2 and f"{label} (https): connecting failed" in output
        assert "certificate verify failed" in output and "?ca_cert=" in output
        code, output = _evaluate(url.replace("clickhouses://", "clickhouse://"), tmp_path)
        assert code == 2 and "use clickhouses://" in output and "Traceback" not in output
    finally:
        server.shutdown()
    server = ChdbHttpServer(tmp_path / "ch", user="u", password="p").start()
    try:
        code, output = _evaluate(server.url().replace("clickhouse://", "clickhouses://"), tmp_path)
        assert code == 2 and "speaks plain HTTP" in output
    finally:
        server.shutdown()
