"""A smolagents manager with a managed agent (a nested delegate), instrumented by OpenLIT.

The manager (ToolCallingAgent) offers `weather_agent` (a managed ToolCallingAgent with
`get_weather`) and `lookup_order`; the delegate runs its own model loop and answers through
smolagents' `final_answer`. smolagents has no conversation id: the run is wrapped in an
application span carrying `gen_ai.conversation.id`.
"""

import os

import openlit
from opentelemetry import trace
from smolagents import OpenAIServerModel, ToolCallingAgent, tool

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    disable_metrics=True,
    capture_message_content=True,
)


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
    delegate = ToolCallingAgent(
        tools=[get_weather],
        model=model,
        max_steps=4,
        name="weather_agent",
        description="Ask the weather delegate.",
    )
    manager = ToolCallingAgent(
        tools=[lookup_order], model=model, managed_agents=[delegate], max_steps=6
    )
    tracer = trace.get_tracer("conformance.agent")
    try:
        with tracer.start_as_current_span(
            "agent.run", attributes={"gen_ai.conversation.id": "conv-42"}
        ):
            print(manager.run("Weather in Paris, then order A1?"))
    finally:
        trace.get_tracer_provider().force_flush()


main()
