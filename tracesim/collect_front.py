"""The ports `tracesim collect` listens on: recognise which protocol a connection speaks.

An OTLP/HTTP exporter pointed at the gRPC port (or a gRPC exporter at the HTTP port)
otherwise ends with "stored 0 spans" and no hint: the gRPC server drops an HTTP/1.1
request line, the HTTP server answers a gRPC preface with 404. The front owns the
public ports, reads a connection's first bytes, and relays the connection to the
receiver that speaks its protocol (the collector's own, on loopback ports): HTTP/1.x
request lines go to the HTTP receiver, the HTTP/2 preface to the gRPC one, TLS and
anything else to the port's own receiver. A connection that came to the wrong port
is still served, and reported through `on_mixup` so the console can say which port
to use. Under TLS the protocol cannot be seen (every port is relayed as is).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["GRPC", "HTTP", "Mixup", "ProtocolFront", "sniff"]

GRPC = "gRPC"
HTTP = "OTLP/HTTP"
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_HTTP1_METHODS = (b"POST ", b"GET ", b"PUT ", b"HEAD ", b"OPTIONS ", b"DELETE ", b"PATCH ")
_PEEK = 8
"""Bytes read before choosing: enough for `PRI * H`, `OPTIONS ` and a TLS record header."""
_FIRST_BYTES_TIMEOUT = 30.0
"""A client that connects and says nothing for this long is relayed to the port's own."""
_CHUNK = 256 * 1024


def sniff(first: bytes) -> str | None:
    """The protocol a connection's first bytes speak: GRPC (the HTTP/2 preface), HTTP
    (an HTTP/1.x request line), or None (TLS, or unknown)."""
    if first and _H2_PREFACE.startswith(first[: len(_H2_PREFACE)]) and first.startswith(b"PRI"):
        return GRPC
    if any(first.startswith(m) or m.startswith(first) for m in _HTTP1_METHODS) and first:
        return HTTP
    return None


@dataclass(frozen=True)
class Mixup:
    """A connection that spoke `spoke` to the port meant for `port_protocol`."""

    port_protocol: str
    spoke: str
    peer: str
    served: bool  # relayed to the receiver that speaks it (False: that receiver is off)


class ProtocolFront:
    """Public listening sockets relaying each connection to the receiver of its protocol.

    `targets`: protocol -> (host, port) of the collector's receiver (absent: disabled).
    `ports`: protocol -> public port to listen on (0: a free one). Sockets are bound in
    the constructor, so a busy port fails before anything starts (OSError naming the flag).
    """

    def __init__(
        self,
        host: str,
        ports: dict[str, int],
        targets: dict[str, tuple[str, int]],
        *,
        on_mixup: Callable[[Mixup], None] | None = None,
    ) -> None:
        self.host = host
        self._targets = targets
        self._on_mixup = on_mixup or (lambda mixup: None)
        self._sockets: dict[str, socket.socket] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._servers: list[asyncio.AbstractServer] = []
        self._tasks: set[asyncio.Task] = set()
        try:
            for protocol, port in ports.items():
                self._sockets[protocol] = _bind(host, port, protocol)
        except BaseException:
            self.close()
            raise

    def set_targets(
        self,
        targets: dict[str, tuple[str, int]],
        *,
        on_mixup: Callable[[Mixup], None] | None = None,
    ) -> None:
        """Where to relay each protocol (known once the receivers listen), before `start`."""
        self._targets = dict(targets)
        if on_mixup is not None:
            self._on_mixup = on_mixup

    def port(self, protocol: str) -> int | None:
        """The public port of `protocol` (None: not listening)."""
        sock = self._sockets.get(protocol)
        return sock.getsockname()[1] if sock is not None else None

    def start(self) -> ProtocolFront:
        """Serve on a background thread; returns once the sockets accept connections."""
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        async def serve() -> None:
            for protocol, sock in self._sockets.items():
                server = await asyncio.start_server(
                    lambda r, w, p=protocol: self._handle(p, r, w), sock=sock
                )
                self._servers.append(server)
            ready.set()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(serve())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="tracesim-front", daemon=True)
        self._thread.start()
        ready.wait()
        return self

    async def _handle(
        self, protocol: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            first = await _first_bytes(reader)
            spoke = sniff(first) or protocol
            target = self._targets.get(spoke) or self._targets.get(protocol)
            if spoke != protocol:
                peer = writer.get_extra_info("peername")
                self._on_mixup(Mixup(protocol, spoke, _peer(peer), served=spoke in self._targets))
                if spoke not in self._targets and spoke == HTTP:
                    await _refuse_http(writer, protocol)
                    return
            if target is None:
                return
            await _relay(first, reader, writer, target)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if task is not None:
                self._tasks.discard(task)

    def close(self) -> None:
        """Stop accepting and close the listening sockets (connections keep relaying)."""
        loop = self._loop
        if loop is not None and loop.is_running():

            async def close_servers() -> None:
                for server in self._servers:
                    server.close()

            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(close_servers(), loop).result(10)
        for sock in self._sockets.values():
            sock.close()

    def stop(self) -> None:
        """Close everything, connections included, and end the thread (idempotent)."""
        self.close()
        loop, self._loop = self._loop, None
        if loop is None:
            return
        if loop.is_running():

            async def cancel() -> None:
                for task in list(self._tasks):
                    task.cancel()

            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(cancel(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        with contextlib.suppress(Exception):
            loop.close()


def _bind(host: str, port: int, protocol: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(1024)
    except OSError as error:
        sock.close()
        flag = "--grpc-port" if protocol == GRPC else "--http-port"
        what = "OTLP gRPC" if protocol == GRPC else "OTLP/HTTP"
        raise OSError(
            f"cannot listen for {what} on {host}:{port}: port in use? ({error.strerror}) "
            f"choose another with {flag} (0 picks a free one)"
        ) from None
    return sock


def _peer(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return str(peer)


async def _first_bytes(reader: asyncio.StreamReader) -> bytes:
    """Up to `_PEEK` bytes, fewer at EOF or when the client waits for the server."""
    first = bytearray()

    async def read() -> None:
        while len(first) < _PEEK:
            chunk = await reader.read(_PEEK - len(first))
            if not chunk:
                return
            first.extend(chunk)

    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(read(), _FIRST_BYTES_TIMEOUT)
    return bytes(first)


async def _refuse_http(writer: asyncio.StreamWriter, protocol: str) -> None:
    body = (
        f"this is tracesim's {protocol} port and its OTLP/HTTP receiver is off; "
        "send OTLP/HTTP to the --http-port\n"
    ).encode()
    writer.write(
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()


async def _relay(
    first: bytes,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    target: tuple[str, int],
) -> None:
    """Copy both directions between the client and `target` until both ends are done."""
    up_reader, up_writer = await asyncio.open_connection(*target)
    try:
        if first:
            up_writer.write(first)
        await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))
    finally:
        up_writer.close()
        with contextlib.suppress(Exception):
            await up_writer.wait_closed()


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await source.read(_CHUNK)
            if not data:
                break
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            if sink.can_write_eof():
                sink.write_eof()
