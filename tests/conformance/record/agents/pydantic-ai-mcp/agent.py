"""A Pydantic AI agent whose tools come from an MCP server (the official `mcp` SDK over
stdio) through Pydantic AI's `MCPToolset` (a FastMCP client), instrumented with InstrumentationSettings.

One call is seen as Pydantic AI's tool span, the MCP client span and the MCP server span
(the server process exports its own). The conversation id is Pydantic AI's
`conversation_id` run argument. The MCP tool's failure comes back as an error result,
which Pydantic AI hands to the model as a failed tool call (`tool_error_behavior="failed"`).
"""

import os
import sys
from pathlib import Path

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from pydantic_ai import Agent
from fastmcp.client.transports import PythonStdioTransport
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

provider = TracerProvider(resource=Resource.create({"service.name": os.environ["TSREC_VARIANT"]}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)

model = OpenAIChatModel(
    "scripted", provider=OpenAIProvider(base_url=os.environ["MODEL_BASE_URL"], api_key="sk-local")
)
Agent.instrument_all(InstrumentationSettings())
server = MCPToolset(
    PythonStdioTransport(
        str(Path(__file__).with_name("server.py")), env=dict(os.environ), python_cmd=sys.executable
    ),
    tool_error_behavior="failed",
)
agent = Agent(model, name="conformance_agent", toolsets=[server])

try:
    result = agent.run_sync("Weather in Paris twice, then order A1?", conversation_id="conv-42")
    print(result.output)
finally:
    provider.force_flush()
