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

import contextlib
import os
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
    Threads, not an event loop: bytes are moved with `os.splice` (kernel to kernel, the
    GIL released), so the collector's own threads in this process are not slowed.
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
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._closing = False
        self._threads: list[threading.Thread] = []
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
        """Accept on background threads (the sockets already listen)."""
        for protocol, sock in self._sockets.items():
            thread = threading.Thread(
                target=self._accept,
                args=(protocol, sock),
                name=f"tracesim-front-{protocol}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        return self

    def _accept(self, protocol: str, listener: socket.socket) -> None:
        while True:
            try:
                client, peer = listener.accept()
            except OSError:  # closed by `close`
                return
            threading.Thread(
                target=self._handle, args=(protocol, client, peer), daemon=True
            ).start()

    def _track(self, sock: socket.socket) -> bool:
        with self._lock:
            if self._closing:
                return False
            self._open.add(sock)
            return True

    def _forget(self, *socks: socket.socket) -> None:
        with self._lock:
            for sock in socks:
                self._open.discard(sock)
        for sock in socks:
            sock.close()

    def _handle(self, protocol: str, client: socket.socket, peer: object) -> None:
        if not self._track(client):
            client.close()
            return
        upstream = None
        try:
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            spoke = sniff(_peek(client)) or protocol
            if spoke != protocol:
                self._on_mixup(Mixup(protocol, spoke, _peer(peer), served=spoke in self._targets))
                if spoke not in self._targets and spoke == HTTP:
                    _refuse_http(client, protocol)
                    return
            target = self._targets.get(spoke) or self._targets.get(protocol)
            if target is None:
                return
            upstream = socket.create_connection(target)
            upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if not self._track(upstream):
                return
            other = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
            other.start()
            _pump(client, upstream)
            other.join()
        except OSError:
            pass
        finally:
            self._forget(client, *([upstream] if upstream is not None else []))

    def close(self) -> None:
        """Stop accepting: close the listening sockets (connections keep relaying)."""
        for sock in self._sockets.values():
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def stop(self) -> None:
        """Close everything, connections included (idempotent)."""
        self.close()
        with self._lock:
            self._closing = True
            still_open, self._open = list(self._open), set()
        for sock in still_open:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(10)


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


def _peek(client: socket.socket) -> bytes:
    """The first `_PEEK` bytes, left unread (fewer at EOF, none when the client is silent)."""
    client.settimeout(_FIRST_BYTES_TIMEOUT)
    try:
        return client.recv(_PEEK, socket.MSG_PEEK | socket.MSG_WAITALL)
    except TimeoutError:
        return b""
    finally:
        client.settimeout(None)


def _refuse_http(client: socket.socket, protocol: str) -> None:
    body = (
        f"this is tracesim's {protocol} port and its OTLP/HTTP receiver is off; "
        "send OTLP/HTTP to the --http-port\n"
    ).encode()
    client.sendall(
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(OSError):  # let the client read the answer before the close
        client.shutdown(socket.SHUT_WR)
        while client.recv(_CHUNK):
            pass


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy `source` to `sink` until EOF, then half-close `sink`."""
    try:
        if hasattr(os, "splice"):
            _splice(source, sink)
        else:
            while data := source.recv(_CHUNK):
                sink.sendall(data)
    except OSError:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_RDWR)
        return
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _splice(source: socket.socket, sink: socket.socket) -> None:
    """Socket -> pipe -> socket inside the kernel; every call releases the GIL."""
    read_end, write_end = os.pipe()
    try:
        src, dst = source.fileno(), sink.fileno()
        while True:
            moved = os.splice(src, write_end, _CHUNK)
            if moved == 0:
                return
            while moved:
                moved -= os.splice(read_end, dst, moved)
    finally:
        os.close(read_end)
        os.close(write_end)
