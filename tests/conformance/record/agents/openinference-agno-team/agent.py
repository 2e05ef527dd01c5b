"""An Agno Team (a leader that delegates to a member agent) on OpenAIChat, instrumented by
openinference-instrumentation-agno.

The leader has lookup_order and delegates the weather to its member, which has
get_weather: a nested delegate agent in one run. The conversation is the Team's session
(`Team(session_id="conv-42")`). Each agent gets its own script from the scripted model,
chosen by the tools its requests offer.
"""

import os

from agno.agent import Agent
from agno.models.openai import OpenAIChat
from agno.team import Team
from openinference.instrumentation.agno import AgnoInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
AgnoInstrumentor().instrument(tracer_provider=provider)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    def model():
        return OpenAIChat(
            id="scripted",
            base_url=os.environ["OPENAI_BASE_URL"],
            api_key=os.environ["OPENAI_API_KEY"],
        )

    weather = Agent(
        name="weather-agent", role="Knows the weather", model=model(), tools=[get_weather]
    )
    team = Team(
        name="conformance-team",
        members=[weather],
        model=model(),
        tools=[lookup_order],
        session_id="conv-42",
    )
    try:
        print(team.run("Weather in Paris, then order A1?").content)
    finally:
        provider.force_flush()


main()
