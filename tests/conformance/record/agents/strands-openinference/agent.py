"""A Strands agent with two tools on its OpenAIModel (the scripted model), its native OTel
spans turned into OpenInference by openinference-instrumentation-strands-agents'
StrandsAgentsToOpenInferenceProcessor (added before the exporter, as its docs show).

StrandsTelemetry sets the tracer provider; the processor and the OTLP/HTTP exporter are
added to it. The session id is a trace attribute (`session.id`).
"""

import os

from opentelemetry import trace
from strands import Agent, tool
from strands.models.openai import OpenAIModel
from openinference.instrumentation.strands_agents import StrandsAgentsToOpenInferenceProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from strands.telemetry import StrandsTelemetry

telemetry = StrandsTelemetry()
telemetry.tracer_provider.add_span_processor(StrandsAgentsToOpenInferenceProcessor())
telemetry.tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))


@tool
def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: The city.
    """
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up.

    Args:
        order_id: The order id.
    """
    raise ValueError(f"order {order_id} not found")


model = OpenAIModel(
    client_args={"base_url": os.environ["MODEL_BASE_URL"], "api_key": "sk-local"},
    model_id="scripted",
)
agent = Agent(
    name="conformance_agent",
    model=model,
    tools=[get_weather, lookup_order],
    callback_handler=None,
    trace_attributes={"session.id": "conv-42"},
)
try:
    print(agent("Weather in Paris twice, then order A1?"))
except ValueError as exc:
    print("run stopped by the tool's exception:", exc)
trace.get_tracer_provider().force_flush()
