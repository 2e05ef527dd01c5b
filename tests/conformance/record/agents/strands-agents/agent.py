"""A Strands agent with two tools on its OpenAIModel (the scripted model), native OTel tracing.

StrandsTelemetry sets the tracer provider and its OTLP/HTTP exporter (from
OTEL_EXPORTER_OTLP_ENDPOINT). The session id is a trace attribute (`session.id`), the way
the Strands docs attach sessions to traces. The semconv flavour follows
OTEL_SEMCONV_STABILITY_OPT_IN (set per variant in expected.json).
"""

import os

from opentelemetry import trace
from strands import Agent, tool
from strands.models.openai import OpenAIModel
from strands.telemetry import StrandsTelemetry

StrandsTelemetry().setup_otlp_exporter()


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
