"""HTTP client of a running collector's store routes: identity, Arrow queries, writes,
and the capped JSON query endpoint `tracesim sql` uses. Errors become StoreError whose
message names the URL and the fix."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from tracesim.evaluator.store.base import QueryRows, StoreError

__all__ = [
    "CA_ENV",
    "TOKEN_HINT",
    "CollectorClient",
    "CollectorUnreachable",
    "CollectorUntrusted",
]

CA_ENV = "TRACESIM_COLLECTOR_CA"
"""PEM file of the CA that signed a TLS collector's certificate (default: the system's CAs)."""

TOKEN_HINT = (
    "give the collector's token (`tracesim sql --auth-token-env VAR`, or the environment "
    "variable TRACESIM_COLLECTOR_TOKEN for every command)"
)


class CollectorUnreachable(StoreError):
    """Nothing answered at the endpoint (no connection)."""


class CollectorUntrusted(StoreError):
    """A TLS collector whose certificate this client does not trust."""


class CollectorClient:
    """One collector's HTTP endpoint (`http://host:port`), with its bearer token if any."""

    def __init__(self, endpoint: str, token: str | None, *, timeout: float = 120.0) -> None:
        import os
        import ssl

        import httpx

        self.endpoint = endpoint.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        ca = os.environ.get(CA_ENV)
        try:
            verify: Any = ssl.create_default_context(cafile=ca) if ca else True
        except (OSError, ssl.SSLError) as exc:
            raise StoreError(f"{CA_ENV}={ca}: not a readable PEM CA file ({exc})") from None
        self._http = httpx.Client(headers=headers, timeout=timeout, verify=verify)

    def _send(self, method: str, route: str, **kwargs: Any) -> Any:
        import httpx

        url = f"{self.endpoint}{route}"
        try:
            response = self._http.request(method, url, **kwargs)
        except httpx.ConnectError as exc:
            if "CERTIFICATE" in str(exc).upper() or "SSL" in str(exc).upper():
                raise CollectorUntrusted(
                    f"{url}: the collector's TLS certificate is not trusted ({exc}). Fix: give "
                    f"the PEM file of the CA that signed it in ${CA_ENV}"
                ) from None
            raise CollectorUnreachable(f"nothing answered at {url}: {exc}") from None
        except httpx.HTTPError as exc:
            raise StoreError(f"could not reach the collector at {url}: {exc}") from None
        if response.status_code in (401, 403):
            raise StoreError(
                f"{url} refused the request (HTTP {response.status_code}): {TOKEN_HINT}"
            )
        if response.status_code >= 400:
            try:
                detail = response.json().get("message") or response.text
            except (ValueError, AttributeError):
                detail = response.text
            raise StoreError(f"{url} answered HTTP {response.status_code}: {detail}")
        return response

    def identity(self) -> dict[str, Any]:
        """Which file the collector serves, its start's nonce and pid."""
        try:
            document = self._send("GET", "/tracesim/identity").json()
        except ValueError:
            document = None
        if not isinstance(document, dict):
            raise StoreError(f"{self.endpoint}/tracesim/identity did not answer a JSON object")
        return document

    def query_json(self, sql: str) -> QueryRows:
        """A user's query through the capped endpoint (`truncated` when rows were cut)."""
        url = f"{self.endpoint}/tracesim/query"
        body = self._send("POST", "/tracesim/query", json={"sql": sql}).json()
        return QueryRows(
            list(body.get("columns", [])),
            [list(r) for r in body.get("rows", [])],
            url,
            truncated=bool(body.get("truncated", False)),
        )

    def arrow(self, sql: str, params: Any, inputs: dict[str, pa.Table]) -> pa.Table:
        """Every row of a read-only query (the collector refuses, never truncates)."""
        from tracesim.schemas.frames import FRAMES, encode_frames, read_arrow

        header = {"sql": sql, "params": params, "inputs": list(inputs)}
        body = encode_frames(header, list(inputs.values()))
        response = self._send(
            "POST", "/tracesim/arrow", content=body, headers={"Content-Type": FRAMES}
        )
        try:
            return read_arrow(response.content)
        except ValueError as exc:
            raise StoreError(f"{self.endpoint}/tracesim/arrow: {exc}") from None

    def write(self, writes: list[dict[str, Any]], tables: list[pa.Table]) -> int:
        """Apply evaluate's writes in one transaction; the rows inserted."""
        from tracesim.schemas.frames import FRAMES, encode_frames

        body = encode_frames({"writes": writes}, tables)
        response = self._send(
            "POST", "/tracesim/write", content=body, headers={"Content-Type": FRAMES}
        )
        return int(response.json().get("inserted", 0))

    def close(self) -> None:
        self._http.close()
