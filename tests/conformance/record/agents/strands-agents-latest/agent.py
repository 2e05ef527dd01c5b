"""A Strands agent on its OpenAI model provider; Strands emits OTel GenAI spans itself.

Telemetry is Strands' own (StrandsTelemetry + its OTLP exporter); the GenAI semconv
flavour follows OTEL_SEMCONV_STABILITY_OPT_IN from the variant's env. The session id
is given the way the Strands docs show, `Agent(trace_attributes={"session.id": ...})`.
Tools are `@tool` functions; Strands returns a tool's exception to the model as an
error tool result.
"""

import os

from strands import Agent, tool
from strands.models.openai import OpenAIModel
from strands.telemetry import StrandsTelemetry

telemetry = StrandsTelemetry().setup_otlp_exporter()


@tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """An order's status.

    Args:
        order_id: The order's id.
    """
    raise ValueError(f"order {order_id} not found")


def main():
    model = OpenAIModel(
        client_args={"api_key": os.environ["OPENAI_API_KEY"], "base_url": os.environ["OPENAI_BASE_URL"]},
        model_id="scripted",
    )
    agent = Agent(
        name="conformance",
        model=model,
        tools=[get_weather, lookup_order],
        trace_attributes={"session.id": "conv-42"},
        callback_handler=None,
    )
    try:
        print(agent("Weather in Paris twice, then order A1?"))
    finally:
        telemetry.tracer_provider.force_flush()


main()
