"""`tracesim mcp-mock --scenarios FILE`: an MCP server answering tools from scenario stubs.

Serves the scenarios' tool definitions and answers `tools/call` from their
`tool_stubs` (`simulator.stubs.mcp_mock`), over stdio (default: point the
agent's MCP client at this command) or streamable HTTP (`--transport http`,
`http://HOST:PORT/mcp`; `--port 0` picks a free port, printed on stderr).
Its request spans go to `--otlp-endpoint` (default `OTEL_EXPORTER_OTLP_ENDPOINT`;
none: not traced), parented by the trace context the client sent, so each
call is a span of the turn that made it.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import click

from tracesim.commands.errors import BadInput

__all__ = ["command"]


def _tracing(endpoint: str | None) -> Any:
    """Install a global provider exporting the server's spans (None: not traced)."""
    import os

    endpoint = endpoint or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    if not endpoint:
        return None
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from tracesim.simulator.baggage_processor import BaggageSpanProcessor
    from tracesim.simulator.otlp import make_span_exporter

    provider = TracerProvider(resource=Resource.create({"service.name": "tracesim-mcp-mock"}))
    provider.add_span_processor(
        BaggageSpanProcessor()
    )  # keyed by the run's baggage, like the agent
    # One export per request, before the answer is written: the turn's spans are all
    # stored by the time the agent's reply comes back.
    provider.add_span_processor(SimpleSpanProcessor(make_span_exporter(endpoint)))
    trace.set_tracer_provider(provider)
    return provider


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def _serve_http(server: Any, host: str, port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise BadInput(
            f"cannot listen on {host}:{port} ({exc}); pick another --port", command="mcp-mock"
        ) from None
    sock.listen(128)  # connections queue from now on: the line below is a promise
    bound = sock.getsockname()[1]
    click.echo(f"tracesim mcp-mock: serving http://{host}:{bound}/mcp", err=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


@click.command(name="mcp-mock")
@click.option("--scenarios", "scenarios_path", required=True, help="A scenarios.json file.")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio, or streamable HTTP at /mcp.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP listen address.")
@click.option(
    "--port",
    default=0,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="HTTP port (0: a free one).",
)
@click.option(
    "--otlp-endpoint",
    default=None,
    help="Where the server's spans go (default: $OTEL_EXPORTER_OTLP_ENDPOINT).",
)
def command(
    scenarios_path: str, transport: str, host: str, port: int, otlp_endpoint: str | None
) -> None:
    """Serve the scenarios' tools over MCP, answered from their tool_stubs."""
    try:  # the MCP SDK is an extra: name it, never a traceback
        import mcp  # noqa: F401
    except ImportError:
        raise BadInput(
            "tracesim mcp-mock needs the MCP SDK, which is not installed: "
            "pip install 'tracesim[mcp]' (from a checkout: pip install '.[mcp]')",
            command="mcp-mock",
        ) from None
    import anyio

    from tracesim.simulator.scenarios import ScenarioError, load_scenarios
    from tracesim.simulator.stubs.mcp_mock import MockTools, build_server

    try:
        scenarios = load_scenarios(scenarios_path)
        tools = MockTools(scenarios)
    except (ScenarioError, ValueError) as exc:
        raise BadInput(str(exc), command="mcp-mock") from None
    if not tools.definitions:
        raise BadInput(
            f"{scenarios_path}: no scenario has `tools` or `tool_stubs`; nothing to serve",
            command="mcp-mock",
        )
    provider = _tracing(otlp_endpoint)
    server = build_server(tools)
    try:
        if transport == "stdio":
            anyio.run(_serve_stdio, server)
        else:
            _serve_http(server, host, port)
    except KeyboardInterrupt:
        pass
    finally:
        if provider is not None:
            provider.shutdown()
        missing = [a for a in tools.answers if not a.stubbed]
        if missing:
            names = ", ".join(sorted({a.name for a in missing}))
            print(f"tracesim mcp-mock: {len(missing)} unstubbed calls ({names})", file=sys.stderr)
