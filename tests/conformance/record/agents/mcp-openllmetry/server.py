"""The MCP server of the mcp-openllmetry recording: the two tools, over stdio (FastMCP from
the official `mcp` package), traced by OpenLLMetry in its own process."""

import contextlib
import os
import sys

from mcp.server.fastmcp import FastMCP
from traceloop.sdk import Traceloop

with contextlib.redirect_stdout(sys.stderr):  # stdout is the MCP channel: keep its banner off
    Traceloop.init(
        app_name=os.environ["TSREC_VARIANT"] + "-server",
        api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
        telemetry_enabled=False,
        disable_batch=True,
    )

server = FastMCP("conformance-tools")


@server.tool()
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@server.tool()
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


if __name__ == "__main__":
    server.run("stdio")
