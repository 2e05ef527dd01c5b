"""The HTTP test server answers as ClickHouse's HTTP interface does (status, exception code
header, compression both ways), and HttpClient round-trips the types tracesim reads through
it: Map, DateTime64 (as naive UTC), array parameters, streams, Arrow inserts."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pytest
from tracesim.evaluator.store import StoreError, parse_store_url
from tracesim.evaluator.store.clickhouse_client import HttpClient

from tests.clickhouse.chdb_http import ChdbHttpServer

USER, PASSWORD = "alice", "pw"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ChdbHttpServer]:
    served = ChdbHttpServer(
        tmp_path / "ch", user=USER, password=PASSWORD, timezone="America/New_York"
    ).start()
    served.execute("CREATE DATABASE otel")
    served.execute(
        "CREATE TABLE otel.t (id UInt32, attrs Map(LowCardinality(String), String), "
        "ts DateTime64(9)) ENGINE = MergeTree ORDER BY id"
    )
    yield served
    served.shutdown()
    served.shutdown()  # safe twice


def _post(
    server: ChdbHttpServer,
    query: str,
    *,
    body: bytes = b"",
    method: str = "POST",
    password: str = PASSWORD,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/?{query}", data=body or None, method=method
    )
    request.add_header("X-ClickHouse-User", USER)
    request.add_header("X-ClickHouse-Key", password)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_errors_carry_the_status_code_header_and_text(server: ChdbHttpServer) -> None:
    status, headers, body = _post(server, "query=SELECT+1", password="wrong")
    assert (status, headers["X-ClickHouse-Exception-Code"]) == (403, "516")
    assert body.startswith(b"Code: 516. DB::Exception: alice: Authentication failed")
    status, headers, body = _post(server, "query=SELECT+*+FROM+otel.nowhere")
    assert (status, headers["X-ClickHouse-Exception-Code"]) == (404, "60")
    assert b"(UNKNOWN_TABLE) (version " in body
    status, headers, _ = _post(server, "query=SELECT+1&database=nodb")
    assert (status, headers["X-ClickHouse-Exception-Code"]) == (404, "81")
    status, headers, _ = _post(server, "query=SELECT+1&no_such_setting=1")
    assert (status, headers["X-ClickHouse-Exception-Code"]) == (404, "115")
    # a GET is readonly; the engine refuses the write (500, as ClickHouse answers READONLY)
    status, headers, body = _post(server, "query=DROP+TABLE+otel.t", method="GET")
    assert (status, headers["X-ClickHouse-Exception-Code"]) == (500, "164")
    assert b"alice: Cannot execute query in readonly mode" in body
    assert _post(server, "query=EXISTS+TABLE+otel.t", method="GET")[2] == b"1\n"
    status, _, body = _post(server, "", method="GET")
    assert (status, body) == (200, b"Ok.\n")
    status, headers, body = _post(server, "query=SELECT+timezone()")
    assert (body, headers["X-ClickHouse-Timezone"]) == (b"America/New_York\n", "America/New_York")


def test_compression_both_ways_and_insert_data_after_the_query(server: ChdbHttpServer) -> None:
    rows = b'{"id": 1, "attrs": {"k": "v"}, "ts": "2024-01-02 03:04:05.123456789"}\n'
    status, _, _ = _post(
        server,
        "query=INSERT+INTO+otel.t+FORMAT+JSONEachRow",
        body=gzip.compress(rows),
        headers={"Content-Encoding": "gzip"},
    )
    assert status == 200
    status, headers, body = _post(
        server,
        "enable_http_compression=1&default_format=JSONEachRow",
        body=b"SELECT id, attrs['k'] AS v FROM otel.t",
        headers={"Accept-Encoding": "gzip, deflate"},
    )
    assert (headers["Content-Encoding"], headers["X-ClickHouse-Format"]) == ("gzip", "JSONEachRow")
    assert gzip.decompress(body) == b'{"id":1,"v":"v"}\n'


def test_http_client_round_trips_through_the_server(server: ChdbHttpServer) -> None:
    url = parse_store_url(f"clickhouse://{USER}:{PASSWORD}@127.0.0.1:{server.port}/otel")
    client = HttpClient(url)
    try:
        client.use_database()
        ts = datetime(2024, 5, 6, 7, 8, 9, 123456)
        client.insert(
            "t",
            pa.table(
                {
                    "id": pa.array([1, 2], pa.uint32()),
                    "attrs": pa.array([[("a", "1")], []], pa.map_(pa.string(), pa.string())),
                    "ts": pa.array([ts, ts], pa.timestamp("us")),
                }
            ),
        )
        table = client.query(
            "SELECT id, attrs, ts FROM t WHERE has({ids:Array(UInt32)}, id) ORDER BY id",
            {"ids": [1, 2, 3]},
        )
        assert table.column("attrs").to_pylist() == [[("a", "1")], []]
        assert table.column("ts").to_pylist() == [ts, ts]  # naive UTC, as DuckDB returns
        batches = list(client.stream("SELECT number FROM numbers(50000)"))
        assert sum(batch.num_rows for batch in batches) == 50000
        client.use_database(read_only=True)
        with pytest.raises(StoreError, match="Code: 164.*Fix: a read-only session or user"):
            client.command("TRUNCATE TABLE t")
        assert client.query("SELECT count() AS n FROM t").column("n").to_pylist() == [2]
    finally:
        client.close()
        client.close()


def test_large_parameters_travel_in_the_statement(server: ChdbHttpServer) -> None:
    # ClickHouse caps each URL or form field (http_max_field_value_size, 128 KiB) ...
    status, headers, body = _post(server, "query=SELECT+{x:String}&param_x=" + "a" * 140_000)
    assert (status, headers["X-ClickHouse-Exception-Code"]) == (500, "1000")
    assert b"Field value too long" in body
    assert _post(server, "query=SELECT+1&x=" + "a" * (1 << 20))[0] == 400  # http_max_uri_size
    # ... so a chunk's chat ids past that go into the statement, in the request body
    ids = [f"chat-{i:032d}" for i in range(20_000)]  # ~800 KB of parameter text
    url = parse_store_url(f"clickhouse://{USER}:{PASSWORD}@127.0.0.1:{server.port}/otel")
    client = HttpClient(url)
    try:
        client.use_database()
        chats = "concat('chat-', leftPad(toString(number), 32, '0'))"
        sql = f"SELECT count() AS n FROM numbers(30000) WHERE {chats} IN {{ids:Array(String)}}"
        assert client.query(sql, {"ids": ids}).column("n").to_pylist() == [20_000]
        assert [b.column("n").to_pylist() for b in client.stream(sql, {"ids": ids})] == [[20_000]]
        client.command(
            "INSERT INTO t (id) SELECT number FROM numbers(30000) "
            f"WHERE {chats} IN {{ids:Array(String)}}",
            {"ids": ids},
        )
        assert client.query("SELECT count() AS n FROM t").column("n").to_pylist() == [20_000]
    finally:
        client.close()


@pytest.mark.parametrize("compress", ["lz4", "zstd"])
def test_native_inserts_and_queries_with_compressed_bodies(
    server: ChdbHttpServer, compress: str
) -> None:
    import clickhouse_connect

    client = clickhouse_connect.get_client(
        host="127.0.0.1", port=server.port, username=USER, password=PASSWORD, compress=compress
    )
    try:  # insert(): Native, the body sent with Content-Encoding: lz4 / zstd
        client.insert(
            "otel.t", [[7, {"k": "v"}, datetime(2024, 1, 2)]], column_names=["id", "attrs", "ts"]
        )
        result = client.query("SELECT id, attrs FROM otel.t WHERE id = 7")  # Native answer
        assert result.result_rows == [(7, {"k": "v"})]
    finally:
        client.close()
