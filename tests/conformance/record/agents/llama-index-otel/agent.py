"""A LlamaIndex FunctionAgent with two FunctionTools on OpenAILike (the scripted model), traced
by LlamaIndex's own OpenTelemetry integration (llama-index-observability-otel).

LlamaIndexOpenTelemetry turns LlamaIndex's instrumentation spans and events into OTel
spans, exported over OTLP/HTTP. LlamaIndex has no session id of its own.
"""

import asyncio
import os

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai_like import OpenAILike
from llama_index.observability.otel import LlamaIndexOpenTelemetry
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

LlamaIndexOpenTelemetry(
    span_exporter=OTLPSpanExporter(), service_name_or_resource=os.environ["TSREC_VARIANT"]
).start_registering()


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
