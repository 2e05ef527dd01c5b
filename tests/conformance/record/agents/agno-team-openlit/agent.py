"""An Agno Team (a leader that delegates to a member agent) on OpenAIChat, instrumented by
OpenLIT (`openlit.init`: its agno and openai instrumentations).

The leader has lookup_order and delegates the weather to its member, which has
get_weather: a nested delegate agent in one run. The conversation is the Team's session
(`Team(session_id="conv-42")`). Each agent gets its own script from the scripted model,
chosen by the tools its requests offer.
"""

import os

from agno.agent import Agent
from agno.models.openai import OpenAIChat
import openlit
from agno.team import Team
from opentelemetry import trace

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    disable_metrics=True,
    capture_message_content=True,
)


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
    tracer = trace.get_tracer("conformance.agent")
    try:  # OpenLIT has no session of its own: one application span carries the conversation
        with tracer.start_as_current_span(
            "agent.run", attributes={"gen_ai.conversation.id": "conv-42"}
        ):
            print(team.run("Weather in Paris, then order A1?").content)
    finally:
        trace.get_tracer_provider().force_flush()


main()
