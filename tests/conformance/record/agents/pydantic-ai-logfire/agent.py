"""A Pydantic AI agent instrumented through logfire, exporting over OTLP (not to Logfire).

`logfire.configure(send_to_logfire=False)` picks the OTLP endpoint up from
OTEL_EXPORTER_OTLP_ENDPOINT; `logfire.instrument_pydantic_ai()` turns on Pydantic AI's
instrumentation with logfire's defaults. The conversation id is Pydantic AI's
`conversation_id` run argument. Pydantic AI ends the run on the tool's exception.
"""

import os

import logfire
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

logfire.configure(send_to_logfire=False, service_name=os.environ["TSREC_VARIANT"], console=False)
logfire.instrument_pydantic_ai()

model = OpenAIChatModel(
    "scripted", provider=OpenAIProvider(base_url=os.environ["MODEL_BASE_URL"], api_key="sk-local")
)
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
logfire.force_flush()
