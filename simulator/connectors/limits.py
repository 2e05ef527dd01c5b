"""A size cap on every answer an HTTP agent sends, decompressed bytes included.

`CappedTransport` wraps an httpx transport: the body of each response is
counted as it arrives and decoded here (gzip / deflate, never more than the
cap in memory), so a 300 MB reply or a gzip bomb ends the turn with an error
instead of filling the run's memory. Other encodings are not asked for and
refused when sent anyway. Connectors translate `ResponseTooLarge` (an
`httpx.HTTPError`) into their `ConnectorError`.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import httpx

__all__ = ["MAX_RESPONSE_BYTES", "CappedTransport", "ResponseTooLarge"]

MAX_RESPONSE_BYTES = 32 << 20
"""Largest answer (decompressed) a connector accepts from an agent by default."""

_CHUNK = 1 << 16


class ResponseTooLarge(httpx.DecodingError):
    """An answer larger than the connector's cap; the turn is recorded as an error."""


class _CappedStream(httpx.AsyncByteStream):
    """The response body, decoded and counted; raises ResponseTooLarge past `limit`."""

    def __init__(
        self, inner: httpx.AsyncByteStream, *, limit: int, encoding: str, request: httpx.Request
    ) -> None:
        self._inner = inner
        self._limit = limit
        self._request = request
        self._inflater = (
            zlib.decompressobj(wbits=47 if encoding == "gzip" else 15) if encoding else None
        )
        self._size = 0

    def _count(self, data: bytes) -> bytes:
        self._size += len(data)
        if self._size > self._limit:
            raise ResponseTooLarge(
                f"the agent's answer from {self._request.url} exceeds {self._limit} bytes "
                "(decompressed); the turn is not stored in full",
                request=self._request,
            )
        return data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        inflater = self._inflater
        async for raw in self._inner:
            if inflater is None:
                yield self._count(raw)
                continue
            data = raw
            while data:
                try:
                    out = inflater.decompress(data, _CHUNK)
                except zlib.error as error:
                    raise httpx.DecodingError(str(error), request=self._request) from None
                data = inflater.unconsumed_tail
                if out:
                    yield self._count(out)
        if inflater is not None:
            tail = inflater.flush()
            if tail:
                yield self._count(tail)

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose responses are capped at `limit` decoded bytes."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport | None = None, *, limit: int = MAX_RESPONSE_BYTES
    ) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()
        self._limit = limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["accept-encoding"] = "gzip, deflate"
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding in ("identity",):
            encoding = ""
        if encoding not in ("", "gzip", "deflate"):
            await response.aclose()
            raise httpx.DecodingError(
                f"the agent answered with Content-Encoding {encoding!r}; only gzip and deflate "
                "are accepted",
                request=request,
            )
        declared = response.headers.get("content-length", "")
        if not encoding and declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise ResponseTooLarge(
                f"the agent's answer from {request.url} exceeds {self._limit} bytes "
                f"(it declares {declared})",
                request=request,
            )
        headers = [
            (key, value)
            for key, value in response.headers.raw
            if key.lower() not in (b"content-encoding", b"content-length")
        ]
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=headers,
            stream=_CappedStream(
                response.stream, limit=self._limit, encoding=encoding, request=request
            ),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
