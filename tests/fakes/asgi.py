"""Serve an ASGI app on a free loopback port in a background thread (for tests)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

__all__ = ["serve_asgi"]


@contextmanager
def serve_asgi(app: Any, *, host: str = "127.0.0.1") -> Iterator[str]:
    """Run `app` under uvicorn on `host`:<free port>; yield its base URL; stop on exit."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="auto")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:  # wait on uvicorn's own readiness flag
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("test ASGI server did not start")
        time.sleep(0.005)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
