"""A LlamaIndex FunctionAgent with two FunctionTools on OpenAILike (the scripted model), traced by OpenLLMetry.

traceloop-sdk instruments llama-index (and openai underneath). The session id is an
association property.
"""

import asyncio
import os

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai_like import OpenAILike
from opentelemetry import trace
from traceloop.sdk import Traceloop

Traceloop.init(
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
)
Traceloop.set_association_properties({"session_id": "conv-42"})


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


async def main():
    llm = OpenAILike(
        model="scripted",
        api_base=os.environ["MODEL_BASE_URL"],
        api_key="sk-local",
        is_chat_model=True,
        is_function_calling_model=True,
    )
    agent = FunctionAgent(
        name="conformance_agent",
        tools=[FunctionTool.from_defaults(get_weather), FunctionTool.from_defaults(lookup_order)],
        llm=llm,
        system_prompt="Answer with the tools.",
    )
    print(await agent.run("Weather in Paris twice, then order A1?"))


asyncio.run(main())
trace.get_tracer_provider().force_flush()
