"""A Pydantic AI agent with two tools on OpenAIChatModel, its own instrumentation turned into
OpenInference by openinference-instrumentation-pydantic-ai's span processor (the way its
docs say: OpenInferenceSpanProcessor before the exporter's processor).

The conversation id is Pydantic AI's own `conversation_id` run argument. A
tool's plain exception is not fed back to the model: Pydantic AI ends the run with it, so
the agent catches it here, flushes and exits 0.
"""

import os

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from openinference.instrumentation.pydantic_ai import OpenInferenceSpanProcessor
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

provider = TracerProvider()
provider.add_span_processor(OpenInferenceSpanProcessor())
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)

settings = InstrumentationSettings()
model = OpenAIChatModel(
    "scripted", provider=OpenAIProvider(base_url=os.environ["MODEL_BASE_URL"], api_key="sk-local")
)
Agent.instrument_all(settings)
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
