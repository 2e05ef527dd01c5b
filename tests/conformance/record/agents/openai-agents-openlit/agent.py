"""A nested delegate agent (agent-as-tool) on the OpenAI Agents SDK (Responses API),
instrumented by OpenLIT (`openlit.init`: its openai-agents and openai instrumentations).

The orchestrator offers `weather_agent` (another Agent turned into a tool with
`Agent.as_tool`) and `lookup_order`; the delegate runs its own model loop with
`get_weather`. OpenLIT has no session notion of its own: the run is wrapped in one
application span carrying `gen_ai.conversation.id`. lookup_order's failure reaches the
model through the documented `failure_error_function`.
"""

import os

import openlit
from agents import Agent, RunConfig, Runner, function_tool
from opentelemetry import trace

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    disable_metrics=True,
    capture_message_content=True,
)


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def tool_error(ctx, error: Exception) -> str:
    return f"error: {error}"


@function_tool(failure_error_function=tool_error)
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


delegate = Agent(
    name="weather_delegate",
    instructions="Answer weather questions with get_weather.",
    model="scripted",
    tools=[get_weather],
)


def main():
    weather_tool = delegate.as_tool(
        tool_name="weather_agent",
        tool_description="Ask the weather delegate.",
    )
    orchestrator = Agent(
        name="orchestrator",
        instructions="Answer with the tools.",
        model="scripted",
        tools=[weather_tool, lookup_order],
    )
    config = RunConfig(group_id="conv-42", workflow_name="conformance")
    tracer = trace.get_tracer("conformance.agent")
    try:
        with tracer.start_as_current_span(
            "agent.run", attributes={"gen_ai.conversation.id": "conv-42"}
        ):
            result = Runner.run_sync(
                orchestrator, "Weather in Paris, then order A1?", run_config=config
            )
        print(result.final_output)
    finally:
        trace.get_tracer_provider().force_flush()


main()
