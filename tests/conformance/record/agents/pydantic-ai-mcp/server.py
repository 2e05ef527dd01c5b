"""The MCP server of the pydantic-ai-mcp recording: the two tools on the official SDK's
MCPServer (mcp 2.x) over stdio. The SDK's own OpenTelemetry middleware makes the server
spans; this process only installs a tracer provider exporting them over OTLP."""

import os

from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

provider = TracerProvider(
    resource=Resource.create({"service.name": os.environ["TSREC_VARIANT"] + "-server"})
)
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)

server = MCPServer("conformance-tools")


@server.tool()
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@server.tool()
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


if __name__ == "__main__":
    try:
        server.run("stdio")
    finally:
        provider.shutdown()
