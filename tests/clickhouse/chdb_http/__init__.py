"""A protocol-faithful ClickHouse HTTP-interface test server over chdb -- NOT clickhouse-server.

No clickhouse-server installs here (Debian's is too old for Map columns; PyPI and npm ship
only clients; chdb's library has no server entry point), so the `clickhouse://` path is
tested against this: a real HTTP/1.1 server on loopback that speaks ClickHouse's HTTP
interface the way clickhouse-connect uses it and runs every statement on the real ClickHouse
engine through chdb (one Session on a data directory, statements serialised by a lock).

What it follows from the real server (src/Server/HTTPHandler.cpp and its docs):
- the query is the `query` URL parameter, a newline, then the body; the output format is
  the query's FORMAT, else `default_format`, else TabSeparated (`X-ClickHouse-Format`);
- `INSERT ... FORMAT f` / `VALUES` take their data from what follows in the body (read by
  the engine's own input format through `FROM INFILE`);
- `database` (URL or `X-ClickHouse-Database`), `param_<name>` query parameters (parsed by
  the engine), every other non-transport URL parameter as a query setting (the engine
  validates it: unknown -> 115; `readonly` enforced by the engine -> 164); a GET is readonly=2;
- credentials from `X-ClickHouse-User`/`X-ClickHouse-Key`, Basic auth or `user`/`password`
  (wrong -> 403, code 516, AUTHENTICATION_FAILED);
- errors as `Code: N. DB::Exception: ... (NAME) (version V)` with `X-ClickHouse-Exception-Code`
  and the HTTP status of `exceptionCodeToHTTPStatus` (404 unknown table/database, 400 syntax,
  500 otherwise, e.g. readonly);
- fields from the URL and from a multipart/form-data body (clickhouse-connect's route for
  parameters past 4 KiB), each value at most `http_max_field_value_size` (128 KiB: "Field
  value too long", code 1000), the request line at most `http_max_uri_size` (1 MiB: 400);
  the statement's length is the engine's `max_query_size` check;
- request bodies decoded per Content-Encoding (gzip, deflate, zstd, lz4, xz, bz2); responses
  compressed when `enable_http_compression` is 1, method chosen from Accept-Encoding in the
  server's order (zstd, br, lz4, gzip, deflate); `/ping`; HTTPS with `tls=(cert, key)`;
- a second user, `viewer`, with a `readonly = 1` profile (no setting may change: 164);
  the server's own timezone (`timezone=`).
Not implemented: HTTP sessions (`session_id` is ignored: each request is session-less, so a
`SET`/`USE` statement has no effect past its request), external data (multipart files),
`compress`/`decompress` (ClickHouse-native block compression), progress headers, summary
counts, result streaming (each result is computed whole under the lock, then sent), and the
rest of users/roles/quotas. `python -m tests.clickhouse.chdb_http DIR` serves by hand.
"""

from tests.clickhouse.chdb_http.protocol import ClickHouseError
from tests.clickhouse.chdb_http.server import ChdbHttpServer
from tests.tls_certs import self_signed_cert

__all__ = ["ChdbHttpServer", "ClickHouseError", "self_signed_cert"]
