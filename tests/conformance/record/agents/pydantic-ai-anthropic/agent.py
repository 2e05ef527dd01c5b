"""A Pydantic AI agent with two tools on AnthropicModel (the Anthropic SDK 2.x, which
traces its own requests), instrumented with InstrumentationSettings: Pydantic AI's chat
span and the SDK's own span for the same request. The conversation id is Pydantic AI's
`conversation_id` run argument. A tool's plain exception ends the run (Pydantic AI does
not feed it back): the agent catches it, flushes and exits 0.
"""

import os

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.providers.anthropic import AnthropicProvider

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)

model = AnthropicModel(
    "claude-scripted",
    provider=AnthropicProvider(base_url=os.environ["MODEL_ROOT_URL"], api_key="sk-ant-local"),
)
Agent.instrument_all(InstrumentationSettings())
agent = Agent(model, name="conformance_agent")


@agent.tool_plain
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


@agent.tool_plain
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


try:
    result = agent.run_sync("Weather in Paris twice, then order A1?", conversation_id="conv-42")
    print(result.output)
except ValueError as exc:
    print("run stopped by the tool's exception:", exc)
provider.force_flush()
