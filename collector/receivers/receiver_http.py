"""OTLP/HTTP receiver (starlette app): /v1/traces, /v1/logs, /tracesim/query, and the
store routes of the reading and evaluating commands (`collector.query.store_routes`):
GET /tracesim/identity, POST /tracesim/arrow, POST /tracesim/write.

Protobuf or JSON bodies, optionally gzip'd; the answer uses the request's
content type. Size is checked on Content-Length, while reading, and while
decompressing (no gzip bombs). Errors map once: 400 malformed, 401 token,
413 too large, 415 content type, 503 + Retry-After when full.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import orjson
from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from tracesim.collector.errors import Busy, InvalidRequest, TooLarge
from tracesim.collector.ingest import Ingest
from tracesim.collector.query.query import QueryAnswer
from tracesim.collector.receivers.inflate import inflate
from tracesim.collector.receivers.responses import logs_response as _logs_response
from tracesim.collector.receivers.responses import trace_response as _trace_response

__all__ = ["StoreRoutes", "build_app"]

_PROTOBUF = "application/x-protobuf"
_JSON = "application/json"

QueryFn = Callable[[str, list[Any] | None], "Future[QueryAnswer]"]
"""Queues a query on the query workers (never the receivers' threads); raises Busy when full."""


class StoreRoutes:
    """What the collector does for the store routes; each call queues on the query workers
    (raises Busy when full) and its future raises InvalidRequest / TooLarge on bad input."""

    def __init__(
        self,
        identity: Callable[[], dict[str, Any]],
        arrow: Callable[[str, list[Any] | None, dict[str, Any]], Future[Any]],
        write: Callable[[Any, list[Any]], Future[int]],
        max_write_bytes: int,
    ) -> None:
        self.identity = identity
        self.arrow = arrow
        self.write = write
        self.max_write_bytes = max_write_bytes


_HTTP_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (TooLarge, 413),
    (InvalidRequest, 400),
    (Busy, 503),
)
"""A refused request's HTTP status, by the error the collector raised (SPEC §9)."""


def _error_answer(error: Exception, retry_after: int | float) -> Response:
    """The answer to a refused request; 503 says when to retry."""
    status = next(code for kind, code in _HTTP_STATUS if isinstance(error, kind))
    headers = {"Retry-After": str(retry_after)} if status == 503 else None
    return _status_json(status, str(error), headers)


def _status_json(code: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """An error answer as JSON `{"code", "message"}` (google.rpc.Status shape)."""
    return Response(
        orjson.dumps({"code": code, "message": message}),
        status_code=code,
        media_type=_JSON,
        headers=headers,
    )


class _InFlight:
    """Bytes of request bodies held by requests being read or handled, across all
    connections, so many slow uploads cannot fill memory (answered 503 past `limit`).
    Used on the event loop's thread only."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.bytes = 0

    def claim(self) -> _Claim:
        return _Claim(self)


class _Claim:
    """What one request holds of the in-flight budget; `release` gives it back."""

    def __init__(self, budget: _InFlight) -> None:
        self._budget = budget
        self.bytes = 0

    def take(self, size: int) -> None:
        budget = self._budget
        if budget.bytes + size > budget.limit and budget.bytes > self.bytes:
            raise Busy("too many request bytes in flight at the collector; retry later")
        budget.bytes += size
        self.bytes += size

    def release(self) -> None:
        self._budget.bytes -= self.bytes
        self.bytes = 0


async def _read_body(request: Request, limit: int, claim: _Claim) -> bytes:
    """Read the (possibly gzip'd) body, refusing more than `limit` bytes either way; the
    bytes held are taken from `claim` as they arrive (Busy when the budget is spent)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"request body of {declared} bytes exceeds the limit of {limit}")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise TooLarge(f"request body exceeds the limit of {limit} bytes")
            claim.take(len(chunk))
            chunks.append(chunk)
    except ClientDisconnect:  # gone, or cut by the read deadline: nothing of it is kept
        raise InvalidRequest("the client closed the connection before its whole body") from None
    body = b"".join(chunks)
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding == "gzip":
        inflated = inflate(body, limit)
        claim.take(len(inflated))
        return inflated
    if encoding not in ("identity", ""):
        raise InvalidRequest(f"unsupported Content-Encoding {encoding!r} (use gzip or none)")
    return body


def build_app(
    ingest: Ingest,
    *,
    query: QueryFn,
    store_routes: StoreRoutes | None = None,
    auth_token: str | None = None,
    max_request_bytes: int = 16 << 20,
    max_inflight_bytes: int | None = None,
    retry_after: int = 1,
) -> Starlette:
    """The ASGI app of the HTTP receiver. `max_inflight_bytes` (default 4 requests of the
    largest size) bounds the bytes of all request bodies held at once."""
    expected = f"Bearer {auth_token}".encode() if auth_token else None
    inflight = _InFlight(max_inflight_bytes or 4 * max_request_bytes)

    def authorized(request: Request) -> bool:
        if expected is None:
            return True
        given = request.headers.get("authorization", "").encode()
        return hmac.compare_digest(given, expected)

    def export_endpoint(
        export_pb: Callable[[bytes], tuple[int, str]],
        export_json: Callable[[bytes], tuple[int, str]],
        response_for: Callable[[int, str], Any],
    ) -> Callable[..., Any]:
        async def endpoint(request: Request) -> Response:
            if not authorized(request):
                return _status_json(401, "missing or wrong bearer token in Authorization header")
            content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type not in (_PROTOBUF, _JSON):
                return _status_json(
                    415, f"unsupported Content-Type {content_type!r}; use {_PROTOBUF} or {_JSON}"
                )
            claim = inflight.claim()
            try:
                body = await _read_body(request, max_request_bytes, claim)
                export = export_pb if content_type == _PROTOBUF else export_json
                rejected, message = await run_in_threadpool(export, body)
            except (TooLarge, InvalidRequest, Busy) as error:
                return _error_answer(error, retry_after)
            finally:
                claim.release()
            answer = response_for(rejected, message)
            if content_type == _PROTOBUF:
                return Response(answer.SerializeToString(), media_type=_PROTOBUF)
            return Response(json_format.MessageToJson(answer, indent=None), media_type=_JSON)

        return endpoint

    async def query_endpoint(request: Request) -> Response:
        if not authorized(request):
            return _status_json(401, "missing or wrong bearer token in Authorization header")
        claim = inflight.claim()
        try:
            body = await _read_body(request, max_request_bytes, claim)
            claim.release()  # the query text is small once parsed
            document = orjson.loads(body)
            if not isinstance(document, dict) or not isinstance(document.get("sql"), str):
                raise InvalidRequest('body must be JSON {"sql": "...", "params": [...]}')
            params = document.get("params")
            if params is not None and not isinstance(params, list):
                raise InvalidRequest('"params" must be a JSON list')
            answer = await asyncio.wrap_future(query(document["sql"], params))
        except orjson.JSONDecodeError as error:
            return _status_json(400, f"body is not valid JSON: {error}")
        except (TooLarge, InvalidRequest, Busy) as error:
            return _error_answer(error, retry_after)
        finally:
            claim.release()
        payload: dict[str, Any] = {"columns": answer.columns, "rows": answer.rows}
        if answer.truncated:  # absent means every row is there
            payload["truncated"] = True
        return Response(orjson.dumps(payload), media_type=_JSON)

    async def framed(request: Request, limit: int) -> tuple[dict[str, Any], list[Any]]:
        from tracesim.schemas.frames import decode_frames

        claim = inflight.claim()
        try:
            body = await _read_body(request, limit, claim)
            try:
                return decode_frames(body)
            except ValueError as error:
                raise InvalidRequest(str(error)) from None
        finally:
            claim.release()

    async def store_call(request: Request, handle: Callable[..., Any]) -> Response:
        if not authorized(request):
            return _status_json(401, "missing or wrong bearer token in Authorization header")
        if store_routes is None:
            return _status_json(404, "this collector does not serve its store")
        try:
            return await handle(request, store_routes)
        except (TooLarge, InvalidRequest, Busy) as error:
            return _error_answer(error, retry_after)

    def store_route(handle: Callable[..., Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            return await store_call(request, handle)

        return endpoint

    async def identity(request: Request, routes: StoreRoutes) -> Response:
        return Response(orjson.dumps(routes.identity()), media_type=_JSON)

    async def arrow(request: Request, routes: StoreRoutes) -> Response:
        from tracesim.schemas.frames import ARROW_STREAM, write_arrow

        header, tables = await framed(request, max_request_bytes)
        sql, params, names = header.get("sql"), header.get("params"), header.get("inputs", [])
        if not isinstance(sql, str) or not isinstance(params, (list, dict, type(None))):
            raise InvalidRequest('header must be {"sql": "...", "params": [...], "inputs": [...]}')
        if (
            not isinstance(names, list)
            or len(names) != len(tables)
            or not all(isinstance(name, str) for name in names)
        ):
            raise InvalidRequest('"inputs" must name each table sent, in order')
        inputs = dict(zip(names, tables, strict=True))
        table = await asyncio.wrap_future(routes.arrow(sql, params, inputs))
        return Response(await run_in_threadpool(write_arrow, table), media_type=ARROW_STREAM)

    async def write(request: Request, routes: StoreRoutes) -> Response:
        header, tables = await framed(request, routes.max_write_bytes)
        inserted = await asyncio.wrap_future(routes.write(header.get("writes"), tables))
        return Response(orjson.dumps({"inserted": inserted}), media_type=_JSON)

    routes = [
        Route(
            "/v1/traces",
            export_endpoint(ingest.export_traces, ingest.export_traces_json, _trace_response),
            methods=["POST"],
        ),
        Route(
            "/v1/logs",
            export_endpoint(ingest.export_logs, ingest.export_logs_json, _logs_response),
            methods=["POST"],
        ),
        Route("/tracesim/query", query_endpoint, methods=["POST"]),
        Route("/tracesim/identity", store_route(identity), methods=["GET"]),
        Route("/tracesim/arrow", store_route(arrow), methods=["POST"]),
        Route("/tracesim/write", store_route(write), methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.state.inflight = inflight  # read by tests and diagnostics
    return app
