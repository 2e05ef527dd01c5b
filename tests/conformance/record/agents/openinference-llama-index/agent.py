"""A llama-index FunctionAgent on OpenAILike, instrumented by openinference-instrumentation-llama-index.

llama-index has no conversation id of its own, so the run is wrapped in OpenInference's
`using_session("conv-42")`. Tools are plain functions turned into FunctionTools by the
agent; the agent workflow hands a tool's exception back to the model as an error output.
AGENT_STREAMING (the variant's env) is FunctionAgent's `streaming` flag: on by default,
and then the model is asked without usage, so no tokens reach the telemetry.
"""

import asyncio
import os

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.llms.openai_like import OpenAILike
from openinference.instrumentation import using_session
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
LlamaIndexInstrumentor().instrument(tracer_provider=provider)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


async def main():
    llm = OpenAILike(
        model="scripted",
        api_base=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        is_chat_model=True,
        is_function_calling_model=True,
        context_window=8192,
    )
    agent = FunctionAgent(
        tools=[get_weather, lookup_order],
        llm=llm,
        system_prompt="Answer with the tools.",
        streaming=os.environ.get("AGENT_STREAMING", "1") == "1",
    )
    try:
        with using_session("conv-42"):
            print(await agent.run(user_msg="Weather in Paris twice, then order A1?"))
    finally:
        provider.force_flush()


asyncio.run(main())
