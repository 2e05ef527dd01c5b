"""The `clickhouse://` path against `tests/clickhouse/chdb_http`, ClickHouse's HTTP
interface over chdb: protocol answers, TLS, read-only users, HTTP field limits."""
