"""Runs an ASGI app with uvicorn on its own thread and event loop, on a socket bound up front
(so port 0 yields the real port and a taken port fails before anything starts), over TLS
when given a certificate and key. Every request must arrive whole within `read_timeout`
seconds (`http_read_guard`): a stalled client is cut and counted in `cut`."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import uvicorn
from tracesim.collector.receivers.http_read_guard import (
    DEFAULT_HTTP_READ_TIMEOUT,
    ReadGuard,
    guarded_protocol,
)
from tracesim.collector.receivers.tls import TlsConfig

__all__ = ["HttpServer"]


class HttpServer:
    """uvicorn in a background thread; `start` returns once it accepts connections."""

    def __init__(
        self,
        app: Any,
        *,
        host: str = "127.0.0.1",
        port: int = 4318,
        tls: TlsConfig | None = None,
        read_timeout: float = DEFAULT_HTTP_READ_TIMEOUT,
    ) -> None:
        self._guard = ReadGuard(read_timeout)
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        try:
            self._sock.bind((host, port))
        except OSError as error:
            self._sock.close()
            raise OSError(
                f"cannot listen for OTLP/HTTP on {host}:{port}: {error.strerror}; "
                "choose another with --http-port (0 picks a free one)"
            ) from None
        self._sock.listen(1024)
        self.host = host
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            http=guarded_protocol(self._guard),
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=5,
            ssl_certfile=tls.cert_path if tls else None,
            ssl_keyfile=tls.key_path if tls else None,
        )
        try:
            config.load()  # builds the SSL context now, on this thread
        except BaseException:
            self._sock.close()
            raise
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def cut(self) -> int:
        """Connections closed because their request did not arrive whole in time."""
        return self._guard.cut

    def start(self, timeout: float = 10.0) -> None:
        """Serve in a thread; wait until the server has started."""
        started = threading.Event()

        async def serve() -> None:
            task = asyncio.create_task(self._server.serve(sockets=[self._sock]))
            while not self._server.started and not task.done():
                await asyncio.sleep(0.01)
            started.set()
            await task

        self._thread = threading.Thread(
            target=lambda: asyncio.run(serve()), name="tracesim-http", daemon=True
        )
        self._thread.start()
        if not started.wait(timeout):
            raise RuntimeError("OTLP/HTTP server did not start")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop accepting, finish requests in flight, close the socket (idempotent)."""
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout)
            self._thread = None
        self._sock.close()
