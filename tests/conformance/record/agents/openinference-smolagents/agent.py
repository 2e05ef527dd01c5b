"""A smolagents ToolCallingAgent on OpenAIServerModel, instrumented by openinference-instrumentation-smolagents.

smolagents has no conversation id of its own, so the run is wrapped in OpenInference's
`using_session("conv-42")`. Tools are smolagents `@tool` functions; smolagents records a
tool's exception as the step's error, shows it to the model and goes on. The run ends
with smolagents' own `final_answer` tool call.
"""

import os

from openinference.instrumentation import using_session
from openinference.instrumentation.smolagents import SmolagentsInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from smolagents import OpenAIServerModel, ToolCallingAgent, tool

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
SmolagentsInstrumentor().instrument(tracer_provider=provider)


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
    model = OpenAIServerModel(
        model_id="scripted",
        api_base=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
    )
    agent = ToolCallingAgent(tools=[get_weather, lookup_order], model=model, max_steps=6)
    try:
        with using_session("conv-42"):
            print(agent.run("Weather in Paris twice, then order A1?"))
    finally:
        provider.force_flush()


main()
