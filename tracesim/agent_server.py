"""Point the agent under test at the run's collector; start and stop its HTTP server.

`agent_under_test(...)` is what `tracesim run` wraps the simulation in:
- a `custom` (in-process) agent: `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and an
  earlier `instrument()` of this process re-pointed, for the block;
- an HTTP agent with a `server` block: `agent_server(...)` below;
- an HTTP agent without one: nothing to do (its server is the user's).

`agent_config.server` (chat_completions and a2a agents) names the command
that serves the agent. `agent_server(...)` runs it for the duration of the
simulation:

    start   -> `{port}` / `{python}` / `{collector_grpc}` / `{collector_http}`
               substituted; OTEL_EXPORTER_OTLP_* point at the run's collector;
               stdout + stderr to `<output_dir>/agent_server.log`
    ready   -> the endpoint's port accepts a connection (or `ready_path`
               answers 2xx), polled until `ready_timeout`; a process that
               exits meanwhile fails at once, with the log's tail
    yield   -> the agent config with the placeholders substituted
    stop    -> SIGTERM to the server's process group (it shuts its
               TracerProvider down: the batched spans reach the collector),
               SIGKILL after `stop_timeout`

The caller stops the server before waiting for late spans, so what the
server flushes on SIGTERM is part of the run. Failures raise
`AgentServerError`, whose `exit_code` is 2 when the config is at fault (a
command or folder that does not exist) and 3 otherwise. POSIX only (process
groups and signals).
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from tracesim.config_loader import ConfigError
from tracesim.schemas.agent_config import AgentServerConfig, CustomAgentConfig

__all__ = [
    "LOG_NAME",
    "AgentServerError",
    "CollectorEndpoints",
    "agent_server",
    "agent_under_test",
    "check_server",
    "substitute",
]

LOG_NAME = "agent_server.log"
"""The server's stdout and stderr, in the run's output folder."""
TAIL_LINES = 20
_POLL_FIRST, _POLL_MAX = 0.02, 0.25  # seconds between readiness probes (grows)
_HINT = (
    "Run the command by hand from that folder to see why, fix agent_config.server, "
    "or start the agent yourself and leave `server:` out of the config."
)
log = logging.getLogger(__name__)


class AgentServerError(RuntimeError):
    """The agent's server could not be started or did not become ready."""

    def __init__(self, message: str, *, exit_code: int = 3) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        """2: the config names a command or folder that does not exist; 3: anything else."""


@dataclass(frozen=True)
class CollectorEndpoints:
    """Where the agent's server exports: the run's collector, as OTLP exporters spell it."""

    grpc: str | None = None
    """OTLP/gRPC endpoint with scheme, e.g. `http://127.0.0.1:4317`."""
    http: str | None = None
    """OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Export headers (a remote collector's bearer token)."""
    endpoint: str = ""
    """The endpoint as the simulator's own exporter is given it (in-process agents get it)."""

    @classmethod
    def of(cls, collector: Any, endpoint: str, headers: Mapping[str, str]) -> CollectorEndpoints:
        """From the embedded `Collector` (or None) and the endpoint the simulator exports to."""
        if collector is not None:
            grpc = collector.grpc_endpoint
            return cls(
                grpc=_with_scheme(grpc) if grpc else None,
                http=collector.http_endpoint,
                endpoint=endpoint,
            )
        if endpoint.startswith(("http://", "https://")):  # a remote OTLP/HTTP collector
            return cls(http=endpoint, headers=dict(headers), endpoint=endpoint)
        grpc = _with_scheme(endpoint) if endpoint else None
        return cls(grpc=grpc, headers=dict(headers), endpoint=endpoint)


def substitute(text: str, values: Mapping[str, str]) -> str:
    """`text` with each `{name}` of `values` replaced; other braces are left alone (JSON)."""
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def check_server(agent_config: Any, base_dir: Path) -> None:
    """Fail before anything runs when the server's folder or program does not exist."""
    server: AgentServerConfig | None = getattr(agent_config, "server", None)
    if server is None:
        return
    cwd = _cwd(server, base_dir)
    if not cwd.is_dir():
        raise ConfigError(f"agent_config.server.cwd: folder not found: {cwd}")
    program = substitute(server.command[0], {"python": sys.executable})
    if "{" in program:
        return  # filled from the run (a port or an endpoint): checked when it starts
    if not _find_program(program, cwd=cwd, env=server.env):
        raise ConfigError(
            f"agent_config.server.command: program not found: {program!r} "
            f"(looked in {cwd} and on PATH)"
        )


@contextmanager
def agent_under_test(
    agent_config: Any,
    *,
    base_dir: Path,
    output_dir: Path,
    collector: CollectorEndpoints,
) -> Iterator[Any]:
    """The agent ready to be driven and exporting to the run's collector; yields its config
    (placeholders substituted) for the connector factory."""
    if isinstance(agent_config, CustomAgentConfig):
        with _in_process(collector.endpoint, collector.headers):
            yield agent_config
        return
    with agent_server(
        agent_config, base_dir=base_dir, output_dir=output_dir, collector=collector
    ) as resolved:
        yield resolved


@contextmanager
def _in_process(endpoint: str, headers: Mapping[str, str]) -> Iterator[None]:
    """Point in-process agents at the run's collector for the block.

    Sets `OTEL_EXPORTER_OTLP_ENDPOINT` (read by `instrument()` when the agent
    module is imported) and re-points an earlier `instrument()` of this process.
    """
    from tracesim.simulator.instrument import failed_exports, flush, retarget

    saved = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    failed_before = failed_exports()
    retarget(endpoint, headers=dict(headers))
    try:
        yield
    finally:
        # every span the agent ended during the run reaches this run's collector before the
        # run goes on (to its checks, or to stopping the collector): none waits in a queue
        flush()
        lost = failed_exports() - failed_before
        if lost:
            print(
                f"tracesim: {lost} span(s) of the in-process agent could not be delivered to "
                f"the collector at {endpoint} (refused or unreachable; see the log above)",
                file=sys.stderr,
            )
        if saved is None:
            os.environ.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
        else:
            os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = saved


@contextmanager
def agent_server(
    agent_config: Any,
    *,
    base_dir: Path,
    output_dir: Path,
    collector: CollectorEndpoints,
) -> Iterator[Any]:
    """Serve the agent for the block's duration; yields its config, placeholders substituted.

    Without a `server` block the agent config is yielded as it is.
    """
    server: AgentServerConfig | None = getattr(agent_config, "server", None)
    if server is None:
        yield agent_config
        return
    values = {
        "port": str(server.port or _free_port()),
        "python": sys.executable,
        "collector_grpc": collector.grpc or "",
        "collector_http": collector.http or "",
    }
    api = agent_config.api_config
    resolved = agent_config.model_copy(
        update={"api_config": api.model_copy(update={"endpoint": substitute(api.endpoint, values)})}
    )
    process = _ServerProcess(
        server,
        command=[substitute(part, values) for part in server.command],
        cwd=_cwd(server, base_dir),
        env=_server_env(server, values, collector, agent_name=agent_config.agent_name),
        log_path=output_dir / LOG_NAME,
    )
    process.start()
    try:
        process.wait_ready(resolved.api_config.endpoint)
        yield resolved
    finally:
        process.stop()


class _ServerProcess:
    """One server process: start, readiness, stop; the log file holds its output."""

    def __init__(
        self,
        server: AgentServerConfig,
        *,
        command: list[str],
        cwd: Path,
        env: dict[str, str],
        log_path: Path,
    ) -> None:
        self.server = server
        self.command = command
        self.cwd = cwd
        self.env = env
        self.log_path = log_path
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.log_path.open("wb") as log_file:
                self.popen = subprocess.Popen(  # noqa: S603 - the user's own configured command
                    self.command,
                    cwd=self.cwd,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group: stop reaches its children
                )
        except OSError as exc:  # not found, not executable, bad cwd
            raise AgentServerError(
                f"agent_config.server.command: cannot start {self.command[0]!r} "
                f"(cwd {self.cwd}): {exc.strerror or exc}. {_HINT}",
                exit_code=2,
            ) from None
        log.info("agent server pid %s: %s", self.popen.pid, " ".join(self.command))

    def wait_ready(self, endpoint: str) -> None:
        """Return once the server answers; raise (with the log's tail) if it exits or times out."""
        assert self.popen is not None
        url = urlsplit(endpoint)
        host = url.hostname or "127.0.0.1"
        port = url.port or (443 if url.scheme == "https" else 80)
        probe_url = None
        if self.server.ready_path:
            probe_url = f"{url.scheme or 'http'}://{url.netloc}{self.server.ready_path}"
        deadline = time.monotonic() + self.server.ready_timeout
        interval = _POLL_FIRST
        last = "no answer yet"
        while True:
            remaining = deadline - time.monotonic()
            ok, last = _probe(host, port, probe_url, timeout=max(0.05, min(remaining, 2.0)))
            if ok:
                return
            try:  # waiting for the process to exit is the pause between probes
                code = self.popen.wait(timeout=min(interval, max(0.0, remaining)))
            except subprocess.TimeoutExpired:
                code = None
            if code is not None:
                raise AgentServerError(
                    f"the agent server exited with code {code} before it was ready.\n"
                    f"{self._where()}\n{self._tail()}{_HINT}"
                )
            if time.monotonic() >= deadline:
                what = f"GET {probe_url} answered 2xx" if probe_url else f"{host}:{port} accepted"
                raise AgentServerError(
                    f"the agent server was not ready after {self.server.ready_timeout:g} s: "
                    f"waited until {what} ({last}).\n{self._where()}\n{self._tail()}"
                    "Raise agent_config.server.ready_timeout if it starts slowly, and check "
                    f"that it listens on {host}:{port}, where api_config.endpoint points."
                )
            interval = min(interval * 2, _POLL_MAX)

    def stop(self) -> None:
        """SIGTERM the process group, wait `stop_timeout`, then SIGKILL; safe to call twice."""
        popen = self.popen
        if popen is None:
            return
        if popen.poll() is not None:
            if popen.returncode not in (0, -signal.SIGTERM):
                log.warning(
                    "agent server exited early with code %s; see %s",
                    popen.returncode,
                    self.log_path,
                )
            _signal_group(popen, signal.SIGKILL)  # what it started must not outlive the run
            return
        _signal_group(popen, signal.SIGTERM)
        try:
            popen.wait(timeout=self.server.stop_timeout)
        except subprocess.TimeoutExpired:
            log.warning(
                "agent server did not stop %gs after SIGTERM: killed; its last spans may be lost",
                self.server.stop_timeout,
            )
            _signal_group(popen, signal.SIGKILL)
            popen.wait()

    def _where(self) -> str:
        return f"command: {' '.join(self.command)}\ncwd: {self.cwd}"

    def _tail(self) -> str:
        try:
            lines = self.log_path.read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        if not lines:
            return f"{self.log_path} is empty.\n"
        body = "\n".join(f"  | {line}" for line in lines[-TAIL_LINES:])
        return f"last {min(len(lines), TAIL_LINES)} lines of {self.log_path}:\n{body}\n"


def _probe(host: str, port: int, url: str | None, *, timeout: float) -> tuple[bool, str]:
    """(ready, what happened) for one attempt: a TCP connect, or a GET of `url`."""
    if url is None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return True, "connected"
        except OSError as exc:
            return False, exc.strerror or type(exc).__name__
    import httpx

    try:
        response = httpx.get(url, timeout=timeout, trust_env=False)
    except httpx.HTTPError as exc:
        return False, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return response.is_success, f"last status {response.status_code}"


def _signal_group(popen: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(popen.pid, sig)  # start_new_session: the group id is the pid
    except ProcessLookupError:
        pass


def _server_env(
    server: AgentServerConfig,
    values: Mapping[str, str],
    collector: CollectorEndpoints,
    *,
    agent_name: str,
) -> dict[str, str]:
    """Inherited environment, OTLP export to the run's collector, then `server.env`.

    The export headers are exactly the run collector's (none: the variable is removed),
    so a token inherited from the user's shell never goes to another collector.
    """
    env = dict(os.environ)
    for name in (  # per-signal settings would win over the run's endpoint
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_HEADERS",  # set below when the run's collector needs headers
    ):
        env.pop(name, None)
    if collector.grpc:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.grpc
        env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "grpc"
    elif collector.http:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.http
        env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
    if collector.headers:
        env["OTEL_EXPORTER_OTLP_HEADERS"] = ",".join(
            f"{key}={quote(value)}" for key, value in collector.headers.items()
        )
    env.setdefault("OTEL_SERVICE_NAME", agent_name)
    env.setdefault("PYTHONUNBUFFERED", "1")  # the log's tail is complete when it crashes
    env.update({key: substitute(value, values) for key, value in server.env.items()})
    return env


def _cwd(server: AgentServerConfig, base_dir: Path) -> Path:
    if server.cwd is None:
        return base_dir
    cwd = Path(server.cwd).expanduser()
    return (cwd if cwd.is_absolute() else base_dir / cwd).resolve()


def _find_program(program: str, *, cwd: Path, env: Mapping[str, str]) -> bool:
    if os.sep in program:  # a path: POSIX exec resolves it against cwd
        path = Path(program).expanduser()
        path = path if path.is_absolute() else cwd / path
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(program, path=env.get("PATH", os.environ.get("PATH"))) is not None


def _free_port() -> int:
    """A loopback port free right now (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _with_scheme(endpoint: str) -> str:
    return endpoint if "://" in endpoint else f"http://{endpoint}"
