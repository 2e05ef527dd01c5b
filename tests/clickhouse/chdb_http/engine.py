"""The chdb session a served data directory runs on: one statement at a time, each with
its request's database and query-level settings (so the engine enforces them)."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from tests.clickhouse.chdb_http.protocol import TRAILING_FORMAT, ClickHouseError, quote

__all__ = ["Engine"]

_NO_EFFECT = re.compile(r"^\s*(SET|USE)\b", re.IGNORECASE)
_PROBE_SCOPE = re.compile(r":? In scope SELECT formatQuery\(.*\)(?=\. \()", re.DOTALL)


class Engine:
    """The chdb session every request runs on, one statement at a time."""

    def __init__(
        self,
        data_dir: Path,
        *,
        timezone: str | None = None,
        profile: dict[str, str] | None = None,
    ) -> None:
        """`timezone`: the server's `<timezone>` (what `timezone()` says and DateTime values
        without one use), as the session's default; a request's `session_timezone` wins.
        `profile`: the default profile's settings (what a request starts from)."""
        from chdb import session

        self._lock = threading.Lock()
        self._session: Any = session.Session(str(data_dir))
        self._run(f"SET session_timezone = {quote(timezone or '')}")
        for name, value in (profile or {}).items():
            self._run(f"SET {name} = {quote(value)}")
        row = self._run("SELECT version(), timezone(), getSetting('enable_http_compression')")
        self.version, self.timezone, compression = row.decode().rstrip("\n").split("\t")
        self.http_compression_default = compression
        rows = self._run("SELECT name, value FROM system.settings").decode().splitlines()
        self.defaults = dict(row.split("\t", 1) for row in rows)
        """Every setting's value at start (a readonly=1 user may only "set" these)."""

    def _run(self, sql: str, fmt: str = "TabSeparated", params: dict[str, str] | None = None):
        if self._session is None:
            raise ClickHouseError(210, "NETWORK_ERROR", "Code: 210. DB::Exception: shut down.")
        try:
            result = self._session.query(sql, fmt, params=params or None)
        except Exception as exc:  # noqa: BLE001 - every engine error becomes a ClickHouse error
            raise ClickHouseError.of(exc) from None
        return result.bytes()

    def execute(
        self,
        sql: str,
        *,
        fmt: str,
        database: str,
        params: dict[str, str],
        settings: dict[str, str],
    ) -> bytes:
        """Run one request's statement in `database` with its query-level `settings`."""
        with self._lock:
            self._run(f"USE `{database}`")  # 81 UNKNOWN_DATABASE as the server answers
            if _NO_EFFECT.match(sql):
                self._check_syntax(sql)
                return b""  # a session-less request: SET / USE end with it
            if not settings:
                return self._run(sql, fmt, params)
            clause = " SETTINGS " + ", ".join(f"{k} = {quote(v)}" for k, v in settings.items())
            # Query-level SETTINGS follow a FORMAT clause (statements with output), or end
            # the statement (DELETE, INSERT SELECT); statements taking neither run as they are.
            if TRAILING_FORMAT.search(sql.encode()) or sql.lstrip()[:6].upper() == "INSERT":
                variants = [sql + clause]
            else:
                variants = [f"{sql}\nFORMAT {fmt}{clause}", f"{sql}{clause}"]
            for variant in variants:
                try:
                    return self._run(variant, fmt, params)
                except ClickHouseError as exc:
                    if exc.name != "SYNTAX_ERROR":
                        raise
                    self._check_syntax(sql)  # the error of the statement as the client wrote it
            if settings.get("readonly", "0") not in ("", "0"):
                raise ClickHouseError(
                    164,
                    "READONLY",
                    "Code: 164. DB::Exception: Cannot execute query in readonly mode. (READONLY)",
                )
            return self._run(sql, fmt, params)

    def _check_syntax(self, sql: str) -> None:
        """Raise the engine's SYNTAX_ERROR for `sql` itself, if it has one."""
        try:
            self._run("SELECT formatQuery({q:String})", params={"q": _escaped(sql)})
        except ClickHouseError as exc:
            exc.message = _PROBE_SCOPE.sub("", exc.message)  # the error as the query's own
            raise

    def close(self) -> None:
        with self._lock:
            session, self._session = self._session, None
            session.close()


def _escaped(value: str) -> str:
    """A query parameter value in ClickHouse's escaped text form."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
